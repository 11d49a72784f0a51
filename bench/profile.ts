/**
 * In-process timing of the API's hot paths on the benchmark data set, without HTTP, for
 * profiling (`node --cpu-prof dist/bench/profile.cjs`). Prints microseconds per request.
 */
import path from 'node:path';
import { openWorkspace } from '../electron/workspaces/openWorkspace';
import { BENCH_TOKEN } from './dataset';

const file = path.resolve(__dirname, '../..', 'bench/.cache/outpost-100000/workspaces/default.sqlite3');
const workspace = openWorkspace({ file, instance: { name: 'profile', version: 'profile', address: '127.0.0.1' } });
const request = (p: string, rawQuery = '') =>
  workspace.api({
    method: 'GET',
    path: p,
    rawQuery,
    headers: { host: 'localhost', authorization: `Token ${BENCH_TOKEN}` },
    body: Buffer.alloc(0),
    remoteAddress: '127.0.0.1',
    scheme: 'http',
  });

async function time(name: string, n: number, fn: () => unknown): Promise<void> {
  for (let i = 0; i < 200; i++) await fn();
  const started = performance.now();
  for (let i = 0; i < n; i++) await fn();
  process.stdout.write(`${name}: ${(((performance.now() - started) / n) * 1000).toFixed(1)} µs\n`);
}

async function main(): Promise<void> {
  await time('detail', 5000, () => request('/rest/appliances/vendor_probe/50001/'));
  await time('filtered list', 2000, () => request('/rest/appliances/vendor_probe/', 'location=Initech+Nantes+1&ordering=-updated'));
  await time('searched list', 2000, () => request('/rest/appliances/vendor_probe/', 'enabled=true&search=initech+nantes&ordering=-updated'));
  workspace.close();
}

void main();
