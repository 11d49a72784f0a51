/**
 * EVE import throughput, memory and responsiveness (issue 10). Large EVE files are built by
 * replaying the real samples of ../shared/samples/eve with shifted addresses and times (cached in
 * bench/.cache/). Each mode measures targets of the issue and prints a Markdown table; `--write`
 * also records it in its own marked section of docs/benchmarks.md.
 *
 *   - throughput (the default): K alternated pairs of the baseline (a plain Node loop reading the
 *     file with readline and JSON.parse-ing every line) and `outpost import-eve` of the same file
 *     into a fresh data folder (its own process, with its peak RSS); every pair's ratio and their
 *     median (the target: ≤ 1.0 at 1 GB and at 200 MB; both sizes unless --mb picks one);
 *   - rotation: a file imported, then its gzipped copy (a rotated log) imported into the same data
 *     folder: the second import's time, peak RSS and what it printed (nothing new, it should say);
 *   - upload: `outpost serve`, the file POSTed as a stream to /app/hosts/import-eve while a probe
 *     asks for the import's progress every 10 ms on its own connection: the upload's time against
 *     the baseline, the server's peak RSS and the probes' latency (the target: the server's event
 *     loop never waits more than 100 ms);
 *   - upload-known: a file imported with the CLI, then uploaded to `serve` on the same data folder
 *     with 10 MB of new events appended (a file that shares its first line with a known one);
 *   - deep: a replay with one line that is a 5,000,000-deep nested array (16 MB), imported with
 *     the CLI, then uploaded to `serve` (the probe beside it);
 *   - all: every mode in turn.
 *
 *   npm run bench:eve -- [--mode throughput|rotation|upload|upload-known|deep|all] [--mb N]
 *                        [--pairs K] [--write] [--docs FILE]
 *
 * --mb: the file's size (throughput: 200 and 1024 unless given; rotation 300; upload 1024;
 * upload-known 300; deep: the replay around the deep line, 20). --pairs: throughput 5, upload 1.
 * --docs: the file --write records into (docs/benchmarks.md).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import readline from 'node:readline';
import { pipeline } from 'node:stream/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import zlib from 'node:zlib';

// Runs as dist/bench/eve.bench.cjs.
const ROOT = path.resolve(__dirname, '../..');
const SAMPLES = path.resolve(ROOT, '../shared/samples/eve');
const CLI = path.join(ROOT, 'dist/node/outpost.cjs');
const CACHE = path.join(ROOT, 'bench/.cache');

const MODES = ['throughput', 'rotation', 'upload', 'upload-known', 'deep'] as const;
type Mode = (typeof MODES)[number];

const { values: options } = parseArgs({
  options: {
    mode: { type: 'string', default: 'throughput' },
    mb: { type: 'string' },
    pairs: { type: 'string' },
    write: { type: 'boolean', default: false },
    docs: { type: 'string', default: path.join(ROOT, 'docs/benchmarks.md') },
  },
});
const MEGABYTES = options.mb === undefined ? undefined : Number(options.mb);
const PAIRS = options.pairs === undefined ? undefined : Number(options.pairs);

/** The issue's bounds. */
const RATIO_TARGET = 1.0;
const RSS_TARGET_MB = 300;
const LOOP_TARGET_MS = 100;
/** How often the upload's probe asks for the progress. */
const PROBE_EVERY_MS = 10;
/** The appended part of upload-known's file, and the deep line's depth and length. */
const APPENDED_MB = 10;
const DEEP_DEPTH = 5_000_000;
const DEEP_LINE_BYTES = 16_000_000;

const log = (line: string) => process.stderr.write(`${line}\n`);

// ---------------------------------------------------------------------------------------------
// The files.

/** An IPv4 address moved into another /16 for each replay, so that hosts multiply as a site's do. */
function shiftAddress(ip: string, round: number): string {
  const parts = ip.split('.');
  if (parts.length !== 4) return ip;
  const second = (Number(parts[1]) + round) % 256;
  const third = (Number(parts[2]) + Math.floor(round / 256)) % 256;
  return `${parts[0]}.${second}.${third}.${parts[3]}`;
}

let samples: string[] | undefined;

function sampleLines(): string[] {
  samples ??= fs
    .readdirSync(SAMPLES)
    .filter((name) => name.endsWith('.json'))
    .flatMap((name) => fs.readFileSync(path.join(SAMPLES, name), 'utf8').split('\n'))
    .filter((line) => line.trim() !== '');
  return samples;
}

