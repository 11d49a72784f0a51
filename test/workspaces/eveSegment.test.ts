/**
 * Plain EVE files read in segments (issue 10, throughput): a file cut into segments anywhere
 * gives, taken in order, the lines, counts and evidence of the whole read at once; a large file
 * imported through the worker threads gives the hosts the line-by-line reader gives.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { EvidenceBatch } from '../../shared/eve/accumulate';
import { lineOutcome, readSegment, type SegmentResult } from '../../electron/workspaces/eveSegment';
import { fileSources, importEve, segmentsOf } from '../../electron/workspaces/eveImport';
import { Evidence, type GatheredBatch } from '../../electron/server/store/evidence';
import { SegmentReaders } from '../../electron/workspaces/eveWorkers';
import { SegmentClaims } from '../../electron/workspaces/segmentClaims';
import { openWorkspace, type OpenedWorkspace } from '../../electron/workspaces/openWorkspace';
import { prng } from '../helpers/prng';
import { SAMPLES_DIR } from '../helpers/workplace';

const SAMPLES = path.join(SAMPLES_DIR, 'eve');
const TROLLOPE = path.join(SAMPLES, 'Tr0llope-suricata_report_generator-eve.json');

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup();
});

function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'outpost-segment-'));
  cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Lines and evidence of segments taken in order, as the import takes them. */
function combined(results: readonly SegmentResult[]): { lines: number; to: number; events: number; used: number; skipped: Record<string, number[]>; evidence: unknown } {
  const batch = new EvidenceBatch();
  const skipped: Record<string, number[]> = {};
  let lines = 0;
  let to = 0;
  let events = 0;
  let used = 0;
  for (const result of results) {
    for (const [reason, entry] of Object.entries(result.skipped)) {
      expect(entry.count).toBeGreaterThanOrEqual(entry.first.length);
      // The first five of each reason over the file, and how many there were.
      const mine = (skipped[reason] ??= [0]);
      mine[0]! += entry.count;
      for (const n of entry.first) if (mine.length < 6) mine.push(lines + n);
    }
    batch.mergeGathered(result.values, result.hosts);
    lines += result.lines;
    events += result.events;
    used += result.eventsUsed;
    if (result.lines > 0) to = result.to;
  }
  const evidence = {
    values: batch.inKeyOrder().values,
    hosts: [...batch.hosts.entries()].sort(([a], [b]) => a.localeCompare(b)),
  };
  return { lines, to, events, used, skipped, evidence };
}

function cutAt(file: string, size: number, cuts: readonly number[]): SegmentResult[] {
  const points = [0, ...[...new Set(cuts)].filter((c) => c > 0 && c < size).sort((a, b) => a - b), size];
  const results: SegmentResult[] = [];
  for (let k = 0; k + 1 < points.length; k++) results.push(readSegment({ file, start: points[k]!, end: points[k + 1]!, size, atLineStart: k === 0 }));
  return results;
}

