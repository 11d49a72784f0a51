/**
 * Issue 25 §1, connecting a standalone workspace to a central server (docs/sync.md, "Connecting a
 * standalone workspace"), against the reference server: the plan reads with GETs only and changes
 * nothing; the connect re-keys matched objects to the central pks and local ones to negative pks,
 * queues creates and kept values, leaves what was left out, keeps the hosts as local evidence; a
 * refused or failed connect leaves the workspace exactly as it was.
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import type { ConnectDecision, ConnectItem, ConnectPlan, ConnectResult } from '../../shared/sync/connect';
import { RemoteSession } from '../../electron/remote/session';
import { workspaceFile } from '../../electron/workspaces/dataFolder';
import { connectHandlers } from '../../electron/app/connectRoutes';
import type { AppCall } from '../../electron/app/appCall';
import { startReference, type ReferenceServer } from '../helpers/reference';
import { Relay } from '../helpers/relay';
import { startAppServer, type TestAppServer } from '../helpers/server';
import { SAMPLES_DIR } from '../helpers/workplace';

const T = '/rest/appliances/vendor_probe_template/';
const P = '/rest/appliances/vendor_probe/';
const E = '/rest/appliances/engine_probe/';
const S = '/rest/rules/source/';
const R = '/rest/rules/ruleset/';
const HOSTS = '/rest/appliances/host_id/';

let reference: ReferenceServer;
let relay: Relay;
beforeAll(async () => {
  reference = await startReference();
  relay = await Relay.start(reference.url);
}, 60_000);
afterAll(async () => {
  await relay?.close();
  await reference?.stop();
});

const sites: TestAppServer[] = [];
afterEach(async () => {
  for (const site of sites.splice(0)) await site.close();
});

/** Every row of every table of a workspace's database, read from a connection of its own. */
function dump(file: string): Record<string, unknown[]> {
  const db = new Database(file, { readonly: true });
  try {
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_stat%' ORDER BY name").pluck().all() as string[];
    return Object.fromEntries(tables.map((table) => [table, db.prepare(`SELECT * FROM "${table}" ORDER BY 1`).raw().all()]));
  } finally {
    db.close();
  }
}

/** Hosts of an imported host file: 12 of them, so that a pull deleting them would trip the 90 % guard. */
function hostFile(prefix: number): unknown[] {
  return Array.from({ length: 12 }, (_, i) => ({
    ip: `10.${prefix}.0.${i + 1}`,
    hits: i + 1,
    host_id: {
      first_seen: '2024-04-18T18:43:15.391346+00:00',
      last_seen: '2024-04-19T08:00:00.000000+00:00',
      hostname: [{ host: `h${i}.site.example`, first_seen: '2024-04-18T18:43:15.391346+00:00', last_seen: '2024-04-19T08:00:00.000000+00:00' }],
      services: [{ proto: 'tcp', port: 443, values: [{ app_proto: 'tls', first_seen: '2024-04-18T18:43:15.391346+0000', last_seen: '2024-04-19T08:00:00.000000+0000' }] }],
    },
  }));
}

/** The outbox as stored, in order, read from a connection of its own. */
function outboxOf(file: string): { op: string; resource: string; pk: number; fields: Record<string, unknown>; base: Record<string, unknown> }[] {
  const db = new Database(file, { readonly: true });
  try {
    const rows = db.prepare('SELECT op, resource, pk, fields, base FROM outbox ORDER BY seq').all() as { op: string; resource: string; pk: number; fields: string; base: string }[];
    return rows.map((row) => ({ ...row, fields: JSON.parse(row.fields), base: JSON.parse(row.base) }));
  } finally {
    db.close();
  }
}

interface Scenario {
  readonly site: TestAppServer;
  readonly file: string;
  readonly p: string;
  readonly local: Record<string, { pk: number }>;
  readonly central: Record<string, { pk: number }>;
}

let scenarios = 0;

/**
 * A standalone workspace with a parent and a child template, probes on them, a ruleset with a
 * source and an engine probe on it, imported hosts; a central server holding the same parent
 * template, probes of the same names that differ, and objects of its own.
 */
