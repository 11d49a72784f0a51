/**
 * A workspace from before issue 22 opened by this version (migration 009): a service's details
 * become evidence of their own, protocols lower case, central parts in the central server's form
 * (UTC, lower case), and the identities written again from what is stored, once; files read
 * before are still found again (by their first line and last 4 KiB, as they were recorded).
 * Every expected value is written here from the rows put in by hand.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, expect, test } from 'vitest';
import { MIGRATIONS } from '../../electron/server/store/migrations';
import { openWorkspace } from '../../electron/workspaces/openWorkspace';
import type { ApiRequest } from '../../electron/server/http/types';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup();
});

const T1 = Date.UTC(2024, 2, 1, 10) * 1000;
const T2 = Date.UTC(2024, 2, 1, 11) * 1000;

/** A database as version 8 left it, with evidence and hosts in their old forms. */
function version8(file: string): void {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  for (const migration of MIGRATIONS.filter((m) => m.version <= 8)) db.exec(migration.sql);
  db.pragma('user_version = 8');
  const evidence = db.prepare('INSERT INTO host_evidence (ip, list, key, item, first_seen, last_seen) VALUES (?, ?, ?, ?, ?, ?)');
  evidence.run('10.0.0.1', 'services', 'TCP/22/ssh', '{"proto":"TCP","port":22,"app_proto":"ssh","ssh":{"server":{"software_version":"OpenSSH_8.7"}}}', T1, T2);
  evidence.run('10.0.0.1', 'services', 'UDP/53/dns', '{"proto":"UDP","port":53,"app_proto":"dns"}', T1, T1);
  evidence.run('10.0.0.1', 'hostname', 'srv1', '{"host":"srv1"}', T1, T2);
  db.prepare('INSERT INTO host_local (ip, hits, first_seen, last_seen) VALUES (?, ?, ?, ?)').run('10.0.0.1', 3, T1, T2);
  // Its identity as the old version served it (to be written again), and a host of a host file at +02:00.
  db.prepare('INSERT INTO host_id (ip, hits, first_seen, last_seen, hostnames, data) VALUES (?, ?, ?, ?, ?, ?)').run('10.0.0.1', 3, T1, T2, 'srv1', '{"services":[{"proto":"TCP","port":22}]}');
  const central = {
    first_seen: '2024-03-01T12:00:00.000000+02:00',
    last_seen: '2024-03-01T13:00:00.000000+02:00',
    services: [{ proto: 'TCP', port: 443, values: [{ app_proto: 'tls', first_seen: '2024-03-01T12:00:00.000000+0200', last_seen: '2024-03-01T13:00:00.000000+0200' }] }],
  };
  db.prepare("INSERT INTO host_id (ip, hits, first_seen, last_seen, hostnames, data, central) VALUES (?, ?, ?, ?, ?, ?, '')").run('10.0.0.5', 7, Date.UTC(2024, 2, 1, 10) * 1000, Date.UTC(2024, 2, 1, 11) * 1000, '', JSON.stringify(central));
  db.close();
}

async function served(opened: ReturnType<typeof openWorkspace>, ip: string): Promise<any> {
  const request: ApiRequest = { method: 'GET', path: `/rest/appliances/host_id/${ip}`, rawQuery: '', headers: { authorization: `Token ${opened.adminToken}`, host: 'localhost' }, body: Buffer.alloc(0), scheme: 'http', remoteAddress: '127.0.0.1' };
  return JSON.parse(String((await opened.api(request)).body));
}

test('a workspace of version 8 opens migrated: details as evidence of their own, protocols in lower case, central parts in UTC, identities written again', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'outpost-upgrade-'));
  cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'ws.sqlite3');
  version8(file);
  const opened = openWorkspace({ file, instance: { name: 'outpost', version: 'test', address: '127.0.0.1' } });
  cleanups.push(() => opened.close());
  const db = opened.services.store.db;
  expect(db.pragma('user_version', { simple: true })).toBe(MIGRATIONS.at(-1)!.version);
  expect(db.prepare('SELECT list, key, item, first_seen, last_seen, import_pk FROM host_evidence ORDER BY list, key').all()).toEqual([
    { list: 'hostname', key: 'srv1', item: '{"host":"srv1"}', first_seen: T1, last_seen: T2, import_pk: 0 },
    { list: 'services', key: 'tcp/22/ssh', item: '{"proto":"tcp","port":22,"app_proto":"ssh"}', first_seen: T1, last_seen: T2, import_pk: 0 },
    { list: 'services', key: 'udp/53/dns', item: '{"proto":"udp","port":53,"app_proto":"dns"}', first_seen: T1, last_seen: T1, import_pk: 0 },
    // The detail takes its service's times: the old rule kept the details of the service's latest event.
    { list: 'services.ssh', key: 'tcp/22/ssh', item: '{"server":{"software_version":"OpenSSH_8.7"}}', first_seen: T1, last_seen: T2, import_pk: 0 },
  ]);
  // The identities waiting are written (in the background while the workspace serves; here at once).
  expect(opened.services.evidence.pendingCount()).toBe(1);
  opened.services.hosts.refreshPending();
  expect(opened.services.evidence.pendingCount()).toBe(0);
  const local = (await served(opened, '10.0.0.1')).host_id;
  expect(local.services).toEqual([
    { proto: 'tcp', port: 22, values: [{ app_proto: 'ssh', first_seen: '2024-03-01T10:00:00.000000+0000', last_seen: '2024-03-01T11:00:00.000000+0000', ssh: { server: { software_version: 'OpenSSH_8.7' } } }] },
    { proto: 'udp', port: 53, values: [{ app_proto: 'dns', first_seen: '2024-03-01T10:00:00.000000+0000', last_seen: '2024-03-01T10:00:00.000000+0000' }] },
  ]);
  // 12:00 and 13:00 at +02:00 are 10:00 and 11:00 UTC.
  const central = (await served(opened, '10.0.0.5')).host_id;
  expect([central.first_seen, central.last_seen]).toEqual(['2024-03-01T10:00:00.000000+00:00', '2024-03-01T11:00:00.000000+00:00']);
  expect(central.services).toEqual([{ proto: 'tcp', port: 443, values: [{ app_proto: 'tls', first_seen: '2024-03-01T10:00:00.000000+0000', last_seen: '2024-03-01T11:00:00.000000+0000' }] }]);
});
