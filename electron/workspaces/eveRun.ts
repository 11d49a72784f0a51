/**
 * One EVE import, start to end, on the import's own thread (eveImport.ts starts it) with a
 * connection of its own: the sources opened and their first lines read (eveContent.ts), the files
 * claimed (another import of the same log is waited for, then what it read is not read again),
 * each file read on from where a former import stopped, its segments parsed here and on the helper
 * thread (eveParse.ts, eveHelper.ts) into evidence staged batch by batch; then one transaction
 * moves the staging into the evidence and records the files, and a second writes the identities
 * of the addresses that changed. A failure or a cancel before the first leaves nothing.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { addAside, EvidenceBatch } from '../../shared/eve/accumulate';
import { DROP_REASONS, SKIP_REASONS, type DropReason, type SkipReason } from '../../shared/eve/event';
import { identityRecords, networksOf } from '../../shared/eve/identity';
import type { AddressSeen } from '../../shared/eve/merge';
import type { CountedLines, EveFileSummary, EveProgress, EveSummary, IgnoredFile } from '../../shared/eve/summary';
import { openDatabase, type DatabaseSource } from '../server/store/database';
import type { EveFileRecord } from '../server/store/evidence';
import { IDENTITY_CHUNK } from '../server/store/identitySources';
import { Services } from '../server/store/services';
import { ContentReader, EveImportError, SEGMENT_BYTES, SegmentMemory, type Segment } from './eveContent';
import { fileFingerprint, fileTail } from './eveFingerprint';
import { Helper, helperMakes, type HelperSegment } from './eveHelper';
import { FIRST_KEPT, parseSegment, type Counted, type SegmentCounts } from './eveParse';

/**
 * Distinct values and addresses held in memory before they are staged (about 20 MB): a log
 * repeats the same few values, so most site logs are staged once; beside a helper thread, 100,000
 * took the import's peak RSS past 300 MB.
 */
const BATCH_ENTRIES = 40_000;
/**
 * Segments the helper is given ahead, so that it never waits for work while this thread stages a
 * batch: a plain file's (a range to read: nothing held) many, a stream's (its bytes held) two.
 */
const HELPER_RANGES = 6;
const HELPER_STREAMED = 2;
/** Addresses from which the helper makes the identities (fewer are made here sooner than it starts). */
const HELPER_IDENTITIES_FROM = 4096;
/** Former imports of a log's first line that a stream is checked against. */
const MAX_CANDIDATES = 8;
/** How often a waiting import looks whether the import it waits for has ended. */
const WAIT_MS = 200;

/** A source as the import thread is given it. */
export interface RunSource {
  /** Its path, or the uploaded file's name. */
  readonly name: string;
  /** Where it is recorded as read (a file's absolute path; `upload:<name>`). */
  readonly key: string;
  /** A file on this machine; else its bytes come by `RunIO.stream`. */
  readonly file?: string;
  readonly size?: number;
  /**
   * The file (device and inode) this process read on its last `--follow` tick: if it is still
   * that file, the point reached then is checked by its last 4 KiB alone, not by every window.
   */
  readonly followed?: { readonly dev: number; readonly ino: number };
}

export interface RunOptions {
  readonly database: DatabaseSource;
  readonly sources: readonly RunSource[];
  readonly ignored: readonly IgnoredFile[];
  /** Home networks to set (canonical CIDRs) before the identities are written. */
  readonly homeNets?: readonly string[];
  readonly user?: { readonly pk: number; readonly username: string };
  /** The worker program, to start the helper thread with (none: everything here). */
  readonly helperCode?: string;
  /** Tests stage often, cut small segments, and have the helper make few identities. */
  readonly batchEntries?: number;
  readonly segmentBytes?: number;
  readonly helperFrom?: number;
}

export interface RunIO {
  progress(progress: EveProgress): void;
  cancelled(): boolean;
  /** The bytes of source `index` when it is no file (an upload). */
  stream(index: number): AsyncIterable<Buffer>;
}

