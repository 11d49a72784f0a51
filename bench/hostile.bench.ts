/**
 * Hostile load (issue 8): while a mix of the requests that froze or bloated Outpost on main runs
 * at concurrency, how long the server's event loop is held (p99 of monitorEventLoopDelay, inside
 * the server's own process) and how slow ordinary reads become beside it, against the same reads
 * on the quiet server, measured in the same run. Targets: event-loop delay p99 < 50 ms; ordinary
 * reads' p99 under attack ≤ 2× their quiet p99. The server, the hostile workers and the reader
 * of ordinary requests run in three processes, so that each measures its own event loop only.
 *
 *   npm run bench:hostile -- [--seconds 20] [--concurrency 6] [--write]
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import readline from 'node:readline';
import { parseArgs } from 'node:util';
import { BENCH_TOKEN } from './dataset';

// Runs as dist/bench/hostile.bench.cjs.
const ROOT = path.resolve(__dirname, '../..');
const { values: options } = parseArgs({
  options: {
    seconds: { type: 'string', default: '20' },
    concurrency: { type: 'string', default: '6' },
    write: { type: 'boolean', default: false },
    /** Only these entries of the mix (comma-separated indexes), to find which one costs. */
    only: { type: 'string' },
    /** Internal: run as the reader process (its own event loop, so the hostile workers' cannot delay it). */
    reader: { type: 'string' },
  },
});
const SECONDS = Number(options.seconds);
const CONCURRENCY = Number(options.concurrency);
const log = (line: string) => process.stderr.write(`${line}\n`);

interface Answer {
  readonly status: number;
  readonly ms: number;
}

/** One request over a fresh connection; the body may be a generator of chunks (sent until the answer comes). */
function send(base: string, method: string, target: string, options: { token?: string; body?: Buffer | (() => Iterable<Buffer>); length?: number } = {}): Promise<Answer> {
  const started = performance.now();
  return new Promise((resolve) => {
    const url = new URL(target, base);
    const headers: Record<string, string | number> = { Accept: 'application/json', Connection: 'close' };
    if (options.token) headers.Authorization = `Token ${options.token}`;
    if (options.body) {
      headers['Content-Type'] = 'application/json';
      headers['Content-Length'] = options.length ?? (options.body as Buffer).length;
    }
    const req = http.request(url, { method, headers, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - started }));
      res.on('error', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - started }));
    });
    req.on('error', () => resolve({ status: 0, ms: performance.now() - started }));
    if (typeof options.body === 'function') {
      const chunks = options.body()[Symbol.iterator]();
      const pump = () => {
        for (;;) {
          const next = chunks.next();
          if (next.done || req.destroyed) return void req.end();
          if (!req.write(next.value)) return void req.once('drain', pump);
        }
      };
      pump();
    } else req.end(options.body);
  });
}

/** A request line node's parser refuses (a raw space in the path), over a raw socket. */
function malformed(base: string): Promise<Answer> {
  const started = performance.now();
  const { port } = new URL(base);
  return new Promise((resolve) => {
    const socket = net.connect(Number(port), '127.0.0.1', () => socket.write('GET /rest/a b HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n'));
    let text = '';
    socket.on('data', (c) => (text += c.toString()));
    socket.on('close', () => resolve({ status: Number(text.split(' ')[1] ?? 0), ms: performance.now() - started }));
    socket.on('error', () => undefined);
  });
}

const MB = 1024 * 1024;
const numbers = (count: number) => Buffer.from(`[${'1,'.repeat(count - 1)}1]`);
const BIG_NUMBERS = numbers(2_500_000);
const INTERFACES = Buffer.from(`{"interfaces": ${numbers(2_500_000).toString()}}`);
const BAD_THREATS = Buffer.from(JSON.stringify(Array.from({ length: 300_000 }, () => ({ name: 1 }))));

