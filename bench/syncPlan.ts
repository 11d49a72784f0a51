/**
 * The review plan's benchmark (issue 25 §2 targets), a case of sync.bench.ts (`--case plan`):
 * 1,000 waiting changes (updates of 1,000 vendor probes) planned against the reference server,
 * through a capturing relay that counts every request by method. The plan's time is compared
 * with the GETs it makes sent alone: the same GETs, through the same client, with the same
 * concurrency; runs alternate their order and medians are reported. Target: ≤ 1.5×, and not one
 * request other than GET.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { RemoteReply } from '../electron/remote/client';
import { SyncEngine } from '../electron/remote/engine';
import { makePlan } from '../electron/remote/reviewPlan';
import type { Api } from '../electron/server/api';
import { bodyText } from '../electron/server/http/types';
import { WorkspaceHost } from '../electron/workspaces/host';
import type { JsonValue } from '../shared/resources';
import { BENCH_TOKEN } from './dataset';
import { TracingClient } from './syncClients';
import { seededCopy, startReference } from './syncReference';

export interface CaseContext {
  /** The reference server's `run` script, and the folder of seeded copies. */
  readonly script: string;
  readonly cache: string;
  readonly runs: number;
  readonly concurrency: number;
  readonly cpu?: number;
  readonly log: (line: string) => void;
}

const CHANGES = 1000;
const INSTANCE = { name: 'outpost-bench', version: 'bench', address: '127.0.0.1' };

/** A relay that forwards to the reference server and counts each request by method. */
async function capturingRelay(target: string): Promise<{ url: string; methods: Map<string, number>; close(): Promise<void> }> {
  const methods = new Map<string, number>();
  const upstream = new URL(target);
  const agent = new http.Agent({ keepAlive: true });
  const server = http.createServer((req, res) => {
    methods.set(req.method ?? '?', (methods.get(req.method ?? '?') ?? 0) + 1);
    const forward = http.request({ host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: req.headers, agent }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    forward.on('error', () => res.destroy());
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    methods,
    close: () => {
      agent.destroy();
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

function localCall(api: Api, method: string, target: string, rawQuery: string, body?: unknown) {
  return api({
    method,
    path: target,
    rawQuery,
    headers: { host: 'localhost', authorization: `Token ${BENCH_TOKEN}`, 'content-type': 'application/json' },
    body: Buffer.from(body === undefined ? '' : JSON.stringify(body)),
    remoteAddress: '127.0.0.1',
    scheme: 'http',
  });
}

/** The GETs of a trace sent again through `client`, `concurrency` at a time, as the plan's reader does. */
async function replay(client: TracingClient, targets: readonly string[], concurrency: number): Promise<number> {
  const started = performance.now();
  let next = 0;
  const worker = async () => {
    while (next < targets.length) {
      const target = new URL(targets[next++]!, 'http://x');
      const reply: RemoteReply = await client.send('GET', target.pathname, undefined as JsonValue | undefined, Object.fromEntries(target.searchParams));
      if (reply.status !== 200) throw new Error(`GET ${target.pathname} answered ${reply.status}`);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return performance.now() - started;
}

const median = (values: readonly number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

export async function syncPlanCase(context: CaseContext): Promise<void> {
  const { log } = context;
  const dataDir = await seededCopy(context.cache, context.script, BENCH_TOKEN, { probes: CHANGES, threats: [], hosts: 0, engineProbes: 0 }, log);
  const server = await startReference({ script: context.script, dataDir, token: BENCH_TOKEN, ...(context.cpu === undefined ? {} : { cpu: context.cpu }) });
  const relay = await capturingRelay(server.url);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'outpost-plan-bench-'));
  const client = new TracingClient({ name: 'central', url: relay.url }, () => BENCH_TOKEN);
  let host: WorkspaceHost | undefined;
  try {
    const setup = new WorkspaceHost({ dataDir: dir, instance: INSTANCE, adminToken: BENCH_TOKEN });
    setup.remotes.add({ name: 'central', url: relay.url }, BENCH_TOKEN);
    setup.create('site', { remote: 'central', pushMode: 'review' });
    await setup.close();
    host = new WorkspaceHost({ dataDir: dir, instance: INSTANCE, workspace: 'site', adminToken: BENCH_TOKEN });
    const { services, api } = host.current();
    const engine = new SyncEngine(services, client, { name: 'central', url: relay.url }, { pageSize: 1000, concurrency: context.concurrency });
    const pulled = await engine.sync({ push: 'none' });
    if (pulled.outcome !== 'done') throw new Error(`the first pull failed: ${pulled.error?.message ?? pulled.outcome}`);
    const listed = await localCall(api, 'GET', '/rest/appliances/vendor_probe/', `ordering=pk&page_size=${CHANGES}`);
    const pks = (JSON.parse(bodyText(listed)) as { results: { pk: number }[] }).results.map((p) => p.pk);
    if (pks.length < CHANGES) throw new Error(`the central server holds ${pks.length} probes, not ${CHANGES}`);
    for (const pk of pks) {
      const reply = await localCall(api, 'PATCH', `/rest/appliances/vendor_probe/${pk}/`, '', { descr: `reviewed change of ${pk}` });
      if (reply.status !== 200) throw new Error(`local PATCH answered ${reply.status}: ${bodyText(reply)}`);
    }
    log(`${services.outbox.entries().length} waiting changes against ${server.url} (through a capturing relay)`);

    const context0 = { workspace: 'site', remote: { name: 'central', url: relay.url } };
    // Counted from the first plan on (the pull before it is GETs too, but not the plan's).
    const before = new Map(relay.methods);
    // Warm-up: the reference server's caches, the client's connections.
    const warm = client.trace.length;
    await makePlan(services, client, context0, { concurrency: context.concurrency });
    const targets = client.trace.slice(warm).map((t) => t.target);

    const plans: number[] = [];
    const baselines: number[] = [];
    let requests = 0;
    for (let run = 1; run <= context.runs; run++) {
      const planOnce = async () => {
        const started = performance.now();
        const plan = await makePlan(services, client, context0, { concurrency: context.concurrency });
        plans.push(performance.now() - started);
        requests = plan.requests;
      };
      const baselineOnce = async () => baselines.push(await replay(client, targets, context.concurrency));
      if (run % 2) {
        await baselineOnce();
        await planOnce();
      } else {
        await planOnce();
        await baselineOnce();
      }
      log(`  run ${run}/${context.runs}: GETs alone ${baselines.at(-1)!.toFixed(0)} ms, plan ${plans.at(-1)!.toFixed(0)} ms (${(plans.at(-1)! / baselines.at(-1)!).toFixed(2)})`);
    }
    const others = [...relay.methods].filter(([method]) => method !== 'GET').map(([method, count]) => `${method} ${count - (before.get(method) ?? 0)}`);
    const ratios = plans.map((p, i) => p / baselines[i]!);
    log('');
    log(`| plan of ${CHANGES} waiting changes | GETs | GETs alone (median) | plan (median) | ratio (median of runs) | spread | requests other than GET |`);
    log('|---|---|---|---|---|---|---|');
    log(
      `| updates of ${CHANGES} vendor probes | ${requests} | ${median(baselines).toFixed(0)} ms | ${median(plans).toFixed(0)} ms | ${median(ratios).toFixed(2)} (target ≤ 1.5) | ${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)} | ${others.length === 0 ? 'none' : others.join(', ')} |`,
    );
  } finally {
    await client.close();
    await host?.close();
    await relay.close();
    await server.stop();
    fs.rmSync(dir, { recursive: true, force: true });
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