/** One replay of the samples: in other address ranges, later. */
function replayChunk(round: number): string {
  let chunk = '';
  for (const line of sampleLines()) {
    const shifted = line
      .replace(/"(src_ip|dest_ip|rdata|assigned_ip)":"(\d+\.\d+\.\d+\.\d+)"/g, (_m, key: string, ip: string) => `"${key}":"${shiftAddress(ip, round)}"`)
      .replace(/"timestamp":"(\d{4})-/, (_m, year: string) => `"timestamp":"${Number(year) + Math.floor(round / 100)}-`);
    chunk += `${shifted}\n`;
  }
  return chunk;
}

/** Replays from `firstRound` on, written to `out` until `bytes` are: what it wrote. */
function writeReplay(out: number | undefined, bytes: number, firstRound: number): { bytes: number; rounds: number; lines: number } {
  let written = 0;
  let round = firstRound;
  let lines = 0;
  for (; written < bytes; round++) {
    const chunk = replayChunk(round);
    if (out !== undefined) fs.writeSync(out, chunk);
    written += Buffer.byteLength(chunk);
    lines += sampleLines().length;
  }
  return { bytes: written, rounds: round - firstRound, lines };
}

/** A file of the cache, made by `make` into a temporary name then renamed: an interrupted build is never taken for a whole one. */
async function cached(name: string, make: (temporary: string) => void | Promise<void>): Promise<string> {
  fs.mkdirSync(CACHE, { recursive: true });
  const file = path.join(CACHE, name);
  if (fs.existsSync(file)) return file;
  log(`building ${file}…`);
  await make(`${file}.tmp`);
  fs.renameSync(`${file}.tmp`, file);
  return file;
}

/** The big file: the samples replayed, each round in other address ranges. */
function buildFile(megabytes: number): Promise<string> {
  return cached(`eve-${megabytes}mb.json`, (temporary) => {
    const out = fs.openSync(temporary, 'w');
    writeReplay(out, megabytes * 1e6, 0);
    fs.closeSync(out);
  });
}

/** The file's rotated copy, gzipped as a stream: a gigabyte is never held. */
async function gzipFile(megabytes: number): Promise<string> {
  const plain = await buildFile(megabytes);
  return cached(`${path.basename(plain)}.gz`, (temporary) => pipeline(fs.createReadStream(plain), zlib.createGzip(), fs.createWriteStream(temporary)));
}

/** The file with 10 MB of new events appended (the replay going on): the same first line, more after. */
async function grownFile(megabytes: number): Promise<string> {
  const plain = await buildFile(megabytes);
  return cached(`eve-${megabytes}mb-plus${APPENDED_MB}mb.json`, (temporary) => {
    fs.copyFileSync(plain, temporary);
    // The rounds the file holds, counted without writing, so that the new events are new hosts.
    const { rounds } = writeReplay(undefined, megabytes * 1e6, 0);
    const out = fs.openSync(temporary, 'a');
    writeReplay(out, APPENDED_MB * 1e6, rounds);
    fs.closeSync(out);
  });
}

/**
 * The replay of `megabytes` with, in its middle, one alert line whose `x` is a 5,000,000-deep
 * array, padded to 16 MB: under the 16 MiB at which a line is skipped unread, so a reader must
 * take it whole, and a recursive parser or walker would overflow its stack on it.
 */
async function deepFile(megabytes: number): Promise<{ file: string; deepLine: number }> {
  const half = (megabytes * 1e6) / 2;
  const before = writeReplay(undefined, half, 0);
  const file = await cached(`eve-${megabytes}mb-deep.json`, (temporary) => {
    const out = fs.openSync(temporary, 'w');
    writeReplay(out, half, 0);
    const head = `{"timestamp":"2024-04-18T18:43:15.391346+0000","flow_id":1,"event_type":"alert","src_ip":"10.250.0.1","src_port":51000,"dest_ip":"10.250.0.2","dest_port":80,"proto":"TCP","alert":{"action":"allowed","signature_id":1,"signature":"deep"},"payload":"`;
    const padding = DEEP_LINE_BYTES - head.length - '","x":'.length - 2 * DEEP_DEPTH - '}'.length;
    fs.writeSync(out, head);
    fs.writeSync(out, 'A'.repeat(padding));
    fs.writeSync(out, '","x":');
    fs.writeSync(out, '['.repeat(DEEP_DEPTH));
    fs.writeSync(out, ']'.repeat(DEEP_DEPTH));
    fs.writeSync(out, '}\n');
    writeReplay(out, half, before.rounds);
    fs.closeSync(out);
  });
  return { file, deepLine: before.lines + 1 };
}

// ---------------------------------------------------------------------------------------------
// The runs.

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

/** A process's peak RSS so far (VmHWM never goes down), 0 once it has ended. */
function peakOf(pid: number | undefined): number {
  try {
    const hwm = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return hwm ? Number(hwm[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

/** Samples a process's peak RSS until stopped: the last reading before it ends is its peak, give or take 50 ms. */
function watchPeak(pid: number | undefined): { readonly mb: number; stop(): number } {
  let peak = 0;
  const sample = () => (peak = Math.max(peak, peakOf(pid)));
  const timer = setInterval(sample, 50);
  return {
    get mb() {
      return Math.max(peak, peakOf(pid));
    },
    stop() {
      clearInterval(timer);
      return sample();
    },
  };
}

interface Run {
  readonly seconds: number;
  readonly peakMb: number;
  /** What the import printed (its summary), or the failure's message. */
  readonly output: string;
  readonly error?: string;
}

function freshData(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'outpost-eve-bench-'));
}

/** `outpost import-eve` in its own process: its wall time and peak RSS; a failure is a result, not an exception. */
async function importRun(file: string, data: string): Promise<Run> {
  const start = performance.now();
  const child = spawn(process.execPath, [CLI, 'import-eve', file, '--data', data], { stdio: ['ignore', 'pipe', 'pipe'] });
  const peak = watchPeak(child.pid);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) => child.on('close', (c, s) => resolve([c, s])));
  const peakMb = peak.stop();
  const elapsed = (performance.now() - start) / 1000;
  if (code === 0) return { seconds: elapsed, peakMb, output: stdout.trim() };
  const error = `import-eve failed (${signal ?? `exit ${code}`}): ${lastLines(stderr || stdout, 3)}`;
  log(`  ${error}`);
  return { seconds: elapsed, peakMb, output: stdout.trim(), error };
}

/** An import into a fresh data folder, the folder removed after. */
async function freshImport(file: string): Promise<Run> {
  const data = freshData();
  try {
    return await importRun(file, data);
  } finally {
    fs.rmSync(data, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------------------------
// The server, its upload and its probe.

/**
 * Loaded into the server's main thread (`--require`): its own event loop's delays, which it
 * reports when asked over the IPC channel. The probe's latency is the issue's measure; this one
 * says whether a slow probe was the server's loop or the machine.
 */
const LOOP_MONITOR = `'use strict';
const { isMainThread } = require('node:worker_threads');
if (isMainThread && typeof process.send === 'function') {
  const { monitorEventLoopDelay } = require('node:perf_hooks');
  const delays = monitorEventLoopDelay({ resolution: 1 });
  delays.enable();
  process.on('message', (message) => {
    if (message === 'reset') delays.reset();
    const ms = (ns) => ns / 1e6;
    process.send({ max: ms(delays.max), p99: ms(delays.percentile(99)), p50: ms(delays.percentile(50)), count: delays.count });
  });
  process.channel.unref();
}
`;

interface Delays {
  readonly max: number;
  readonly p99: number;
  readonly p50: number;
  readonly count: number;
}

interface Server {
  readonly url: string;
  readonly token: string;
  readonly process: ChildProcess;
  /** The server's event-loop delays since the last reset (`reset`: from now on). */
  loopDelays(reset?: boolean): Promise<Delays | undefined>;
  /** What it printed on stderr, for a crash's message. */
  output(): string;
  stop(): Promise<void>;
}

/** `outpost serve` on a data folder, once it prints `listening on URL`; not pinned, so that its reader thread has the second core. */
async function startServer(data: string): Promise<Server> {
  // Written each time: a cached copy would outlive a change of the source above.
  fs.mkdirSync(CACHE, { recursive: true });
  const monitor = path.join(CACHE, 'eve-loop-monitor.cjs');
  fs.writeFileSync(monitor, LOOP_MONITOR);
  const token = randomBytes(20).toString('hex');
  const child = spawn(process.execPath, ['--require', monitor, CLI, 'serve', '--data', data, '--port', '0', '--admin-token', token], {
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  let stdout = '';
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (c: Buffer) => {
      stdout += c.toString();
      const match = /^listening on (\S+)$/m.exec(stdout);
      if (match) resolve(match[1]!);
    });
    child.once('exit', (code) => reject(new Error(`outpost serve exited with ${code}: ${lastLines(stderr || stdout, 5)}`)));
  });
  return {
    url,
    token: /^token: (\S+)$/m.exec(stdout)?.[1] ?? token,
    process: child,
    loopDelays: (reset = false) =>
      new Promise((resolve) => {
        if (!child.connected) return resolve(undefined);
        const timer = setTimeout(() => resolve(undefined), 5000);
        child.once('message', (message) => {
          clearTimeout(timer);
          resolve(message as Delays);
        });
        child.send(reset ? 'reset' : 'report');
      }),
    output: () => stderr,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((done) => child.once('exit', done));
      if (child.connected) child.disconnect();
      child.kill('SIGTERM');
      // A server that does not end (a stuck import) must not keep the benchmark.
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

interface Upload {
  readonly seconds: number;
  readonly status: number;
  readonly body: string;
  readonly error?: string;
}

/** The file POSTed as the app sends it: a stream from disk, its length declared. */
async function upload(server: Server, file: string): Promise<Upload> {
  const start = performance.now();
  const size = fs.statSync(file).size;
  const url = new URL('/app/hosts/import-eve?name=eve.json', server.url);
  try {
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = http.request(url, {
        method: 'POST',
        agent: false,
        headers: { Authorization: `Token ${server.token}`, 'Content-Type': 'application/octet-stream', 'Content-Length': size },
      });
      req.on('response', (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        res.on('error', reject);
      });
      req.on('error', reject);
      // The server may answer (an error) before it read the whole body: the answer is what counts.
      pipeline(fs.createReadStream(file, { highWaterMark: 256 * 1024 }), req).catch(() => undefined);
    });
    const elapsed = (performance.now() - start) / 1000;
    return { seconds: elapsed, ...answer, ...(answer.status === 200 ? {} : { error: `HTTP ${answer.status}: ${answer.body.slice(0, 300)}` }) };
  } catch (error) {
    const elapsed = (performance.now() - start) / 1000;
    await sleep(200);
    const crashed = server.process.exitCode !== null || server.process.signalCode !== null;
    const why = crashed ? `; the server ended (${server.process.signalCode ?? `exit ${server.process.exitCode}`}): ${lastLines(server.output(), 3)}` : '';
    return { seconds: elapsed, status: 0, body: '', error: `the upload failed: ${(error as Error).message}${why}` };
  }
}

interface Probes {
  readonly latencies: number[];
  /** When each was sent, in seconds from the upload's start. */
  readonly sentAt: number[];
  readonly failures: number;
}

/**
 * GET /app/hosts/import-eve every 10 ms on a keep-alive connection of its own, until `done`: each
 * one's latency. The server can answer it only between other work on its event loop, so the
 * longest latency is at least the longest time that loop was held.
 */
async function probe(server: Server, done: () => boolean): Promise<Probes> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const url = new URL('/app/hosts/import-eve', server.url);
  const began = performance.now();
  const latencies: number[] = [];
  const sentAt: number[] = [];
  let failures = 0;
  while (!done()) {
    const start = performance.now();
    const status = await new Promise<number>((resolve) => {
      const req = http.get(url, { agent, headers: { Authorization: `Token ${server.token}` } }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', () => resolve(0));
      });
      req.on('error', () => resolve(0));
    });
    const took = performance.now() - start;
    if (status === 200) {
      latencies.push(took);
      sentAt.push((start - began) / 1000);
    } else failures++;
    if (status === 0 && done()) break;
    await sleep(Math.max(0, PROBE_EVERY_MS - took));
  }
  agent.destroy();
  return { latencies, sentAt, failures };
}

interface ProbedUpload extends Upload {
  readonly peakMb: number;
  readonly probes: Probes;
  readonly serverLoop?: Delays;
  /** This process's own loop: a probe it was late to send or read is not the server's stall. */
  readonly clientLoopMaxMs: number;
}

/** `serve` on a data folder, the file uploaded with the probe beside it, the server stopped; a server that does not start is a result too. */
async function servedUpload(data: string, file: string): Promise<ProbedUpload | { readonly failure: string }> {
  try {
    const server = await startServer(data);
    try {
      return await probedUpload(server, file);
    } finally {
      await server.stop();
    }
  } catch (error) {
    return { failure: (error as Error).message };
  }
}

/** An upload with the probe beside it, the server's peak RSS and its loop's delays. */
async function probedUpload(server: Server, file: string): Promise<ProbedUpload> {
  await server.loopDelays(true);
  const peak = watchPeak(server.process.pid);
  const clientLoop = monitorEventLoopDelay({ resolution: 1 });
  clientLoop.enable();
  let finished = false;
  const probes = probe(server, () => finished);
  const sent = await upload(server, file);
  finished = true;
  const probed = await probes;
  clientLoop.disable();
  const serverLoop = await server.loopDelays();
  return { ...sent, peakMb: peak.stop(), probes: probed, ...(serverLoop ? { serverLoop } : {}), clientLoopMaxMs: clientLoop.max / 1e6 };
}

// ---------------------------------------------------------------------------------------------
// Figures.

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** The nearest-rank percentile. */
function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? NaN;
}