/** A point a former import reached in a stream's content: confirmed when the stream passes it with the same fingerprint. */
interface Candidate {
  readonly record: EveFileRecord;
  same: boolean | undefined;
}

/** A segment's counts, and the stretch of a stream it lies in (the candidate whose point closes it, or -1). */
interface Part {
  readonly counts: Promise<SegmentCounts>;
  readonly stretch: number;
}

const cancelled = () => new EveImportError('the import was cancelled; nothing was imported');

/** What the summary counts, as the files' lines are known to be new: totals, and each reason's count and first lines. */
class Tally {
  lines = 0;
  eventsUsed = 0;
  eventsOther = 0;
  readonly skipped: Partial<Record<SkipReason, { count: number; first: string[] }>> = {};
  readonly dropped: Partial<Record<DropReason, { count: number; first: string[] }>> = {};

  /** A segment's counts, its lines numbered from `before` in `file`. */
  add(counts: SegmentCounts, file: string, before: number): void {
    this.lines += counts.lines;
    this.eventsUsed += counts.eventsUsed;
    this.eventsOther += counts.eventsOther;
    const add = <R extends string>(into: Partial<Record<R, { count: number; first: string[] }>>, from: Partial<Record<R, Counted>>) => {
      for (const [reason, counted] of Object.entries(from) as [R, Counted][]) {
        const entry = (into[reason] ??= { count: 0, first: [] });
        entry.count += counted.count;
        for (const at of counted.first) if (entry.first.length < FIRST_KEPT) entry.first.push(`${file}:${before + at}`);
      }
    };
    add(this.skipped, counts.skipped);
    add(this.dropped, counts.dropped);
  }
}

/** The counts of each reason, in the reasons' order. */
function ordered<R extends string>(reasons: readonly R[], counts: Partial<Record<R, CountedLines>>): Partial<Record<R, CountedLines>> {
  return Object.fromEntries(reasons.filter((r) => counts[r]).map((r) => [r, counts[r]!])) as Partial<Record<R, CountedLines>>;
}

export async function runImport(options: RunOptions, io: RunIO): Promise<EveSummary> {
  const run = new ImportRun(openServices(options.database), options, io);
  try {
    return await run.run();
  } finally {
    await run.close();
  }
}

class ImportRun {
  private readonly importPk: number;
  private readonly batch = new EvidenceBatch();
  private readonly readers: ContentReader[] = [];
  private helper: Helper | undefined;
  private segments = 0;
  private helperTried = false;
  private readonly tally = new Tally();
  private readonly files: EveFileSummary[] = [];
  private readonly records: EveFileRecord[] = [];
  private readonly progress: Progress;
  private readonly memory: SegmentMemory;

  constructor(
    private readonly services: Services,
    private readonly options: RunOptions,
    private readonly io: RunIO,
  ) {
    services.store.pageCache(16);
    this.memory = new SegmentMemory(options.segmentBytes ?? SEGMENT_BYTES);
    this.importPk = services.evidence.begin();
    this.progress = new Progress(io, options, () => services.evidence.stagedHosts(this.importPk), () => this.batch.hosts.size);
  }

  async run(): Promise<EveSummary> {
    const { evidence, store, history } = this.services;
    try {
      await this.open();
      await this.claim();
      for (const [index, source] of this.options.sources.entries()) await this.read(source, this.readers[index]!);
      if (this.io.cancelled()) throw cancelled();
      this.stage();
      const changed = store.write(() => {
        const count = evidence.commit(this.importPk, this.records);
        if (this.options.homeNets) evidence.setHomeNets(this.options.homeNets);
        if (count > 0) history.log({ actionType: 'import_host_id', user: this.options.user ?? adminOf(this.services), clientIp: '127.0.0.1', comment: null, objects: { count: { value: count } } });
        return count;
      });
      const helper = changed >= (this.options.helperFrom ?? HELPER_IDENTITIES_FROM) ? (this.helper ??= this.startHelper()) : undefined;
      const written = await writeIdentities(this.services, helper);
      const { tally } = this;
      return {
        files: this.files,
        ignored: this.options.ignored,
        linesRead: tally.lines,
        eventsUsed: tally.eventsUsed,
        eventsOther: tally.eventsOther,
        skipped: ordered(SKIP_REASONS, tally.skipped),
        dropped: ordered(DROP_REASONS, tally.dropped),
        ...written,
      };
    } catch (error) {
      if (store.open) evidence.discard(this.importPk);
      throw error;
    }
  }

