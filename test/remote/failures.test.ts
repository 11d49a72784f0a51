/**
 * The sync under failures (issue 4), against the real reference DRF server: unreachable and
 * restarted central servers, a token refused in the middle of the queue, one change refused with
 * a 400, page sizes honoured or capped, the mass-delete guard, and the automatic schedule. After
 * each: nothing lost, nothing duplicated, nothing stuck.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { SyncStatus } from '../../shared/app/sync';
import { nextSyncDelay, type SyncOutcome } from '../../shared/sync/schedule';
import type { Client } from '../helpers/http';
import { startReference, type ReferenceServer } from '../helpers/reference';
import { Relay } from '../helpers/relay';
import { startBound, type BoundWorkspace } from '../helpers/sync';
import { comparable, freePort, listAll } from '../helpers/syncCli';

const T = '/rest/appliances/vendor_probe_template/';
const P = '/rest/appliances/vendor_probe/';
const SYNCER_TOKEN = 'c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3';
const VIEWER_TOKEN = 'd4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4';
const SEEDED_PROBES = 110;

const folders: string[] = [];
function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'outpost-failures-'));
  folders.push(dir);
  return dir;
}

/** A seed file: `probes` vendor probes named seed-000..., an Admin "syncer" and a Read-only "viewer", each with a token. */
function seedFile(probes: number): string {
  const file = path.join(tempDir(), 'seed.json');
  const vendor_probes = Array.from({ length: probes }, (_, i) => ({ name: `seed-${String(i).padStart(3, '0')}`, address: `10.9.${Math.floor(i / 250)}.${(i % 250) + 1}` }));
  fs.writeFileSync(
    file,
    JSON.stringify({
      vendor_probes,
      users: [
        { username: 'syncer', role: 'Admin', token: SYNCER_TOKEN },
        { username: 'viewer', role: 'Read-only', token: VIEWER_TOKEN },
      ],
    }),
  );
  return file;
}

/** The remote most tests share: 110 seeded probes, and a second admin whose token can be regenerated. */
let main: ReferenceServer;
/** Capped at 30 objects a page, with the same seed. */
let capped: ReferenceServer;
const opened: { close(): Promise<void> }[] = [];

beforeAll(async () => {
  const seed = seedFile(SEEDED_PROBES);
  [main, capped] = await Promise.all([startReference({ seed }), startReference({ seed, maxPageSize: 30 })]);
}, 60_000);

afterAll(async () => {
  for (const thing of opened.reverse()) await thing.close().catch(() => undefined);
  await Promise.all([main && stopped(main), capped && stopped(capped)]);
  for (const dir of folders) fs.rmSync(dir, { recursive: true, force: true });
});

/** Stop a reference server, also one the test killed (the helper's stop() waits for an exit that already happened). */
async function stopped(remote: ReferenceServer): Promise<void> {
  const child = remote.process;
  if (child.exitCode !== null || child.signalCode !== null) return;
  await remote.stop();
}

