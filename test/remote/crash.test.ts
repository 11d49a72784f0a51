/**
 * Crash safety of the sync (issue 4) against the real reference DRF server: `outpost sync` runs
 * as a child process with OUTPOST_SYNC_CRASH=<point>:<n>, so that it SIGKILLs itself (a power
 * cut, no clean-up of any kind) at that point; then `outpost sync` runs again and every intended
 * change must be on the central server exactly once, the local pks re-keyed, the outbox empty,
 * and the workspace equal to the remote.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import type { Client } from '../helpers/http';
import { startReference, type ReferenceServer } from '../helpers/reference';
import { startBound } from '../helpers/sync';
import { comparable, listAll, outpost, type CliResult } from '../helpers/syncCli';

const T = '/rest/appliances/vendor_probe_template/';
const P = '/rest/appliances/vendor_probe/';

let remote: ReferenceServer;
const folders: string[] = [];

beforeAll(async () => {
  remote = await startReference();
}, 60_000);

afterAll(async () => {
  await remote?.stop();
  for (const dir of folders) fs.rmSync(dir, { recursive: true, force: true });
});

/** The objects of one scenario, named after its prefix so that scenarios sharing the remote do not meet. */
interface Scenario {
  readonly prefix: string;
  readonly dir: string;
  /** Remote pks of what existed before the offline changes. */
  readonly base: number;
  readonly updated: number;
  readonly deleted: number;
  /** A remote probe the workspace mirrors, left alone here (a colleague may delete it). */
  readonly mirrored: number;
  /** Local (negative) pks of what was created offline. */
  readonly localTemplate: number;
  readonly localProbe: number;
}

const one = async (api: Client, path: string, body: unknown): Promise<{ pk: number }> => {
  const reply = await api.post(path, body);
  if (reply.status !== 201) throw new Error(`POST ${path}: ${reply.status} ${reply.text}`);
  return reply.json();
};

/**
 * A bound workspace that mirrored four remote objects (a template, three probes), then, offline,
 * six changes in its outbox: create a template, create a probe whose template is that new one,
 * update a probe, delete a probe, update the first template (which its children inherit from),
 * delete one of that template's interfaces.
 */
async function prepare(prefix: string): Promise<Scenario> {
  const base = await one(remote.api, T, { name: `${prefix}-base`, interfaces: [{ name: 'eth0' }, { name: 'eth3' }], ntp_server: 'ntp.a' });
  const updated = await one(remote.api, P, { name: `${prefix}-x`, address: '10.1.0.1', parent_tmpl: base.pk });
  const deleted = await one(remote.api, P, { name: `${prefix}-y`, address: '10.1.0.2' });
  const mirrored = await one(remote.api, P, { name: `${prefix}-z`, address: '10.1.0.3' });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'outpost-crash-'));
  folders.push(dir);
  const site = await startBound(remote, { dir });
  try {
    const first = await site.sync();
    if (first.outcome !== 'done') throw new Error(`first sync: ${JSON.stringify(first)}`);
    // Creates with overridden and inherited interfaces and protocols: what adoption compares.
    const template = await one(site.api, T, {
      name: `${prefix}-t`,
      parent_tmpl: base.pk,
      overriden_fields: ['interfaces'],
      interfaces: [{ name: 'eth2' }, { name: 'eth1', active: false }],
      comment: `${prefix}: create template`,
    });
    const probe = await one(site.api, P, {
      name: `${prefix}-p`,
      address: '10.2.0.1',
      descr: 'made offline',
      parent_tmpl: template.pk,
      overriden_fields: ['protocols'],
      protocols: [{ name: 'dns', detection: false }],
      comment: `${prefix}: create probe`,
    });
    expect((await site.api.patch(`${P}${updated.pk}/`, { location: 'rack 9', comment: `${prefix}: update probe` })).status).toBe(200);
    expect((await site.api.delete(`${P}${deleted.pk}/`, { comment: `${prefix}: delete probe` })).status).toBe(204);
    expect((await site.api.patch(`${T}${base.pk}/`, { ntp_server: 'ntp.b', comment: `${prefix}: update template` })).status).toBe(200);
    const eth3 = (await site.api.get(`${T}${base.pk}/`)).json().interfaces.find((i: { name: string }) => i.name === 'eth3');
    expect((await site.api.delete(`/rest/appliances/network_interface/${eth3.pk}/`, { comment: `${prefix}: delete interface` })).status).toBe(204);
    const outbox = (await site.api.get('/app/sync')).json().entries as { op: string; resource: string }[];
    expect(outbox.map((e) => `${e.op} ${e.resource}`)).toEqual([
      'create vendor_probe_template',
      'create vendor_probe',
      'update vendor_probe',
      'delete vendor_probe',
      'update vendor_probe_template',
      'delete network_interface',
    ]);
    return { prefix, dir, base: base.pk, updated: updated.pk, deleted: deleted.pk, mirrored: mirrored.pk, localTemplate: template.pk, localProbe: probe.pk };
  } finally {
    await site.close();
  }
}

