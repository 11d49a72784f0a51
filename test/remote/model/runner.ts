/**
 * One seed of the model-based sync test, against a real central server (the reference DRF
 * server): a fresh remote state, two workspaces bound to it, rounds of random operations on
 * each workspace and directly on the remote interleaved with syncs in random order, the
 * invariants checked after every sync, then a clean-up (conflicts resolved, refused changes
 * discarded) and the final clean syncs after which everything must be equal.
 *
 * Central servers are reused: a "lane" is one reference server that runs one seed at a time,
 * emptied of every pushed object between seeds (and checked empty) and replaced every
 * RESTART_EVERY seeds: its history only grows, and every pull asks for its newest 1,000 entries
 * (the server's cost grows with it: with a lane kept for 25 seeds, history was most of the run).
 *
 * The central server's state after a sync (R1) is what it answered to that sync's pull: the
 * pull lists every endpoint after the push, and nothing else writes to the lane's server
 * meanwhile (one seed per lane, its steps one at a time), so those answers are the server's
 * state, read by the test from the wire rather than from what the pull made of them. When they
 * do not cover an endpoint in one complete page, the test lists it itself.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { RemoteClient } from '../../../electron/remote/client';
import type { SyncReport } from '../../../shared/app/sync';
import type { Reply } from '../../helpers/http';
import { startReference, type ReferenceServer } from '../../helpers/reference';
import { startBound, type BoundWorkspace } from '../../helpers/sync';
import { type Actor, describeOp, nextOp, type Op } from './generator';
import { KeepAliveClient } from './keepAlive';
import { WorkspaceModel, type Ws } from './intents';
import { duplicateNames, equalityViolations, mirrorViolations } from './mirror';
import { ENDPOINTS, type Endpoint, type Obj, PATHS, type Snapshot, snapshotOf } from './objects';
import type { Entry } from './outbox';
import { mulberry32, type Rng } from './prng';

const RESTART_EVERY = 4;

/**
 * The reference server's WSGI handler writes a response's headers and body separately; with
 * Nagle's algorithm on, the client's delayed ACK then stalls about half of the requests by
 * 40 ms. A sitecustomize on PYTHONPATH turns TCP_NODELAY on for its sockets (the server's code
 * is unchanged): syncs run about twice as fast.
 */
function noDelayPythonPath(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'outpost-model-py-'));
  fs.writeFileSync(path.join(dir, 'sitecustomize.py'), 'import socketserver\nsocketserver.StreamRequestHandler.disable_nagle_algorithm = True\n');
  return dir;
}

export interface Lane {
  readonly reference: ReferenceServer;
  readonly api: KeepAliveClient;
  seeds: number;
}

/** What the model test lists and writes through: the local API's client, or the keep-alive one. */
type Api = Pick<KeepAliveClient, 'get'>;

/**
 * Reference servers, each running one seed at a time. A lane retired (its history grown, or its
 * seed failed) is replaced at once, in the background, so that a seed rarely waits for a start.
 */
export class LanePool {
  private readonly idle: Lane[] = [];
  private readonly waiting: { resolve: (lane: Lane) => void; reject: (error: Error) => void }[] = [];
  private readonly all = new Set<Lane>();
  private readonly starting = new Set<Promise<void>>();
  private readonly pythonPath: string;
  private readonly previousPythonPath: string | undefined;

  constructor(private readonly size: number) {
    this.pythonPath = noDelayPythonPath();
    this.previousPythonPath = process.env.PYTHONPATH;
    // startReference passes this process's environment to the server it starts.
    process.env.PYTHONPATH = [this.pythonPath, this.previousPythonPath].filter(Boolean).join(path.delimiter);
  }

  acquire(): Promise<Lane> {
    const lane = this.idle.pop();
    if (lane) return Promise.resolve(lane);
    if (this.all.size + this.starting.size < this.size) this.start();
    return new Promise((resolve, reject) => this.waiting.push({ resolve, reject }));
  }

  private start(): void {
    const started = startReference().then(
      (reference) => {
        const lane = { reference, api: new KeepAliveClient(reference.url, reference.token), seeds: 0 };
        this.all.add(lane);
        this.offer(lane);
      },
      (error: Error) => this.waiting.shift()?.reject(error),
    );
    this.starting.add(started);
    void started.finally(() => this.starting.delete(started));
  }