/** Kill a reference server as a power cut would, and wait until it is gone. */
async function killed(remote: ReferenceServer): Promise<void> {
  const child = remote.process;
  if (child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await gone;
}

async function bind(remote: Pick<ReferenceServer, 'url' | 'token'>, options: Parameters<typeof startBound>[1] = {}): Promise<BoundWorkspace> {
  const site = await startBound(remote, options);
  opened.push(site);
  return site;
}

async function made(api: Client, endpoint: string, body: unknown): Promise<{ pk: number; name: string }> {
  const reply = await api.post(endpoint, body);
  if (reply.status !== 201) throw new Error(`POST ${endpoint}: ${reply.status} ${reply.text}`);
  return reply.json();
}

interface EntryLike {
  seq: number;
  op: string;
  resource: string;
  pk: number;
  state: string;
  message: string | null;
  fields: Record<string, unknown>;
}

async function entries(site: BoundWorkspace): Promise<EntryLike[]> {
  return (await site.api.get('/app/sync')).json().entries;
}

async function status(site: BoundWorkspace): Promise<SyncStatus> {
  return (await site.api.get('/app/sync')).json().status;
}

/** The outbox as it must survive a failed sync: the same entries (a create may now be 'sending'). */
function intent(list: EntryLike[]): unknown[] {
  return list.map(({ seq, op, resource, pk, fields }) => ({ seq, op, resource, pk, fields }));
}

async function expectMirrorEqual(site: BoundWorkspace, remote: Pick<ReferenceServer, 'api'>, endpoints: readonly string[] = [T, P]): Promise<void> {
  for (const endpoint of endpoints) {
    const local = await listAll(site.api, endpoint);
    const theirs = await listAll(remote.api, endpoint);
    expect(local.map(comparable), endpoint).toEqual(theirs.map(comparable));
  }
}

/** Names occurring more than once on the remote (a duplicate made by a re-sent create). */
async function duplicates(remote: Pick<ReferenceServer, 'api'>, endpoint: string): Promise<string[]> {
  const names = (await listAll(remote.api, endpoint)).map((o) => o.name as string);
  return names.filter((name, i) => names.indexOf(name) !== i);
}

async function until(what: string, check: () => Promise<boolean> | boolean, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('the central server unreachable', () => {
  test('a port nobody listens on: error, offline, the outbox intact; once a server answers there, everything is pushed', async () => {
    const port = await freePort();
    const site = await bind({ url: `http://127.0.0.1:${port}`, token: main.token });
    const tmpl = await made(site.api, T, { name: 'far-tmpl', ntp_server: 'ntp.far', comment: 'made offline' });
    await made(site.api, P, { name: 'far-probe', address: '10.4.0.1', parent_tmpl: tmpl.pk });
    const before = await entries(site);

    const report = await site.sync();
    expect(report.outcome).toBe('error');
    expect(report.error?.kind).toBe('network');
    expect(report.error?.message).toMatch(/cannot be reached/);
    expect((await status(site)).connection).toBe('offline');
    const after = await entries(site);
    expect(intent(after)).toEqual(intent(before));
    expect(after.every((e) => e.state === 'pending' || e.state === 'unconfirmed')).toBe(true);
    expect((await status(site)).outbox).toEqual({ pending: 2, parked: 0, conflicts: 0 });

    const late = await startReference({ port });
    opened.push({ close: () => stopped(late) });
    const again = await site.sync();
    expect(again.outcome, JSON.stringify(again)).toBe('done');
    expect(again.pushed).toBe(2);
    expect((await status(site)).connection).toBe('online');
    const remoteTmpl = (await late.api.get(`${T}?name=far-tmpl`)).json();
    expect(remoteTmpl.count).toBe(1);
    expect((await late.api.get(`${P}?name=far-probe`)).json().results[0].parent_tmpl).toBe(remoteTmpl.results[0].pk);
    expect(await entries(site)).toEqual([]);
    await expectMirrorEqual(site, late);
  });

  test('the central server stopped: error, offline, nothing lost; restarted on its data, the next sync pushes everything', async () => {
    const dataDir = tempDir();
    let remote = await startReference({ dataDir });
    const port = Number(new URL(remote.url).port);
    const keep = await made(remote.api, P, { name: 'stop-keep', address: '10.5.0.1' });
    const gone = await made(remote.api, P, { name: 'stop-gone', address: '10.5.0.2' });
    const site = await bind(remote);
    expect((await site.sync()).outcome).toBe('done');
    await remote.stop();

    await made(site.api, P, { name: 'stop-new', address: '10.5.0.3', comment: 'while the remote was down' });
    expect((await site.api.patch(`${P}${keep.pk}/`, { location: 'rack 1' })).status).toBe(200);
    expect((await site.api.delete(`${P}${gone.pk}/`)).status).toBe(204);
    const before = await entries(site);
    const report = await site.sync();
    expect(report).toMatchObject({ outcome: 'error', pushed: 0, error: { kind: 'network' } });
    expect((await status(site)).connection).toBe('offline');
    expect(intent(await entries(site))).toEqual(intent(before));

    remote = await startReference({ dataDir, port, token: remote.token });
    opened.push({ close: () => stopped(remote) });
    const again = await site.sync();
    expect(again.outcome, JSON.stringify(again)).toBe('done');
    expect(again.pushed).toBe(3);
    expect((await remote.api.get(`${P}?name=stop-new`)).json().count).toBe(1);
    expect((await remote.api.get(`${P}${keep.pk}/`)).json().location).toBe('rack 1');
    expect((await remote.api.get(`${P}${gone.pk}/`)).status).toBe(404);
    expect(await entries(site)).toEqual([]);
    await expectMirrorEqual(site, remote);
  });
});

describe('the central server killed and restarted in the middle of a sync', () => {
  let dataDir: string;
  let remote: ReferenceServer;
  let relay: Relay;

  beforeAll(async () => {
    dataDir = tempDir();
    remote = await startReference({ dataDir, seed: seedFile(120) });
    relay = await Relay.start(remote.url);
    opened.push(relay, { close: () => stopped(remote) });
  }, 60_000);

  async function restart(): Promise<void> {
    await killed(remote);
    remote = await startReference({ dataDir, port: Number(new URL(remote.url).port), token: remote.token });
  }

  test('during a long push, right after a POST was done but before its answer arrived: every object once, nothing lost', async () => {
    const site = await bind({ url: relay.url, token: remote.token });
    expect((await site.sync()).outcome).toBe('done');
    const seeded = (await listAll(site.api, P)).slice(0, 5);
    for (let i = 0; i < 30; i++) await made(site.api, T, { name: `push-${i}`, ntp_server: `ntp-${i}`, comment: `push ${i}` });
    for (const probe of seeded) expect((await site.api.patch(`${P}${probe.pk}/`, { location: 'after the restart' })).status).toBe(200);

    let posts = 0;
    relay.decide = (request) => {
      if (request.method !== 'POST' || ++posts !== 10) return 'forward';
      // The server does the 10th create, then dies before its answer leaves.
      setImmediate(() => void killed(remote));
      return 'drop-answer';
    };
    const report = await site.sync();
    relay.decide = () => 'forward';
    expect(report).toMatchObject({ outcome: 'error', error: { kind: 'network' } });
    expect((await status(site)).connection).toBe('offline');
    // Nine creates done and re-keyed; the tenth's outcome unknown (no request carries it now); the rest untouched.
    expect((await entries(site)).map((e) => [e.op, e.state])).toEqual([['create', 'unconfirmed'], ...Array(20).fill(['create', 'pending']), ...Array(5).fill(['update', 'pending'])]);

    await restart();
    const again = await site.sync();
    expect(again.outcome, JSON.stringify(again)).toBe('done');
    expect(again.pushed).toBe(26);
    expect(await duplicates(remote, T)).toEqual([]);
    const pushed = (await listAll(remote.api, T)).filter((t) => String(t.name).startsWith('push-'));
    expect(pushed.map((t) => [t.name, t.ntp_server]).sort()).toEqual(Array.from({ length: 30 }, (_, i) => [`push-${i}`, `ntp-${i}`]).sort());
    for (const probe of seeded) expect((await remote.api.get(`${P}${probe.pk}/`)).json().location).toBe('after the restart');
    expect(await entries(site)).toEqual([]);
    await expectMirrorEqual(site, remote);
  });

  test('during a long pull (4 objects a page, one page at a time): the next sync after the restart completes the mirror', async () => {
    const site = await bind({ url: relay.url, token: remote.token }, { sync: { pageSize: 4, concurrency: 1 } });
    let pages = 0;
    relay.decide = (request) => {
      if (request.method !== 'GET' || !request.url.startsWith(`${P}?`) || ++pages !== 6) return 'forward';
      remote.process.kill('SIGKILL');
      return 'drop-request';
    };
    const report = await site.sync();
    relay.decide = () => 'forward';
    expect(report).toMatchObject({ outcome: 'error', error: { kind: 'network' } });
    expect((await status(site)).connection).toBe('offline');
    const partly = (await site.api.get(`${P}?page_size=1`)).json().count;
    expect(partly).toBeGreaterThan(0);
    expect(partly).toBeLessThan(120);

    await restart();
    await made(remote.api, P, { name: 'pull-late', address: '10.6.0.1' });
    const again = await site.sync();
    expect(again.outcome, JSON.stringify(again)).toBe('done');
    expect((await status(site)).connection).toBe('online');
    await expectMirrorEqual(site, remote);
  });
});

describe('a refused token (401/403)', () => {
  test('a wrong token: auth_failed, nothing dropped; after a new token the queue is pushed', async () => {
    const site = await bind(main, { token: 'not-the-token' });
    const tmpl = await made(site.api, T, { name: 'auth-tmpl' });
    await made(site.api, P, { name: 'auth-probe', address: '10.7.0.1', parent_tmpl: tmpl.pk });
    const before = await entries(site);
    const report = await site.sync();
    expect(report).toMatchObject({ outcome: 'error', pushed: 0, error: { kind: 'auth' } });
    expect(report.error?.message).toMatch(/refused the token \(403: Invalid token\.\)/);
    expect((await status(site)).connection).toBe('auth_failed');
    expect(intent(await entries(site))).toEqual(intent(before));

    site.host.remotes.setToken('central', main.token);
    site.host.remoteTokenChanged('central');
    expect((await status(site)).connection).toBe('unknown');
    const again = await site.sync();
    expect(again.outcome, JSON.stringify(again)).toBe('done');
    expect(again.pushed).toBe(2);
    expect((await main.api.get(`${T}?name=auth-tmpl`)).json().count).toBe(1);
    expect((await main.api.get(`${P}?name=auth-probe`)).json().count).toBe(1);
    expect(await entries(site)).toEqual([]);
  });

  test('the token regenerated on the central server between two entries: the queue stops there, nothing dropped, and resumes with the new token', async () => {
    const site = await bind({ url: main.url, token: SYNCER_TOKEN });
    expect((await site.sync()).outcome).toBe('done');
    const probes = (await listAll(site.api, P)).filter((p) => String(p.name).startsWith('seed-')).slice(0, 20);
    for (const probe of probes) expect((await site.api.patch(`${P}${probe.pk}/`, { location: 'regenerated' })).status).toBe(200);
    await made(site.api, T, { name: 'regen-tmpl' });
    const syncer = (await main.api.get('/rest/accounts/sciriususer/?username=syncer')).json().results[0];

    let fresh: Promise<string> | undefined;
    const stop = site.session().engine.onChange(() => {
      const progress = site.session().engine.status().progress;
      if (fresh || progress?.phase !== 'push' || progress.done < 3) return;
      fresh = main.api.post(`/rest/accounts/sciriususer/${syncer.pk}/token/`, { comment: 'rotated' }).then((r) => r.json().token as string);
    });
    const report = await site.sync();
    stop();
    expect(report.outcome, JSON.stringify(report)).toBe('error');
    expect(report.error?.kind).toBe('auth');
    expect((await status(site)).connection).toBe('auth_failed');
    // The entries pushed before the refusal are on the remote; every other one is still here.
    const left = await entries(site);
    const done = (await listAll(main.api, P)).filter((p) => p.location === 'regenerated').length;
    expect(done).toBeGreaterThanOrEqual(3);
    expect(done).toBeLessThan(20);
    expect(left).toHaveLength(21 - done);
    expect(left.every((e) => e.state === 'pending')).toBe(true);

    site.host.remotes.setToken('central', await fresh!);
    site.host.remoteTokenChanged('central');
    const again = await site.sync();
    expect(again.outcome, JSON.stringify(again)).toBe('done');
    expect(again.pushed).toBe(21 - done);
    expect((await listAll(main.api, P)).filter((p) => p.location === 'regenerated')).toHaveLength(20);
    expect((await main.api.get(`${T}?name=regen-tmpl`)).json().count).toBe(1);
    expect(await entries(site)).toEqual([]);
  });
});

describe('a token whose account may not make changes (403 on a write)', () => {
  test('the queue pauses there like any refused token: nothing parked, and a token with rights resumes it', async () => {
    const site = await bind({ url: main.url, token: VIEWER_TOKEN });
    expect((await site.sync()).outcome, 'a read-only account may pull').toBe('done');
    await made(site.api, T, { name: 'viewer-tmpl' });
    const probe = (await listAll(site.api, P))[0]!;
    expect((await site.api.patch(`${P}${probe.pk}/`, { location: 'viewer was here' })).status).toBe(200);
    const report = await site.sync();
    expect(report).toMatchObject({ outcome: 'error', parked: 0, error: { kind: 'auth' } });
    expect(report.error?.message).toMatch(/may not make changes on the central server \(403: You do not have permission to perform this action\.\)/);
    expect((await status(site)).connection).toBe('auth_failed');
    expect((await entries(site)).map((e) => e.state)).toEqual(['unconfirmed', 'pending']);

    site.host.remotes.setToken('central', main.token);
    site.host.remoteTokenChanged('central');
    const again = await site.sync();
    expect(again.outcome, JSON.stringify(again)).toBe('done');
    expect((await main.api.get(`${T}?name=viewer-tmpl`)).json().count).toBe(1);
    expect((await main.api.get(`${P}${probe.pk}/`)).json().location).toBe('viewer was here');
  });
});

describe('a change the central server refuses (400)', () => {
  test('parks only that entry with the remote message; other objects go on; later changes of the same object wait', async () => {
    const a = await made(main.api, T, { name: 'r400-a', ntp_server: 'ntp.a' });
    const b = await made(main.api, T, { name: 'r400-b', ntp_server: 'ntp.b' });
    const site = await bind(main);
    expect((await site.sync()).outcome).toBe('done');
    // Offline: rename a, then change it again; change b; create a template and a probe under it.
    expect((await site.api.patch(`${T}${a.pk}/`, { name: 'r400-taken', comment: 'rename a' })).status).toBe(200);
    expect((await site.api.patch(`${T}${a.pk}/`, { ntp_server: 'ntp.a2' })).status).toBe(200);
    expect((await site.api.patch(`${T}${b.pk}/`, { ntp_server: 'ntp.b2' })).status).toBe(200);
    const dup = await made(site.api, T, { name: 'r400-dup' });
    await made(site.api, P, { name: 'r400-probe', address: '10.8.0.1', parent_tmpl: dup.pk });
    // Meanwhile a colleague takes both names on the central server.
    const theirs = await made(main.api, T, { name: 'r400-taken' });
    await made(main.api, T, { name: 'r400-dup' });

    const report = await site.sync();
    expect(report).toMatchObject({ outcome: 'conflicts', pushed: 1, parked: 2, waiting: 2, conflicts: 0 });
    const list = await entries(site);
    // b's change went; a's rename and the create were refused; a's second change and the probe wait.
    expect(list.map((e) => [e.op, e.state, e.fields.name ?? e.fields.ntp_server])).toEqual([
      ['update', 'parked', 'r400-taken'],
      ['update', 'pending', 'ntp.a2'],
      ['create', 'parked', 'r400-dup'],
      ['create', 'pending', 'r400-probe'],
    ]);
    expect(list[0]!.message).toBe('name: vendor probe template with this name already exists.');
    expect(list[2]!.message).toBe('name: vendor probe template with this name already exists.');
    const remoteA = (await main.api.get(`${T}${a.pk}/`)).json();
    expect([remoteA.name, remoteA.ntp_server]).toEqual(['r400-a', 'ntp.a']);
    expect((await main.api.get(`${T}${b.pk}/`)).json().ntp_server).toBe('ntp.b2');
    expect((await main.api.get(`${P}?name=r400-probe`)).json().count).toBe(0);
    expect((await status(site)).outbox).toEqual({ pending: 2, parked: 2, conflicts: 0 });

    // The colleague gives the name back; the user retries the rename and renames the new template.
    expect((await main.api.patch(`${T}${theirs.pk}/`, { name: 'r400-theirs' })).status).toBe(200);
    expect((await site.api.post(`/app/sync/entries/${list[0]!.seq}/retry`)).status).toBe(200);
    expect((await site.api.patch(`${T}${dup.pk}/`, { name: 'r400-dup-2' })).status).toBe(200);
    const again = await site.sync();
    expect(again.outcome, JSON.stringify({ again, entries: await entries(site) })).toBe('done');
    const finalA = (await main.api.get(`${T}${a.pk}/`)).json();
    expect([finalA.name, finalA.ntp_server]).toEqual(['r400-taken', 'ntp.a2']);
    const dup2 = (await main.api.get(`${T}?name=r400-dup-2`)).json();
    expect(dup2.count).toBe(1);
    expect((await main.api.get(`${P}?name=r400-probe`)).json().results[0].parent_tmpl).toBe(dup2.results[0].pk);
    expect(await entries(site)).toEqual([]);
  });
});

describe('page_size', () => {
  const probeListRequests = (relay: Relay) => relay.requests.filter((r) => r.method === 'GET' && r.url.startsWith(`${P}?`)).map((r) => new URL(r.url, 'http://x').searchParams);

  test('a large page_size is honoured: one request for the whole probe list', async () => {
    const relay = await Relay.start(main.url);
    opened.push(relay);
    const site = await bind({ url: relay.url, token: main.token });
    expect((await site.sync()).outcome).toBe('done');
    const asked = probeListRequests(relay);
    expect(asked.map((q) => [q.get('page_size'), q.get('page')])).toEqual([['1000', '1']]);
    await expectMirrorEqual(site, main);
  });

  test('a remote capping it at 30: every page fetched once, concurrently, and the mirror complete and equal', async () => {
    const relay = await Relay.start(capped.url);
    opened.push(relay);
    const site = await bind({ url: relay.url, token: capped.token });
    const report = await site.sync();
    expect(report.outcome).toBe('done');
    const asked = probeListRequests(relay);
    expect(asked.map((q) => q.get('page')).sort()).toEqual(['1', '2', '3', '4']);
    expect(relay.maxInFlight).toBeGreaterThanOrEqual(2);
    expect((await site.api.get(`${P}?page_size=1`)).json().count).toBe(SEEDED_PROBES);
    await expectMirrorEqual(site, capped);
  });
});

describe('a pull that fails on one page', () => {
  test('ends only once the pages still in flight are written: nothing is written after the sync has returned', async () => {
    const relay = await Relay.start(main.url);
    opened.push(relay);
    const site = await bind({ url: relay.url, token: main.token }, { sync: { pageSize: 10, concurrency: 4 } });
    relay.decide = (request) => {
      if (request.method !== 'GET' || !request.url.startsWith(`${P}?`)) return 'forward';
      const page = new URL(request.url, relay.url).searchParams.get('page');
      return page === '2' ? 'drop-request' : page === '3' ? { holdMs: 400 } : 'forward';
    };
    const report = await site.sync();
    expect(report).toMatchObject({ outcome: 'error', error: { kind: 'network' } });
    const count = async () => (await site.api.get(`${P}?page_size=1`)).json().count as number;
    const atTheEnd = await count();
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(await count()).toBe(atTheEnd);
    relay.decide = () => 'forward';
    expect((await site.sync()).outcome).toBe('done');
    await expectMirrorEqual(site, main, [P]);
  });
});

describe('the mass-delete guard', () => {
  test('a remote that lost 90 % of 10 or more mirrored objects: the pull aborts and deletes nothing; allowMassDelete proceeds', async () => {
    const remote = await startReference();
    opened.push({ close: () => stopped(remote) });
    const sources = [];
    for (let i = 0; i < 12; i++) sources.push(await made(remote.api, '/rest/rules/source/', { name: `src-${i}` }));
    const site = await bind(remote);
    expect((await site.sync()).outcome).toBe('done');
    // One gone: an ordinary deletion.
    expect((await remote.api.delete(`/rest/rules/source/${sources[0]!.pk}/`)).status).toBe(204);
    expect((await site.sync()).outcome).toBe('done');
    expect((await site.api.get('/rest/rules/source/')).json().count).toBe(11);
    // Ten of the eleven left gone: too many to believe.
    for (const source of sources.slice(1, 11)) expect((await remote.api.delete(`/rest/rules/source/${source.pk}/`)).status).toBe(204);
    const guarded = await site.sync();
    expect(guarded).toMatchObject({ outcome: 'error', error: { kind: 'mass_delete' } });
    expect(guarded.error?.message).toMatch(/^the pull would delete 10 of the 11 local source objects \(90 % or more\): aborted, nothing deleted\./);
    expect(guarded.error?.message).toMatch(/--allow-mass-delete/);
    expect((await site.api.get('/rest/rules/source/')).json().count).toBe(11);
    expect(await status(site)).toMatchObject({ lastError: guarded.error?.message, lastErrorKind: 'mass_delete' });

    const allowed = await site.sync({ allowMassDelete: true });
    expect(allowed.outcome).toBe('done');
    expect(await status(site)).toMatchObject({ lastError: null, lastErrorKind: null });
    expect((await site.api.get('/rest/rules/source/')).json().results.map((s: { name: string }) => s.name)).toEqual(['src-11']);
  });
});

describe('the automatic schedule', () => {
  /** The real schedule, a hundred times faster. */
  const fast = (outcome: SyncOutcome, failures: number) => {
    const delay = nextSyncDelay(outcome, failures, () => 0.5);
    return delay === null ? null : Math.round(delay / 100);
  };

  function countSyncs(site: BoundWorkspace): { readonly count: number } {
    const engine = site.session().engine;
    const counter = { count: 0 };
    let was = engine.syncing;
    engine.onChange(() => {
      if (engine.syncing && !was) counter.count++;
      was = engine.syncing;
    });
    return counter;
  }

  test('unreachable: it retries on a timer with nothing new written, and once the remote is back the outbox drains', async () => {
    const port = await freePort();
    const site = await bind({ url: `http://127.0.0.1:${port}`, token: main.token }, { sync: { auto: true, delay: fast, pushDelayMs: 20 } });
    await made(site.api, T, { name: 'auto-tmpl' });
    const syncs = countSyncs(site);
    await until('three more attempts', () => syncs.count >= 3);
    expect((await status(site)).connection).toBe('offline');
    expect((await status(site)).outbox.pending).toBe(1);

    const remote = await startReference({ port });
    opened.push({ close: () => stopped(remote) });
    await until('the outbox drained', async () => (await entries(site)).length === 0);
    expect((await remote.api.get(`${T}?name=auto-tmpl`)).json().count).toBe(1);
    expect((await status(site)).connection).toBe('online');
    await site.close();
  });

  test('a refused token pauses it, even after local writes, until the token is changed', async () => {
    const site = await bind(main, { token: 'refused-token', sync: { auto: true, delay: fast, pushDelayMs: 20 } });
    await until('the first sync refused', async () => (await status(site)).connection === 'auth_failed');
    const syncs = countSyncs(site);
    await made(site.api, T, { name: 'paused-tmpl' });
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(syncs.count).toBe(0);
    expect((await status(site)).outbox.pending).toBe(1);

    site.host.remotes.setToken('central', main.token);
    site.host.remoteTokenChanged('central');
    await until('the outbox drained', async () => (await entries(site)).length === 0);
    expect(syncs.count).toBeGreaterThanOrEqual(1);
    expect((await main.api.get(`${T}?name=paused-tmpl`)).json().count).toBe(1);
    await site.close();
  });
});

describe('what a sync reports', () => {
  test('a sync that stops on a network error after two entries reports them as pushed, and the history says so', async () => {
    const relay = await Relay.start(main.url);
    opened.push(relay);
    const site = await bind({ url: relay.url, token: main.token });
    for (let i = 0; i < 3; i++) await made(site.api, T, { name: `count-${i}` });
    let posts = 0;
    relay.decide = (request) => (request.method === 'POST' && ++posts === 3 ? 'drop-request' : 'forward');
    const report = await site.sync();
    expect(report.outcome).toBe('error');
    expect((await entries(site))).toHaveLength(1);
    expect(report.pushed).toBe(2);
    const history = (await site.api.get('/rest/rules/history/?ordering=-pk&page_size=1')).json().results;
    expect(history.map((h: { action_type: string; description: string }) => [h.action_type, h.description])).toEqual([['sync_push', 'admin has pushed 2 changes to central']]);
  });
});

describe('the sync lease', () => {
  test('renewed while a sync runs, so another process never takes a long sync for a crashed one', async () => {
    const relay = await Relay.start(main.url);
    opened.push(relay);
    const site = await bind({ url: relay.url, token: main.token }, { sync: { leaseMs: 200 } });
    relay.decide = (request) => (request.method === 'GET' ? { holdMs: 300 } : 'forward');
    const db = new Database(path.join(site.dir, 'workspaces', 'site.sqlite3'), { readonly: true });
    const seen = new Set<string>();
    try {
      const running = site.sync();
      const watch = setInterval(() => {
        const lease = db.prepare("SELECT value FROM sync_meta WHERE key = 'sync_lease'").pluck().get() as string | undefined;
        if (lease) seen.add(lease);
      }, 20);
      const report = await running;
      clearInterval(watch);
      expect(report.outcome).toBe('done');
      expect(db.prepare("SELECT value FROM sync_meta WHERE key = 'sync_lease'").pluck().get(), 'released at the end').toBeUndefined();
    } finally {
      db.close();
    }
    expect(seen.size, [...seen].join(', ')).toBeGreaterThanOrEqual(3);
    for (const lease of seen) expect(lease).toMatch(new RegExp(`^${process.pid}:\\d+$`));
  });
});

describe('a refused token remembered across a restart', () => {
  // A token fixed while the app (or `outpost serve`) was closed must be tried at the next start.
  test('the token fixed while the workspace was closed: the automatic sync at the next start pushes the queue', async () => {
    const dir = tempDir();
    const first = await startBound(main, { dir, token: 'refused-before' });
    await made(first.api, T, { name: 'restart-tmpl' });
    expect((await first.sync()).error?.kind).toBe('auth');
    // As `outpost remote set-token` from another process would: the token file changes, nobody is told.
    first.host.remotes.setToken('central', main.token);
    await first.close();
    const second = await bind(main, { dir, sync: { auto: true, delay: () => 50, pushDelayMs: 20 } });
    await until('the outbox drained', async () => (await entries(second)).length === 0, 2_000);
    expect((await main.api.get(`${T}?name=restart-tmpl`)).json().count).toBe(1);
  });
});

describe('re-keying', () => {
  test('a later change of a reference to an object created here is no conflict once that object is created', async () => {
    const base = await made(main.api, T, { name: 'rk-base' });
    const probe = await made(main.api, P, { name: 'rk-probe', address: '10.8.1.1', parent_tmpl: base.pk });
    const site = await bind(main);
    expect((await site.sync()).outcome).toBe('done');
    const local = await made(site.api, T, { name: 'rk-new' });
    expect((await site.api.patch(`${P}${probe.pk}/`, { parent_tmpl: local.pk })).status).toBe(200);
    expect((await site.api.patch(`${P}${probe.pk}/`, { parent_tmpl: base.pk })).status).toBe(200);
    const report = await site.sync();
    expect(report.outcome, JSON.stringify(await entries(site))).toBe('done');
    expect((await main.api.get(`${P}${probe.pk}/`)).json().parent_tmpl).toBe(base.pk);
  });
});
