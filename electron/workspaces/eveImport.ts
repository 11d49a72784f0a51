/**
 * `outpost import-eve` (app.md §4, §5): Suricata EVE logs read as streams (plain or gzip; a
 * folder of rotated files oldest first), line by line with bounded memory, each event turned into
 * host evidence (shared/eve), staged batch by batch and committed in one transaction at the end:
 * a failed or cancelled import leaves nothing. A file read before is found again by the hash of
 * its first line (a rotated, gzipped copy too) and read on from where the last import stopped.
 * One pass over the bytes, so that an upload streamed by the app is read as a file is.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import zlib from 'node:zlib';
import { EvidenceBatch } from '../../shared/eve/accumulate';
import { SKIP_REASONS, type SkipReason } from '../../shared/eve/event';
import { parseHomeNets } from '../../shared/eve/identity';
import { databaseSource, type DatabaseSource } from '../server/store/database';
import type { EveFileRecord, GatheredBatch } from '../server/store/evidence';
import type { Services } from '../server/store/services';
import { FIRST_SKIPS, lineOutcome, MAX_LINE_BYTES, readSegment, type SegmentResult, type SegmentTask } from './eveSegment';
import { SegmentReaders } from './eveWorkers';
import { SegmentClaims } from './segmentClaims';
import { identityThreadFor, type IdentityThread } from './identityThread';
import { ChunkClaims, writeStagedIdentities, type StagedIdentities } from './stagedIdentities';

export { MAX_LINE_BYTES };
/** At most this much of a file's first line finds the file again. */
const HEAD_BYTES = 64 * 1024;
/** The bytes before the point reached whose hash checks the file is still the same there. */
const TAIL_BYTES = 4096;
/**
 * Evidence gathered in memory (distinct values and addresses) before it is staged. A log repeats
 * the same few values for the same addresses: most site logs fit whole, and are staged once; a
 * larger one is staged batch by batch, its memory bounded (about 20 MB of evidence: beside a
 * reader thread, 100,000 took the import's peak RSS past 300 MB, 60,000 to its edge).
 */
const BATCH_ENTRIES = 40_000;
/** The page cache of the workspace's connection during an import, in MB. */
const IMPORT_PAGE_CACHE_MB = 16;
/** A plain file is read in segments of this size, side by side in worker threads when it has several. */
const SEGMENT_BYTES = 8 * 1024 * 1024;
/**
 * Segments a thread may claim past the last one taken in file order: enough that a reader thread
 * does not wait while the import stages a batch, few enough that the results waiting stay small
 * (at 3, the reader thread of a 1 GB import waited 1.9-2.4 s of its 9-10 s; at 5, 0.2 s; at 6, 0.1 s).
 */
const SEGMENTS_AHEAD = 6;
/**
 * Segments left of the last file when a staged import stages what it holds, early: the reader
 * thread reads them meanwhile, and the final phase, with no reader beside it, stages only theirs.
 */
const ENDGAME_SEGMENTS = 2;

export class EveImportError extends Error {}

export interface EveProgress {
  readonly file: string;
  /** Bytes of the files read so far (compressed bytes for a gzip file). */
  readonly bytesRead: number;
  readonly bytesTotal: number;
  readonly events: number;
  /** Addresses with evidence so far. */
  readonly hosts: number;
}

export interface SkippedLines {
  readonly count: number;
  /** The first few, as `file:line`. */
  readonly first: readonly string[];
}

export interface EveSummary {
  readonly files: readonly { readonly path: string; readonly fromLine: number; readonly lines: number }[];
  readonly ignored: readonly string[];
  readonly linesRead: number;
  readonly eventsUsed: number;
  readonly eventsOther: number;
  readonly skipped: Readonly<Partial<Record<SkipReason, SkippedLines>>>;
  readonly hostsCreated: number;
  readonly hostsUpdated: number;
}