/** The hostile mix: each a finding of issue 8, sent by the hostile workers in turn. */
function hostileMix(base: string, templatePk: number): (() => Promise<Answer>)[] {
  const q = (query: string) => `/rest/appliances/host_id/?host_id_qfilter=${encodeURIComponent(query)}`;
  return [
    () => send(base, 'GET', q('host_id.http.user_agent.agent:*?*?*?*?*?*#'), { token: BENCH_TOKEN }),
    () => send(base, 'GET', q(`hostname.host:${'*a'.repeat(300)}*b`), { token: BENCH_TOKEN }),
    () => send(base, 'GET', q('!'.repeat(4000) + 'x'), { token: BENCH_TOKEN }),
    () => send(base, 'GET', `/rest/appliances/engine_probe/?search=${Array.from({ length: 1000 }, (_, i) => i.toString(36)).join('+')}`, { token: BENCH_TOKEN }),
    () => send(base, 'GET', `/rest/appliances/engine_probe/?ordering=${Array(2000).fill('-name').join(',')}`, { token: BENCH_TOKEN }),
    () =>
      send(base, 'POST', '/rest/appliances/engine_probe/', {
        length: 400 * MB,
        body: function* () {
          const chunk = Buffer.alloc(MB, 0x20);
          for (let i = 0; i < 400; i++) yield chunk;
        },
      }),
    () => send(base, 'POST', '/rest/appliances/host_id/import/', { token: BENCH_TOKEN, body: BIG_NUMBERS }),
    () => send(base, 'PATCH', `/rest/appliances/vendor_probe_template/${templatePk}/`, { token: BENCH_TOKEN, body: INTERFACES }),
    () => send(base, 'POST', '/rest/appliances/threat/import/', { token: BENCH_TOKEN, body: BAD_THREATS }),
    () => malformed(base),
  ];
}

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

/** Ordinary reads, one after the other, for `seconds`: their latencies. */
async function ordinaryReads(base: string, seconds: number): Promise<number[]> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const latencies: number[] = [];
  const end = performance.now() + seconds * 1000;
  const get = (target: string) =>
    new Promise<number>((resolve, reject) => {
      const started = performance.now();
      http
        .get(new URL(target, base), { agent, headers: { Authorization: `Token ${BENCH_TOKEN}` } }, (res) => {
          res.resume();
          res.on('end', () => (res.statusCode === 200 ? resolve(performance.now() - started) : reject(new Error(`${target}: ${res.statusCode}`))));
        })
        .on('error', reject);
    });
  for (let i = 0; performance.now() < end; i++) {
    latencies.push(await get(i % 2 === 0 ? '/rest/appliances/engine_probe/?page=2&ordering=name' : `/rest/appliances/engine_probe/${(i % 300) + 1}/`));
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  agent.destroy();
  return latencies;
}