function sync(scenario: Scenario, extra: readonly string[] = [], crash?: string): Promise<CliResult> {
  return outpost(['sync', '--workspace', 'site', '--data', scenario.dir, '--json', ...extra], crash === undefined ? {} : { OUTPOST_SYNC_CRASH: crash });
}

/** The run really died of its own SIGKILL at the crash point (not an error, not a clean exit). */
async function crashAt(scenario: Scenario, crash: string, extra: readonly string[] = []): Promise<void> {
  const run = await sync(scenario, extra, crash);
  expect({ crash, signal: run.signal, status: run.status, stderr: run.stderr }).toEqual({ crash, signal: 'SIGKILL', status: null, stderr: '' });
}

/** Everything the issue promises after the run that follows a crash. */
async function expectConverged(scenario: Scenario, cleanRun: CliResult): Promise<void> {
  const { prefix } = scenario;
  expect(cleanRun.signal).toBeNull();
  expect(cleanRun.stderr).toBe('');
  expect(cleanRun.status, cleanRun.stdout).toBe(0);
  expect(JSON.parse(cleanRun.stdout)).toMatchObject({ outcome: 'done', conflicts: 0, parked: 0, waiting: 0 });

  // On the central server: each change exactly once.
  const templates = (await remote.api.get(`${T}?name=${prefix}-t`)).json();
  expect(templates.count).toBe(1);
  const probes = (await remote.api.get(`${P}?name=${prefix}-p`)).json();
  expect(probes.count).toBe(1);
  const template = templates.results[0];
  const probe = probes.results[0];
  expect(template.parent_tmpl).toBe(scenario.base);
  expect(probe.parent_tmpl).toBe(template.pk);
  expect(probe.ntp_server).toBe('ntp.b');
  expect(probe.interfaces.map((i: { name: string; active: boolean }) => [i.name, i.active]).sort()).toEqual([['eth1', false], ['eth2', true]]);
  expect(probe.protocols.map((i: { name: string; detection: boolean }) => [i.name, i.detection])).toEqual([['dns', false]]);
  expect((await remote.api.get(`${P}${scenario.updated}/`)).json().location).toBe('rack 9');
  expect((await remote.api.get(`${P}${scenario.deleted}/`)).status).toBe(404);
  expect((await remote.api.get(`${P}?name=${prefix}-y`)).json().count).toBe(0);
  const remoteBase = (await remote.api.get(`${T}${scenario.base}/`)).json();
  expect(remoteBase.ntp_server).toBe('ntp.b');
  expect(remoteBase.interfaces.map((i: { name: string }) => i.name)).toEqual(['eth0']);
  expect((await remote.api.get(`${P}${scenario.updated}/`)).json().interfaces.map((i: { name: string }) => i.name)).toEqual(['eth0']);
  // The remote's history: one entry per change, each with its comment (no repeated POST/PATCH/DELETE).
  const history = (await remote.api.get('/rest/rules/history/?ordering=-pk&page_size=100')).json().results as { comment: unknown }[];
  const comments = history.map((h) => h.comment).filter((c): c is string => typeof c === 'string' && c.startsWith(`${prefix}:`));
  expect(comments.sort()).toEqual(
    ['create probe', 'create template', 'delete interface', 'delete probe', 'update probe', 'update template'].map((what) => `${prefix}: ${what}`),
  );

  // Here: re-keyed, nothing waiting, equal to the remote.
  const site = await startBound(remote, { dir: scenario.dir });
  try {
    const state = (await site.api.get('/app/sync')).json();
    expect(state.entries).toEqual([]);
    expect(state.status.outbox).toEqual({ pending: 0, parked: 0, conflicts: 0 });
    expect((await site.api.get(`${T}${scenario.localTemplate}/`)).status).toBe(404);
    expect((await site.api.get(`${P}${scenario.localProbe}/`)).status).toBe(404);
    for (const endpoint of [T, P]) {
      const local = await listAll(site.api, endpoint);
      const theirs = await listAll(remote.api, endpoint);
      expect(local.filter((o) => (o.pk as number) < 0)).toEqual([]);
      expect(local.map(comparable)).toEqual(theirs.map(comparable));
    }
  } finally {
    await site.close();
  }
}