/** Rotated files (`eve.json`, `eve.json.1`, `eve.json.2.gz`) of a folder, oldest first; other files are ignored. */
export function filesOf(paths: readonly string[]): { files: string[]; ignored: string[] } {
  const files: string[] = [];
  const ignored: string[] = [];
  for (const given of paths) {
    let stat: fs.Stats;
    try {
      stat = fs.statSync(given);
    } catch (error) {
      throw new EveImportError(`cannot read ${given}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file or folder' : (error as Error).message}`);
    }
    if (!stat.isDirectory()) {
      files.push(given);
      continue;
    }
    const rotated: { file: string; age: number; mtime: number }[] = [];
    for (const name of fs.readdirSync(given).sort()) {
      const file = path.join(given, name);
      const match = /\.json(?:\.(\d+))?(?:\.gz)?$/.exec(name);
      if (!match || !fs.statSync(file).isFile()) {
        ignored.push(file);
        continue;
      }
      rotated.push({ file, age: match[1] === undefined ? 0 : Number(match[1]), mtime: fs.statSync(file).mtimeMs });
    }
    // The higher the rotation number, the older; then the older modification first.
    rotated.sort((a, b) => b.age - a.age || a.mtime - b.mtime || a.file.localeCompare(b.file));
    if (rotated.length === 0) throw new EveImportError(`${given} holds no EVE file (eve.json, eve.json.1, eve.json.2.gz…)`);
    files.push(...rotated.map((r) => r.file));
  }
  return { files, ignored };
}

/** Bytes to import: a file, or an upload streamed by the app. */
export interface EveSource {
  /** The file's path, or the uploaded file's name. */
  readonly name: string;
  /** Where it is recorded as read (a file's absolute path; an upload's name). */
  readonly key: string;
  /** Its bytes, as they come (gzip or plain). */
  readonly bytes: () => AsyncIterable<Buffer>;
  /** Its size in bytes, when known (for progress). */
  readonly size?: number;
  /** The path of a file on this machine (read in segments when it is plain, not gzip). */
  readonly file?: string;
  /**
   * A plain file read before can be read on from where that import stopped without reading what
   * comes before: the record it continues, the bytes before that point, and the rest of the file.
   */
  readonly resumable?: (known: (head: string) => EveFileRecord[]) => Resumed | undefined;
}

export interface Resumed {
  readonly record: EveFileRecord;
  /** The TAIL_BYTES before the point reached. */
  readonly window: Buffer;
  readonly rest: () => AsyncIterable<Buffer>;
}

/** Where the import of a plain file starts: its head, and the point a former import of it reached, if any. */
interface PlainStart {
  readonly head: string;
  readonly resumed: Resumed | undefined;
  /** Former imports of a file with this first line (a rotated copy, an older version…). */
  readonly known: number;
}

/** A plain file's first line and resume point, read directly (no gzip: those are read whole); undefined for gzip or no complete first line. */
function plainFileStart(file: string, known: (head: string) => EveFileRecord[]): PlainStart | undefined {
  const fd = fs.openSync(file, 'r');
  try {
    const size = fs.fstatSync(fd).size;
    const start = Buffer.alloc(Math.min(HEAD_BYTES, size));
    const got = fs.readSync(fd, start, 0, start.length, 0);
    if (got >= 2 && start[0] === 0x1f && start[1] === 0x8b) return undefined;
    const newline = start.subarray(0, got).indexOf(0x0a);
    // A first line not complete yet cannot name the file.
    if (newline === -1 && got < HEAD_BYTES) return undefined;
    const head = sha256(start.subarray(0, newline === -1 ? got : newline + 1));
    const records = known(head);
    for (const record of records) {
      if (record.bytes > size) continue;
      const window = Buffer.alloc(Math.min(TAIL_BYTES, record.bytes));
      fs.readSync(fd, window, 0, window.length, record.bytes - window.length);
      if (sha256(window) !== record.tail) continue;
      const resumed = { record, window, rest: () => fs.createReadStream(file, { start: record.bytes, highWaterMark: 256 * 1024 }) };
      return { head, resumed, known: records.length };
    }
    return { head, resumed: undefined, known: records.length };
  } finally {
    fs.closeSync(fd);
  }
}

/** The TAIL_BYTES of a file before `end`. */
function fileWindow(file: string, end: number): Buffer {
  const fd = fs.openSync(file, 'r');
  try {
    const window = Buffer.alloc(Math.min(TAIL_BYTES, end));
    fs.readSync(fd, window, 0, window.length, end - window.length);
    return window;
  } finally {
    fs.closeSync(fd);
  }
}

