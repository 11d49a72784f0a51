/**
 * Review before push (issue 25 §2, docs/sync.md "Review before push") against the reference
 * central server: the plan reads the central server with GETs only and shows, per waiting change
 * and field, the value there now and after the push, its conflicts, taken names, objects gone,
 * and what a template change reaches there; applying sends only reviewed entries that changed
 * neither here nor there since; a workspace that sends after review only pulls on its own.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import type { ApplyResult, PlanEntry, ReviewPlan } from '../../shared/sync/review';
import { withDependencies } from '../../shared/sync/review';
import type { SyncStatus } from '../../shared/app/sync';
import { Relay } from '../helpers/relay';
import { startReference, type ReferenceServer } from '../helpers/reference';
import { startBound, type BoundWorkspace } from '../helpers/sync';

const T = '/rest/appliances/vendor_probe_template/';
const P = '/rest/appliances/vendor_probe/';
const RULESETS = '/rest/rules/ruleset/';

let remote: ReferenceServer;
let relay: Relay;
let site: BoundWorkspace;

beforeAll(async () => {
  remote = await startReference();
  // Every request of the site to the central server passes the relay, which records it.
  relay = await Relay.start(remote.url);
  site = await startBound({ url: relay.url, token: remote.token });
}, 60_000);

afterAll(async () => {
  await site?.close();
  await relay?.close();
  await remote?.stop();
});

let n = 0;
function unique(prefix: string): string {
  n++;
  return `${prefix}-${n}`;
}

/** A probe made on the central server by a colleague, mirrored here by a sync. */
async function centralProbe(fields: Record<string, unknown> = {}): Promise<number> {
  const created = await remote.api.post(P, { name: unique('probe'), address: `10.9.0.${n}`, location: 'hall', descr: 'as delivered', ...fields });
  expect(created.status, created.text).toBe(201);
  expect((await site.sync()).outcome).toBe('done');
  return created.json().pk as number;
}

async function plan(): Promise<ReviewPlan> {
  const answer = await site.api.get('/app/sync/plan');
  expect(answer.status, answer.text).toBe(200);
  return answer.json() as ReviewPlan;
}

function entryOf(reviewed: ReviewPlan, pk: number, op: PlanEntry['op'] = 'update'): PlanEntry {
  const found = reviewed.entries.find((e) => e.pk === pk && e.op === op);
  expect(found, `an entry ${op} of ${pk}`).toBeDefined();
  return found!;
}

async function apply(entries: readonly PlanEntry[]): Promise<ApplyResult & { status: SyncStatus }> {
  const answer = await site.api.post('/app/sync/apply', { entries: entries.map(({ seq, hash, central }) => ({ seq, hash, central })) });
  expect(answer.status, answer.text).toBe(200);
  return answer.json();
}

beforeEach(async () => {
  // Each test starts with nothing waiting: what an earlier one left is given up.
  for (const entry of (await site.api.get('/app/sync')).json().entries as { seq: number }[]) {
    await site.api.delete(`/app/sync/entries/${entry.seq}`);
  }
});

