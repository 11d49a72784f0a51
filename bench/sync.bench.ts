/**
 * Benchmark of the sync with a central server (issue 4), against the reference DRF server with
 * 10,000 vendor probes. In one run, on the same machine state:
 * - pull: a plain sequential HTTP client fetching exactly the pages a pull fetches (the
 *   baseline), then a first pull into a fresh bound workspace and an incremental pull right
 *   after; runs alternate their order, each pull is compared with the baseline of its run, and
 *   medians are reported, for the whole pull and per endpoint;
 * - push: 1,000 updates and 1,000 creates from the outbox, against the same requests sent by
 *   the plain client, in slices that alternate with the baseline's.
 * Beside wall times: the CPU time of the reference server and of this process, the time spent
 * in SQLite write transactions, and the CPU other processes took (the machine may be shared).
 * Figures are printed as a Markdown table; `--write` also records them in docs/benchmarks.md.
 *
 *   npm run bench:sync -- [--probes 10000] [--runs 7] [--push 1000] [--page-size 1000] [--concurrency 4]
 *                         [--no-push] [--no-pin] [--write]
 *   npm run bench:sync -- --case plan [--runs 7] [--concurrency 4]     (bench/syncPlan.ts)
 *   npm run bench:sync -- --case connect [--probes 10000]    (connecting a standalone workspace: syncConnect.ts)
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { SyncEngine } from '../electron/remote/engine';
import { Pusher } from '../electron/remote/push';
import { PULLED, pullPath, pullQuery, type PulledEndpoint } from '../electron/remote/synced';
import type { Api } from '../electron/server/api';
import { bodyText } from '../electron/server/http/types';
import type { Services } from '../electron/server/store/services';
import { WorkspaceHost } from '../electron/workspaces/host';
import { remainingPages } from '../shared/sync/pullPlan';
import { BENCH_TOKEN } from './dataset';
import { PlainClient, queryString, TracingClient, type TracedRequest } from './syncClients';
import { seededCopy, startReference, type ReferenceProcess } from './syncReference';
import { syncPlanCase, type CaseContext } from './syncPlan';
import { syncConnectBench } from './syncConnect';

/** The cases run alone with `--case NAME`. */
const CASES: Readonly<Record<string, (context: CaseContext) => Promise<void>>> = {
  plan: syncPlanCase,
  connect: (context) => syncConnectBench(context.cache, PROBES, context.log),
};

// Runs as dist/bench/sync.bench.cjs.
const ROOT = path.resolve(__dirname, '../..');
const CACHE = path.join(ROOT, 'bench', '.cache');
const REFERENCE = path.resolve(ROOT, '..', 'shared', 'reference-server', 'run');
const THREATS = path.resolve(ROOT, '..', 'shared', 'samples', 'scout-appliances-threat-results.json');

const { values: options } = parseArgs({
  options: {
    probes: { type: 'string', default: '10000' },
    runs: { type: 'string', default: '7' },
    push: { type: 'string', default: '1000' },
    'page-size': { type: 'string', default: '1000' },
    concurrency: { type: 'string', default: '4' },
    'no-pin': { type: 'boolean', default: false },
    'no-push': { type: 'boolean', default: false },
    write: { type: 'boolean', default: false },
    /** One case alone instead of the pull and push comparison: `--case plan` or `--case connect` (issue 25). */
    case: { type: 'string' },
  },
});
const PROBES = Number(options.probes);
const RUNS = Number(options.runs);
const PUSH = Number(options.push);
const PUSH_ROUNDS = 5;
const PAGE_SIZE = Number(options['page-size']);
const CONCURRENCY = Number(options.concurrency);
const SEED = { probes: PROBES, hosts: 500, engineProbes: 40 };
const INSTANCE = { name: 'outpost-bench', version: 'bench', address: '127.0.0.1' };
const log = (line: string) => process.stderr.write(`${line}\n`);

/**
 * The benchmark (client side: the plain client and Outpost alike) on core 0, the reference
 * server on core 1: neither steals the other's core, and the server, a Python process bound by
 * its GIL, could not use a second core anyway.
 */
const PINNED = !options['no-pin'] && process.platform === 'linux' && spawnSync('taskset', ['-p', '-c', '0', String(process.pid)]).status === 0;
const CLOCK_TICKS = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;


// ---------------------------------------------------------------- measuring