/** A plain file's resume point, checked by reading its first line and the bytes before the point. */
function resumeFile(file: string, known: (head: string) => EveFileRecord[]): Resumed | undefined {
  return plainFileStart(file, known)?.resumed;
}

export interface EveImportOptions {
  readonly sources: readonly EveSource[];
  /** Files of folders that are no EVE file, for the summary. */
  readonly ignored?: readonly string[];
  /** Home networks to set for the workspace (CIDR list) before the hosts are written. */
  readonly homeNets?: string;
  readonly onProgress?: (progress: EveProgress) => void;
  readonly signal?: AbortSignal;
  /** The history's user (the local admin unless given). */
  readonly user?: { readonly pk: number; readonly username: string };
  /**
   * Worker threads that read a large plain file's segments beside this thread, which reads one
   * itself whenever the oldest is still being read (default: one where the machine has two cores
   * or more, none otherwise; more only added memory on two cores, see docs/eve.md).
   */
  readonly readerThreads?: number;
  /** Evidence entries gathered in memory before they are staged (BATCH_ENTRIES unless given: tests stage often). */
  readonly batchEntries?: number;
  /** The size of a plain file's segments (SEGMENT_BYTES unless given: tests read small files in many segments). */
  readonly segmentBytes?: number;
  /** Addresses to write from which their identities are made on another thread (4,096 unless given). */
  readonly identityThreadFrom?: number;
}

/** The sources of paths given on the command line (folders expanded, oldest rotated file first). */
export function fileSources(paths: readonly string[]): { sources: EveSource[]; ignored: string[] } {
  const { files, ignored } = filesOf(paths);
  return {
    sources: files.map((file) => ({
      name: file,
      key: path.resolve(file),
      file,
      size: fs.statSync(file).size,
      bytes: () => fs.createReadStream(file, { highWaterMark: 256 * 1024 }),
      resumable: (known: (head: string) => EveFileRecord[]) => resumeFile(file, known),
    })),
    ignored,
  };
}

/** The content of a source: gunzipped when it starts with gzip's magic bytes (unless it is the rest of a plain file). */
async function* contentOf(source: EveSource, counter: { raw: number }, rest?: Resumed): AsyncGenerator<Buffer> {
  if (rest) {
    for await (const chunk of rest.rest()) {
      counter.raw += chunk.length;
      yield chunk;
    }
    return;
  }
  const iterator = source.bytes()[Symbol.asyncIterator]();
  const first = await iterator.next();
  if (first.done) return;
  const head = Buffer.from(first.value);
  async function* raw(): AsyncGenerator<Buffer> {
    counter.raw += head.length;
    yield head;
    for (;;) {
      const next = await iterator.next();
      if (next.done) return;
      counter.raw += next.value.length;
      yield Buffer.from(next.value);
    }
  }
  if (!(head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b)) {
    yield* raw();
    return;
  }
  const gunzip = Readable.from(raw()).pipe(zlib.createGunzip());
  try {
    for await (const chunk of gunzip as AsyncIterable<Buffer>) yield chunk;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'Z_BUF_ERROR' || code === 'Z_DATA_ERROR' || /unexpected end of file/i.test((error as Error).message)) {
      throw new EveImportError(`${source.name} is a damaged or truncated gzip file (${(error as Error).message}); nothing was imported`);
    }
    throw error;
  }
}

function sha256(data: Buffer): string {
  return crypto.createHash('sha256').update(data).digest('hex');
}

/** The last TAIL_BYTES of `a` followed by `b`. */
function lastBytes(a: Buffer, b: Buffer): Buffer {
  if (b.length >= TAIL_BYTES) return Buffer.from(b.subarray(b.length - TAIL_BYTES));
  const keep = Math.min(a.length, TAIL_BYTES - b.length);
  return Buffer.concat([a.subarray(a.length - keep), b]);
}

/** What lines gave: the evidence, and the counts of the summary. */
class Tally {
  readonly batch = new EvidenceBatch();
  linesRead = 0;
  eventsUsed = 0;
  eventsOther = 0;
  events = 0;
  readonly skipped: Partial<Record<SkipReason, { count: number; first: string[] }>> = {};