const seconds = (s: number) => `${s.toFixed(1)} s`;
const megabytes = (mb: number) => `${mb.toFixed(0)} MB`;
const ms = (value: number) => `${value.toFixed(1)} ms`;
const mbps = (bytes: number, s: number) => `${(bytes / 1e6 / s).toFixed(0)} MB/s`;
const verdict = (met: boolean) => (met ? 'met' : 'NOT met');

function lastLines(text: string, count: number): string {
  return text.trim().split('\n').slice(-count).join(' / ');
}

/** Text for a table's cell: on one line, its pipes escaped, the cache's paths shortened. */
function cell(text: string): string {
  return text.split(`${CACHE}${path.sep}`).join('').replace(/\s*\n\s*/g, '; ').replace(/\|/g, '\\|');
}

/** A CLI summary's lines worth a cell: the files, lines read, skips, hosts. */
function summaryCell(output: string): string {
  const kept = output.split('\n').filter((line) => !/^events used/.test(line));
  return cell(kept.join('\n'));
}

/** An upload's answer (the import's summary, as JSON) in the same words as the CLI's. */
function answerCell(sent: Upload): string {
  return cell(answerLines(sent).join('\n'));
}

function answerLines(sent: Upload): string[] {
  if (sent.error) return [sent.error];
  try {
    const summary = JSON.parse(sent.body) as {
      files: { path: string; fromLine: number; lines: number }[];
      linesRead: number;
      skipped: Record<string, { count: number; first: string[] }>;
      hostsCreated: number;
      hostsUpdated: number;
    };
    const lines = summary.files.map((f) => (f.lines === 0 ? `${f.path}: nothing new since the last import` : `${f.path}: ${f.lines} lines from line ${f.fromLine}`));
    lines.push(`lines read: ${summary.linesRead}`);
    for (const [reason, skipped] of Object.entries(summary.skipped)) lines.push(`lines skipped, ${reason}: ${skipped.count} (first: ${skipped.first.join(', ')})`);
    lines.push(`hosts created: ${summary.hostsCreated}, updated: ${summary.hostsUpdated}`);
    return lines;
  } catch {
    return [sent.body.slice(0, 300)];
  }
}

