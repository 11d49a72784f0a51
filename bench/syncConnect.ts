/**
 * Benchmark of connecting a standalone workspace (issue 25 §1), a case of sync.bench.ts
 * (`npm run bench:sync -- --case connect [--probes 10000]`): a standalone workspace of 10,000
 * probes (the bench data set, renamed: none is on the central server) and a central server holding
 * 10,000 others with the same templates (the bench data set, served by the embedded server in
 * this process). Times the plan (target: under 30 s), the connect's re-read and transaction, and
 * the first pull.
 */
import fs from 'node:fs';
import path from 'node:path';
import { createAppHandler } from '../electron/app/appHandler';
import { RemoteClient } from '../electron/remote/client';
import { connectStandalone, firstPull } from '../electron/remote/connect';
import { planConnect } from '../electron/remote/connectPlan';
import { listen } from '../electron/server/http/nodeAdapter';
import { openDatabase } from '../electron/server/store/database';
import { WorkspaceHost } from '../electron/workspaces/host';
import { BENCH_TOKEN, buildOutpostDataset } from './dataset';

const INSTANCE = { name: 'outpost-bench', version: 'bench', address: '127.0.0.1' };

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

export async function syncConnectBench(cache: string, probes: number, log: (line: string) => void): Promise<void> {
  const centralDir = path.join(cache, `connect-central-${probes}`);
  const siteDir = path.join(cache, `connect-site-${probes}`);
  await buildOutpostDataset(centralDir, probes, log);
  // The standalone workspace: the same data set, its probes renamed (all to create) — a fresh copy each run.
  fs.rmSync(siteDir, { recursive: true, force: true });
  fs.mkdirSync(path.join(siteDir, 'workspaces'), { recursive: true });
  const siteFile = path.join(siteDir, 'workspaces', 'default.sqlite3');
  fs.copyFileSync(path.join(centralDir, 'workspaces', 'default.sqlite3'), siteFile);
  const db = openDatabase(siteFile);
  db.exec("UPDATE appliance SET name = 'site-' || name");
  db.close();

  const central = new WorkspaceHost({ dataDir: centralDir, instance: INSTANCE, adminToken: BENCH_TOKEN });
  const server = await listen(createAppHandler({ host: central, version: 'bench' }), { host: '127.0.0.1', port: 0 });
  const site = new WorkspaceHost({ dataDir: siteDir, instance: INSTANCE, adminToken: BENCH_TOKEN, workspace: 'default' });
  const remote = { name: 'central', url: `${server.url}/` };
  site.remotes.add(remote, BENCH_TOKEN);
  const client = new RemoteClient(remote, () => BENCH_TOKEN);
  try {
    let started = performance.now();
    const plan = await site.onWorkspace('default', async (opened) => (await planConnect({ name: 'default', services: opened.services, api: opened.api, adminToken: opened.adminToken }, client, remote)).plan);
    const planMs = performance.now() - started;
    const counts = (match: string) => plan.items.filter((i) => i.match === match).length;
    log(`plan: ${seconds(planMs)} — ${counts('create')} to create, ${counts('same')} same, ${counts('collision')} collisions; central holds ${plan.centralCounts.vendor_probe} probes`);

    started = performance.now();
    const committed = await site.onWorkspace('default', (opened) =>
      connectStandalone({ name: 'default', services: opened.services, api: opened.api, adminToken: opened.adminToken }, client, remote, { remote: 'central', central: plan.central, decisions: {}, pushMode: 'review' }, { dataDir: siteDir }),
    );
    const connectMs = performance.now() - started;
    log(`connect (re-read, copy, transaction): ${seconds(connectMs)} — ${committed.queued} queued, ${committed.matched} matched`);

    started = performance.now();
    const pull = await site.reopenBound('default', (opened) => firstPull(opened.services, client));
    const pullMs = performance.now() - started;
    log(`first pull: ${seconds(pullMs)} — ${pull.pulled ?? pull.pullError} objects`);
    process.stdout.write(
      `| case | probes here | probes there | plan | connect | first pull |\n|---|---|---|---|---|---|\n| connect | ${probes} | ${probes} | ${seconds(planMs)} | ${seconds(connectMs)} | ${seconds(pullMs)} |\n`,
    );
  } finally {
    client.close();
    await site.close();
    await server.close();
    await central.close();
  }
}
