/**
 * A workspace bundle's import and export beside other requests (issue 23): how long the server's
 * event loop is held while a large bundle is imported, then exported, and how long GET /app/status
 * waits for its answer meanwhile. The server runs in this process (`outpost serve`'s handler on a
 * fresh data folder), so its event loop is this one: the held time is how late a timer set every
 * 10 ms fires at worst; this side's own part is kept small (the bundle's bytes made beforehand, the
 * export's answer counted, not decoded). The bundle is a seeded workspace made large
 * (test/helpers/largeBundle.ts): by default the case of issue 23, 30,000 hosts, 20,000 probes with
 * two interfaces each and 50,000 history entries. Target: held < 100 ms.
 *
 *   npm run bench:bundle -- [--hosts 30000] [--probes 20000] [--history 50000] [--write]
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createAppHandler } from '../electron/app/appHandler';
import { listen } from '../electron/server/http/nodeAdapter';
import { WorkspaceHost } from '../electron/workspaces/host';
import { enlarged, type BundleFile } from '../test/helpers/largeBundle';
import { BENCH_TOKEN } from './dataset';

// Runs as dist/bench/bundle.bench.cjs.
const ROOT = path.resolve(__dirname, '../..');
const { values: options } = parseArgs({
  options: {
    hosts: { type: 'string', default: '30000' },
    probes: { type: 'string', default: '20000' },
    history: { type: 'string', default: '50000' },
    write: { type: 'boolean', default: false },
  },
});
const TARGET_MS = 100;
const log = (line: string) => process.stderr.write(`${line}\n`);

interface Answer {
  readonly status: number;
  readonly body: Buffer;
  readonly bytes: number;
}

/**
 * One request. A large answer is only counted (`count`): copying 63 MB into one buffer holds this
 * loop, the server's, for 0.2 s, which would be this side's time counted as the server's.
 */
function send(base: string, method: string, target: string, body?: Buffer, count = false): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { Authorization: `Token ${BENCH_TOKEN}` };
    if (body) Object.assign(headers, { 'Content-Type': 'application/json', 'Content-Length': body.length });
    const req = http.request(new URL(target, base), { method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      let bytes = 0;
      res.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        if (!count) chunks.push(chunk);
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks), bytes }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

interface Watched {
  readonly answer: Answer;
  readonly seconds: number;
  readonly heldMs: number;
  readonly statusMs: number;
  readonly asked: number;
}

/** Run `work` while a timer ticks every 10 ms and GET /app/status is asked every 10 ms. */
async function watch(base: string, work: () => Promise<Answer>): Promise<Watched> {
  let heldMs = 0;
  let ticked = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    heldMs = Math.max(heldMs, now - ticked - 10);
    ticked = now;
  }, 10);
  let done = false;
  let statusMs = 0;
  let asked = 0;
  const asking = (async () => {
    while (!done) {
      const started = performance.now();
      await send(base, 'GET', '/app/status');
      statusMs = Math.max(statusMs, performance.now() - started);
      asked++;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  })();
  const started = performance.now();
  const answer = await work();
  const seconds = (performance.now() - started) / 1000;
  done = true;
  await asking;
  clearInterval(timer);
  return { answer, seconds, heldMs, statusMs, asked };
}

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'outpost-bundle-bench-'));
  const host = new WorkspaceHost({ dataDir: dir, instance: { name: 'bench', version: 'bench', address: '127.0.0.1' }, adminToken: BENCH_TOKEN });
  const server = await listen(createAppHandler({ host, version: 'bench' }), { host: '127.0.0.1', port: 0 });
  try {
    const base = server.url;
    const json = (body: unknown) => Buffer.from(JSON.stringify(body));
    const template = JSON.parse((await send(base, 'POST', '/rest/appliances/vendor_probe_template/', json({ name: 'site', interfaces: [{ name: 'eth0' }, { name: 'eth1' }], protocols: [{ name: 'http' }] }))).body.toString());
    await send(base, 'POST', '/rest/appliances/vendor_probe/', json({ name: 'gate', address: '10.0.0.1', parent_tmpl: template.pk, comment: 'at the gate' }));
    const seen = { first_seen: '2026-11-01T08:00:00Z', last_seen: '2026-11-02T08:00:00Z' };
    await send(base, 'POST', '/rest/appliances/host_id/import/', json([{ ip: '10.9.8.7', hits: 3, host_id: { ...seen, hostname: [{ host: 'db.example', ...seen }] } }]));
    const seed = JSON.parse((await send(base, 'GET', '/app/workspaces/default/export')).body.toString()) as BundleFile;
    const counts = { hosts: Number(options.hosts), probes: Number(options.probes), history: Number(options.history) };
    const bundle = json(enlarged(seed, counts));
    log(`bundle: ${(bundle.length / 1e6).toFixed(1)} MB`);

    const imported = await watch(base, () => send(base, 'POST', '/app/workspaces/import?name=large', bundle));
    if (imported.answer.status !== 201) throw new Error(`the import answered ${imported.answer.status}: ${imported.answer.body.toString().slice(0, 300)}`);
    const exported = await watch(base, () => send(base, 'GET', '/app/workspaces/large/export', undefined, true));
    if (exported.answer.status !== 200) throw new Error(`the export answered ${exported.answer.status}`);

    const row = (what: string, watched: Watched) =>
      `| ${what} | ${watched.seconds.toFixed(1)} s | ${watched.heldMs.toFixed(0)} ms | ${watched.statusMs.toFixed(0)} ms (${watched.asked} asked) | ${watched.heldMs < TARGET_MS ? 'met' : 'NOT met'} |`;
    const section = [
      `Bundle of ${counts.hosts} hosts, ${counts.probes} probes (two interfaces each), ${counts.history} history entries: ${(bundle.length / 1e6).toFixed(1)} MB; export ${(exported.answer.bytes / 1e6).toFixed(1)} MB.`,
      '',
      '| while | took | event loop held at most | GET /app/status answered within | held < 100 ms |',
      '|---|---|---|---|---|',
      row('POST /app/workspaces/import (check and write on the bundle thread)', imported),
      row('GET /app/workspaces/:name/export (read and rendered on the bundle thread)', exported),
      '',
      `Measured ${new Date().toISOString().slice(0, 10)} on ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, Node ${process.version}.`,
    ].join('\n');
    process.stdout.write(`${section}\n`);
    if (options.write) {
      const file = path.join(ROOT, 'docs', 'benchmarks.md');
      const current = fs.readFileSync(file, 'utf8');
      const [start, end] = ['<!-- bundle.bench:start -->', '<!-- bundle.bench:end -->'];
      const marked = `${start}\n${section}\n${end}`;
      const next = current.includes(start)
        ? current.slice(0, current.indexOf(start)) + marked + current.slice(current.indexOf(end) + end.length)
        : `${current.trimEnd()}\n\n## Workspace bundles (issue 23)\n\n\`npm run bench:bundle -- --write\`\n\n${marked}\n`;
      fs.writeFileSync(file, next);
      log(`written to ${file}`);
    }
  } finally {
    await server.close();
    await host.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  log(error instanceof Error ? (error.stack ?? error.message) : String(error));
  process.exit(1);
});