  skip(reason: SkipReason, where: string): void {
    const entry = (this.skipped[reason] ??= { count: 0, first: [] });
    entry.count++;
    if (entry.first.length < FIRST_SKIPS) entry.first.push(where);
  }

  /** Take another tally's counts and evidence. */
  take(other: Tally): void {
    this.count(other.linesRead, other, other.skipped, (where) => where);
    this.batch.merge(other.batch);
  }

  /** Take a segment's counts and evidence; its skipped lines numbered from `linesBefore` in `file`. */
  takeSegment(result: SegmentResult, file: string, linesBefore: number): void {
    this.count(result.lines, result, result.skipped, (line) => `${file}:${linesBefore + line}`);
    this.batch.mergeGathered(result.values, result.hosts);
  }

  /** Add counts read elsewhere, the first skipped lines of each reason kept in order. */
  private count<W>(
    lines: number,
    events: { readonly events: number; readonly eventsUsed: number; readonly eventsOther: number },
    skipped: Partial<Record<SkipReason, { count: number; first: W[] }>>,
    where: (first: W) => string,
  ): void {
    this.linesRead += lines;
    this.eventsUsed += events.eventsUsed;
    this.eventsOther += events.eventsOther;
    this.events += events.events;
    for (const reason of SKIP_REASONS) {
      const theirs = skipped[reason];
      if (!theirs) continue;
      const mine = (this.skipped[reason] ??= { count: 0, first: [] });
      mine.count += theirs.count;
      for (const first of theirs.first) if (mine.first.length < FIRST_SKIPS) mine.first.push(where(first));
    }
  }
}

/** The segments of [from, size) of a file. */
export function segmentsOf(file: string, from: number, size: number, segmentBytes = SEGMENT_BYTES): SegmentTask[] {
  const tasks: SegmentTask[] = [];
  for (let start = from; start < size; start += segmentBytes) {
    tasks.push({ file, start, end: Math.min(size, start + segmentBytes), size, atLineStart: start === from });
  }
  return tasks;
}