async function scenario(): Promise<Scenario> {
  const n = ++scenarios;
  const p = `c${n}-${Date.now() % 100000}`;
  const site = await startAppServer();
  sites.push(site);
  site.host.remotes.add({ name: 'central', url: relay.url }, reference.token);
  const api = site.api;
  const made = async (path: string, body: object): Promise<{ pk: number }> => {
    const reply = await api.post(path, body);
    expect(reply.status, reply.text).toBe(201);
    return reply.json();
  };
  const central = async (path: string, body: object): Promise<{ pk: number }> => {
    const reply = await reference.api.post(path, body);
    expect(reply.status, reply.text).toBe(201);
    return reply.json();
  };
  const base = { interfaces: [{ name: 'eth0', active: true }, { name: 'eth1', active: false }], ntp_server: 'ntp.site' };
  const local: Record<string, { pk: number }> = {};
  local.base = await made(T, { name: `${p}-base`, ...base });
  local.child = await made(T, { name: `${p}-child`, parent_tmpl: local.base.pk });
  for (const suffix of ['queue', 'drop', 'rename', 'leave', 'new']) {
    local[suffix] = await made(P, { name: `${p}-edge-${suffix}`, address: '10.0.0.1', location: 'rack 1', parent_tmpl: local.child.pk });
  }
  local.src = await made(S, { name: `${p}-src`, uri: 'https://rules.example/a.tar.gz' });
  local.rs = await made(R, { name: `${p}-rs`, sources: [local.src.pk] });
  local.eng = await made(E, { name: `${p}-eng`, address: '10.0.0.9', ruleset: local.rs.pk });
  const imported = await api.post(`${HOSTS}import/`, hostFile(n));
  expect(imported.status, imported.text).toBe(201);

  const remote: Record<string, { pk: number }> = {};
  remote.base = await central(T, { name: `${p}-base`, ...base });
  remote.other = await central(T, { name: `${p}-central-tmpl`, ntp_server: 'ntp.central' });
  for (const suffix of ['queue', 'drop', 'rename', 'leave']) {
    remote[suffix] = await central(P, { name: `${p}-edge-${suffix}`, address: '10.0.0.1', location: 'central rack', parent_tmpl: remote.base.pk });
  }
  remote.only = await central(P, { name: `${p}-central-only`, address: '10.9.9.9' });
  return { site, file: workspaceFile(site.dir, 'default'), p, local, central: remote };
}

async function planOf(site: TestAppServer): Promise<ConnectPlan> {
  const reply = await site.api.post('/app/workspaces/default/connect/plan', { remote: 'central' });
  expect(reply.status, reply.text).toBe(200);
  return reply.json();
}

function itemNamed(plan: ConnectPlan, resource: string, name: string): ConnectItem {
  const item = plan.items.find((i) => i.resource === resource && i.name === name);
  if (!item) throw new Error(`no ${resource} ${name} in the plan`);
  return item;
}

async function centralNamed(path: string, name: string): Promise<Record<string, unknown> & { pk: number }> {
  return (await reference.api.get(`${path}?name=${encodeURIComponent(name)}`)).json().results[0];
}