  private offer(lane: Lane): void {
    const waiter = this.waiting.shift();
    if (waiter) waiter.resolve(lane);
    else this.idle.push(lane);
  }

  /**
   * Give a lane back, with its central server's state when the seed ended well: emptied for the
   * next seed (which checks it starts from exactly what it made), or replaced when its history
   * grew long or the seed failed.
   */
  async release(lane: Lane, state: Snapshot | undefined): Promise<void> {
    lane.seeds++;
    if (state !== undefined && lane.seeds < RESTART_EVERY) {
      try {
        await emptyRemote(lane.api, state);
        this.offer(lane);
        return;
      } catch {
        // replaced below
      }
    }
    this.all.delete(lane);
    this.start();
    lane.api.close();
    await lane.reference.stop();
  }

  async close(): Promise<void> {
    await Promise.all(this.starting);
    for (const lane of this.all) lane.api.close();
    await Promise.all([...this.all].map((lane) => lane.reference.stop()));
    this.all.clear();
    if (this.previousPythonPath === undefined) delete process.env.PYTHONPATH;
    else process.env.PYTHONPATH = this.previousPythonPath;
    fs.rmSync(this.pythonPath, { recursive: true, force: true });
  }
}

async function listAll(api: Api, endpoint: Endpoint): Promise<Obj[]> {
  const reply = await api.get(`${PATHS[endpoint]}?page_size=1000`);
  if (reply.status !== 200) throw new Error(`GET ${PATHS[endpoint]} answered ${reply.status}: ${reply.text.slice(0, 300)}`);
  const body = reply.json();
  if (body.next !== null) throw new Error(`${PATHS[endpoint]} has more than one page`);
  return body.results as Obj[];
}

export async function snapshot(api: Api): Promise<Snapshot> {
  const lists = await Promise.all(ENDPOINTS.map((endpoint) => listAll(api, endpoint)));
  return snapshotOf(Object.fromEntries(ENDPOINTS.map((endpoint, i) => [endpoint, lists[i]!])) as Record<Endpoint, Obj[]>);
}

/** Delete every object of `state`, the central server's pushed objects (children first). */
export async function emptyRemote(api: KeepAliveClient, state: Snapshot): Promise<void> {
  const del = async (endpoint: Endpoint, pk: number) => {
    const reply = await api.delete(`${PATHS[endpoint]}${pk}/`);
    if (reply.status !== 204) throw new Error(`clearing the central server: DELETE ${endpoint} ${pk} answered ${reply.status}`);
  };
  for (const endpoint of ['vendor_probe', 'engine_probe'] as const) for (const pk of state[endpoint].keys()) await del(endpoint, pk);
  const templates = new Map(state.vendor_probe_template);
  while (templates.size > 0) {
    const parents = new Set([...templates.values()].map((t) => t.parent_tmpl));
    const leaves = [...templates.keys()].filter((pk) => !parents.has(pk));
    if (leaves.length === 0) throw new Error('clearing the central server: templates form a cycle');
    for (const pk of leaves) {
      await del('vendor_probe_template', pk);
      templates.delete(pk);
    }
  }
  for (const endpoint of ['ruleset', 'source'] as const) for (const pk of state[endpoint].keys()) await del(endpoint, pk);
}

export class ModelFailure extends Error {}

const LIST_PARAMETERS = new Set(['page', 'page_size', 'ordering']);

/** The central server's answers to the list requests of a workspace's pull, by endpoint. */
class PullAnswers {
  private readonly lists = new Map<Endpoint, Obj[] | undefined>();

  constructor(client: RemoteClient) {
    const send = client.send.bind(client);
    client.send = async (method, path, body, query = {}) => {
      const reply = await send(method, path, body, query);
      const endpoint = ENDPOINTS.find((e) => PATHS[e] === path);
      if (method === 'GET' && endpoint && Object.keys(query).every((key) => LIST_PARAMETERS.has(key))) {
        const page = reply.body as Obj | null;
        const whole = reply.status === 200 && Number(query.page ?? 1) === 1 && page?.next === null && Array.isArray(page.results) && page.count === page.results.length;
        this.lists.set(endpoint, whole ? (page.results as Obj[]) : undefined);
      }
      return reply;
    };
  }

  forget(): void {
    this.lists.clear();
  }