let counter = 0;
let current: string | undefined;
const nextPrefix = () => (current = `k${++counter}`);

// Each scenario's objects leave the shared remote after it, so that every scenario pulls about as
// much as the first one did (and page numbers mean the same in each).
afterEach(async () => {
  if (current === undefined) return;
  const mine = (o: Record<string, unknown>) => String(o.name).startsWith(`${current}-`);
  for (const probe of (await listAll(remote.api, P)).filter(mine)) await remote.api.delete(`${P}${probe.pk}/`);
  let templates = (await listAll(remote.api, T)).filter(mine);
  // Children first: a template with children is refused (400) until they are gone.
  for (let round = 0; templates.length > 0 && round < 5; round++) {
    for (const template of templates) await remote.api.delete(`${T}${template.pk}/`);
    templates = (await listAll(remote.api, T)).filter(mine);
  }
  current = undefined;
});

describe('kill -9 during the push, then sync again', () => {
  // The outbox: create template (1), create probe (2), update probe (3), delete probe (4), update
  // template (5), delete one of its interfaces (6); each point comes once per entry. Every point of
  // every kind of entry; the second update (5) is like the first and left out.
  const points: [string, string][] = [
    ['before-send:1', 'the template create marked as sending, never sent: sent exactly once next time'],
    ['after-response:1', 'the template POSTed but its answer lost: adopted by name, not posted again'],
    ['after-commit:1', 'the template re-keyed and committed'],
    ['before-send:2', 'the probe create (its template re-keyed) marked as sending, never sent'],
    ['after-response:2', 'the probe POSTed but its answer lost: adopted by name'],
    ['before-send:3', 'an update merged but not PATCHed'],
    ['after-response:3', 'an update PATCHed, its answer lost: not sent twice'],
    ['after-commit:3', 'an update done and committed'],
    ['before-send:4', 'a delete checked but not sent'],
    ['after-response:4', 'a delete done on the remote, its answer lost: the 404 next time is done'],
    ['after-commit:4', 'a delete done and committed'],
    ['before-send:6', 'an interface delete not sent'],
    ['after-response:6', 'an interface deleted, its answer lost: the 404 next time is done'],
    ['after-commit:6', 'the last entry committed, before the pull'],
  ];
  test.each(points)('%s: %s', async (point) => {
    const scenario = await prepare(nextPrefix());
    await crashAt(scenario, point);
    await expectConverged(scenario, await sync(scenario));
  });

  /** Put a lease in the workspace as if process `pid` had renewed it `age` ms ago. */
  function setLease(scenario: Scenario, pid: number, age: number): void {
    const db = new Database(path.join(scenario.dir, 'workspaces', 'site.sqlite3'));
    try {
      const lease = db.prepare("SELECT value FROM sync_meta WHERE key = 'sync_lease'").pluck().get() as string | undefined;
      expect(lease, 'the killed run left its lease').toMatch(/^\d+:\d+$/);
      db.prepare("UPDATE sync_meta SET value = ? WHERE key = 'sync_lease'").run(`${pid}:${Date.now() - age}`);
    } finally {
      db.close();
    }
  }

  test('a killed sync whose pid now belongs to another process blocks the next sync no longer than a lease (one minute unrenewed)', async () => {
    const scenario = await prepare(nextPrefix());
    await crashAt(scenario, 'after-response:1');
    // This test's own process: alive, and no Outpost sync; the lease was last renewed 61 s ago.
    setLease(scenario, process.pid, 61_000);
    await expectConverged(scenario, await sync(scenario));
  });

  test('a lease another live process renewed lately refuses the sync as busy, and changes nothing', async () => {
    const scenario = await prepare(nextPrefix());
    await crashAt(scenario, 'after-response:1');
    setLease(scenario, process.pid, 5_000);
    // `outpost sync` waits for the other sync (30 s, one here) before refusing.
    const busy = await outpost(['sync', '--workspace', 'site', '--data', scenario.dir, '--json'], { OUTPOST_SYNC_WAIT_MS: '1000' });
    expect(busy.stderr).toContain(`outpost: waiting for the sync of process ${process.pid} to end (up to 1 s)…`);
    expect(busy.status).toBe(1);
    expect(JSON.parse(busy.stdout)).toMatchObject({
      outcome: 'error',
      pushed: 0,
      error: { kind: 'busy', message: `another Outpost process (pid ${process.pid}) is syncing this workspace; try again when it is done` },
    });
    setLease(scenario, process.pid, 61_000);
    await expectConverged(scenario, await sync(scenario));
  });

  test('killed again and again at successive points, each run taking the last one further', async () => {
    const scenario = await prepare(nextPrefix());
    // Each run adopts what the one before it left 'sending', then dies further down the outbox:
    // template POSTed (answer lost); template adopted, probe POSTed (answer lost); probe adopted,
    // update killed before its PATCH; update PATCHed, delete sent (answer lost); delete found done
    // (404), template update committed; interface deleted, then killed mid-pull.
    for (const point of ['after-response:1', 'after-response:1', 'before-send:1', 'after-response:2', 'after-commit:2', 'after-page:2']) {
      await crashAt(scenario, point);
    }
    await expectConverged(scenario, await sync(scenario));
  });
});