describe('segments of a plain EVE file', () => {
  test('cut anywhere, the segments taken in order read what the whole file reads (lines, skips, evidence)', () => {
    const dir = tempDir();
    const file = path.join(dir, 'eve.json');
    // A real log with bad lines, blank lines, CRLF endings and a last line still being written.
    const sample = fs.readFileSync(TROLLOPE, 'utf8').split('\n').filter((l) => l.trim() !== '').slice(0, 400);
    const lines = sample.flatMap((line, i) => (i % 37 === 5 ? ['not json {', line] : i % 53 === 7 ? ['', `${line}\r`] : i % 61 === 9 ? ['{"event_type":"flow"}', line] : [line]));
    fs.writeFileSync(file, `${lines.join('\n')}\n{"timestamp":"2024-01-01T00:00:00.000000+0000","event_ty`);
    const size = fs.statSync(file).size;
    const whole = combined([readSegment({ file, start: 0, end: size, size, atLineStart: true })]);
    expect(whole.lines).toBe(lines.length);
    expect(whole.to).toBe(size - '{"timestamp":"2024-01-01T00:00:00.000000+0000","event_ty'.length);
    expect(Object.keys(whole.skipped).sort()).toEqual(['not JSON', 'not an EVE event']);
    const random = prng(42);
    for (let round = 0; round < 40; round++) {
      const cuts = Array.from({ length: 1 + Math.floor(random() * 12) }, () => Math.floor(random() * size));
      // Cuts at line boundaries and just around them too.
      if (round % 4 === 0) cuts.push(...cuts.map((c) => fs.readFileSync(file).indexOf(0x0a, c) + (round % 8 === 0 ? 1 : 0)));
      expect(combined(cutAt(file, size, cuts)), `cuts ${cuts.join(',')}`).toEqual(whole);
    }
  });

  test('lines decoded a run at a time read as each line alone reads: runs of many short lines, lines longer than a run, non-ASCII text', () => {
    const dir = tempDir();
    const file = path.join(dir, 'eve.json');
    const good = fs.readFileSync(TROLLOPE, 'utf8').split('\n').filter((l) => l.trim() !== '');
    // 100 KB and 300 KB lines (longer than a run, shorter than the limit) among about 2 MB of short
    // ones, some with non-ASCII host names: every chunk holds several runs and a run's end falls anywhere.
    const long = (n: number) => `{"timestamp":"2024-01-01T00:00:00.000000+0000","event_type":"stats","stats":{"pad":"${'y'.repeat(n)}"}}`;
    const lines: string[] = [];
    for (let i = 0; lines.join('\n').length < 2_000_000; i++) {
      const line = good[i % good.length]!;
      lines.push(i % 97 === 3 ? line.replace(/"sni":"[^"]*"/, '"sni":"hôte-ü.example"') : line);
      if (i % 500 === 250) lines.push(long(100_000 + (i % 3) * 100_000));
    }
    fs.writeFileSync(file, `${lines.join('\n')}\n`);
    const size = fs.statSync(file).size;
    // Each line alone, through the same line reader.
    const oracle = new EvidenceBatch();
    let events = 0;
    for (const line of lines) {
      const outcome = lineOutcome(line);
      if (outcome !== 'blank' && !('skip' in outcome)) events++;
      if (outcome !== 'blank' && 'derived' in outcome) oracle.add(outcome.derived);
    }
    const expected = { values: oracle.inKeyOrder().values, hosts: [...oracle.hosts.entries()].sort(([a], [b]) => a.localeCompare(b)) };
    const whole = combined([readSegment({ file, start: 0, end: size, size, atLineStart: true })]);
    expect(whole.lines).toBe(lines.length);
    expect(whole.events).toBe(events);
    expect(whole.evidence).toEqual(expected);
    expect(combined(cutAt(file, size, [70_000, 1_048_000, 1_048_577, 1_500_000]))).toEqual(whole);
  });

  test('a line longer than the limit is read past in whichever segment it starts, without being held', () => {
    const dir = tempDir();
    const file = path.join(dir, 'eve.json');
    const good = fs.readFileSync(TROLLOPE, 'utf8').split('\n').filter((l) => l.trim() !== '').slice(0, 20);
    const big = `{"pad":"${'x'.repeat(17 * 1024 * 1024)}"}`;
    fs.writeFileSync(file, `${good.slice(0, 10).join('\n')}\n${big}\n${good.slice(10).join('\n')}\n`);
    const size = fs.statSync(file).size;
    const whole = combined([readSegment({ file, start: 0, end: size, size, atLineStart: true })]);
    expect(whole.lines).toBe(21);
    expect(whole.skipped['line too long']).toEqual([1, 11]);
    for (const cuts of [[5_000], [5_000, 9_000_000], [size - 100], [1_000_000, 2_000_000, 3_000_000]]) {
      expect(combined(cutAt(file, size, cuts))).toEqual(whole);
    }
  });
});

describe('segments claimed in turn by the threads that read them', () => {
  test('each segment once, in order, no further than `ahead` past the last one taken; none after a stop', () => {
    const claims = SegmentClaims.create(5, 2);
    expect([claims.claim(false), claims.claim(false), claims.claim(false)]).toEqual([0, 1, 'later']);
    claims.taken(1);
    expect([claims.claim(false), claims.claim(false)]).toEqual([2, 'later']);
    claims.taken(3);
    expect([claims.claim(false), claims.claim(false), claims.claim(false)]).toEqual([3, 4, undefined]);
    const stopped = SegmentClaims.create(5, 2);
    stopped.stop();
    expect(stopped.claim(false)).toBeUndefined();
    // The same counters seen from another thread.
    const other = SegmentClaims.of(claims.shared, 5, 2);
    expect(other.claim(false)).toBeUndefined();
  });

  test('this thread and two workers claiming one file: every segment read once, the results taken in order equal the whole', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'eve.json');
    fs.writeFileSync(file, fs.readFileSync(TROLLOPE));
    const size = fs.statSync(file).size;
    // Many small segments, so that the threads contend for them.
    const step = 16 * 1024;
    const tasks = Array.from({ length: Math.ceil(size / step) }, (_, k) => ({ file, start: k * step, end: Math.min(size, (k + 1) * step), size, atLineStart: k === 0 }));
    const readers = SegmentReaders.start(2);
    expect(readers, 'worker threads run here').toBeDefined();
    try {
      const claims = SegmentClaims.create(tasks.length, 3);
      const shared = readers!.share(tasks, claims);
      const results: SegmentResult[] = [];
      const here = new Map<number, SegmentResult>();
      let readHere = 0;
      while (results.length < tasks.length) {
        const index = results.length;
        const result = here.get(index) ?? shared.take(index);
        if (result) {
          results.push(result);
          claims.taken(results.length);
          continue;
        }
        const claimed = claims.claim(false);
        if (typeof claimed === 'number') {
          here.set(claimed, readSegment(tasks[claimed]!));
          readHere++;
          // This thread is slower than the workers (they take a while to start).
          await new Promise<void>((resolve) => setTimeout(resolve, 10));
        } else await shared.next();
      }
      expect(readHere).toBeGreaterThan(0);
      expect(readHere).toBeLessThan(tasks.length);
      expect(combined(results)).toEqual(combined([readSegment({ file, start: 0, end: size, size, atLineStart: true })]));
    } finally {
      await readers!.close();
    }
  });
});