  /** The state the pull read, if it read every endpoint whole. */
  state(): Snapshot | undefined {
    const lists = ENDPOINTS.map((endpoint) => this.lists.get(endpoint));
    if (lists.some((list) => list === undefined)) return undefined;
    return snapshotOf(Object.fromEntries(ENDPOINTS.map((endpoint, i) => [endpoint, lists[i]!])) as Record<Endpoint, Obj[]>);
  }
}

export interface SeedOptions {
  readonly rounds: number;
}

export interface SeedStats {
  ops: number;
  accepted: number;
  /** Accepted local writes naming an object made here and not yet created on the central server. */
  localReferences: number;
  syncs: number;
  conflicts: number;
  parked: number;
  resolved: number;
  discarded: number;
}

interface Side {
  readonly ws: Ws;
  readonly bound: BoundWorkspace;
  readonly model: WorkspaceModel;
  readonly answers: PullAnswers;
}

/** The fields a write gave (not its comment). */
function given(body: Obj | undefined): string[] {
  return Object.keys(body ?? {}).filter((field) => field !== 'comment');
}

class SeedRun {
  readonly rng: Rng;
  readonly log: string[] = [];
  readonly stats: SeedStats = { ops: 0, accepted: 0, localReferences: 0, syncs: 0, conflicts: 0, parked: 0, resolved: 0, discarded: 0 };
  private step = 0;
  /** The central server's exact state, when known; `stale` endpoints of it are read again before use. */
  private remoteState: Snapshot | undefined;
  private readonly stale = new Set<Endpoint>();
  /** What the direct edits are chosen from: the last state read, with the answers of the edits since. */
  private remoteView: Snapshot | undefined;
  /** What each workspace's operations are chosen from, likewise (read again after its syncs). */
  private readonly localViews = new Map<Ws, Snapshot>();

  /** The objects the seed made on the central server before anything else: all it may have then. */
  private readonly seeded: string[] = [];

  constructor(
    readonly seed: number,
    readonly reference: KeepAliveClient,
  ) {
    this.rng = mulberry32(seed);
  }

  fail(violations: readonly string[]): never {
    throw new ModelFailure(
      [
        `seed ${this.seed}: ${violations.length} invariant violation(s) at step ${this.step}:`,
        ...violations.map((v) => `  - ${v}`),
        'operations so far:',
        ...this.log.map((line) => `  ${line}`),
        `replay this seed alone: OUTPOST_MODEL_SEED=${this.seed} npx vitest run test/remote/model.test.ts`,
      ].join('\n'),
    );
  }

  /** (d) The local API keeps working: no 5xx, ever. */
  checked(what: string, reply: Reply): Reply {
    if (reply.status >= 500) this.fail([`${what} answered ${reply.status}: ${reply.text.slice(0, 500)}`]);
    return reply;
  }

  async remote(): Promise<Snapshot> {
    if (!this.remoteState) this.remoteState = await snapshot(this.reference);
    else if (this.stale.size > 0) {
      const lists = Object.fromEntries(ENDPOINTS.map((endpoint) => [endpoint, [...this.remoteState![endpoint].values()]])) as Record<Endpoint, Obj[]>;
      for (const endpoint of this.stale) lists[endpoint] = await listAll(this.reference, endpoint);
      this.remoteState = snapshotOf(lists);
    }
    this.stale.clear();
    this.remoteView = this.remoteState;
    return this.remoteState;
  }

  async local(side: Side): Promise<Snapshot> {
    return snapshot(side.bound.api);
  }

  async outbox(side: Side): Promise<Entry[]> {
    const reply = this.checked(`${side.ws}: GET /app/sync`, await side.bound.api.get('/app/sync'));
    return reply.json().entries as Entry[];
  }