/** The ordinary reads, in a process of their own: their latencies as one JSON line. */
function readerProcess(base: string, seconds: number): Promise<number[]> {
  const reader = spawn(process.execPath, [__filename, '--reader', base, '--seconds', String(seconds)], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  reader.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  return new Promise((resolve, reject) => reader.on('close', (code) => (code === 0 ? resolve(JSON.parse(out) as number[]) : reject(new Error(`reader exited ${code}`)))));
}

async function main(): Promise<void> {
  if (options.reader) {
    process.stdout.write(JSON.stringify(await ordinaryReads(options.reader, SECONDS)));
    return;
  }
  const child = spawn(process.execPath, [path.join(__dirname, 'hostileServer.cjs')], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = readline.createInterface({ input: child.stdout! });
  const nextLine = () => new Promise<string>((resolve) => lines.once('line', resolve));
  const ready = await nextLine();
  const base = ready.replace(/^ready /, '');
  const command = async (line: string) => {
    child.stdin!.write(`${line}\n`);
    return line === 'report' ? (JSON.parse(await nextLine()) as { p50: number; p99: number; max: number }) : undefined;
  };

  log(`seeding ${base}`);
  for (let i = 0; i < 300; i++) {
    const reply = await send(base, 'POST', '/rest/appliances/engine_probe/', { token: BENCH_TOKEN, body: Buffer.from(JSON.stringify({ name: `probe-${String(i).padStart(3, '0')}`, address: `10.1.${i >> 8}.${i & 255}` })) });
    if (reply.status !== 201) throw new Error(`seeding: ${reply.status}`);
  }
  const agent = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36 Edg/1';
  const seen = { first_seen: '2024-01-01T00:00:00+00:00', last_seen: '2024-01-02T00:00:00+00:00' };
  const hosts = Array.from({ length: 200 }, (_, i) => ({ ip: `10.2.0.${i}`, host_id: { ...seen, hostname: [{ host: i === 0 ? 'a'.repeat(2000) : `host-${i}.corp`, ...seen }], 'http.user_agent': [{ agent, ...seen }] } }));
  if ((await send(base, 'POST', '/rest/appliances/host_id/import/', { token: BENCH_TOKEN, body: Buffer.from(JSON.stringify(hosts)) })).status !== 201) throw new Error('host import failed');
  const template = await new Promise<number>((resolve, reject) => {
    const body = JSON.stringify({ name: 'bench-template' });
    const req = http.request(new URL('/rest/appliances/vendor_probe_template/', base), { method: 'POST', headers: { Authorization: `Token ${BENCH_TOKEN}`, 'Content-Type': 'application/json' } }, (res) => {
      let text = '';
      res.on('data', (c) => (text += c));
      res.on('end', () => (res.statusCode === 201 ? resolve((JSON.parse(text) as { pk: number }).pk) : reject(new Error(text))));
    });
    req.end(body);
  });

  log(`quiet: ordinary reads for ${SECONDS} s`);
  await command('reset');
  const quiet = await readerProcess(base, SECONDS);
  const quietLoop = (await command('report'))!;

  log(`under attack: ${CONCURRENCY} hostile workers for ${SECONDS} s, ordinary reads beside them`);
  await command('reset');
  const whole = hostileMix(base, template);
  const mix = options.only ? options.only.split(',').map((i) => whole[Number(i)]!) : whole;
  const statuses = new Map<number, number>();
  let hostileCount = 0;
  const end = performance.now() + SECONDS * 1000;
  const worker = async (offset: number) => {
    for (let i = offset; performance.now() < end; i++) {
      const answer = await mix[i % mix.length]!();
      hostileCount++;
      statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
    }
  };
  const [attacked] = await Promise.all([readerProcess(base, SECONDS), ...Array.from({ length: CONCURRENCY }, (_, w) => worker(w * 3))]);
  const attackLoop = (await command('report'))!;
  child.stdin!.end();

  const fmt = (n: number) => `${n.toFixed(1)} ms`;
  const ratio = percentile(attacked!, 99) / percentile(quiet, 99);
  const serverErrors = [...statuses].filter(([status]) => status >= 500).reduce((sum, [, n]) => sum + n, 0);
  const report = [
    `| measure | quiet server | under the hostile mix | target |`,
    `|---|---|---|---|`,
    `| event-loop delay p99 (server process) | ${fmt(quietLoop.p99)} | ${fmt(attackLoop.p99)} (max ${fmt(attackLoop.max)}) | < 50 ms: ${attackLoop.p99 < 50 ? 'met' : 'NOT met'} |`,
    `| ordinary reads p99 | ${fmt(percentile(quiet, 99))} (${quiet.length} reads) | ${fmt(percentile(attacked!, 99))} (${attacked!.length} reads) | ≤ 2× quiet: ${ratio.toFixed(2)}× ${ratio <= 2 ? 'met' : 'NOT met'} |`,
    `| ordinary reads p50 | ${fmt(percentile(quiet, 50))} | ${fmt(percentile(attacked!, 50))} | |`,
    `| hostile requests answered | | ${hostileCount} (${[...statuses].sort(([a], [b]) => a - b).map(([s, n]) => `${s}: ${n}`).join(', ')}) | no 5xx: ${serverErrors === 0 ? 'met' : 'NOT met'} |`,
  ].join('\n');
  const facts = `\n${SECONDS} s each, ${CONCURRENCY} hostile workers, ${new Date().toISOString().slice(0, 10)}, Node ${process.version}, 2 cores shared by the server, the load and the reads.`;
  console.log(report + facts);
  if (options.write) {
    const file = path.join(ROOT, 'docs', 'benchmarks.md');
    const current = fs.readFileSync(file, 'utf8');
    const section = `<!-- hostile.bench:start -->\n${report}\n${facts}\n<!-- hostile.bench:end -->`;
    const pattern = /<!-- hostile\.bench:start -->[\s\S]*<!-- hostile\.bench:end -->/;
    fs.writeFileSync(
      file,
      pattern.test(current)
        ? current.replace(pattern, section)
        : `${current.trimEnd()}\n\n## Under hostile load (issue 8)\n\n\`npm run bench:hostile -- --write\`: the server in its own process; a mix of the requests that froze or bloated it on main (qfilter wildcard soups and deep nesting, 1,000 search terms, 2,000 ordering terms, unauthenticated 400 MB POSTs, a 5 MB import of 2.5M numbers, 2.5M integers in \`interfaces\`, 300k bad threats, parser-level garbage) sent by several workers, while ordinary reads (a list page, a probe) run beside them; the same reads on the quiet server first.\n\n${section}\n`,
    );
  }
}

main().catch((error: unknown) => {
  log(String((error as Error).stack ?? error));
  process.exit(1);
});