/** Import EVE sources into the open workspace's host evidence; the summary, or an EveImportError. */
export async function importEve(services: Services, options: EveImportOptions): Promise<EveSummary> {
  const homeNets = options.homeNets === undefined ? undefined : parseHomeNets(options.homeNets);
  if (homeNets && 'error' in homeNets) throw new EveImportError(`--home-net: ${homeNets.error}`);
  const bytesTotal = options.sources.reduce((total, source) => total + (source.size ?? 0), 0);
  const { evidence } = services;
  // An import keeps a small page cache: its memory stays bounded beside its reader threads.
  const pageCache = services.store.pageCache(IMPORT_PAGE_CACHE_MB);
  const importPk = evidence.begin();
  const main = new Tally();
  let lastProgress = 0;
  const counter = { raw: 0 };
  const records: EveFileRecord[] = [];
  const summaries: { path: string; fromLine: number; lines: number }[] = [];
  const cancelled = () => options.signal?.aborted === true;
  const batchEntries = options.batchEntries ?? BATCH_ENTRIES;
  const readerThreads = options.readerThreads ?? (os.availableParallelism() >= 2 ? 1 : 0);

  let stagedBefore = false;
  const flush = () => {
    if (main.batch.size === 0) return;
    evidence.stage(importPk, { values: main.batch.eachValue(), hosts: main.batch.hosts.values() });
    main.batch.clear();
    stagedBefore = true;
  };
  // The staged hosts are counted by a scan of the staging: at most every two seconds.
  let staged = { count: 0, at: 0 };
  const progress = (file: string, force = false) => {
    const now = Date.now();
    if (!options.onProgress || (!force && now - lastProgress < 250)) return;
    lastProgress = now;
    if (force || now - staged.at >= 2000) staged = { count: evidence.stagedHosts(importPk), at: now };
    options.onProgress({ file, bytesRead: counter.raw, bytesTotal, events: main.eventsUsed, hosts: staged.count + main.batch.hosts.size });
  };
  const read = (tally: Tally, bytes: Buffer | undefined, where: string) => {
    const outcome = lineOutcome(bytes?.toString('utf8'));
    if (outcome === 'blank') return;
    if ('skip' in outcome) {
      tally.skip(outcome.skip, where);
      return;
    }
    tally.events++;
    if ('other' in outcome) {
      tally.eventsOther++;
      return;
    }
    tally.eventsUsed++;
    tally.batch.add(outcome.derived);
    if (tally === main && main.batch.size >= batchEntries) flush();
  };

  // A plain file is read in segments, by worker threads side by side when it has several.
  let readers: SegmentReaders | undefined;
  let readersTried = false;
  let identities: IdentityThread | undefined;
  const readPlain = async (source: EveSource, file: string, start: PlainStart, lastSource: boolean) => {
    const eventsBefore = main.events;
    const size = fs.statSync(file).size;
    const resumed = start.resumed?.record;
    const base = counter.raw;
    let lines = resumed?.lines ?? 0;
    let endOfLines = resumed?.bytes ?? 0;
    const tasks = segmentsOf(file, endOfLines, size, options.segmentBytes);
    if (tasks.length > 1 && !readersTried && readerThreads > 0) {
      readersTried = true;
      readers = SegmentReaders.start(readerThreads);
    }
    // This thread and the reader threads claim the segments in turn, each taking the next as
    // soon as it is free; the results are taken in file order.
    const claims = SegmentClaims.create(tasks.length, SEGMENTS_AHEAD);
    const shared = tasks.length > 1 ? readers?.share(tasks, claims) : undefined;
    const here = new Map<number, SegmentResult>();
    let taken = 0;
    counter.raw = base + endOfLines;
    try {
      while (taken < tasks.length) {
        if (cancelled()) throw new EveImportError('the import was cancelled; nothing was imported');
        const result = here.get(taken) ?? shared?.take(taken);
        if (result) {
          here.delete(taken);
          // Taken in file order: the evidence staged is what one reader going line by line would stage.
          main.takeSegment(result, source.name, lines);
          lines += result.lines;
          if (result.lines > 0) endOfLines = result.to;
          counter.raw = base + tasks[taken]!.end;
          claims.taken(++taken);
          // Near the end of the last file, what a staged import holds is staged early (ENDGAME_SEGMENTS).
          if (main.batch.size >= batchEntries || (lastSource && stagedBefore && tasks.length - taken === ENDGAME_SEGMENTS)) flush();
          progress(source.name);
          continue;
        }
        const index = claims.claim(false);
        if (typeof index === 'number') {
          // The next in file order is gathered straight into the import's batch; one further on, apart.
          here.set(index, readSegment(tasks[index]!, index === taken ? main.batch : undefined));
          // The event loop turns between segments: the server answers, the workers' results come in.
          await new Promise<void>((resolve) => setImmediate(resolve));
          continue;
        }
        // The next in file order is being read by a worker.
        if (!shared) throw new Error(`segment ${taken} of ${source.name} was claimed by no reader`);
        await shared.next();
      }
    } finally {
      claims.stop();
    }
    if (lines === 0) throw new EveImportError(`${source.name} ${size === 0 ? 'is empty' : 'has no complete line'}: no EVE event in it; nothing was imported`);
    if (!resumed && main.events === eventsBefore) {
      throw new EveImportError(`${source.name} has no EVE event in it (${lines} line${lines === 1 ? '' : 's'}, none a Suricata EVE JSON event); nothing was imported`);
    }
    records.push({ head: start.head, path: source.key, bytes: endOfLines, lines, tail: sha256(fileWindow(file, endOfLines)) });
    summaries.push({ path: source.name, fromLine: (resumed?.lines ?? 0) + 1, lines: lines - (resumed?.lines ?? 0) });
    counter.raw = base + size;
    progress(source.name, true);
  };

  try {
    for (const source of options.sources) {
      const file = source.name;
      const eventsBefore = main.events;
      // A plain file on this machine that is new, or read on from where a former import stopped.
      const plain = source.file === undefined ? undefined : plainFileStart(source.file, (h) => evidence.filesWithHead(h));
      if (source.file !== undefined && plain && (plain.resumed || plain.known === 0)) {
        await readPlain(source, source.file, plain, source === options.sources[options.sources.length - 1]);
        continue;
      }
      // The first line names the file. Until the point a former import of it reached is found
      // again (or known not to be there), what the lines give is held aside in `tentative`.
      const head = crypto.createHash('sha256');
      let headTaken = 0;
      let headText: string | undefined;
      let candidates: EveFileRecord[] = [];
      let tentative: Tally | undefined;
      let resume: EveFileRecord | undefined;
      let offset = 0;
      let lines = 0;
      let pending: Buffer[] = [];
      let pendingBytes = 0;
      let overlong = false;
      // The last bytes of content up to the end of the last complete line, and those after it.
      let windowComplete: Buffer = Buffer.alloc(0);
      let afterNewline: Buffer = Buffer.alloc(0);
      // A plain file read before: straight to where that import stopped.
      const resumed = source.resumable?.((h) => evidence.filesWithHead(h));
      if (resumed) {
        resume = resumed.record;
        headText = resumed.record.head;
        offset = resumed.record.bytes;
        lines = resumed.record.lines;
        windowComplete = resumed.window;
        counter.raw += resumed.record.bytes;
      }
      const settle = (found: EveFileRecord | undefined) => {
        if (found) resume = found;
        else if (tentative) {
          main.take(tentative);
          if (main.batch.size >= batchEntries) flush();
        }
        tentative = undefined;
        candidates = [];
      };
      const line = (bytes: Buffer | undefined, windowHere: () => Buffer) => {
        lines++;
        if (headText === undefined) {
          headText = head.digest('hex');
          candidates = evidence.filesWithHead(headText);
          if (candidates.length > 0) tentative = new Tally();
        }
        // Lines up to the point a former import reached were read then.
        if (!resume || offset > resume.bytes) {
          const tally = tentative ?? main;
          tally.linesRead++;
          read(tally, bytes, `${file}:${lines}`);
        }
        if (tentative) {
          if (candidates.some((c) => c.bytes === offset)) {
            const tail = sha256(windowHere());
            const found = candidates.find((c) => c.bytes === offset && c.tail === tail);
            if (found) settle(found);
          }
          if (tentative && !candidates.some((c) => c.bytes > offset)) settle(undefined);
        }
      };
      for await (const chunk of contentOf(source, counter, resumed)) {
        if (cancelled()) throw new EveImportError('the import was cancelled; nothing was imported');
        const chunkWindow = lastBytes(windowComplete, afterNewline);
        let start = 0;
        let lastNewline = -1;
        for (;;) {
          const newline = chunk.indexOf(0x0a, start);
          const end = newline === -1 ? chunk.length : newline;
          if (headText === undefined && headTaken < HEAD_BYTES) {
            const part = chunk.subarray(start, Math.min(newline === -1 ? end : end + 1, start + (HEAD_BYTES - headTaken)));
            head.update(part);
            headTaken += part.length;
          }
          if (!overlong) {
            if (pendingBytes + (end - start) > MAX_LINE_BYTES) {
              // Too long to hold: read past it, holding nothing.
              overlong = true;
              pending = [];
              pendingBytes = 0;
            } else if (end > start) {
              pending.push(chunk.subarray(start, end));
              pendingBytes += end - start;
            }
          }
          if (newline === -1) break;
          offset += newline + 1 - start;
          const ending = newline;
          line(overlong ? undefined : pending.length === 1 ? pending[0]! : Buffer.concat(pending, pendingBytes), () => lastBytes(chunkWindow, chunk.subarray(0, ending + 1)));
          pending = [];
          pendingBytes = 0;
          overlong = false;
          lastNewline = newline;
          start = newline + 1;
        }
        offset += chunk.length - start;
        // The stream may reuse its chunks: what waits for its newline is copied.
        pending = pending.map((p) => Buffer.from(p));
        if (lastNewline >= 0) {
          windowComplete = lastBytes(chunkWindow, chunk.subarray(0, lastNewline + 1));
          afterNewline = lastBytes(Buffer.alloc(0), chunk.subarray(lastNewline + 1));
        } else afterNewline = lastBytes(afterNewline, chunk);
        progress(file);
      }
      // The point a former import reached is not in this content: what was held aside counts.
      if (tentative) settle(undefined);
      // A last line without its newline may be unfinished (a probe still writing the file): the
      // next import starts at the end of the last complete line and reads it then.
      const endOfLines = offset - (overlong ? 0 : pendingBytes);
      if (lines === 0) {
        throw new EveImportError(`${file} ${offset === 0 ? 'is empty' : 'has no complete line'}: no EVE event in it; nothing was imported`);
      }
      if (!resume && main.events === eventsBefore) {
        throw new EveImportError(`${file} has no EVE event in it (${lines} line${lines === 1 ? '' : 's'}, none a Suricata EVE JSON event); nothing was imported`);
      }
      records.push({ head: headText!, path: source.key, bytes: endOfLines, lines, tail: sha256(windowComplete) });
      summaries.push({ path: file, fromLine: (resume?.lines ?? 0) + 1, lines: lines - (resume?.lines ?? 0) });
      progress(file, true);
    }
    // The reading is over: the reader threads end, and their memory goes before the identity thread starts.
    const closing = readers?.close();
    readers = undefined;
    if (cancelled()) throw new EveImportError('the import was cancelled; nothing was imported');
    // A log whose evidence fits one batch (most do) is never staged: it goes straight into the
    // evidence, in key order as staged rows are (the evidence's B-tree is written in order, and
    // the refresh reads it, and writes host_id, in order too). A larger one stages its last batch
    // too: held through the final transaction, it would take the memory past its bound.
    if (stagedBefore) flush();
    await closing;
    // The identities of many addresses are made on another thread while this one writes them.
    identities = identityThreadFor((stagedBefore ? evidence.stagedHosts(importPk) : 0) + main.batch.hosts.size, options.identityThreadFrom);
    let last: GatheredBatch | undefined = main.batch.inKeyOrder();
    main.batch.clear();
    let existing = 0;
    const nets = homeNets && 'networks' in homeNets ? homeNets.networks.map((n) => n.text) : undefined;
    const database = databaseSource(services.store.db);
    const touched = services.store.write(() => {
      // A staged import's identities are read by the identity thread itself, from a snapshot of
      // its own taken under this transaction's lock, while this thread moves the staging into the
      // evidence; their rows are written as they come, and those late are made here meanwhile.
      const read = stagedBefore && identities !== undefined && database !== undefined ? stagedRead(identities, database, importPk, nets, services) : undefined;
      existing = evidence.knownOf(importPk, last!);
      const ips = evidence.commit(importPk, records, last!);
      // Its evidence is in the tables now: its memory can go before the identities are made.
      last = undefined;
      if (nets) evidence.setHomeNets(nets);
      // Otherwise made from the tables here (all of them again, if the thread failed on the way).
      if (!(read && writeStagedIdentities(read, services.hosts))) services.hosts.refresh(nets ? evidence.localIps() : ips, identities);
      if (ips.length > 0) {
        services.history.log({ actionType: 'import_host_id', user: options.user ?? adminOf(services), clientIp: '127.0.0.1', comment: null, objects: { count: { value: ips.length } } });
      }
      return ips.length;
    });
    return {
      files: summaries,
      ignored: options.ignored ?? [],
      linesRead: main.linesRead,
      eventsUsed: main.eventsUsed,
      eventsOther: main.eventsOther,
      skipped: Object.fromEntries(SKIP_REASONS.filter((r) => main.skipped[r]).map((r) => [r, main.skipped[r]!])),
      hostsCreated: touched - existing,
      hostsUpdated: existing,
    };
  } catch (error) {
    evidence.discard(importPk);
    throw error;
  } finally {
    await readers?.close();
    await identities?.close();
    services.store.pageCache(pageCache);
  }
}

/**
 * The identity thread asked to read a staged import's identities (those of every address with
 * local evidence when the home networks become `nets`); undefined if it is given up already.
 */
function stagedRead(thread: IdentityThread, database: DatabaseSource, importPk: number, nets: string[] | undefined, services: Services): StagedIdentities | undefined {
  const ips = services.evidence.stagedAddresses(importPk, nets !== undefined);
  const claims = ChunkClaims.create(ips.length);
  const homeNets = nets ?? services.evidence.homeNets();
  return thread.readStaged({ database, importPk, ips, claims: claims.shared, homeNets }) ? { thread, ips, claims, homeNets } : undefined;
}

function adminOf(services: Services): { pk: number; username: string } {
  const admin = services.users.byUsername('admin');
  return admin ? { pk: admin.pk, username: admin.username } : { pk: 0, username: 'outpost' };
}