/** What a summary says of one line: it names a skipped line by `file:line` among the first five of its reason. */
function fateOf(summary: readonly string[], at: string): string {
  const skippedAs = summary.find((line) => line.startsWith('lines skipped') && new RegExp(`${at.replace(/\./g, '\\.')}\\b`).test(line));
  return skippedAs ? `skipped: ${skippedAs.replace(/ \(first:.*$/, '')}` : 'not among the skipped lines (read as an event)';
}

interface Report {
  /** Its marked section in docs/benchmarks.md: `<!-- NAME:start -->`. */
  readonly section: string;
  readonly title: string;
  readonly command: string;
  readonly markdown: string;
}

// ---------------------------------------------------------------------------------------------
// The modes.

/** K pairs, baseline then import, at each size: the target is on the median of the pairs' ratios. */
async function throughputMode(): Promise<Report> {
  const sizes = MEGABYTES === undefined ? [200, 1024] : [MEGABYTES];
  const pairs = PAIRS ?? 5;
  const tables: string[] = [];
  for (const mb of sizes) tables.push(await throughputAt(mb, pairs));
  return { section: 'eve.bench', title: 'EVE import (`bench/eve.bench.ts`, issue 10)', command: 'npm run bench:eve -- --write', markdown: tables.join('\n\n') };
}