  /** Open every source and read its first line, which names it. */
  private async open(): Promise<void> {
    for (const [index, source] of this.options.sources.entries()) {
      const reader = await ContentReader.open(source.name, source.file !== undefined ? { file: source.file } : { stream: this.io.stream(index) }, this.memory);
      this.readers.push(reader);
      if (reader.head === undefined) throw new EveImportError(`${source.name} ${reader.empty ? 'is empty' : 'has no complete line'}: no EVE event in it; nothing was imported`);
    }
  }

  /** Claim every source at once; while another import running claims one of them, wait for it to end. */
  private async claim(): Promise<void> {
    for (;;) {
      const holder = this.services.evidence.claim(this.importPk, this.readers.map((reader) => reader.head!));
      if (!holder) return;
      this.progress.report(this.options.sources[0]?.name ?? '', undefined, true, `another import of the same log (${holder.owner}) is under way: this one reads what that one did not, once it has ended`);
      if (this.io.cancelled()) throw cancelled();
      await sleep(WAIT_MS);
    }
  }

  /**
   * Read one source. A plain file is checked against each point a former import reached, by
   * position, before anything is read, and read on from the furthest that holds. A stream is
   * checked as it passes them, its lines read meanwhile: their values merge again to the same
   * (the rule is idempotent), their alerts are held apart until the point is known, then dropped
   * with the lines (already imported) or counted.
   */
  private async read(source: RunSource, reader: ContentReader): Promise<void> {
    const known = this.services.evidence.filesWithHead(reader.head!);
    const followed = source.followed && reader.identity?.dev === source.followed.dev && reader.identity.ino === source.followed.ino;
    const resumed = reader.seekable ? known.find((record) => sameUpTo(reader, record, followed === true && record.path === source.key)) : undefined;
    if (resumed) reader.seek(resumed.bytes);
    const candidates: Candidate[] = reader.seekable ? [] : known.slice(0, MAX_CANDIDATES).sort((a, b) => a.bytes - b.bytes).map((record) => ({ record, same: undefined }));
    reader.cutAt(candidates.map((c) => c.record.bytes));
    const aside = candidates.map(() => new Map<string, AddressSeen>());
    const parts: Part[] = [];
    for (;;) {
      if (this.io.cancelled()) throw cancelled();
      const segment = await reader.next();
      if (!segment) break;
      for (const candidate of candidates) {
        if (candidate.same === undefined && segment.end >= candidate.record.bytes) {
          candidate.same = segment.end === candidate.record.bytes && sameFingerprint(reader.fingerprinted().current(), candidate.record);
        }
      }
      const stretch = candidates.findIndex((c) => c.record.bytes >= segment.end);
      parts.push({ counts: this.parse(segment, reader, stretch === -1 ? undefined : aside[stretch]), stretch });
      this.progress.report(source.name, reader);
      // The event loop turns between segments: the helper's answers come in.
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    const confirmed = candidates.findLastIndex((c) => c.same === true);
    let line = resumed?.lines ?? 0;
    let already = line;
    let read = 0;
    let events = 0;
    for (const part of parts) {
      const counts = await part.counts;
      if (part.stretch !== -1 && part.stretch <= confirmed) already += counts.lines;
      else {
        this.tally.add(counts, source.name, line);
        read += counts.lines;
        events += counts.events;
      }
      line += counts.lines;
    }
    for (const [n, held] of aside.entries()) if (n > confirmed) this.batch.merge([], [...held].map(([ip, seen]) => ({ ip, ...seen })));
    this.stageIfFull();
    if (line === 0) throw new EveImportError(`${source.name} has no complete line: no EVE event in it; nothing was imported`);
    if (already === 0 && events === 0) throw new EveImportError(`${source.name} has no EVE event in it (${line} line${line === 1 ? '' : 's'}, none a Suricata EVE JSON event); nothing was imported`);
    this.files.push({ path: source.name, fromLine: already + 1, lines: read, alreadyImported: already });
    const fingerprint = reader.seekable ? fileFingerprint(reader.descriptor!, reader.endOfLines) : reader.fingerprinted().current();
    this.records.push({ head: reader.head!, path: source.key, bytes: reader.endOfLines, lines: line, ...fingerprint });
    this.progress.done(source.name, reader);
  }

  private startHelper(): Helper | undefined {
    return Helper.start(this.options.helperCode, { database: this.options.database });
  }

  /**
   * Parse a segment, on the helper thread while it has room, else here; its evidence into the
   * batch, its alerts into `hitsAside` when given.
   */
  private parse(segment: Segment, reader: ContentReader, hitsAside: Map<string, AddressSeen> | undefined): Promise<SegmentCounts> {
    // A log of more than a segment is worth a helper thread, started as early as that is known.
    if (!this.helperTried && (reader.segmentsLeft > 0 || ++this.segments === 2)) {
      this.helperTried = true;
      this.helper = this.startHelper();
    }
    const { helper } = this;
    // Near a file's end, fewer ahead: the two threads end together.
    const room = segment.bytes ? HELPER_STREAMED : Math.min(HELPER_RANGES, reader.segmentsLeft + 1);
    if (helper && helper.busy < room) {
      const given: HelperSegment = segment.overlong ? { overlong: true } : segment.bytes ? { bytes: segment.bytes } : { ...reader.identity!, start: segment.start, end: segment.end };
      return helper.parse(given).then(({ parsed, bytes }) => {
        if (bytes) this.memory.give(bytes);
        const { values, hosts, ...counts } = parsed;
        if (hitsAside) for (const host of hosts) if (host.hits > 0) addAside(hitsAside, host.ip, host);
        this.batch.merge(values, hitsAside ? hosts.map((host) => ({ ...host, hits: 0 })) : hosts);
        this.progress.events += counts.eventsUsed;
        this.stageIfFull();
        return counts;
      });
    }
    this.batch.hitsAside = hitsAside;
    const counts = parseSegment(segment.overlong ? { overlong: true } : segment.bytes ? { bytes: segment.bytes } : { fd: reader.descriptor!, start: segment.start, end: segment.end }, this.batch);
    this.batch.hitsAside = undefined;
    if (segment.bytes) this.memory.give(segment.bytes);
    this.progress.events += counts.eventsUsed;
    this.stageIfFull();
    return Promise.resolve(counts);
  }

  private stageIfFull(): void {
    if (this.batch.size >= (this.options.batchEntries ?? BATCH_ENTRIES)) this.stage();
  }

  private stage(): void {
    this.services.evidence.stage(this.importPk, { values: this.batch.staged(), hosts: this.batch.hosts.values() });
    this.batch.clear();
  }

  async close(): Promise<void> {
    for (const reader of this.readers) reader.close();
    await this.helper?.close();
    this.services.close();
  }
}

/** The progress told while an import runs: at most four times a second, the staged addresses counted every two seconds. */
class Progress {
  events = 0;
  private bytesDone = 0;
  private last = 0;
  private staged = { hosts: 0, at: 0 };
  private readonly bytesTotal: number;