  /** A fresh remote state: a few objects of every kind, made directly on the central server. */
  async seedRemote(): Promise<void> {
    const api = this.reference;
    const rng = this.rng;
    const post = async (endpoint: Endpoint, body: Obj): Promise<Obj & { pk: number }> => {
      const reply = await api.post(PATHS[endpoint], body);
      if (reply.status !== 201) throw new Error(`seeding ${endpoint} ${JSON.stringify(body)}: ${reply.status} ${reply.text}`);
      this.log.push(`R: seed ${endpoint} ${JSON.stringify(body)}`);
      this.seeded.push(`${endpoint} ${body.name}`);
      return reply.json() as Obj & { pk: number };
    };
    const s1 = await post('source', { name: 's1', uri: 'http://a.example/rules' });
    const s2 = rng.chance(0.4) ? await post('source', { name: 's2', method: 'local', datatype: 'sig' }) : undefined;
    const r1 = await post('ruleset', { name: 'r1', sources: [s1.pk, ...(s2 ? [s2.pk] : [])] });
    const t1 = await post('vendor_probe_template', {
      name: 't1',
      ntp_server: 'ntp.a',
      interfaces: [{ name: 'eth0' }, { name: 'eth1', active: rng.chance(0.5) }],
      protocols: [{ name: 'http' }],
    });
    const t2 = rng.chance(0.7) ? await post('vendor_probe_template', { name: 't2', parent_tmpl: t1.pk, overriden_fields: ['dns_server'], dns_server: 'dns.a' }) : undefined;
    await post('vendor_probe', { name: 'p1', address: '10.0.0.1', parent_tmpl: (t2 ?? t1).pk });
    if (rng.chance(0.4)) await post('vendor_probe', { name: 'p2', address: '10.0.0.2', interfaces: [{ name: 'eth0' }, { name: 'eth2' }] });
    if (rng.chance(0.35)) await post('vendor_probe', { name: 'p3', address: '10.0.0.3', parent_tmpl: t1.pk, overriden_fields: ['interfaces'], interfaces: [{ name: 'eth3' }] });
    await post('engine_probe', { name: 'e1', address: '10.0.1.1', ruleset: r1.pk });
    if (rng.chance(0.3)) await post('engine_probe', { name: 'e2', address: '10.0.1.2' });
    // The lane was emptied after the previous seed: it holds exactly what this one made.
    this.remoteState = undefined;
    const state = await this.remote();
    const found = ENDPOINTS.flatMap((endpoint) => [...state[endpoint].values()].map((o) => `${endpoint} ${o.name}`));
    if (found.sort().join() !== [...this.seeded].sort().join()) throw new Error(`the central server does not start from the seeded objects only: ${found.join(', ')}`);
  }

  async sync(side: Side): Promise<void> {
    this.step++;
    const before = await this.remote();
    side.answers.forget();
    this.localViews.delete(side.ws);
    const report: SyncReport = await side.bound.sync({ allowMassDelete: true });
    this.stats.syncs++;
    this.log.push(`${this.step} ${side.ws}: sync → ${report.outcome} (pushed ${report.pushed}, conflicts ${report.conflicts}, parked ${report.parked}, waiting ${report.waiting})`);
    const violations: string[] = [];
    if (report.outcome === 'error') violations.push(`${side.ws}'s sync failed: ${JSON.stringify(report.error)}`);
    this.remoteState = side.answers.state();
    this.stale.clear();
    const after = await this.remote();
    const entries = await this.outbox(side);
    this.stats.conflicts += entries.filter((e) => e.state === 'conflict').length;
    this.stats.parked += entries.filter((e) => e.state === 'parked').length;
    const local = await this.local(side);
    violations.push(...duplicateNames('the central server', after), ...duplicateNames(side.ws, local));
    violations.push(...side.model.afterSync(before, after, entries));
    violations.push(...mirrorViolations(side.ws, local, after, entries));
    await this.trace(side);
    if (violations.length > 0) this.fail(violations);
  }

  async localOp(side: Side): Promise<void> {
    this.step++;
    const view = this.localViews.get(side.ws) ?? (await this.local(side));
    const op = nextOp(this.rng, side.ws, view, this.step);
    // The object as it is now (the view may miss what a write to its template changed).
    const before = op.kind === 'update' ? (this.checked(`${side.ws}: GET ${op.path}`, await side.bound.api.get(op.path)).json() as Obj) : op.before;
    const reply = this.checked(`${side.ws}: ${describeOp(op)}`, await side.bound.api.send(op.method, op.path, op.body ? { json: op.body } : {}));
    this.record(op, reply);
    if (reply.status >= 300) return;
    this.stats.accepted++;
    this.localViews.set(side.ws, afterWrite(view, op, reply));
    const recorded = this.step;
    if (['parent_tmpl', 'ruleset', 'sources'].some((field) => [op.body?.[field]].flat().some((v) => typeof v === 'number' && v < 0))) this.stats.localReferences++;
    const model = side.model;
    switch (op.kind) {
      case 'create':
        model.created(op.endpoint, reply.json() as Obj, given(op.body), this.step);
        break;
      case 'update':
        model.updated(op.endpoint, before!, reply.json() as Obj, given(op.body), this.step);
        break;
      case 'delete':
        model.deleted(op.endpoint, op.before!.pk as number, this.step);
        break;
      case 'deleteInterface':
        model.interfaceDeleted({ endpoint: op.endpoint, pk: op.before!.pk as number }, op.iface!, this.step);
        break;
    }
    // Which outbox entry carries the write: giving that entry up gives up exactly these intents.
    const pk = op.kind === 'create' ? (reply.json().pk as number) : (op.before!.pk as number);
    const carrier = (await this.outbox(side)).filter((e) => e.resource === op.endpoint && e.pk === pk).at(-1);
    if (carrier) model.carriedBy(recorded, carrier.seq);
    await this.trace(side);
  }

