/**
 * The server under test of bench/hostile.bench.ts: `outpost serve`'s handler on a fresh data
 * folder (the benchmark seeds it through the API), in a process of its own so that its event loop
 * is measured alone. It prints `ready <url>` once listening, then answers commands on stdin:
 * `reset` empties the event-loop delay histogram, `report` prints it as one JSON line.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createAppHandler } from '../electron/app/appHandler';
import { listen } from '../electron/server/http/nodeAdapter';
import { WorkspaceHost } from '../electron/workspaces/host';
import { BENCH_TOKEN } from './dataset';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'outpost-hostile-bench-'));
const host = new WorkspaceHost({ dataDir: dir, instance: { name: 'bench', version: 'bench', address: '127.0.0.1' }, adminToken: BENCH_TOKEN });
const histogram = monitorEventLoopDelay({ resolution: 5 });
histogram.enable();

void listen(createAppHandler({ host, version: 'bench' }), { host: '127.0.0.1', port: 0 }).then((server) => {
  process.stdout.write(`ready ${server.url}\n`);
  const lines = readline.createInterface({ input: process.stdin });
  lines.on('line', (line) => {
    if (line === 'reset') histogram.reset();
    if (line === 'report') {
      process.stdout.write(`${JSON.stringify({ p50: histogram.percentile(50) / 1e6, p99: histogram.percentile(99) / 1e6, max: histogram.max / 1e6 })}\n`);
    }
  });
  lines.on('close', () => {
    void server.close().then(() => host.close()).finally(() => {
      fs.rmSync(dir, { recursive: true, force: true });
      process.exit(0);
    });
  });
});