const median = (values: readonly number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

function cpuMsOf(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime (fields 14 and 15 of proc(5)), every thread of the process included.
  return ((Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS) * 1000;
}

interface Costs {
  readonly wallMs: number;
  /** CPU time of the reference server's process meanwhile. */
  readonly serverCpuMs: number;
  /** CPU time of this process (the client side) meanwhile. */
  readonly clientCpuMs: number;
}

async function costed<T>(server: ReferenceProcess, fn: () => Promise<T>): Promise<{ value: T; costs: Costs }> {
  const serverBefore = cpuMsOf(server.process.pid!);
  const clientBefore = process.cpuUsage();
  const started = performance.now();
  const value = await fn();
  const wallMs = performance.now() - started;
  const client = process.cpuUsage(clientBefore);
  return { value, costs: { wallMs, serverCpuMs: cpuMsOf(server.process.pid!) - serverBefore, clientCpuMs: (client.user + client.system) / 1000 } };
}

/** CPU time used by every process of the machine so far (ms), from /proc/stat. */
function machineCpuMs(): number {
  const fields = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal: all but idle and iowait are busy.
  const busy = fields.slice(0, 8).reduce((sum, x, i) => (i === 3 || i === 4 ? sum : sum + x), 0);
  return (busy / CLOCK_TICKS) * 1000;
}

function medianCosts(runs: readonly Costs[]): Costs {
  return {
    wallMs: median(runs.map((r) => r.wallMs)),
    serverCpuMs: median(runs.map((r) => r.serverCpuMs)),
    clientCpuMs: median(runs.map((r) => r.clientCpuMs)),
  };
}

/** Time spent inside the store's write transactions (the pull's SQLite writes), as intervals. */
function timeWrites(services: Services): { intervals: [number, number][] } {
  const store = services.store;
  const original = store.write.bind(store);
  const record = { intervals: [] as [number, number][] };
  let depth = 0;
  store.write = <T>(fn: () => T): T => {
    if (depth > 0) return original(fn);
    depth++;
    const started = performance.now();
    try {
      return original(fn);
    } finally {
      depth--;
      record.intervals.push([started, performance.now()]);
    }
  };
  return record;
}

// ---------------------------------------------------------------- pull

const ENDPOINT_BY_PATH = new Map<string, PulledEndpoint>(PULLED.map((e) => [`/rest/${pullPath(e)}/`, e]));

function endpointOf(target: string): PulledEndpoint | undefined {
  const listPath = /^\/rest\/(.+?\/.+?\/)/.exec(target)?.[0];
  return listPath === undefined ? undefined : ENDPOINT_BY_PATH.get(listPath);
}

interface EndpointFigures {
  readonly ms: number;
  readonly requests: number;
  readonly objects: number;
  readonly writeMs: number;
}

interface PullFigures {
  readonly costs: Costs;
  readonly byEndpoint: ReadonlyMap<PulledEndpoint, EndpointFigures>;
  readonly targets: readonly string[];
  readonly writeMs: number;
}

/** The baseline: every page the pull reads, one request at a time, each body parsed. */
async function baselinePull(server: ReferenceProcess): Promise<PullFigures> {
  const client = new PlainClient(server.url, BENCH_TOKEN);
  const targets: string[] = [];
  const byEndpoint = new Map<PulledEndpoint, EndpointFigures>();
  const get = async (endpoint: PulledEndpoint, page: number) => {
    const target = `/rest/${pullPath(endpoint)}/${queryString({ page_size: PAGE_SIZE, ...pullQuery(endpoint), page })}`;
    targets.push(target);
    const reply = await client.request('GET', target);
    if (reply.status !== 200) throw new Error(`baseline GET ${target} answered ${reply.status}`);
    return reply.body as { count: number; next: string | null; results: unknown[] };
  };
  const { costs } = await costed(server, async () => {
    for (const endpoint of PULLED) {
      const started = performance.now();
      const first = await get(endpoint, 1);
      let requests = 1;
      let objects = first.results.length;
      // History is read page after page until it is all new to the workspace: in a fresh one, all of it.
      const pages =
        endpoint === 'history'
          ? Array.from({ length: Math.max(0, Math.ceil(first.count / Math.max(1, first.results.length)) - 1) }, (_, i) => i + 2)
          : remainingPages({ count: first.count, received: first.results.length, hasNext: Boolean(first.next) }, PAGE_SIZE).pages;
      for (const page of pages) {
        objects += (await get(endpoint, page)).results.length;
        requests++;
      }
      byEndpoint.set(endpoint, { ms: performance.now() - started, requests, objects, writeMs: 0 });
    }
  });
  await client.close();
  return { costs, byEndpoint, targets, writeMs: 0 };
}

/**
 * A pull's time per endpoint, from its request trace: an endpoint's window runs from its first
 * request to the first request of the next endpoint (endpoints are pulled one after the other,
 * each page written as it arrives), the last one to the end of the pull.
 */
function pullWindows(trace: readonly TracedRequest[], end: number, writes: readonly [number, number][]): Map<PulledEndpoint, EndpointFigures> {
  const firsts = new Map<PulledEndpoint, number>();
  const counts = new Map<PulledEndpoint, number>();
  for (const request of trace) {
    const endpoint = endpointOf(request.target);
    if (!endpoint) continue;
    if (!firsts.has(endpoint)) firsts.set(endpoint, request.start);
    counts.set(endpoint, (counts.get(endpoint) ?? 0) + 1);
  }
  const ordered = [...firsts.entries()].sort((a, b) => a[1] - b[1]);
  const out = new Map<PulledEndpoint, EndpointFigures>();
  ordered.forEach(([endpoint, start], i) => {
    const stop = ordered[i + 1]?.[1] ?? end;
    const writeMs = writes.reduce((sum, [a, b]) => sum + Math.max(0, Math.min(b, stop) - Math.max(a, start)), 0);
    out.set(endpoint, { ms: stop - start, requests: counts.get(endpoint) ?? 0, objects: 0, writeMs });
  });
  return out;
}

interface Workspace {
  readonly dir: string;
  readonly host: WorkspaceHost;
  readonly services: Services;
  readonly api: Api;
  readonly client: TracingClient;
  readonly engine: SyncEngine;
  readonly writes: { intervals: [number, number][] };
  close(): Promise<void>;
}

/** A fresh data folder with the remote added and an empty workspace bound to it. */
async function boundWorkspace(remoteUrl: string): Promise<Workspace> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'outpost-sync-bench-'));
  const setup = new WorkspaceHost({ dataDir: dir, instance: INSTANCE, adminToken: BENCH_TOKEN });
  setup.remotes.add({ name: 'central', url: remoteUrl }, BENCH_TOKEN);
  setup.create('site', { remote: 'central' });
  await setup.close();
  const host = new WorkspaceHost({ dataDir: dir, instance: INSTANCE, workspace: 'site', adminToken: BENCH_TOKEN });
  const { services, api } = host.current();
  // An engine like the one the host's session runs (which stays idle: it syncs only when asked),
  // with a client that writes its requests down.
  const client = new TracingClient({ name: 'central', url: remoteUrl }, () => BENCH_TOKEN);
  const engine = new SyncEngine(services, client, { name: 'central', url: remoteUrl }, { pageSize: PAGE_SIZE, concurrency: CONCURRENCY });
  const writes = timeWrites(services);
  return {
    dir,
    host,
    services,
    api,
    client,
    engine,
    writes,
    close: async () => {
      await client.close();
      await host.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function outpostPull(server: ReferenceProcess, workspace: Workspace): Promise<PullFigures> {
  const traceFrom = workspace.client.trace.length;
  const writesFrom = workspace.writes.intervals.length;
  const { value: report, costs } = await costed(server, () => workspace.engine.sync());
  if (report.outcome !== 'done') throw new Error(`the pull did not complete: ${JSON.stringify(report)}`);
  const trace = workspace.client.trace.slice(traceFrom);
  const writes = workspace.writes.intervals.slice(writesFrom);
  const end = trace.reduce((latest, r) => Math.max(latest, r.end), 0);
  return {
    costs,
    byEndpoint: pullWindows(trace, end, writes),
    targets: trace.filter((r) => r.method === 'GET').map((r) => r.target),
    writeMs: writes.reduce((sum, [a, b]) => sum + b - a, 0),
  };
}

function sameRequests(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && [...a].sort().join('\n') === [...b].sort().join('\n');
}

// ---------------------------------------------------------------- push

function localCall(api: Api, method: string, target: string, body: unknown) {
  return api({
    method,
    path: target,
    rawQuery: '',
    headers: { host: 'localhost', authorization: `Token ${BENCH_TOKEN}`, 'content-type': 'application/json' },
    body: Buffer.from(JSON.stringify(body)),
    remoteAddress: '127.0.0.1',
    scheme: 'http',
  });
}

interface Sequential {
  readonly costs: Costs;
  readonly requests: number;
  readonly perRequestMs: number;
}

/** The baseline of a push: the same requests, one at a time, by the plain client. */
async function plainRequests(server: ReferenceProcess, requests: readonly { method: string; target: string; body?: unknown; expect: number }[]): Promise<Sequential> {
  const client = new PlainClient(server.url, BENCH_TOKEN);
  const { costs } = await costed(server, async () => {
    for (const request of requests) {
      const reply = await client.request(request.method, request.target, request.body);
      if (reply.status !== request.expect) throw new Error(`baseline ${request.method} ${request.target} answered ${reply.status}: ${JSON.stringify(reply.body).slice(0, 300)}`);
    }
  });
  await client.close();
  return { costs, requests: requests.length, perRequestMs: costs.wallMs / requests.length };
}

interface PushFigures {
  readonly costs: Costs;
  readonly entries: number;
  readonly requests: Readonly<Record<string, number>>;
  readonly writeMs: number;
  /** Writing the entries locally through the API (the outbox appends included). */
  readonly localMs: number;
}

async function outpostPush(server: ReferenceProcess, workspace: Workspace, localMs: number): Promise<PushFigures> {
  const entries = Number(workspace.services.store.db.prepare('SELECT count(*) FROM outbox').pluck().get());
  const traceFrom = workspace.client.trace.length;
  const writesFrom = workspace.writes.intervals.length;
  const pusher = new Pusher(workspace.services, workspace.client);
  const { value: result, costs } = await costed(server, () => pusher.push());
  if (result.pushed !== entries || result.conflicts + result.parked + result.waiting > 0) throw new Error(`the push did not complete: ${JSON.stringify(result)}`);
  const requests: Record<string, number> = {};
  for (const r of workspace.client.trace.slice(traceFrom)) requests[r.method] = (requests[r.method] ?? 0) + 1;
  const writeMs = workspace.writes.intervals.slice(writesFrom).reduce((sum, [a, b]) => sum + b - a, 0);
  return { costs, entries, requests, writeMs, localMs };
}

function sumCosts(parts: readonly Costs[]): Costs {
  return {
    wallMs: parts.reduce((sum, c) => sum + c.wallMs, 0),
    serverCpuMs: parts.reduce((sum, c) => sum + c.serverCpuMs, 0),
    clientCpuMs: parts.reduce((sum, c) => sum + c.clientCpuMs, 0),
  };
}

function sumSequential(parts: readonly Sequential[]): Sequential {
  const requests = parts.reduce((sum, p) => sum + p.requests, 0);
  const costs = sumCosts(parts.map((p) => p.costs));
  return { costs, requests, perRequestMs: costs.wallMs / requests };
}

function sumPushes(parts: readonly PushFigures[]): PushFigures {
  const requests: Record<string, number> = {};
  for (const part of parts) for (const [method, n] of Object.entries(part.requests)) requests[method] = (requests[method] ?? 0) + n;
  return {
    costs: sumCosts(parts.map((p) => p.costs)),
    entries: parts.reduce((sum, p) => sum + p.entries, 0),
    requests,
    writeMs: parts.reduce((sum, p) => sum + p.writeMs, 0),
    localMs: parts.reduce((sum, p) => sum + p.localMs, 0),
  };
}

/** Local PATCHes of different probes through the API (one outbox entry each). */
async function localUpdates(workspace: Workspace, pks: readonly number[], label: string, first: number): Promise<number> {
  const started = performance.now();
  for (const [i, pk] of pks.entries()) {
    const reply = await localCall(workspace.api, 'PATCH', `/rest/appliances/vendor_probe/${pk}/`, { descr: `${label} change ${first + i}`, comment: 'sync benchmark' });
    if (reply.status !== 200) throw new Error(`local PATCH answered ${reply.status}: ${bodyText(reply)}`);
  }
  return performance.now() - started;
}

function newProbe(i: number, label: string, template: number): Record<string, unknown> {
  return {
    name: `bench-${label}-${String(i).padStart(5, '0')}`,
    address: `10.250.${i >> 8}.${i & 255}`,
    location: `Bench site ${i % 10}`,
    descr: `created by the sync benchmark (${label})`,
    parent_tmpl: template,
    comment: 'sync benchmark',
  };
}

// ---------------------------------------------------------------- report

const ms = (x: number) => (x >= 10_000 ? `${(x / 1000).toFixed(1)} s` : `${x.toFixed(0)} ms`);
const ratio = (x: number, base: number) => (x / base).toFixed(2);

async function main(): Promise<void> {
  if (!fs.existsSync(REFERENCE)) throw new Error(`the reference server is not at ${REFERENCE}`);
  fs.mkdirSync(CACHE, { recursive: true });
  if (options.case !== undefined) {
    const run = CASES[options.case];
    if (!run) throw new Error(`no case "${options.case}"; the cases: ${Object.keys(CASES).join(', ')}`);
    return run({ script: REFERENCE, cache: CACHE, runs: RUNS, concurrency: CONCURRENCY, ...(PINNED ? { cpu: 1 } : {}), log });
  }
  const threats = fs.existsSync(THREATS) ? (JSON.parse(fs.readFileSync(THREATS, 'utf8')) as unknown[]) : [];
  const dataDir = await seededCopy(CACHE, REFERENCE, BENCH_TOKEN, { ...SEED, threats }, log);
  const server = await startReference({ script: REFERENCE, dataDir, token: BENCH_TOKEN, ...(PINNED ? { cpu: 1 } : {}) });
  const load = [os.loadavg()[0]!];
  const machineBefore = machineCpuMs();
  const selfBefore = process.cpuUsage();
  const serverBefore = cpuMsOf(server.process.pid!);
  const runStarted = performance.now();
  const workspaces: Workspace[] = [];
  try {
    log(`reference server at ${server.url} (data copied to ${dataDir})`);
    // Warm-up: Python's imports and SQLite's pages, so that the first baseline is not penalised.
    await baselinePull(server);

    const baselines: PullFigures[] = [];
    const fulls: PullFigures[] = [];
    const incrementals: PullFigures[] = [];
    for (let run = 1; run <= RUNS; run++) {
      // The order alternates, so that a drift of the machine's load favours neither side.
      const pulls = async () => {
        const workspace = await boundWorkspace(server.url);
        workspaces.push(workspace);
        fulls.push(await outpostPull(server, workspace));
        incrementals.push(await outpostPull(server, workspace));
      };
      if (run % 2) {
        baselines.push(await baselinePull(server));
        await pulls();
      } else {
        await pulls();
        baselines.push(await baselinePull(server));
      }
      const [b, f, i] = [baselines.at(-1)!, fulls.at(-1)!, incrementals.at(-1)!];
      log(`  run ${run}/${RUNS}: baseline ${ms(b.costs.wallMs)}, first pull ${ms(f.costs.wallMs)} (${ratio(f.costs.wallMs, b.costs.wallMs)}), incremental ${ms(i.costs.wallMs)} (${ratio(i.costs.wallMs, b.costs.wallMs)})`);
      // Only the last workspace is kept (for the push); the others go.
      if (workspaces.length > 1) await workspaces.shift()!.close();
    }
    const requestsMatch = fulls.every((f) => sameRequests(f.targets, baselines[0]!.targets)) && incrementals.every((i) => sameRequests(i.targets, baselines[0]!.targets));
    if (!requestsMatch) {
      const expected = new Set(baselines[0]!.targets);
      const sent = new Set(fulls[0]!.targets);
      log('WARNING: the pull did not send the same GETs as the baseline; if pull.ts changed its queries, change baselinePull here to match');
      for (const target of sent) if (!expected.has(target)) log(`  only the pull: ${target}`);
      for (const target of expected) if (!sent.has(target)) log(`  only the baseline: ${target}`);
    }

    /** Each run's pull against the baseline of the same run. */
    const pairedRatios = (pulls: readonly PullFigures[], of: (figures: PullFigures) => number) => pulls.map((p, i) => of(p) / of(baselines[i]!));
    const pairedRatio = (pulls: readonly PullFigures[], of: (figures: PullFigures) => number) => median(pairedRatios(pulls, of));
    const spread = (pulls: readonly PullFigures[], of: (figures: PullFigures) => number) => {
      const all = pairedRatios(pulls, of);
      return `${Math.min(...all).toFixed(2)}–${Math.max(...all).toFixed(2)}`;
    };
    const endpointMs = (endpoint: PulledEndpoint) => (figures: PullFigures) => figures.byEndpoint.get(endpoint)?.ms ?? 0;
    const endpointRows = PULLED.map((endpoint) => {
      const pick = (runs: readonly PullFigures[], key: keyof EndpointFigures) => median(runs.map((r) => r.byEndpoint.get(endpoint)?.[key] ?? 0));
      return {
        endpoint,
        objects: baselines[0]!.byEndpoint.get(endpoint)?.objects ?? 0,
        requests: baselines[0]!.byEndpoint.get(endpoint)?.requests ?? 0,
        pullRequests: pick(fulls, 'requests'),
        baseline: pick(baselines, 'ms'),
        full: pick(fulls, 'ms'),
        fullRatio: pairedRatio(fulls, endpointMs(endpoint)),
        fullWrite: pick(fulls, 'writeMs'),
        incremental: pick(incrementals, 'ms'),
        incrementalRatio: pairedRatio(incrementals, endpointMs(endpoint)),
      };
    });
    const baseline = medianCosts(baselines.map((b) => b.costs));
    const full = medianCosts(fulls.map((f) => f.costs));
    const incremental = medianCosts(incrementals.map((i) => i.costs));
    const fullRatio = pairedRatio(fulls, (f) => f.costs.wallMs);
    const incrementalRatio = pairedRatio(incrementals, (f) => f.costs.wallMs);
    const fullWrite = median(fulls.map((f) => f.writeMs));
    const incrementalWrite = median(incrementals.map((f) => f.writeMs));

    // ------------------------------------------------------------ push
    let push: { updates: PushFigures; updateBase: Sequential; getPatchBase: Sequential; creates: PushFigures; createBase: Sequential } | undefined;
    if (!options['no-push']) {
      const workspace = workspaces.at(-1)!;
      const store = workspace.services.store;
      const pks = store.db.prepare("SELECT pk FROM appliance WHERE type = 'vendor' AND pk > 0 ORDER BY pk LIMIT ?").pluck().all(PUSH * 2) as number[];
      if (pks.length < PUSH * 2) throw new Error(`the push needs ${PUSH * 2} probes, the remote has ${pks.length}`);
      // Probes alternate between the push and the baseline: the same kinds of probes, and no
      // baseline change to an object whose pushed change would then meet it as a conflict.
      const mine = pks.filter((_, i) => i % 2 === 0);
      const theirs = pks.filter((_, i) => i % 2 === 1);
      const probe = (pk: number) => `/rest/appliances/vendor_probe/${pk}/`;
      const template = Number(store.db.prepare("SELECT pk FROM vendor_probe_template WHERE name = 'tmpl-site-001'").pluck().get());
      // The entries go in PUSH_ROUNDS slices, each side's slice next to the other's and in
      // alternating order: the machine's load drifts over a minute, not over a slice.
      const slices = Array.from({ length: PUSH_ROUNDS }, (_, k) => {
        const from = Math.floor((k * PUSH) / PUSH_ROUNDS);
        const to = Math.floor(((k + 1) * PUSH) / PUSH_ROUNDS);
        return Array.from({ length: to - from }, (_, j) => from + j);
      });

      log(`push: ${PUSH} updates, in ${PUSH_ROUNDS} slices`);
      const updateRounds: { base: Sequential; getPatch: Sequential; push: PushFigures }[] = [];
      for (const [k, slice] of slices.entries()) {
        const base = () =>
          plainRequests(server, slice.map((i) => ({ method: 'PATCH', target: probe(theirs[i]!), body: { descr: `baseline change ${i}`, comment: 'sync benchmark' }, expect: 200 })));
        const getPatch = () =>
          plainRequests(
            server,
            slice.flatMap((i) => [
              { method: 'GET', target: probe(theirs[i]!), expect: 200 },
              { method: 'PATCH', target: probe(theirs[i]!), body: { descr: `baseline read and change ${i}`, comment: 'sync benchmark' }, expect: 200 },
            ]),
          );
        const pushed = async () => outpostPush(server, workspace, await localUpdates(workspace, slice.map((i) => mine[i]!), 'outpost', slice[0]!));
        if (k % 2 === 0) updateRounds.push({ base: await base(), getPatch: await getPatch(), push: await pushed() });
        else {
          const p = await pushed();
          updateRounds.push({ push: p, getPatch: await getPatch(), base: await base() });
        }
      }
      const updateBase = sumSequential(updateRounds.map((r) => r.base));
      const getPatchBase = sumSequential(updateRounds.map((r) => r.getPatch));
      const updates = sumPushes(updateRounds.map((r) => r.push));
      log(`  baseline ${ms(updateBase.costs.wallMs)} (PATCH only), ${ms(getPatchBase.costs.wallMs)} (GET + PATCH); push ${ms(updates.costs.wallMs)}`);

      log(`push: ${PUSH} creates, in ${PUSH_ROUNDS} slices`);
      const createRounds: { base: Sequential; push: PushFigures }[] = [];
      for (const [k, slice] of slices.entries()) {
        const base = () => plainRequests(server, slice.map((i) => ({ method: 'POST', target: '/rest/appliances/vendor_probe/', body: newProbe(i, 'baseline', template), expect: 201 })));
        const pushed = async () => {
          const started = performance.now();
          for (const i of slice) {
            const reply = await localCall(workspace.api, 'POST', '/rest/appliances/vendor_probe/', newProbe(i, 'outpost', template));
            if (reply.status !== 201) throw new Error(`local POST answered ${reply.status}: ${bodyText(reply)}`);
          }
          return outpostPush(server, workspace, performance.now() - started);
        };
        if (k % 2 === 0) createRounds.push({ base: await base(), push: await pushed() });
        else {
          const p = await pushed();
          createRounds.push({ push: p, base: await base() });
        }
      }
      const createBase = sumSequential(createRounds.map((r) => r.base));
      const creates = sumPushes(createRounds.map((r) => r.push));
      log(`  baseline ${ms(createBase.costs.wallMs)}; push ${ms(creates.costs.wallMs)}`);
      push = { updates, updateBase, getPatchBase, creates, createBase };
    }
    load.push(os.loadavg()[0]!);
    // What other processes took from the 2 cores meanwhile: the noise these figures carry.
    const self = process.cpuUsage(selfBefore);
    const othersMs = machineCpuMs() - machineBefore - (self.user + self.system) / 1000 - (cpuMsOf(server.process.pid!) - serverBefore);
    const othersShare = othersMs / ((performance.now() - runStarted) * os.cpus().length);

    // ------------------------------------------------------------ report
    const probeRatio = endpointRows.find((r) => r.endpoint === 'vendor_probe')!.fullRatio;
    const verdict = (r: number) => (r <= 1 ? 'met' : 'NOT met');
    const probeMs = endpointMs('vendor_probe');
    const lines: string[] = [
      `| pull (${RUNS} runs: medians) | requests | wall | ratio to baseline: median (range) of the runs' ratios | reference server CPU | Outpost CPU | SQLite writes | target |`,
      '|---|---|---|---|---|---|---|---|',
      `| baseline: plain sequential client, same pages, JSON parsed | ${baselines[0]!.targets.length} | ${ms(baseline.wallMs)} | 1.00 | ${ms(baseline.serverCpuMs)} | ${ms(baseline.clientCpuMs)} | | |`,
      `| first pull into a fresh bound workspace | ${fulls[0]!.targets.length} | ${ms(full.wallMs)} | ${fullRatio.toFixed(2)} (${spread(fulls, (f) => f.costs.wallMs)}) | ${ms(full.serverCpuMs)} | ${ms(full.clientCpuMs)} | ${ms(fullWrite)} | no slower: ${verdict(fullRatio)} |`,
      `| incremental pull right after (nothing changed) | ${incrementals[0]!.targets.length} | ${ms(incremental.wallMs)} | ${incrementalRatio.toFixed(2)} (${spread(incrementals, (f) => f.costs.wallMs)}) | ${ms(incremental.serverCpuMs)} | ${ms(incremental.clientCpuMs)} | ${ms(incrementalWrite)} | |`,
      '',
      `| endpoint (medians) | objects | requests | baseline | first pull | ratio (median of the runs') | of which SQLite writes | incremental | ratio (median of the runs') |`,
      '|---|---|---|---|---|---|---|---|---|',
      ...endpointRows.map(
        (r) =>
          `| ${r.endpoint} | ${r.objects} | ${r.requests}${r.pullRequests !== r.requests ? ` (pull: ${r.pullRequests})` : ''} | ${ms(r.baseline)} | ${ms(r.full)} | ${r.fullRatio.toFixed(2)}${r.endpoint === 'vendor_probe' ? ` (${spread(fulls, probeMs)}; no slower: ${verdict(probeRatio)})` : ''} | ${ms(r.fullWrite)} | ${ms(r.incremental)} | ${r.incrementalRatio.toFixed(2)} |`,
      ),
    ];
    if (push) {
      const { updates, updateBase, getPatchBase, creates, createBase } = push;
      const per = (p: PushFigures) => p.costs.wallMs / p.entries;
      const rate = (p: PushFigures) => ((p.entries / p.costs.wallMs) * 1000).toFixed(1);
      const requests = (p: PushFigures) => Object.entries(p.requests).map(([m, n]) => `${n} ${m}`).join(' + ');
      lines.push(
        '',
        `| push of ${PUSH} outbox entries | requests | wall | entries/s | per entry | ratio to the plain client | reference server CPU | Outpost CPU | SQLite writes |`,
        '|---|---|---|---|---|---|---|---|---|',
        `| baseline: ${PUSH} PATCH, plain sequential client | ${PUSH} PATCH | ${ms(updateBase.costs.wallMs)} | ${((PUSH / updateBase.costs.wallMs) * 1000).toFixed(1)} | ${updateBase.perRequestMs.toFixed(1)} ms | 1.00 | ${ms(updateBase.costs.serverCpuMs)} | ${ms(updateBase.costs.clientCpuMs)} | |`,
        `| baseline: ${PUSH} × (GET + PATCH), plain sequential client | ${PUSH} GET + ${PUSH} PATCH | ${ms(getPatchBase.costs.wallMs)} | ${((PUSH / getPatchBase.costs.wallMs) * 1000).toFixed(1)} | ${((getPatchBase.costs.wallMs / PUSH)).toFixed(1)} ms | ${ratio(getPatchBase.costs.wallMs, updateBase.costs.wallMs)} | ${ms(getPatchBase.costs.serverCpuMs)} | ${ms(getPatchBase.costs.clientCpuMs)} | |`,
        `| push: ${PUSH} updates (GET, 3-way merge, PATCH, mirror write) | ${requests(updates)} | ${ms(updates.costs.wallMs)} | ${rate(updates)} | ${per(updates).toFixed(1)} ms | ${ratio(updates.costs.wallMs, updateBase.costs.wallMs)} (${ratio(updates.costs.wallMs, getPatchBase.costs.wallMs)} to GET + PATCH) | ${ms(updates.costs.serverCpuMs)} | ${ms(updates.costs.clientCpuMs)} | ${ms(updates.writeMs)} |`,
        `| baseline: ${PUSH} POST, plain sequential client | ${PUSH} POST | ${ms(createBase.costs.wallMs)} | ${((PUSH / createBase.costs.wallMs) * 1000).toFixed(1)} | ${createBase.perRequestMs.toFixed(1)} ms | 1.00 | ${ms(createBase.costs.serverCpuMs)} | ${ms(createBase.costs.clientCpuMs)} | |`,
        `| push: ${PUSH} creates (POST, re-key, mirror write) | ${requests(creates)} | ${ms(creates.costs.wallMs)} | ${rate(creates)} | ${per(creates).toFixed(1)} ms | ${ratio(creates.costs.wallMs, createBase.costs.wallMs)} | ${ms(creates.costs.serverCpuMs)} | ${ms(creates.costs.clientCpuMs)} | ${ms(creates.writeMs)} |`,
        '',
        `- writing the entries locally first (through the API, each with its outbox entry): ${PUSH} PATCHes in ${ms(updates.localMs)}, ${PUSH} POSTs in ${ms(creates.localMs)}`,
      );
    }
    lines.push(
      `- the pull sent ${requestsMatch ? 'exactly the same GETs as the baseline' : 'NOT the same GETs as the baseline'} (page_size=${PAGE_SIZE}, ${CONCURRENCY} pages in flight once an endpoint's count is known)`,
    );
    lines.push(`- other processes used ${(othersShare * 100).toFixed(0)} % of the machine's CPU during the run (load average ${load.map((l) => l.toFixed(2)).join(' → ')}): the noise these figures carry`);
    const report = `${lines.join('\n')}\n`;
    process.stdout.write(`\n${report}`);

    if (options.write) {
      const python = spawnSync('/usr/bin/python3', ['-c', 'import sys, django, rest_framework; print(sys.version.split()[0], django.get_version(), rest_framework.VERSION)'], { encoding: 'utf8' }).stdout.trim().split(' ');
      const facts =
        `Measured ${new Date().toISOString().slice(0, 10)} on ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, Node ${process.version}, reference server: Python ${python[0]}, Django ${python[1]}, DRF ${python[2]}` +
        `${PINNED ? '; the benchmark (plain client and Outpost alike) pinned to core 0, the reference server to core 1' : ''}. ` +
        `Remote: ${PROBES.toLocaleString('en')} vendor probes (4 interfaces and 2 protocols each, inherited from 111 templates), ${SEED.engineProbes} engine probes, 3 sources, 2 rulesets, ${threats.length} threats, ${SEED.hosts} host identities.`;
      const file = path.join(ROOT, 'docs', 'benchmarks.md');
      const current = fs.readFileSync(file, 'utf8');
      const section = `<!-- sync.bench:start -->\n${report}\n${facts}\n<!-- sync.bench:end -->`;
      fs.writeFileSync(
        file,
        /<!-- sync\.bench:start -->[\s\S]*<!-- sync\.bench:end -->/.test(current)
          ? current.replace(/<!-- sync\.bench:start -->[\s\S]*<!-- sync\.bench:end -->/, section)
          : `${current.trimEnd()}\n\n## Sync (issue 4)\n\n\`\`\`\nnpm run bench:sync -- --write\n\`\`\`\n\n${section}\n`,
      );
      log(`written to ${file}`);
    }
  } finally {
    for (const workspace of workspaces) await workspace.close();
    await server.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