  constructor(
    private readonly io: RunIO,
    options: RunOptions,
    private readonly stagedHosts: () => number,
    private readonly heldHosts: () => number,
  ) {
    this.bytesTotal = options.sources.reduce((sum, source) => sum + (source.size ?? 0), 0);
  }

  report(file: string, reader: ContentReader | undefined, force = false, waitingFor?: string): void {
    const now = Date.now();
    if (!force && now - this.last < 250) return;
    this.last = now;
    if (force || now - this.staged.at >= 2000) this.staged = { hosts: this.stagedHosts(), at: now };
    const bytesRead = this.bytesDone + (reader?.rawRead ?? 0);
    this.io.progress({ file, bytesRead, bytesTotal: this.bytesTotal, events: this.events, hosts: this.staged.hosts + this.heldHosts(), ...(waitingFor ? { waitingFor } : {}) });
  }

  /** A source read whole. */
  done(file: string, reader: ContentReader): void {
    this.bytesDone += reader.rawRead;
    this.report(file, undefined, true);
  }
}

function openServices(database: DatabaseSource): Services {
  return new Services(openDatabase(database.file, database.nativeBinding ? { nativeBinding: database.nativeBinding } : {}), { name: 'outpost', version: '', address: '127.0.0.1' });
}

/** Is a plain file the same as a former import read it, up to where that one stopped (`quick`: this file itself was read then, and its tail is the same)? */
function sameUpTo(reader: ContentReader, record: EveFileRecord, quick: boolean): boolean {
  if (record.bytes > reader.fileSize) return false;
  if (quick && fileTail(reader.descriptor!, record.bytes) === record.tail) return true;
  return sameFingerprint(fileFingerprint(reader.descriptor!, record.bytes), record);
}

/** Does a fingerprint match a record's (by its samples, or by its tail alone for a record from before them)? */
function sameFingerprint(fingerprint: { samples: string; tail: string }, record: EveFileRecord): boolean {
  return record.samples === null ? fingerprint.tail === record.tail : fingerprint.samples === record.samples;
}

/**
 * Write the identities waiting (after the home networks changed, or those an import left when its
 * process died between its two transactions), on this thread of its own; how many changed.
 */
export async function runRefresh(database: DatabaseSource, helperCode: string | undefined): Promise<{ hostsCreated: number; hostsUpdated: number }> {
  const services = openServices(database);
  const helper = services.evidence.pendingCount() >= HELPER_IDENTITIES_FROM ? Helper.start(helperCode, { database }) : undefined;
  try {
    return await writeIdentities(services, helper);
  } finally {
    await helper?.close();
    services.close();
  }
}

/**
 * Write the identities of every pending address, in one transaction: made on the helper thread,
 * from a connection it opens once this one holds the write lock, while this thread writes them;
 * or made here. New hosts, and hosts whose identity changed.
 */
async function writeIdentities(services: Services, helper: Helper | undefined): Promise<{ hostsCreated: number; hostsUpdated: number }> {
  const { hosts, evidence } = services;
  return services.store.writeAsync(async () => {
    const before = hosts.count();
    let changed = 0;
    let made = false;
    if (helper) {
      try {
        // Two chunks in three made there, the third here, every one written here in order.
        const homeNets = evidence.homeNets();
        const networks = networksOf(homeNets);
        const ips = hosts.sources.pendingIps();
        const theirs = helper.identities(homeNets);
        for (let chunk = 0; chunk * IDENTITY_CHUNK < ips.length; chunk++) {
          const rows = helperMakes(chunk) ? (await theirs.next()).value : identityRecords(hosts.sources.chunkOf(ips, chunk), networks);
          if (!rows) throw new Error('the helper thread gave fewer chunks than there are');
          changed += hosts.writeIdentities(rows);
        }
        await theirs.return(undefined);
        hosts.pendingWritten();
        made = true;
      } catch {
        // The helper failed: every identity is made here (those written already are the same, and not written again).
      }
    }
    if (!made) changed += hosts.refreshPending().changed;
    const created = hosts.count() - before;
    return { hostsCreated: created, hostsUpdated: changed - created };
  });
}

function adminOf(services: Services): { pk: number; username: string } {
  const admin = services.users.byUsername('admin');
  return admin ? { pk: admin.pk, username: admin.username } : { pk: 0, username: 'outpost' };
}
