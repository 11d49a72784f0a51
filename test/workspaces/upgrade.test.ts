/**
 * Upgrades (issue 9): a data folder written by an earlier Outpost (test/fixtures/workspace-v1,
 * made by test/fixtures/makeWorkspaceV1.test.ts before the structure issue) opens with everything
 * in it — both workspaces, their objects and inheritance, hosts, accounts, and the bound
 * workspace's waiting changes and kept conflict — migrated to the latest schema, offline.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createAppHandler } from '../../electron/app/appHandler';
import { listen, type RunningServer } from '../../electron/server/http/nodeAdapter';
import { LATEST_VERSION } from '../../electron/server/store/migrations';
import { checkPassword } from '../../electron/server/store/users';
import { WorkspaceHost } from '../../electron/workspaces/host';
import { Client } from '../helpers/http';

const FIXTURE = path.join(__dirname, '..', 'fixtures', 'workspace-v1');
let dir: string;
let host: WorkspaceHost;
let server: RunningServer;
let api: Client;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'outpost-upgrade-'));
  fs.cpSync(FIXTURE, dir, { recursive: true });
  fs.chmodSync(dir, 0o700);
  // The data folder's own token (outpost.json) signs in, as it did before.
  host = new WorkspaceHost({ dataDir: dir, instance: { name: 'outpost-test', version: 'test', address: '127.0.0.1' } });
  server = await listen(createAppHandler({ host, version: 'test' }), { host: '127.0.0.1', port: 0 });
  api = new Client(server.url, host.token);
});
afterAll(async () => {
  await server?.close();
  await host?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('the bound workspace opens on its last state, migrated, sound', () => {
  expect(host.name).toBe('site');
  const { db } = host.current().services.store;
  expect(db.pragma('user_version', { simple: true })).toBe(LATEST_VERSION);
  expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
});

test('its waiting changes and its conflict are all there', async () => {
  const { status, entries } = (await api.get('/app/sync')).json() as { status: { remote: { name: string } }; entries: { op: string; state: string; label: string }[] };
  expect(status.remote.name).toBe('central');
  const summary = entries.map((e) => `${e.op} ${e.label} ${e.state}`).sort();
  expect(summary).toEqual(['create shop-new pending', 'delete shop-3 pending', 'update shop-1 conflict', 'update shop-2 pending']);
  const conflicts = (await api.get('/app/sync/conflicts')).json() as { conflicts: { field: string; base: unknown; mine: unknown; theirs: unknown }[] }[];
  expect(conflicts.flatMap((c) => c.conflicts)).toEqual([{ field: 'location', base: 'hall', mine: 'back office (here)', theirs: 'loading bay (central)' }]);
});

test('its mirror: templates, probes with inherited values, the local create with its negative pk', async () => {
  const probes = (await api.get('/rest/appliances/vendor_probe/?ordering=name')).json() as { results: { pk: number; name: string; timezone: string; dns_server: string }[] };
  expect(probes.results.map((p) => p.name)).toEqual(['shop-1', 'shop-2', 'shop-new']);
  expect(probes.results.find((p) => p.name === 'shop-new')!.pk).toBeLessThan(0);
  for (const probe of probes.results) expect(probe).toMatchObject({ timezone: 'Europe/Paris', dns_server: '10.0.0.53' });
});

test('the standalone workspace: a three-level template tree, overrides, rules, hosts, a read-only user', async () => {
  expect((await api.post('/app/workspaces/lab/open', {})).status).toBe(200);
  const templates = (await api.get('/rest/appliances/vendor_probe_template/?ordering=name')).json();
  expect(templates.results.map((t: { name: string }) => t.name)).toEqual(['Leaf', 'Mid', 'Root']);
  const probe = (await api.get('/rest/appliances/vendor_probe/?name=lab-1')).json().results[0];
  expect(probe).toMatchObject({ timezone: 'Asia/Tokyo', dns_server: '10.9.0.53', ntp_server: 'ntp.override', overriden_fields: ['ntp_server'] });
  expect((await api.get('/rest/appliances/engine_probe/')).json().count).toBe(1);
  expect((await api.get('/rest/rules/ruleset/')).json().results[0]).toMatchObject({ name: 'default' });
  const hosts = (await api.get('/rest/appliances/host_id/')).json();
  expect(hosts.results[0]).toMatchObject({ ip: '10.30.1.5', hits: 3 });
  expect(JSON.stringify(hosts.results[0].host_id)).toContain('printer.lab');
  const history = (await api.get('/rest/rules/history/')).json();
  expect(history.count).toBeGreaterThan(5);
  const viewer = host.current().services.users.byUsername('viewer')!;
  expect(viewer.role).toBe('Read-only');
  expect(checkPassword('viewer password 1', viewer.password)).toBe(true);
  const { db } = host.current().services.store;
  expect(db.pragma('user_version', { simple: true })).toBe(LATEST_VERSION);
  expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
});