describe('a large plain file imported by worker threads', () => {
  test('gives the hosts, counts and summary of the line-by-line reader (the same content gzipped), identities made on another thread or here', async () => {
    const dir = tempDir();
    const plain = path.join(dir, 'eve.json');
    // About 20 MB: three segments, read side by side.
    const text = fs.readFileSync(TROLLOPE, 'utf8');
    const rounds = Math.ceil(20e6 / text.length);
    const chunks: string[] = [];
    for (let r = 0; r < rounds; r++) chunks.push(text.replace(/"(src_ip|dest_ip)":"172\.(\d+)\./g, (_m, key: string, second: string) => `"${key}":"172.${(Number(second) + r) % 32}.`));
    fs.writeFileSync(plain, chunks.join(''));
    fs.writeFileSync(`${dir}/eve.json.gz`, zlib.gzipSync(fs.readFileSync(plain)));
    const readers = SegmentReaders.start();
    expect(readers, 'worker threads run here').toBeDefined();
    await readers!.close();

    const run = async (paths: string[], threads: { readerThreads: number; identityThreadFrom: number }) => {
      const opened: OpenedWorkspace = openWorkspace({ file: path.join(tempDir(), 'ws.sqlite3'), instance: { name: 'outpost', version: 'test', address: '127.0.0.1' } });
      cleanups.push(() => opened.close());
      const { sources } = fileSources(paths);
      const summary = await importEve(opened.services, { sources, ...threads });
      const hosts = opened.services.store.db.prepare('SELECT ip, hits, data FROM host_id ORDER BY ip').all();
      return { summary: { ...summary, files: summary.files.map((f) => ({ ...f, path: path.basename(f.path) })) }, hosts };
    };
    // Segments read by two workers, or by one beside this thread, identities made on another
    // thread; the gzip stream read on this thread, identities made here.
    const segmented = await run([plain], { readerThreads: 2, identityThreadFrom: 1 });
    const beside = await run([plain], { readerThreads: 1, identityThreadFrom: 1 });
    const streamed = await run([`${dir}/eve.json.gz`], { readerThreads: 0, identityThreadFrom: Infinity });
    expect(segmented.hosts.length).toBeGreaterThan(100);
    expect(segmented.summary.linesRead).toBe(chunks.join('').split('\n').length - 1);
    expect({ ...segmented.summary, files: [] }).toEqual({ ...streamed.summary, files: [] });
    expect(segmented.hosts).toEqual(streamed.hosts);
    expect(beside).toEqual(segmented);
  });

  test('near the end of the last file, a staged import stages what it holds while the last two segments are read: the final phase stages only theirs', async () => {
    const dir = tempDir();
    const plain = path.join(dir, 'eve.json');
    const text = fs.readFileSync(TROLLOPE, 'utf8');
    const chunks: string[] = [];
    for (let r = 0; r < 4; r++) chunks.push(text.replace(/"(src_ip|dest_ip)":"172\.(\d+)\./g, (_m, key: string, second: string) => `"${key}":"172.${(Number(second) + r) % 32}.`));
    fs.writeFileSync(plain, chunks.join(''));
    const segmentBytes = 192 * 1024;
    const tasks = segmentsOf(plain, 0, fs.statSync(plain).size, segmentBytes);
    expect(tasks.length).toBeGreaterThan(10);
    const stagedHosts: string[][] = [];
    const stage = Evidence.prototype.stage;
    const spy = vi.spyOn(Evidence.prototype, 'stage').mockImplementation(function (this: Evidence, importPk: number, batch: GatheredBatch) {
      const values = [...batch.values];
      const hosts = [...batch.hosts];
      stagedHosts.push(hosts.map((host) => host.ip).sort());
      stage.call(this, importPk, { values, hosts });
    });
    const run = async (options: { batchEntries?: number; segmentBytes?: number }) => {
      const opened: OpenedWorkspace = openWorkspace({ file: path.join(tempDir(), 'ws.sqlite3'), instance: { name: 'outpost', version: 'test', address: '127.0.0.1' } });
      cleanups.push(() => opened.close());
      await importEve(opened.services, { sources: fileSources([plain]).sources, readerThreads: 1, ...options });
      return opened.services.store.db.prepare('SELECT ip, hits, data FROM host_id ORDER BY ip').all();
    };
    try {
      const staged = await run({ batchEntries: 300, segmentBytes });
      // Staged in several batches; the last holds the addresses of the last two segments, no more.
      expect(stagedHosts.length).toBeGreaterThan(3);
      const last = new EvidenceBatch();
      for (const task of tasks.slice(-2)) {
        const result = readSegment(task);
        last.mergeGathered(result.values, result.hosts);
      }
      expect(stagedHosts.at(-1)).toEqual([...last.hosts.keys()].sort());
      stagedHosts.length = 0;
      // Held whole (it fits one batch), never staged, however many segments: the same hosts.
      expect(await run({ segmentBytes })).toEqual(staged);
      expect(stagedHosts).toEqual([]);
    } finally {
      spy.mockRestore();
    }
  });
});