describe('the plan', () => {
  test('matches by name, compares as the sync does (references through the matching), reads with GETs only and changes nothing', async () => {
    const { site, file, p, local, central } = await scenario();
    const before = dump(file);
    const from = relay.requests.length;
    const plan = await planOf(site);

    expect(relay.requests.slice(from).every((r) => r.method === 'GET')).toBe(true);
    expect(relay.requests.length).toBeGreaterThan(from);
    expect(dump(file)).toEqual(before);

    // The parent template is equal on both sides: same, to take the central pk.
    const base = itemNamed(plan, 'vendor_probe_template', `${p}-base`);
    expect(base).toMatchObject({ match: 'same', pk: local.base!.pk, centralPk: central.base!.pk, differences: [] });
    expect(base.referencedBy).toEqual([`vendor_probe_template:${local.child!.pk}`]);
    // The child template and the probes the central server lacks: creates.
    expect(itemNamed(plan, 'vendor_probe_template', `${p}-child`).match).toBe('create');
    expect(itemNamed(plan, 'vendor_probe', `${p}-edge-new`).match).toBe('create');
    expect(itemNamed(plan, 'engine_probe', `${p}-eng`).match).toBe('create');
    // A probe of the same name: its location differs, and its parent (my child template, unknown there).
    const queue = itemNamed(plan, 'vendor_probe', `${p}-edge-queue`);
    expect(queue.match).toBe('collision');
    expect(queue.centralPk).toBe(central.queue!.pk);
    expect(queue.differences.map((d) => d.field).sort()).toEqual(['location', 'parent_tmpl']);
    expect(queue.differences.find((d) => d.field === 'location')).toEqual({ field: 'location', mine: 'rack 1', central: 'central rack' });

    expect(plan.centralCounts.vendor_probe).toBe((await reference.api.get(`${P}?page_size=1`)).json().count);
    expect(plan.hosts).toBe(12);
    expect(plan.localUsers).toBeGreaterThanOrEqual(1);
    expect(plan.problems).toEqual([]);
    expect(plan.central).toMatch(/^[0-9a-f]{64}$/);
  });

  test('a probe whose parent is matched compares equal on parent_tmpl when the central one has the matched pk', async () => {
    const { site, p, local, central } = await scenario();
    // Mine on the parent template (matched to the central one), the central one on its pk: equal.
    await site.api.patch(`${P}${local.drop!.pk}/`, { parent_tmpl: local.base!.pk, location: 'central rack' });
    const plan = await planOf(site);
    const drop = itemNamed(plan, 'vendor_probe', `${p}-edge-drop`);
    expect(drop.differences.map((d) => d.field)).not.toContain('parent_tmpl');
    expect(drop.centralPk).toBe(central.drop!.pk);
  });
});

const decisionsFor = (s: Scenario): Record<string, ConnectDecision> => ({
  [`vendor_probe:${s.local.queue!.pk}`]: { use: 'central', mine: 'queue' },
  [`vendor_probe:${s.local.drop!.pk}`]: { use: 'central', mine: 'drop' },
  [`vendor_probe:${s.local.rename!.pk}`]: { use: 'rename', name: `${s.p}-edge-renamed` },
  [`vendor_probe:${s.local.leave!.pk}`]: { use: 'leave_out' },
});

async function connect(site: TestAppServer, body: object): Promise<{ status: number; json: () => ConnectResult & { detail?: string; decisions?: unknown }; text: string }> {
  return site.api.post('/app/workspaces/default/connect', body);
}