describe('the plan', () => {
  test('shows the central value now and after the push, field by field, a conflict where a colleague changed the field, and reads with GETs only', async () => {
    const pk = await centralProbe();
    expect((await site.api.patch(`${P}${pk}/`, { location: 'rack 1', descr: 'checked on site' })).status).toBe(200);
    expect((await remote.api.patch(`${P}${pk}/`, { location: 'rack 9' })).status).toBe(200);

    const before = relay.requests.length;
    const reviewed = await plan();
    const made = relay.requests.slice(before);

    expect(made.length).toBeGreaterThan(0);
    expect(made.every((r) => r.method === 'GET'), JSON.stringify(made)).toBe(true);
    expect(reviewed.requests).toBe(made.length);
    const entry = entryOf(reviewed, pk);
    expect(entry.outcome).toBe('conflict');
    expect(entry.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(entry.central).toMatch(/^[0-9a-f]{64}$/);
    expect(entry.fields).toEqual([
      { field: 'location', now: 'rack 9', after: 'rack 1', base: 'hall', outcome: 'conflict' },
      { field: 'descr', now: 'as delivered', after: 'checked on site', base: 'as delivered', outcome: 'send' },
    ]);
    // Nothing was sent.
    expect((await remote.api.get(`${P}${pk}/`)).json()).toMatchObject({ location: 'rack 9', descr: 'as delivered' });
  });

  test('each object is read once, however many entries name it; a later entry of an object needs the earlier ones', async () => {
    const pk = await centralProbe();
    expect((await site.api.patch(`${P}${pk}/`, { location: 'rack 2' })).status).toBe(200);
    expect((await site.api.patch(`${P}${pk}/`, { descr: 'then this' })).status).toBe(200);
    const before = relay.requests.length;
    const reviewed = await plan();
    expect(relay.requests.slice(before).filter((r) => r.url.startsWith(`${P}${pk}/`))).toHaveLength(1);
    const [first, second] = reviewed.entries.filter((e) => e.pk === pk);
    expect(first!.needs).toEqual([]);
    expect(second!.needs).toEqual([first!.seq]);
    expect(second!.fields).toEqual([{ field: 'descr', now: 'as delivered', after: 'then this', base: 'as delivered', outcome: 'send' }]);
  });

  test('its values are the central server’s as read now, not the local mirror’s', async () => {
    const pk = await centralProbe();
    expect((await site.api.patch(`${P}${pk}/`, { descr: 'mine' })).status).toBe(200);
    // A colleague's change of another field, not pulled here: the plan's `now` of descr is still read there.
    expect((await remote.api.patch(`${P}${pk}/`, { descr: 'theirs too' })).status).toBe(200);
    const entry = entryOf(await plan(), pk);
    expect(entry.fields).toEqual([{ field: 'descr', now: 'theirs too', after: 'mine', base: 'as delivered', outcome: 'conflict' }]);
  });

  test('a create whose name the central server holds is name_taken; an update of an object deleted there is gone; a delete of an object changed there is a conflict', async () => {
    const gone = await centralProbe();
    const changed = await centralProbe();
    const name = unique('rules');
    expect((await site.api.post(RULESETS, { name })).status).toBe(201);
    expect((await remote.api.post(RULESETS, { name })).status).toBe(201);
    expect((await site.api.patch(`${P}${gone}/`, { descr: 'too late' })).status).toBe(200);
    expect((await site.api.patch(`${P}${gone}/`, { location: 'also too late' })).status).toBe(200);
    expect((await remote.api.delete(`${P}${gone}/`)).status).toBe(204);
    expect((await site.api.delete(`${P}${changed}/`)).status).toBe(204);
    expect((await remote.api.patch(`${P}${changed}/`, { location: 'moved' })).status).toBe(200);

    const reviewed = await plan();
    const create = reviewed.entries.find((e) => e.op === 'create' && e.label === name)!;
    expect(create).toMatchObject({ outcome: 'name_taken', resource: 'ruleset' });
    expect(create.fields.find((f) => f.field === 'name')).toEqual({ field: 'name', now: null, after: name, base: null, outcome: 'send' });
    const [goneFirst, goneLater] = reviewed.entries.filter((e) => e.pk === gone);
    expect(goneFirst).toMatchObject({ outcome: 'gone', fields: [] });
    // The push would park the first: the later change of the object waits behind it.
    expect(goneLater).toMatchObject({ outcome: 'held', needs: [goneFirst!.seq], message: `It waits for entry ${goneFirst!.seq}, which would not go.` });
    const removal = entryOf(reviewed, changed, 'delete');
    expect(removal.outcome).toBe('conflict');
    expect(removal.fields.find((f) => f.field === 'location')).toEqual({ field: 'location', now: 'moved', after: null, base: 'hall', outcome: 'conflict' });
  });

  test('a template change lists the central probes and templates that inherit the field, honouring their overriden_fields', async () => {
    // The fleet on the central server, made by a colleague: Root ─┬─ Child ── p3
    //                                                             ├─ p1 (follows), p2 (overrides capture_threads)
    //                                                             └─ Own (overrides capture_threads) ── p4
    const root = (await remote.api.post(T, { name: unique('Root'), capture_threads: 2 })).json().pk as number;
    const child = (await remote.api.post(T, { name: unique('Child'), parent_tmpl: root })).json();
    const own = (await remote.api.post(T, { name: unique('Own'), parent_tmpl: root, overriden_fields: ['capture_threads'], capture_threads: 6 })).json();
    const p1 = (await remote.api.post(P, { name: unique('p1'), address: '10.8.0.1', parent_tmpl: root })).json();
    await remote.api.post(P, { name: unique('p2'), address: '10.8.0.2', parent_tmpl: root, overriden_fields: ['capture_threads'], capture_threads: 8 });
    const p3 = (await remote.api.post(P, { name: unique('p3'), address: '10.8.0.3', parent_tmpl: child.pk })).json();
    await remote.api.post(P, { name: unique('p4'), address: '10.8.0.4', parent_tmpl: own.pk });
    expect((await site.sync()).outcome).toBe('done');

    expect((await site.api.patch(`${T}${root}/`, { capture_threads: 4 })).status).toBe(200);
    const entry = entryOf(await plan(), root);
    expect(entry.fields).toEqual([{ field: 'capture_threads', now: 2, after: 4, base: 2, outcome: 'send' }]);
    expect(entry.reaches).toHaveLength(1);
    const [reach] = entry.reaches;
    // p1 and p3 (through Child) take it; p2, Own and p4 (below Own) do not.
    expect(reach!.field).toBe('capture_threads');
    expect(reach!.probes).toBe(2);
    expect(reach!.templates).toBe(1);
    expect(reach!.objects.map((o) => o.name).sort()).toEqual([child.name, p1.name, p3.name].sort());
  });

  test('an unreachable central server is a 502 with its reason, not an error of this server', async () => {
    const away = await startBound({ url: 'http://127.0.0.1:9', token: 'x'.repeat(40) });
    try {
      expect((await away.api.post(RULESETS, { name: 'offline-made' })).status).toBe(201);
      const answer = await away.api.get('/app/sync/plan');
      expect(answer.status).toBe(502);
      expect(answer.json().detail).toMatch(/^The central server could not be read: the central server 127\.0\.0\.1:9 cannot be reached/);
      // The kind of failure, for the Review to say what to try as the Sync screen does.
      expect(answer.json().kind).toBe('network');
    } finally {
      await away.close();
    }
  });
});

describe('applying reviewed entries', () => {
  test('an entry whose field a colleague changed since the plan stops (changed_there) and waits; nothing is overwritten; the others go', async () => {
    const first = await centralProbe();
    const second = await centralProbe();
    await site.api.patch(`${P}${first}/`, { location: 'rack 1' });
    await site.api.patch(`${P}${second}/`, { location: 'rack 2' });
    const reviewed = await plan();
    expect(entryOf(reviewed, first).outcome).toBe('send');
    expect((await remote.api.patch(`${P}${first}/`, { location: 'rack 7' })).status).toBe(200);

    const relayedBefore = relay.requests.length;
    const result = await apply(reviewed.entries);
    const firstSeq = entryOf(reviewed, first).seq;
    expect(result.stopped).toEqual([{ seq: firstSeq, reason: 'changed_there', message: 'The central server changed since the review: review it again.' }]);
    expect(result.applied).toEqual([entryOf(reviewed, second).seq]);
    expect((await remote.api.get(`${P}${first}/`)).json().location).toBe('rack 7');
    expect((await remote.api.get(`${P}${second}/`)).json().location).toBe('rack 2');
    // No write was made for the stopped entry.
    expect(relay.requests.slice(relayedBefore).filter((r) => r.method !== 'GET' && r.url.includes(`/${first}/`))).toEqual([]);
    // It waits, shown again at the next review with what is there now.
    const again = entryOf(await plan(), first);
    expect(again.seq).toBe(firstSeq);
    expect(again.fields).toEqual([{ field: 'location', now: 'rack 7', after: 'rack 1', base: 'hall', outcome: 'conflict' }]);
  });

  test('an entry changed here since the plan stops (changed_here); an unknown one is gone_here', async () => {
    const name = unique('edited-after-review');
    const made = (await site.api.post(RULESETS, { name, descr: 'first' })).json();
    const reviewed = await plan();
    const seq = entryOf(reviewed, made.pk, 'create').seq;
    // An edit of an object not sent yet goes into its create: the entry reviewed is no longer the one waiting.
    expect((await site.api.patch(`${RULESETS}${made.pk}/`, { descr: 'second thoughts' })).status).toBe(200);
    const stale = reviewed.entries.find((e) => e.seq === seq)!;
    const answer = await site.api.post('/app/sync/apply', { entries: [{ seq, hash: stale.hash, central: stale.central }, { seq: 999_999, hash: stale.hash, central: stale.central }] });
    const result = answer.json() as ApplyResult;
    expect(result.applied).toEqual([]);
    expect(result.stopped.map((s) => [s.seq, s.reason])).toEqual([
      [seq, 'changed_here'],
      [999_999, 'gone_here'],
    ]);
    expect((await remote.api.get(`${RULESETS}?name=${name}`)).json().count).toBe(0);
  });

  test('chosen entries take their dependencies: a probe made on a template made here needs its create', async () => {
    const template = (await site.api.post(T, { name: unique('site-tmpl'), capture_threads: 3 })).json();
    const probe = (await site.api.post(P, { name: unique('site-probe'), address: '10.7.0.1', parent_tmpl: template.pk })).json();
    const other = unique('unrelated');
    expect((await site.api.post(RULESETS, { name: other })).status).toBe(201);
    const reviewed = await plan();
    const templateEntry = entryOf(reviewed, template.pk, 'create');
    const probeEntry = entryOf(reviewed, probe.pk, 'create');
    expect(probeEntry.needs).toEqual([templateEntry.seq]);

    // Alone, the probe is refused before anything is sent.
    const alone = await apply([probeEntry]);
    expect(alone.stopped).toEqual([{ seq: probeEntry.seq, reason: 'needs_unreviewed', message: `It needs entry ${templateEntry.seq}, not in the request.` }]);
    expect((await remote.api.get(`${P}?name=${probe.name}`)).json().count).toBe(0);

    const chosen = withDependencies(reviewed.entries, [probeEntry.seq]);
    expect(chosen).toEqual([templateEntry.seq, probeEntry.seq]);
    const result = await apply(reviewed.entries.filter((e) => chosen.includes(e.seq)));
    expect(result).toMatchObject({ applied: chosen, stopped: [] });
    const centralTemplate = (await remote.api.get(`${T}?name=${template.name}`)).json().results[0];
    expect((await remote.api.get(`${P}?name=${probe.name}`)).json().results[0].parent_tmpl).toBe(centralTemplate.pk);
    // The entry not chosen waits.
    expect((await remote.api.get(`${RULESETS}?name=${other}`)).json().count).toBe(0);
    expect(((await site.api.get('/app/sync')).json().entries as PlanEntry[]).map((e) => e.label)).toEqual([other]);
  });

  test('a hostile request is refused whole: nothing is sent', async () => {
    const pk = await centralProbe();
    await site.api.patch(`${P}${pk}/`, { location: 'rack 5' });
    for (const entries of ['all', [{ seq: -1, hash: 'a'.repeat(64), central: 'a'.repeat(64) }], [{ seq: 1, hash: 'not hex', central: 'b'.repeat(64) }], [{ seq: 1 }]]) {
      const answer = await site.api.post('/app/sync/apply', { entries });
      expect(answer.status, JSON.stringify(entries)).toBe(400);
      expect(answer.json().entries).toHaveLength(1);
    }
    expect((await remote.api.get(`${P}${pk}/`)).json().location).toBe('hall');
  });
});

describe('the push mode', () => {
  test('after review, a write is not pushed on its own but pulls go on; "Sync now" pulls only unless told to push; automatic sends soon', async () => {
    const reviewing = await startBound(
      { url: remote.url, token: remote.token },
      { workspace: 'reviewing', pushMode: 'review', sync: { auto: true, pushDelayMs: 50, delay: () => 300, client: { backoff: () => 20 } } },
    );
    try {
      const status = (await reviewing.api.get('/app/sync')).json().status as SyncStatus;
      expect(status.pushMode).toBe('review');
      const mine = unique('held-here');
      expect((await reviewing.api.post(RULESETS, { name: mine })).status).toBe(201);
      // A colleague's object arrives by the automatic pulls…
      const theirs = unique('from-colleague');
      expect((await remote.api.post(RULESETS, { name: theirs })).status).toBe(201);
      await expect.poll(async () => (await reviewing.api.get(`${RULESETS}?name=${theirs}`)).json().count, { timeout: 15_000 }).toBe(1);
      // …while the local one is not sent, however long after the push delay.
      await new Promise((resolve) => setTimeout(resolve, 700));
      expect((await remote.api.get(`${RULESETS}?name=${mine}`)).json().count).toBe(0);
      expect(((await reviewing.api.get('/app/sync')).json().status as SyncStatus).awaitingReview).toBe(1);

      // "Sync now" in review mode: a pull; with push: true, everything.
      expect((await reviewing.api.post('/app/sync', {})).status).toBe(202);
      await expect.poll(async () => (await reviewing.api.get('/app/sync')).json().status.syncing, { timeout: 10_000 }).toBe(false);
      expect((await remote.api.get(`${RULESETS}?name=${mine}`)).json().count).toBe(0);

      // Back to automatic: what waits goes soon, and so does the next write.
      const changed = await reviewing.api.put('/app/sync/push-mode', { mode: 'automatic' });
      expect(changed.status, changed.text).toBe(200);
      expect(changed.json()).toMatchObject({ pushMode: 'automatic', awaitingReview: 0 });
      await expect.poll(async () => (await remote.api.get(`${RULESETS}?name=${mine}`)).json().count, { timeout: 15_000 }).toBe(1);
      const next = unique('sent-soon');
      expect((await reviewing.api.post(RULESETS, { name: next })).status).toBe(201);
      await expect.poll(async () => (await remote.api.get(`${RULESETS}?name=${next}`)).json().count, { timeout: 15_000 }).toBe(1);

      expect((await reviewing.api.put('/app/sync/push-mode', { mode: 'sometimes' })).status).toBe(400);
      // DRF's words, the value as Python prints it.
      expect((await reviewing.api.put('/app/sync/push-mode', { mode: { a: 1 } })).json()).toEqual({ mode: ['"{\'a\': 1}" is not a valid choice.'] });
      expect((await reviewing.api.put('/app/sync/push-mode', {})).status).toBe(400);
    } finally {
      await reviewing.close();
    }
  });

  test('a new bound workspace sends after review unless asked; an existing one without a stored mode sends automatically', async () => {
    const created = await site.api.post('/app/workspaces', { name: 'fresh', remote: 'central' });
    expect(created.status, created.text).toBe(201);
    const asked = await site.api.post('/app/workspaces', { name: 'eager', remote: 'central', pushMode: 'automatic' });
    expect(asked.status, asked.text).toBe(201);
    expect((await site.api.post('/app/workspaces', { name: 'odd', remote: 'central', pushMode: 'never' })).status).toBe(400);
    const { SyncMeta } = await import('../../electron/server/store/syncMeta');
    const { Store } = await import('../../electron/server/store/store');
    const { openDatabase } = await import('../../electron/server/store/database');
    const { workspaceFile } = await import('../../electron/workspaces/dataFolder');
    const modeOf = (name: string) => {
      const store = new Store(openDatabase(workspaceFile(site.dir, name)));
      try {
        return new SyncMeta(store).pushMode();
      } finally {
        store.close();
      }
    };
    expect(modeOf('fresh')).toBe('review');
    expect(modeOf('eager')).toBe('automatic');
    // `site` was made by the test helper with its mode stored; without one, a workspace sends automatically.
    const store = new Store(openDatabase(workspaceFile(site.dir, 'fresh')));
    try {
      store.write(() => new SyncMeta(store).delete('push_mode'));
      expect(new SyncMeta(store).pushMode()).toBe('automatic');
    } finally {
      store.close();
    }
  });
});