describe('the crash variable itself', () => {
  test('a malformed OUTPOST_SYNC_CRASH stops the sync with a clear error (a crash test never silently tests nothing); the next run converges', async () => {
    const scenario = await prepare(nextPrefix());
    for (const crash of ['before-sned', 'after-page:0', 'after-commit:x']) {
      const run = await sync(scenario, [], crash);
      expect(run.signal).toBeNull();
      expect(run.status).toBe(1);
      expect(JSON.parse(run.stdout)).toMatchObject({ outcome: 'error', error: { kind: 'internal' } });
      expect(JSON.parse(run.stdout).error.message).toBe(
        `OUTPOST_SYNC_CRASH must be <point>[:<n>] with a point among before-send, after-response, after-page, after-commit and n from 1, not "${crash}"`,
      );
    }
    await expectConverged(scenario, await sync(scenario));
  });
});

describe('an interrupted create, then more local changes to its object before the next sync', () => {
  /** Local writes between two runs of the CLI (the workspace opened in this process meanwhile). */
  async function offline(scenario: Scenario, write: (api: Client, probe: { pk: number }) => Promise<void>): Promise<void> {
    const site = await startBound(remote, { dir: scenario.dir });
    try {
      const probe = (await site.api.get(`${P}?name=${scenario.prefix}-p`)).json().results[0];
      expect(probe.pk, 'the probe still has its local pk').toBeLessThan(0);
      await write(site.api, probe);
    } finally {
      await site.close();
    }
  }

  test('the probe POSTed (answer lost), then edited here: adopted, then the edit PATCHed', async () => {
    const scenario = await prepare(nextPrefix());
    await crashAt(scenario, 'after-response:2');
    await offline(scenario, async (api, probe) => {
      expect((await api.patch(`${P}${probe.pk}/`, { location: 'shelf 2', comment: `${scenario.prefix}: move probe` })).status).toBe(200);
    });
    const run = await sync(scenario);
    expect(run.status, run.stdout + run.stderr).toBe(0);
    const remoteProbe = (await remote.api.get(`${P}?name=${scenario.prefix}-p`)).json();
    expect(remoteProbe.count).toBe(1);
    expect(remoteProbe.results[0].location).toBe('shelf 2');
    const site = await startBound(remote, { dir: scenario.dir });
    try {
      expect((await site.api.get('/app/sync')).json().entries).toEqual([]);
      expect((await site.api.get(`${P}${remoteProbe.results[0].pk}/`)).json().location).toBe('shelf 2');
    } finally {
      await site.close();
    }
  });

  test('the probe create killed before it was sent, then the probe deleted here: nothing of it stays, nothing waits', async () => {
    const scenario = await prepare(nextPrefix());
    await crashAt(scenario, 'before-send:2');
    await offline(scenario, async (api, probe) => {
      expect((await api.delete(`${P}${probe.pk}/`, { comment: `${scenario.prefix}: never mind` })).status).toBe(204);
    });
    const run = await sync(scenario);
    expect(run.status, run.stdout + run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ outcome: 'done', conflicts: 0, parked: 0 });
    expect((await remote.api.get(`${P}?name=${scenario.prefix}-p`)).json().count).toBe(0);
    const site = await startBound(remote, { dir: scenario.dir });
    try {
      expect((await site.api.get('/app/sync')).json().entries).toEqual([]);
      expect((await site.api.get(`${P}?name=${scenario.prefix}-p`)).json().count).toBe(0);
    } finally {
      await site.close();
    }
  });
});