describe('connecting', () => {
  test('re-keys, queues, leaves out, keeps hosts; after a sync the central server holds what was decided and the workspace equals it', async () => {
    const s = await scenario();
    const { site, p, local, central } = s;
    // Hosts an EVE log showed, beside those of the host file.
    const eve = path.join(SAMPLES_DIR, 'eve/StamusNetworks-suricata-analytics-eve.json');
    const uploaded = await site.api.send('POST', '/app/hosts/import-eve?name=eve.json', { body: fs.readFileSync(eve), headers: { 'Content-Type': 'application/octet-stream' } });
    expect(uploaded.status, uploaded.text).toBe(200);
    const plan = await planOf(site);
    const hostsBefore = (await site.api.get(`${HOSTS}?page_size=1000&ordering=ip`)).json().results;
    expect(plan.hosts).toBe(hostsBefore.length);
    expect(hostsBefore.length).toBeGreaterThan(12);
    const reply = await connect(site, { remote: 'central', central: plan.central, decisions: decisionsFor(s), pushMode: 'automatic' });
    expect(reply.status, reply.text).toBe(200);
    const result = reply.json();
    expect(result.pullError).toBeNull();
    // Creates: the child template, edge-new, the renamed one, the source, the ruleset, the engine probe; an update for edge-queue.
    expect(result.queued).toBe(7);
    expect(result.matched).toBe(3); // base, edge-queue, edge-drop
    expect(result.leftOut).toBe(1);
    expect(fs.statSync(result.backup).mode & 0o777).toBe(0o600);
    expect(path.dirname(result.backup)).toBe(path.join(site.dir, 'backups'));
    // The copy is the standalone workspace as it was.
    const copy = new Database(result.backup, { readonly: true });
    expect(copy.prepare("SELECT count(*) FROM sync_meta WHERE key = 'remote'").pluck().get()).toBe(0);
    copy.close();

    // Bound now, with the central pks for matched objects and negative ones for mine.
    expect(site.host.list().find((w) => w.name === 'default')!.remote).toBe('central');
    expect((await site.api.get(`${T}${central.base!.pk}/`)).json().name).toBe(`${p}-base`);
    const child = (await site.api.get(`${T}?name=${p}-child`)).json().results[0];
    expect(child.pk).toBeLessThan(0);
    expect(child.parent_tmpl).toBe(central.base!.pk);
    const queued = (await site.api.get(`${P}${central.queue!.pk}/`)).json();
    expect(queued.location).toBe('rack 1'); // mine, queued over the central object
    expect((await site.api.get(`${P}${central.drop!.pk}/`)).json().location).toBe('central rack');
    expect((await site.api.get(`${P}?name=${p}-edge-leave`)).json().results[0].pk).toBe(central.leave!.pk);
    const outbox = outboxOf(s.file);
    const update = outbox.find((e) => e.op === 'update');
    expect(update).toMatchObject({ resource: 'vendor_probe', pk: central.queue!.pk });
    expect(update!.fields.location).toBe('rack 1');
    expect(update!.base.location).toBe('central rack');
    expect(update!.base.parent_tmpl).toBe(central.base!.pk);
    // Dependency order: the parent of what follows comes first.
    const creates = outbox.filter((e) => e.op === 'create').map((e) => e.resource);
    expect(creates).toEqual(['source', 'ruleset', 'vendor_probe_template', 'vendor_probe', 'vendor_probe', 'engine_probe']);

    // The first pull deleted nothing local (hosts included: the guard would have stopped it otherwise).
    // Every host identity reads as before, now made of local evidence.
    const hostsAfter = (await site.api.get(`${HOSTS}?page_size=1000&ordering=ip`)).json().results;
    expect(hostsAfter).toEqual(hostsBefore);

    const session = site.host.session();
    if (!(session instanceof RemoteSession)) throw new Error('not linked');
    const report = await session.syncNow({});
    expect(report.outcome, JSON.stringify(report)).toBe('done');
    expect(report.pushed).toBe(7);

    // The central server holds what was decided.
    expect((await centralNamed(P, `${p}-edge-queue`)).location).toBe('rack 1');
    expect((await centralNamed(P, `${p}-edge-drop`)).location).toBe('central rack');
    expect((await centralNamed(P, `${p}-edge-renamed`)).location).toBe('rack 1');
    expect((await centralNamed(P, `${p}-edge-rename`)).location).toBe('central rack');
    expect((await centralNamed(P, `${p}-edge-leave`)).location).toBe('central rack');
    const centralChild = await centralNamed(T, `${p}-child`);
    expect(centralChild.parent_tmpl).toBe(central.base!.pk);
    expect((await centralNamed(P, `${p}-edge-new`)).parent_tmpl).toBe(centralChild.pk);
    const rs = await centralNamed(R, `${p}-rs`);
    expect(rs.sources).toEqual([(await centralNamed(S, `${p}-src`)).pk]);
    expect((await centralNamed(E, `${p}-eng`)).ruleset).toBe(rs.pk);

    // The workspace equals the central server for synced objects, and still holds its hosts.
    for (const path of [T, P, E, S, R]) {
      const mine = (await site.api.get(`${path}?page_size=1000&ordering=pk`)).json().results;
      const theirs = (await reference.api.get(`${path}?page_size=1000&ordering=pk`)).json().results;
      const strip = (o: Record<string, unknown>) => ({ ...o, interfaces: undefined, created: undefined, updated: undefined, created_date: undefined, updated_date: undefined, vendordevice_id: undefined });
      expect(mine.map(strip), path).toEqual(theirs.map(strip));
    }
    expect((await site.api.get(`${HOSTS}?page_size=1000&ordering=ip`)).json().results).toEqual(hostsBefore);
    expect(local.base).toBeDefined();
  }, 60_000);

  test('refused when the central server changed since the plan (a colleague made an object): the workspace is exactly as before', async () => {
    const { site, file, p } = await scenario();
    const plan = await planOf(site);
    await reference.api.post(P, { name: `${p}-colleague`, address: '10.1.1.1' });
    const before = dump(file);
    const reply = await connect(site, { remote: 'central', central: plan.central, decisions: {}, pushMode: 'review' });
    expect(reply.status).toBe(409);
    expect(reply.json().detail).toBe('the central server changed since the plan; review the plan again');
    expect(dump(file)).toEqual(before);
    expect(fs.existsSync(path.join(site.dir, 'backups'))).toBe(false);
  });

  test('bad decisions are a 400 in the field-error shape, nothing changed', async () => {
    const s = await scenario();
    const plan = await planOf(s.site);
    const before = dump(s.file);
    const reply = await connect(s.site, {
      remote: 'central',
      central: plan.central,
      pushMode: 'review',
      decisions: {
        [`vendor_probe:${s.local.queue!.pk}`]: { use: 'rename', name: `${s.p}-central-only` },
        [`vendor_probe:${s.p}-edge-new`]: { use: 'central', mine: 'queue' },
        'vendor_probe:424242': { use: 'leave_out' },
        [`vendor_probe:${s.local.drop!.pk}`]: { use: 'rename', name: 'bad\u0007name' },
      },
    });
    expect(reply.status).toBe(400);
    const errors = reply.json().decisions as Record<string, string[]>;
    expect(Object.keys(errors).sort()).toEqual([`vendor_probe:${s.local.queue!.pk}`, `vendor_probe:${s.local.drop!.pk}`, `vendor_probe:${s.p}-edge-new`, 'vendor_probe:424242'].sort());
    expect(errors[`vendor_probe:${s.local.queue!.pk}`]![0]).toContain('has a vendor_probe named');
    expect(dump(s.file)).toEqual(before);
  });

  test('the central server unreachable during the re-read, or a failure inside the transaction: the workspace is exactly as before', async () => {
    const { site, file } = await scenario();
    const plan = await planOf(site);
    const before = dump(file);
    relay.decide = () => 'drop-request';
    try {
      const reply = await connect(site, { remote: 'central', central: plan.central, decisions: {}, pushMode: 'review' });
      expect(reply.status).toBe(502);
    } finally {
      relay.decide = () => 'forward';
    }
    expect(dump(file)).toEqual(before);

    // The same connect through handlers whose transaction fails at its end.
    const failing = connectHandlers(site.host, { beforeCommit: () => { throw new Error('forced failure'); }, client: { backoff: () => 10 } });
    const call = { body: () => ({ remote: 'central', central: plan.central, decisions: {}, pushMode: 'review' }) } as unknown as AppCall;
    await expect(Promise.resolve(failing.connectWorkspace(call, { name: 'default' }))).rejects.toThrow('forced failure');
    const after = dump(file);
    expect(after).toEqual(before);
    // The copy made before the transaction went with it.
    expect(fs.readdirSync(path.join(site.dir, 'backups'))).toEqual([]);
    expect(site.host.list().find((w) => w.name === 'default')!.remote).toBeUndefined();
  }, 60_000);

  test('a workspace bound already cannot be connected', async () => {
    const { site } = await scenario();
    const plan = await planOf(site);
    expect((await connect(site, { remote: 'central', central: plan.central, decisions: {}, pushMode: 'review' })).status).toBe(200);
    const again = await planOf(site);
    expect(again.problems).toEqual(['the workspace is bound to the remote "central" already']);
    expect((await connect(site, { remote: 'central', central: again.central, decisions: {}, pushMode: 'review' })).status).toBe(409);
  }, 60_000);
});