  /** OUTPOST_MODEL_TRACE=1: the workspace's outbox after each of its steps, in the log. */
  private async trace(side: Side): Promise<void> {
    if (!process.env.OUTPOST_MODEL_TRACE) return;
    for (const e of await this.outbox(side)) this.log.push(`     ${side.ws} outbox ${e.seq} ${e.op} ${e.resource} ${e.pk} ${e.state} ${JSON.stringify(e.fields)} conflicts ${JSON.stringify(e.conflicts)}`);
  }

  async remoteOp(): Promise<void> {
    this.step++;
    const op = nextOp(this.rng, 'R', this.remoteView ?? (await this.remote()), this.step);
    const reply = await this.reference.send(op.method, op.path, op.body ? { json: op.body } : {});
    if (reply.status >= 500) this.fail([`the central server answered ${reply.status} to ${describeOp(op)}: ${reply.text.slice(0, 500)}`]);
    this.record(op, reply);
    if (reply.status < 300) {
      this.stats.accepted++;
      this.remoteView = afterWrite(this.remoteView!, op, reply);
      for (const endpoint of touched(op)) this.stale.add(endpoint);
    }
  }

  private record(op: Op, reply: Reply): void {
    this.stats.ops++;
    this.log.push(`${this.step} ${describeOp(op)} → ${reply.status}${reply.status >= 400 ? ` ${reply.text.slice(0, 160)}` : ''}`);
  }

  /** Resolve every conflict (keep mine / take theirs, by the seed) and discard refused changes. */
  async cleanUp(side: Side): Promise<void> {
    this.localViews.delete(side.ws);
    for (;;) {
      const entries = await this.outbox(side);
      const entry = entries.find((e) => e.state === 'conflict' || e.state === 'parked');
      if (!entry) return;
      this.step++;
      const base = `/app/sync/entries/${entry.seq}`;
      if (entry.state === 'parked') {
        side.model.discarded(entry);
        const reply = this.checked(`${side.ws}: discard ${entry.seq}`, await side.bound.api.delete(base));
        this.log.push(`${this.step} ${side.ws}: discard entry ${entry.seq} (${entry.op} ${entry.resource} ${entry.pk}: ${entry.message}) → ${reply.status}`);
        if (reply.status !== 204) this.fail([`discarding a refused change answered ${reply.status}: ${reply.text}`]);
        this.stats.discarded++;
        continue;
      }
      const field = entry.conflicts[0]?.field;
      if (field === undefined) this.fail([`${side.ws}'s outbox entry ${entry.seq} is a conflict with no conflicting field`]);
      const choice = this.rng.chance(0.5) ? 'mine' : 'theirs';
      side.model.resolved(entry, field, choice, this.step);
      const reply = this.checked(`${side.ws}: resolve ${entry.seq}`, await side.bound.api.post(`${base}/resolve`, { field, choice }));
      this.log.push(`${this.step} ${side.ws}: resolve entry ${entry.seq} (${entry.op} ${entry.resource} ${entry.pk}) ${field} → ${choice}: ${reply.status}`);
      if (reply.status !== 200) this.fail([`resolving a conflict answered ${reply.status}: ${reply.text}`]);
      this.stats.resolved++;
    }
  }
}

/**
 * The endpoints whose objects a write on the central server may change: its own, and those
 * whose objects refer to it (children inherit from a template, a ruleset loses a deleted source,
 * an engine probe its deleted ruleset). Only those are read again for the next exact state.
 */