async function throughputAt(mb: number, pairs: number): Promise<string> {
  const file = await buildFile(mb);
  const size = fs.statSync(file).size;
  log(`throughput: ${file} (${(size / 1e6).toFixed(0)} MB), ${pairs} pair(s)`);
  // Pairs, each side once: this VM's speed drifts by tens of percent within minutes, so a ratio
  // is taken within a pair, and the median of the pairs' ratios is the figure.
  const rows: string[] = [];
  const ratios: number[] = [];
  const baselines: number[] = [];
  const imports: number[] = [];
  let peakMb = 0;
  let lines = 0;
  let lastSummary = '';
  for (let pair = 1; pair <= pairs; pair++) {
    const base = await baseline(file);
    const run = await freshImport(file);
    lines = base.lines;
    baselines.push(base.seconds);
    peakMb = Math.max(peakMb, run.peakMb);
    const ratio = run.seconds / base.seconds;
    if (!run.error) {
      ratios.push(ratio);
      imports.push(run.seconds);
      lastSummary = run.output;
    }
    log(`  pair ${pair}: baseline ${seconds(base.seconds)}, import ${run.error ? 'failed' : seconds(run.seconds)}, ratio ${run.error ? '—' : ratio.toFixed(2)}, peak RSS ${megabytes(run.peakMb)}`);
    const importCell = run.error ? `failed after ${seconds(run.seconds)}: ${cell(run.error)}` : `${seconds(run.seconds)} (${mbps(size, run.seconds)})`;
    rows.push(`| pair ${pair} | ${seconds(base.seconds)} (${mbps(size, base.seconds)}) | ${importCell} | ${run.error ? '—' : ratio.toFixed(2)} | ${megabytes(run.peakMb)} | |`);
  }
  const medianRatio = ratios.length > 0 ? median(ratios) : NaN;
  const ratioVerdict = ratios.length === 0 ? 'no import finished: NOT met' : `${verdict(medianRatio <= RATIO_TARGET)}${ratios.length < pairs ? ` (${pairs - ratios.length} of ${pairs} imports failed)` : ''}`;
  return [
    `Throughput at ${(size / 1e6).toFixed(0)} MB (${lines.toLocaleString('en')} events): ${pairs} alternated pair${pairs === 1 ? '' : 's'}, the baseline then \`outpost import-eve\` into a fresh data folder.`,
    '',
    `| run | baseline: readline, JSON.parse every line | \`outpost import-eve\` | ratio | import peak RSS | target |`,
    `|---|---|---|---|---|---|`,
    ...rows,
    `| median of the pairs (RSS: the highest) | ${seconds(median(baselines))} | ${imports.length > 0 ? seconds(median(imports)) : '—'} | **${Number.isNaN(medianRatio) ? '—' : medianRatio.toFixed(2)}** | ${megabytes(peakMb)} | ratio ≤ ${RATIO_TARGET.toFixed(1)}: ${ratioVerdict}; RSS < ${RSS_TARGET_MB} MB: ${verdict(peakMb < RSS_TARGET_MB)} |`,
    '',
    `The last import's summary: ${summaryCell(lastSummary) || '—'}`,
  ].join('\n');
}

/** A log imported, then its gzipped rotation read again into the same data folder. */
async function rotationMode(): Promise<Report> {
  const mb = MEGABYTES ?? 300;
  const plain = await buildFile(mb);
  const gz = await gzipFile(mb);
  const data = freshData();
  log(`rotation: ${plain}, then ${gz} into the same data folder`);
  let first: Run;
  let again: Run;
  try {
    first = await importRun(plain, data);
    again = await importRun(gz, data);
  } finally {
    fs.rmSync(data, { recursive: true, force: true });
  }
  log(`  first ${seconds(first.seconds)} (${megabytes(first.peakMb)}), gzip ${seconds(again.seconds)} (${megabytes(again.peakMb)})`);
  // Nothing new: the gzipped copy holds exactly the lines already read.
  const knew = !again.error && /nothing new since the last import/.test(again.output) && /^lines read: 0$/m.test(again.output);
  const row = (name: string, run: Run, target: string) =>
    `| ${name} | ${run.error ? `failed after ${seconds(run.seconds)}` : seconds(run.seconds)} | ${megabytes(run.peakMb)} | ${cell(run.error ?? summaryCell(run.output))} | ${target} |`;
  const markdown = [
    `Rotation at ${(fs.statSync(plain).size / 1e6).toFixed(0)} MB: the file imported with \`outpost import-eve\` into a fresh data folder, then its gzipped copy (${(fs.statSync(gz).size / 1e6).toFixed(0)} MB, a rotated log) into the same folder.`,
    '',
    `| run | wall | peak RSS | what it printed | target |`,
    `|---|---|---|---|---|`,
    row('first import of the plain file', first, ''),
    row('import of its gzipped rotation (re-reading a log already imported)', again, `RSS < ${RSS_TARGET_MB} MB: ${verdict(!again.error && again.peakMb < RSS_TARGET_MB)}; found already imported: ${knew ? 'yes' : 'NO'}`),
  ].join('\n');
  return { section: 'eve.bench.rotation', title: 'EVE import: a gzipped rotation of an imported log', command: 'npm run bench:eve -- --mode rotation --write', markdown };
}

