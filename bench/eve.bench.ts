/**
 * EVE import throughput and memory (issue 10). A large EVE file is built by replaying the real
 * samples of ../shared/samples/eve with shifted addresses and times (cached in bench/.cache/),
 * then, in the same run:
 *   - the baseline: a plain Node loop reading the file line by line and JSON.parse-ing every line;
 *   - `outpost import-eve` of the same file into a fresh data folder (its own process), with its
 *     peak RSS;
 * alternated, each twice, the best of each compared.
 * Figures are printed as a Markdown table; `--write` also records them in docs/benchmarks.md.
 *
 *   npm run bench:eve -- [--mb 1024] [--write]
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';

const ROOT = path.resolve(__dirname, '../..');
const SAMPLES = path.resolve(ROOT, '../shared/samples/eve');
const CLI = path.join(ROOT, 'dist/node/outpost.cjs');

function option(name: string, fallback: string): string {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? (process.argv[at + 1] ?? fallback) : fallback;
}

const MEGABYTES = Number(option('mb', '1024'));
const WRITE = process.argv.includes('--write');

/** An IPv4 address moved into another /16 for each replay, so that hosts multiply as a site's do. */
function shiftAddress(ip: string, round: number): string {
  const parts = ip.split('.');
  if (parts.length !== 4) return ip;
  const second = (Number(parts[1]) + round) % 256;
  const third = (Number(parts[2]) + Math.floor(round / 256)) % 256;
  return `${parts[0]}.${second}.${third}.${parts[3]}`;
}

/** The big file: the samples replayed, each round an hour later, in other address ranges. */
function buildFile(): string {
  const cache = path.join(ROOT, 'bench/.cache');
  fs.mkdirSync(cache, { recursive: true });
  const file = path.join(cache, `eve-${MEGABYTES}mb.json`);
  if (fs.existsSync(file) && fs.statSync(file).size >= MEGABYTES * 1e6) return file;
  const lines = fs
    .readdirSync(SAMPLES)
    .filter((name) => name.endsWith('.json'))
    .flatMap((name) => fs.readFileSync(path.join(SAMPLES, name), 'utf8').split('\n'))
    .filter((line) => line.trim() !== '');
  const out = fs.openSync(`${file}.tmp`, 'w');
  let written = 0;
  for (let round = 0; written < MEGABYTES * 1e6; round++) {
    let chunk = '';
    for (const line of lines) {
      const shifted = line
        .replace(/"(src_ip|dest_ip|rdata|assigned_ip)":"(\d+\.\d+\.\d+\.\d+)"/g, (_m, key: string, ip: string) => `"${key}":"${shiftAddress(ip, round)}"`)
        .replace(/"timestamp":"(\d{4})-/, (_m, year: string) => `"timestamp":"${Number(year) + Math.floor(round / 100)}-`);
      chunk += `${shifted}\n`;
    }
    fs.writeSync(out, chunk);
    written += Buffer.byteLength(chunk);
  }
  fs.closeSync(out);
  fs.renameSync(`${file}.tmp`, file);
  return file;
}

async function baseline(file: string): Promise<{ seconds: number; lines: number }> {
  const start = performance.now();
  let lines = 0;
  const reader = readline.createInterface({ input: fs.createReadStream(file, { highWaterMark: 256 * 1024 }), crlfDelay: Infinity });
  for await (const line of reader) {
    if (line === '') continue;
    JSON.parse(line);
    lines++;
  }
  return { seconds: (performance.now() - start) / 1000, lines };
}

/** `outpost import-eve` in its own process; its wall time and peak RSS (from /proc, sampled). */
async function importRun(file: string): Promise<{ seconds: number; peakMb: number; summary: string }> {
  const data = fs.mkdtempSync(path.join(os.tmpdir(), 'outpost-eve-bench-'));
  const start = performance.now();
  const child = spawn(process.execPath, [CLI, 'import-eve', file, '--data', data], { stdio: ['ignore', 'pipe', 'pipe'] });
  let peak = 0;
  const sampler = setInterval(() => {
    try {
      const status = fs.readFileSync(`/proc/${child.pid}/status`, 'utf8');
      const hwm = /VmHWM:\s+(\d+) kB/.exec(status);
      if (hwm) peak = Math.max(peak, Number(hwm[1]) / 1024);
    } catch {
      // the process has ended
    }
  }, 100);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  clearInterval(sampler);
  const seconds = (performance.now() - start) / 1000;
  fs.rmSync(data, { recursive: true, force: true });
  if (code !== 0) throw new Error(`import-eve failed (${code}): ${stderr}`);
  return { seconds, peakMb: peak, summary: stdout.trim() };
}

async function main(): Promise<void> {
  const file = buildFile();
  const size = fs.statSync(file).size;
  process.stdout.write(`file: ${file} (${(size / 1e6).toFixed(0)} MB)\n`);
  // Alternated, each side the best of two: this VM's speed drifts by tens of percent within
  // minutes, and one side's single run against the other's best would measure the drift.
  const before = await baseline(file);
  const first = await importRun(file);
  const after = await baseline(file);
  const second = await importRun(file);
  const base = Math.min(before.seconds, after.seconds);
  const run = first.seconds <= second.seconds ? first : second;
  const peakMb = Math.max(first.peakMb, second.peakMb);
  const ratio = run.seconds / base;
  const mbps = (seconds: number) => (size / 1e6 / seconds).toFixed(0);
  const report = [
    `| run | wall | MB/s | ratio to the baseline | peak RSS | target |`,
    `|---|---|---|---|---|---|`,
    `| baseline: read line by line, JSON.parse every line (best of two: ${before.seconds.toFixed(1)} s, ${after.seconds.toFixed(1)} s) | ${base.toFixed(1)} s | ${mbps(base)} | 1.00 | | |`,
    `| \`outpost import-eve\` into a fresh workspace (best of two, alternated with the baseline: ${first.seconds.toFixed(1)} s, ${second.seconds.toFixed(1)} s; peak RSS the higher) | ${run.seconds.toFixed(1)} s | ${mbps(run.seconds)} | ${ratio.toFixed(2)} | ${peakMb.toFixed(0)} MB | ≤ 1.0 (at most 1.5): ${ratio <= 1 ? 'met' : ratio <= 1.5 ? 'within 1.5, 1.0 NOT met' : 'NOT met'}; RSS < 300 MB: ${peakMb < 300 ? 'met' : 'NOT met'} |`,
    '',
    `${(size / 1e6).toFixed(0)} MB, ${before.lines.toLocaleString('en')} events; the import's summary:`,
    '',
    ...run.summary.split('\n').filter((line) => !line.includes(': ') || /^(lines read|events used|hosts)/.test(line)).map((line) => `    ${line}`),
  ].join('\n');
  process.stdout.write(`${report}\n`);
  if (WRITE) {
    const docs = path.join(ROOT, 'docs/benchmarks.md');
    const current = fs.readFileSync(docs, 'utf8');
    const section = `<!-- eve.bench:start -->\n${report}\n\nMeasured ${new Date().toISOString().slice(0, 10)} on ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, Node ${process.version}.\n<!-- eve.bench:end -->`;
    const next = /<!-- eve\.bench:start -->[\s\S]*<!-- eve\.bench:end -->/.test(current)
      ? current.replace(/<!-- eve\.bench:start -->[\s\S]*<!-- eve\.bench:end -->/, section)
      : `${current.trimEnd()}\n\n## EVE import (\`bench/eve.bench.ts\`, issue 10)\n\n\`\`\`\nnpm run bench:eve -- --write\n\`\`\`\n\n${section}\n`;
    fs.writeFileSync(docs, next);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