describe('kill -9 during the pull, then sync again', () => {
  /** Remote changes the pull must bring: more probes than a few pages, one changed, one deleted. */
  async function remoteChanges(prefix: string, tag = 'r'): Promise<void> {
    const base = (await remote.api.get(`${T}?name=${prefix}-base`)).json().results[0];
    const made: { pk: number }[] = [];
    for (let i = 0; i < 7; i++) made.push(await one(remote.api, P, { name: `${prefix}-${tag}${i}`, address: `10.3.0.${i + 1}`, parent_tmpl: i % 2 ? base.pk : null }));
    expect((await remote.api.patch(`${P}${made[0]!.pk}/`, { location: 'moved by a colleague' })).status).toBe(200);
    expect((await remote.api.delete(`${P}${made[1]!.pk}/`)).status).toBe(204);
  }

  /** Remote changes to what the workspace mirrors already: one probe deleted, another's other field changed. */
  async function colleague(scenario: Scenario): Promise<void> {
    expect((await remote.api.delete(`${P}${scenario.mirrored}/`)).status).toBe(204);
    expect((await remote.api.patch(`${P}${scenario.updated}/`, { descr: 'noted by a colleague' })).status).toBe(200);
  }

  // Pages with --page-size 3: vendor_device (1), source (2), ruleset (3), templates (4, all at
  // once: they refer to each other), then the probes' pages (5, 6, ...), fetched concurrently.
  test.each(['after-page:1', 'after-page:4', 'after-page:7'])('%s with --page-size 3: the next sync completes the mirror', async (point) => {
    const scenario = await prepare(nextPrefix());
    await remoteChanges(scenario.prefix);
    await colleague(scenario);
    await crashAt(scenario, point, ['--page-size', '3']);
    await expectConverged(scenario, await sync(scenario, ['--page-size', '3']));
  });

  test('killed mid-pull twice, then a pull with the default page size', async () => {
    const scenario = await prepare(nextPrefix());
    await remoteChanges(scenario.prefix);
    await crashAt(scenario, 'after-page:6', ['--page-size', '2']);
    await remoteChanges(scenario.prefix, 's');
    await crashAt(scenario, 'after-page:2', ['--page-size', '2']);
    await expectConverged(scenario, await sync(scenario));
  });
});