function probeRows(sent: ProbedUpload): string[] {
  const { latencies, sentAt, failures } = sent.probes;
  const max = latencies.length > 0 ? Math.max(...latencies) : NaN;
  // When the longest wait came tells which part of the import held the loop (the end: the final transaction).
  const worstAt = sentAt[latencies.indexOf(max)];
  const loop = sent.serverLoop;
  return [
    `| GET /app/hosts/import-eve every ${PROBE_EVERY_MS} ms, keep-alive, own connection: latency | ${ms(max)}${worstAt === undefined ? '' : ` (sent at ${seconds(worstAt)} of the upload's ${seconds(sent.seconds)})`} | ${ms(percentile(latencies, 99))} | ${ms(percentile(latencies, 50))} | ${latencies.length}${failures > 0 ? ` (${failures} failed)` : ''} | max ≤ ${LOOP_TARGET_MS} ms: ${verdict(latencies.length > 0 && max <= LOOP_TARGET_MS)} |`,
    loop
      ? `| the server's own event-loop delay (monitorEventLoopDelay in its main thread, 1 ms timer) | ${ms(loop.max)} | ${ms(loop.p99)} | ${ms(loop.p50)} | ${loop.count} | max ≤ ${LOOP_TARGET_MS} ms: ${verdict(loop.max <= LOOP_TARGET_MS)} |`
      : `| the server's own event-loop delay | — (no answer) | | | | |`,
    `| this benchmark's event loop (a probe it was late to send or read) | ${ms(sent.clientLoopMaxMs)} | | | | |`,
  ];
}

const PROBE_HEAD = [`| while the upload ran | max | p99 | p50 | samples | target |`, `|---|---|---|---|---|---|`];

/** The app's upload: a stream POSTed to `serve`, probed every 10 ms, against the baseline. */
async function uploadMode(): Promise<Report> {
  const mb = MEGABYTES ?? 1024;
  const pairs = PAIRS ?? 1;
  const file = await buildFile(mb);
  const size = fs.statSync(file).size;
  log(`upload: ${file} (${(size / 1e6).toFixed(0)} MB), ${pairs} pair(s)`);
  const rows: string[] = [];
  const ratios: number[] = [];
  const uploads: ProbedUpload[] = [];
  for (let pair = 1; pair <= pairs; pair++) {
    const base = await baseline(file);
    const data = freshData();
    let sent: ProbedUpload;
    try {
      const server = await startServer(data);
      try {
        sent = await probedUpload(server, file);
      } finally {
        await server.stop();
      }
    } finally {
      fs.rmSync(data, { recursive: true, force: true });
    }
    uploads.push(sent);
    const ratio = sent.seconds / base.seconds;
    if (!sent.error) ratios.push(ratio);
    const latencyMax = sent.probes.latencies.length > 0 ? Math.max(...sent.probes.latencies) : NaN;
    log(`  pair ${pair}: baseline ${seconds(base.seconds)}, upload ${sent.error ? 'failed' : seconds(sent.seconds)}, server peak RSS ${megabytes(sent.peakMb)}, probe max ${ms(latencyMax)}, server loop max ${sent.serverLoop ? ms(sent.serverLoop.max) : '—'}`);
    rows.push(`| pair ${pair} | ${seconds(base.seconds)} (${mbps(size, base.seconds)}) | ${sent.error ? `failed after ${seconds(sent.seconds)}` : `${seconds(sent.seconds)} (${mbps(size, sent.seconds)})`} | ${sent.error ? '—' : ratio.toFixed(2)} | ${megabytes(sent.peakMb)} | ${answerCell(sent)} |`);
  }
  const peakMb = Math.max(...uploads.map((u) => u.peakMb));
  const all: ProbedUpload = {
    ...uploads[0]!,
    probes: {
      latencies: uploads.flatMap((u) => u.probes.latencies),
      sentAt: uploads.flatMap((u) => u.probes.sentAt),
      failures: uploads.reduce((n, u) => n + u.probes.failures, 0),
    },
    clientLoopMaxMs: Math.max(...uploads.map((u) => u.clientLoopMaxMs)),
    ...(uploads.every((u) => u.serverLoop)
      ? {
          serverLoop: {
            max: Math.max(...uploads.map((u) => u.serverLoop!.max)),
            // Of the pairs, the worst: the histograms are not merged.
            p99: Math.max(...uploads.map((u) => u.serverLoop!.p99)),
            p50: Math.max(...uploads.map((u) => u.serverLoop!.p50)),
            count: uploads.reduce((n, u) => n + u.serverLoop!.count, 0),
          },
        }
      : {}),
  };
  const markdown = [
    `Upload at ${(size / 1e6).toFixed(0)} MB: \`outpost serve\` on a fresh data folder, the file POSTed as a stream to \`/app/hosts/import-eve\`; ${pairs} pair${pairs === 1 ? '' : 's'}, the baseline then the upload.`,
    '',
    `| run | baseline: readline, JSON.parse every line | upload, to its answer | ratio | server peak RSS | the answer |`,
    `|---|---|---|---|---|---|`,
    ...rows,
    `| ${pairs === 1 ? 'the pair' : 'median of the pairs (RSS: the highest)'} | | | **${ratios.length > 0 ? median(ratios).toFixed(2) : '—'}** | ${megabytes(peakMb)} | RSS < ${RSS_TARGET_MB} MB: ${verdict(peakMb < RSS_TARGET_MB)} |`,
    '',
    `The server's event loop never waits more than ${LOOP_TARGET_MS} ms (the probes of every pair together):`,
    '',
    ...PROBE_HEAD,
    ...probeRows(all),
  ].join('\n');
  return { section: 'eve.bench.upload', title: 'EVE import: an upload to the server', command: 'npm run bench:eve -- --mode upload --write', markdown };
}

/** A known log, grown by 10 MB, uploaded to `serve` on the data folder that imported it. */
async function uploadKnownMode(): Promise<Report> {
  const mb = MEGABYTES ?? 300;
  const plain = await buildFile(mb);
  const grown = await grownFile(mb);
  const data = freshData();
  log(`upload-known: ${plain} with the CLI, then ${grown} uploaded to the same data folder`);
  let first: Run;
  let served: ProbedUpload | { readonly failure: string };
  try {
    first = await importRun(plain, data);
    served = await servedUpload(data, grown);
  } finally {
    fs.rmSync(data, { recursive: true, force: true });
  }
  const sent = 'failure' in served ? undefined : served;
  const failure = 'failure' in served ? served.failure : undefined;
  log(`  CLI ${seconds(first.seconds)}, upload ${sent ? `${seconds(sent.seconds)}, server peak RSS ${megabytes(sent.peakMb)}` : `failed: ${failure}`}`);
  const uploadRow = sent
    ? `| upload of the same file with ${((fs.statSync(grown).size - fs.statSync(plain).size) / 1e6).toFixed(0)} MB of new events appended (${(fs.statSync(grown).size / 1e6).toFixed(0)} MB, the same first line) to \`outpost serve\` on that folder | ${sent.error ? `failed after ${seconds(sent.seconds)}` : seconds(sent.seconds)} | ${megabytes(sent.peakMb)} (server) | ${answerCell(sent)} | RSS < ${RSS_TARGET_MB} MB: ${verdict(!sent.error && sent.peakMb < RSS_TARGET_MB)} |`
    : `| upload of the grown file | — | — | ${cell(failure ?? '')} | RSS < ${RSS_TARGET_MB} MB: NOT met |`;
  const markdown = [
    `Upload of a known log at ${(fs.statSync(plain).size / 1e6).toFixed(0)} MB: imported with \`outpost import-eve\`, then uploaded grown.`,
    '',
    `| run | wall | peak RSS | what it printed / answered | target |`,
    `|---|---|---|---|---|`,
    `| \`outpost import-eve\` of the file into a fresh data folder | ${first.error ? `failed after ${seconds(first.seconds)}` : seconds(first.seconds)} | ${megabytes(first.peakMb)} (CLI) | ${cell(first.error ?? summaryCell(first.output))} | |`,
    uploadRow,
    ...(sent ? ['', ...PROBE_HEAD, ...probeRows(sent)] : []),
  ].join('\n');
  return { section: 'eve.bench.upload-known', title: 'EVE import: an upload sharing its first line with a known log', command: 'npm run bench:eve -- --mode upload-known --write', markdown };
}

/** One hostile line among ordinary ones: what the import makes of a 5,000,000-deep array. */
async function deepMode(): Promise<Report> {
  const mb = MEGABYTES ?? 20;
  const { file, deepLine } = await deepFile(mb);
  log(`deep: ${file}, the deep line is line ${deepLine}`);
  const run = await freshImport(file);
  log(`  CLI: ${run.error ? 'failed' : 'done'} in ${seconds(run.seconds)}, peak RSS ${megabytes(run.peakMb)}`);
  // The same file uploaded: the server reads an upload line by line on its own thread, where
  // such a line holds the event loop too.
  const data = freshData();
  let served: ProbedUpload | { readonly failure: string };
  try {
    served = await servedUpload(data, file);
  } finally {
    fs.rmSync(data, { recursive: true, force: true });
  }
  const sent = 'failure' in served ? undefined : served;
  log(`  upload: ${sent ? `${sent.error ? 'failed' : 'done'} in ${seconds(sent.seconds)}, server peak RSS ${megabytes(sent.peakMb)}` : `failed: ${'failure' in served ? served.failure : ''}`}`);
  const said = run.error ? 'the import failed' : fateOf(run.output.split('\n'), `${path.basename(file)}:${deepLine}`);
  const uploadRow = sent
    ? `| the same file uploaded to \`outpost serve\` (fresh data folder) | ${sent.error ? `failed after ${seconds(sent.seconds)}` : seconds(sent.seconds)} | ${megabytes(sent.peakMb)} (server) | ${cell(sent.error ? 'the upload failed' : fateOf(answerLines(sent), `eve.json:${deepLine}`))} | ${answerCell(sent)} | RSS < ${RSS_TARGET_MB} MB: ${verdict(!sent.error && sent.peakMb < RSS_TARGET_MB)} |`
    : `| the same file uploaded | — | — | | ${cell('failure' in served ? served.failure : '')} | RSS < ${RSS_TARGET_MB} MB: NOT met |`;
  const markdown = [
    `A 5,000,000-deep line: a replay of ${mb} MB with, at line ${deepLine}, an alert whose \`x\` is \`[[[…]]]\` ${DEEP_DEPTH.toLocaleString('en')} deep (${(DEEP_LINE_BYTES / 1e6).toFixed(0)} MB with its padding, under the 16 MiB of a line too long); \`outpost import-eve\` into a fresh data folder, then the same file uploaded.`,
    '',
    `| run | wall | peak RSS | the deep line | what it printed | target |`,
    `|---|---|---|---|---|---|`,
    `| \`outpost import-eve\` (${(fs.statSync(file).size / 1e6).toFixed(0)} MB) | ${run.error ? `failed after ${seconds(run.seconds)}` : seconds(run.seconds)} | ${megabytes(run.peakMb)} (CLI) | ${cell(said)} | ${cell(run.error ?? summaryCell(run.output))} | RSS < ${RSS_TARGET_MB} MB: ${verdict(!run.error && run.peakMb < RSS_TARGET_MB)} |`,
    uploadRow,
    ...(sent ? ['', ...PROBE_HEAD, ...probeRows(sent)] : []),
  ].join('\n');
  return { section: 'eve.bench.deep', title: 'EVE import: a 5,000,000-deep line', command: 'npm run bench:eve -- --mode deep --write', markdown };
}

const RUNNERS: Readonly<Record<Mode, () => Promise<Report>>> = {
  throughput: throughputMode,
  rotation: rotationMode,
  upload: uploadMode,
  'upload-known': uploadKnownMode,
  deep: deepMode,
};

// ---------------------------------------------------------------------------------------------
// Recording.

/**
 * The report between its markers in docs/benchmarks.md. A section met for the first time goes
 * at the end of the EVE import's part (before the next `## ` heading), under its own heading.
 */
function record(report: Report): void {
  const docs = options.docs;
  const current = fs.existsSync(docs) ? fs.readFileSync(docs, 'utf8') : '# Benchmarks\n';
  const start = `<!-- ${report.section}:start -->`;
  const end = `<!-- ${report.section}:end -->`;
  const section = `${start}\n${report.markdown}\n\nMeasured ${new Date().toISOString().slice(0, 10)} on ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, Node ${process.version}.\n${end}`;
  const from = current.indexOf(start);
  const to = current.indexOf(end);
  let next: string;
  if (from >= 0 && to > from) {
    next = current.slice(0, from) + section + current.slice(to + end.length);
  } else if (report.section === 'eve.bench' || !current.includes('## EVE import (')) {
    const heading = report.section === 'eve.bench' ? `## ${report.title}` : `## EVE import (\`bench/eve.bench.ts\`, issue 10)\n\n### ${report.title}`;
    next = `${current.trimEnd()}\n\n${heading}\n\n\`\`\`\n${report.command}\n\`\`\`\n\n${section}\n`;
  } else {
    const part = current.indexOf('## EVE import (');
    const following = current.indexOf('\n## ', part + 1);
    const at = following >= 0 ? following + 1 : current.length;
    const block = `### ${report.title}\n\n\`\`\`\n${report.command}\n\`\`\`\n\n${section}\n\n`;
    next = following >= 0 ? current.slice(0, at) + block + current.slice(at) : `${current.trimEnd()}\n\n${block}`;
  }
  fs.writeFileSync(docs, next);
  log(`recorded in ${docs} (${report.section})`);
}

async function main(): Promise<void> {
  const mode = options.mode ?? 'throughput';
  const modes: readonly Mode[] = mode === 'all' ? MODES : (MODES as readonly string[]).includes(mode) ? [mode as Mode] : [];
  if (modes.length === 0) throw new Error(`--mode must be one of ${MODES.join(', ')}, all; not "${mode}"`);
  if (!fs.existsSync(CLI)) throw new Error(`${CLI} is missing: run npm run bench:eve, which builds it`);
  for (const each of modes) {
    let report: Report;
    try {
      report = await RUNNERS[each]();
    } catch (error) {
      // One mode's failure (a server that does not start, a full disk) leaves the others to run.
      const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
      log(message);
      process.stdout.write(`\n## ${each}\n\n| mode | result |\n|---|---|\n| ${each} | failed: ${cell(message.split('\n')[0] ?? '')} |\n`);
      process.exitCode = 1;
      continue;
    }
    process.stdout.write(`\n## ${report.title}\n\n${report.markdown}\n`);
    if (options.write) record(report);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