function touched(op: Op): Endpoint[] {
  const dependents: Record<Endpoint, Endpoint[]> = {
    source: ['ruleset'],
    ruleset: ['engine_probe'],
    vendor_probe_template: ['vendor_probe'],
    vendor_probe: [],
    engine_probe: [],
  };
  return [op.endpoint, ...dependents[op.endpoint]];
}

/** A view after one accepted write, from its answer (what it changed elsewhere, children, is not in it). */
function afterWrite(view: Snapshot, op: Op, reply: Reply): Snapshot {
  const lists = Object.fromEntries(ENDPOINTS.map((endpoint) => [endpoint, new Map(view[endpoint])])) as Record<Endpoint, Map<number, Obj>>;
  const objects = lists[op.endpoint];
  if (op.kind === 'create' || op.kind === 'update') {
    const object = reply.json() as Obj;
    objects.set(object.pk as number, object);
  } else if (op.kind === 'delete') objects.delete(op.before!.pk as number);
  else {
    const owner = objects.get(op.before!.pk as number);
    if (owner && Array.isArray(owner.interfaces)) objects.set(owner.pk as number, { ...owner, interfaces: owner.interfaces.filter((i) => (i as Obj).pk !== op.iface!.pk) });
  }
  return lists;
}

/**
 * The actors of one round, with syncs at random places: both workspaces (half the rounds), or
 * only one of them (the other stays offline longer), sometimes one of them twice.
 */
function roundPlan(rng: Rng): (Actor | 'syncA' | 'syncB')[] {
  const plan: (Actor | 'syncA' | 'syncB')[] = [];
  const n = rng.int(5, 10);
  for (let i = 0; i < n; i++) {
    plan.push(
      rng.weighted<Actor>([
        ['A', 2],
        ['B', 2],
        ['R', 1.2],
      ]),
    );
  }
  const syncs: ('syncA' | 'syncB')[] = rng.chance(0.5) ? ['syncA', 'syncB'] : [rng.pick(['syncA', 'syncB'] as const)];
  if (rng.chance(0.15)) syncs.push(rng.pick(syncs));
  for (const sync of rng.shuffle(syncs)) plan.splice(rng.int(1, plan.length), 0, sync);
  return plan;
}

/** Run one seed; its stats, and the central server's state at its end (for the lane's clean-up). */
export async function runSeed(seed: number, lane: Lane, options: SeedOptions): Promise<{ stats: SeedStats; state: Snapshot }> {
  const run = new SeedRun(seed, lane.api);
  await run.seedRemote();
  const sides: Side[] = [];
  try {
    for (const ws of ['A', 'B'] as const) {
      const bound = await startBound(lane.reference, { workspace: ws.toLowerCase() });
      sides.push({ ws, bound, model: new WorkspaceModel(ws), answers: new PullAnswers(bound.session().client) });
    }
    const [a, b] = sides as [Side, Side];
    await run.sync(a);
    await run.sync(b);
    for (let round = 1; round <= options.rounds; round++) {
      run.log.push(`-- round ${round}`);
      for (const action of roundPlan(run.rng)) {
        if (action === 'syncA') await run.sync(a);
        else if (action === 'syncB') await run.sync(b);
        else if (action === 'R') await run.remoteOp();
        else await run.localOp(action === 'A' ? a : b);
      }
    }
    run.log.push('-- clean-up');
    for (let pass = 1; ; pass++) {
      if (pass > 8) run.fail(['the outboxes did not empty after 8 passes of resolving, discarding and syncing']);
      await run.cleanUp(a);
      await run.cleanUp(b);
      await run.sync(a);
      await run.sync(b);
      if ((await run.outbox(a)).length === 0 && (await run.outbox(b)).length === 0) break;
    }
    // The final clean syncs: A learns what B pushed last, and B pushes nothing.
    await run.sync(a);
    await run.sync(b);
    const remote = await run.remote();
    const violations: string[] = [];
    for (const side of sides) {
      const entries = await run.outbox(side);
      if (entries.length > 0) violations.push(`${side.ws}'s outbox is not empty after the final syncs: ${JSON.stringify(entries)}`);
      violations.push(...side.model.pending().map((p) => `intent never settled: ${p}`));
      violations.push(...equalityViolations(side.ws, await run.local(side), remote));
    }
    if (process.env.OUTPOST_MODEL_LOG) console.log(run.log.join('\n'));
    if (violations.length > 0) run.fail(violations);
    return { stats: run.stats, state: remote };
  } finally {
    for (const side of sides) await side.bound.close();
  }
}
