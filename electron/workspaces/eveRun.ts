/**
 * One EVE import, start to end, on the import's own thread (eveImport.ts starts it) with a
 * connection of its own: the sources opened and their first lines read (eveContent.ts) and claimed
 * (another import of the same log is waited for, then what it read is not read again), each read
 * on from where a former import stopped, its segments parsed here and on the helper thread
 * (eveParse.ts, eveHelper.ts) into evidence staged batch by batch; then one transaction moves the
 * staging into the evidence and records the files, and a second writes the identities of the
 * addresses that changed. A failure or a cancel before the first leaves nothing.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { EvidenceBatch } from '../../shared/eve/accumulate';
import { DROP_REASONS, SKIP_REASONS, type DropReason, type SkipReason } from '../../shared/eve/event';
import { identityRecords, networksOf } from '../../shared/eve/identity';
import type { CountedLines, EveFileSummary, EveProgress, EveSummary, IgnoredFile } from '../../shared/eve/summary';
import { openDatabase, type DatabaseSource } from '../server/store/database';
import type { EveFileRecord } from '../server/store/evidence';
import { IDENTITY_CHUNK } from '../server/store/identitySources';
import { filesJson } from '../server/handlers/imports';
import { Services } from '../server/store/services';
import type { VisitStart } from '../server/store/visits';
import type { VisitFile } from '../../shared/app/hostSurvey';
import { digestFile, digestRange } from './fileDigest';
import { ContentReader, EveImportError, SEGMENT_BYTES, SegmentMemory, type Segment } from './eveContent';
import { fileFingerprint, fileTail } from './eveFingerprint';
import { Helper, helperMakes } from './eveHelper';
import { FIRST_KEPT, parseSegment, type Counted, type SegmentCounts, type SegmentInput } from './eveParse';

/**
 * Distinct values and addresses held in memory before they are staged (about 20 MB): a log
 * repeats the same few values, so most site logs are staged once; beside a helper thread, 100,000
 * took the import's peak RSS past 300 MB.
 */
const BATCH_ENTRIES = 40_000;
/** Characters of keys and items held before they are staged, whatever the number of values. */
const BATCH_TEXT = 8 * 1024 * 1024;
/** Segments given to the helper ahead, so that it never waits while this thread stages: a plain file's (ranges: nothing held) six, a stream's (bytes) two. */
const HELPER_RANGES = 6;
const HELPER_STREAMED = 2;
/** Addresses from which the helper makes identities (fewer are made here sooner than it starts). */
const HELPER_IDENTITIES_FROM = 4096;
/** Former imports of a gzip file's first line it is checked against. */
const MAX_CANDIDATES = 8;
const WAIT_MS = 200;

/** A source as the import thread is given it. */
export interface RunSource {
  /** Its path, or the uploaded file's name. */
  readonly name: string;
  /** Where it is recorded as read (a file's absolute path; `upload:<name>`). */
  readonly key: string;
  /** The file read (an upload's, received beside the database: eveSpool.ts). */
  readonly file: string;
  readonly size?: number;
  /** The file this process read on its last `--follow` tick: while it is that file, its last 4 KiB find the point reached then. */
  readonly followed?: { readonly dev: number; readonly ino: number };
}

export interface RunOptions {
  readonly database: DatabaseSource;
  readonly sources: readonly RunSource[];
  readonly ignored: readonly IgnoredFile[];
  /** Home networks to set (canonical CIDRs) before the identities are written. */
  readonly homeNets?: readonly string[];
  /** The history's user (the local admin unless given). */
  readonly user?: { readonly pk: number; readonly username: string };
  /** Who ran it, as its visit records (store/visits.ts): the user's name unless given (`cli:<os user>` for the command). */
  readonly visitUser?: string;
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
}

const cancelled = () => new EveImportError('the import was cancelled; nothing was imported');
type Reasons<R extends string> = Partial<Record<R, { count: number; first: string[] }>>;

export async function runImport(options: RunOptions, io: RunIO): Promise<EveSummary> {
  const { file, nativeBinding } = options.database;
  const run = new ImportRun(new Services(openDatabase(file, nativeBinding ? { nativeBinding } : {}), { name: 'outpost', version: '', address: '127.0.0.1' }), options, io);
  try {
    return await run.run();
  } finally {
    await run.close();
  }
}

class ImportRun {
  /** The import's row and staging (none for a run with no source: the home networks changed). */
  private readonly importPk: number | undefined;
  private readonly batch = new EvidenceBatch();
  private readonly memory: SegmentMemory;
  private readonly readers: ContentReader[] = [];
  private helper: Helper | undefined;
  private helperTried = false;
  private segments = 0;
  private readonly files: EveFileSummary[] = [];
  private readonly records: EveFileRecord[] = [];
  /** The files read, as the visit and its history entry name them. */
  private readonly visitFiles: VisitFile[] = [];
  private readonly totals = { lines: 0, eventsUsed: 0, eventsOther: 0 };
  private readonly skipped: Reasons<SkipReason> = {};
  private readonly dropped: Reasons<DropReason> = {};
  /** Progress: events parsed, bytes of the sources read whole, when it was last told, the staged addresses counted (every two seconds). */
  private readonly told = { events: 0, bytes: 0, at: 0, staged: 0, stagedAt: 0 };

  constructor(private readonly services: Services, private readonly options: RunOptions, private readonly io: RunIO) {
    services.store.pageCache(16);
    this.memory = new SegmentMemory(options.segmentBytes ?? SEGMENT_BYTES);
    this.importPk = options.sources.length > 0 ? services.evidence.begin() : undefined;
  }

  async run(): Promise<EveSummary> {
    const { evidence, store, history } = this.services;
    const importPk = this.importPk;
    if (importPk === undefined) return { files: [], ignored: [], linesRead: 0, eventsUsed: 0, eventsOther: 0, skipped: {}, dropped: {}, ...(await this.identities()) };
    try {
      for (const source of this.options.sources) {
        const reader = await ContentReader.open(source.name, { file: source.file }, this.memory);
        this.readers.push(reader);
        if (reader.head === undefined) throw new EveImportError(`${source.name} ${reader.empty ? 'is empty' : 'has no complete line'}: no EVE event in it; nothing was imported`);
      }
      // Every source claimed at once; while another running import claims one, it is waited for.
      const heads = this.readers.map((reader) => reader.head!);
      for (let holder = evidence.claim(importPk, heads); holder; holder = evidence.claim(importPk, heads)) {
        this.tell(this.options.sources[0]!.name, undefined, true, `another import of the same log (${holder.owner}) is under way: this one reads what that one did not, once it has ended`);
        if (this.io.cancelled()) throw cancelled();
        await sleep(WAIT_MS);
      }
      for (const index of this.options.sources.keys()) await this.read(index);
      if (this.io.cancelled()) throw cancelled();
      this.stage();
      const user = this.options.user ?? adminOf(this.services);
      const historyPk = store.write(() => {
        const count = evidence.commit(importPk, this.records);
        if (this.options.homeNets) evidence.setHomeNets(this.options.homeNets);
        if (count === 0) return undefined;
        return history.log({ actionType: 'import_host_id', user, clientIp: '127.0.0.1', comment: null, objects: { count: { value: count }, files: { value: filesJson(this.visitFiles) } } });
      });
      // The visit is recorded with the identities it wrote, in their transaction: an import that
      // changed no evidence (no history entry) is none.
      const written = await this.identities(historyPk === undefined ? undefined : { kind: 'eve', user: this.options.visitUser ?? user.username, files: this.visitFiles, historyPk });
      const ordered = <R extends string>(reasons: readonly R[], counts: Reasons<R>) => Object.fromEntries(reasons.filter((r) => counts[r]).map((r) => [r, counts[r]])) as Partial<Record<R, CountedLines>>;
      return { files: this.files, ignored: this.options.ignored, linesRead: this.totals.lines, eventsUsed: this.totals.eventsUsed, eventsOther: this.totals.eventsOther, skipped: ordered(SKIP_REASONS, this.skipped), dropped: ordered(DROP_REASONS, this.dropped), ...written };
    } catch (error) {
      if (store.open) evidence.discard(importPk);
      throw error;
    }
  }

  /** The identities waiting written, two in three made by the helper when they are many. */
  private identities(visit?: VisitStart): Promise<{ hostsCreated: number; hostsUpdated: number }> {
    if (this.services.evidence.pendingCount() >= (this.options.helperFrom ?? HELPER_IDENTITIES_FROM)) this.helper ??= Helper.start(this.options.helperCode, this.options.database);
    return writeIdentities(this.services, this.helper, visit);
  }

  /**
   * Read one source on from the furthest point a former import of its first line reached with the
   * same content before it. A plain file is checked at each point by position before anything is
   * read. A gzip file is read up to the furthest point, unparsed, and checked at each as it passes
   * them; when that one is not the same, the file is read again from the start, up to the furthest
   * that is, unparsed, and parsed from there.
   */
  private async read(index: number): Promise<void> {
    const source = this.options.sources[index]!;
    let reader = this.readers[index]!;
    const known = this.services.evidence.filesWithHead(reader.head!);
    const { plain } = reader;
    let resumed: EveFileRecord | undefined;
    if (plain) {
      const followed = plain.dev === source.followed?.dev && plain.ino === source.followed.ino;
      resumed = known.find((record) => sameUpTo(reader, record, followed && record.path === source.key));
      if (resumed) reader.seek(resumed.bytes);
    } else if (known.length > 0) {
      const candidates = known.slice(0, MAX_CANDIDATES).sort((a, b) => a.bytes - b.bytes);
      resumed = await this.pass(reader, candidates, source.name);
      if (resumed !== candidates[candidates.length - 1]) {
        reader.close();
        reader = this.readers[index] = await ContentReader.open(source.name, { file: source.file }, this.memory);
        if (resumed && (await this.pass(reader, [resumed], source.name)) !== resumed) throw new EveImportError(`${source.name} changed while it was read; nothing was imported`);
      }
    }
    const parts: Promise<SegmentCounts>[] = [];
    for (let segment = await reader.next(); segment; segment = await reader.next()) {
      parts.push(this.parse(segment, reader));
      await this.turn(source.name, reader);
    }
    const already = resumed?.lines ?? 0;
    let line = already;
    let events = 0;
    for (const part of parts) {
      const counts = await part;
      this.count(counts, source.name, line);
      events += counts.events;
      line += counts.lines;
    }
    this.stageIfFull();
    if (line === 0) throw new EveImportError(`${source.name} has no complete line: no EVE event in it; nothing was imported`);
    if (already === 0 && events === 0) throw new EveImportError(`${source.name} has no EVE event in it (${line} line${line === 1 ? '' : 's'}, none a Suricata EVE JSON event); nothing was imported`);
    this.files.push({ path: source.name, fromLine: already + 1, lines: line - already, alreadyImported: already });
    const fingerprint = plain ? fileFingerprint(plain.fd, reader.endOfLines) : reader.fingerprinted().current();
    // A plain file is read from where a former import stopped; a gzip file, whole.
    const from = plain ? (resumed?.bytes ?? 0) : 0;
    const digest = plain ? { size: plain.size, sha256: digestRange(plain.fd, from, reader.endOfLines) } : digestFile(source.file);
    this.visitFiles.push({ name: source.name, size: digest.size, sha256: digest.sha256, from, lines: line - already });
    this.records.push({ head: reader.head!, path: source.key, bytes: reader.endOfLines, lines: line, ...fingerprint });
    this.told.bytes += reader.counter.raw;
    this.tell(source.name, undefined, true);
  }

  /** Read a stream up to the furthest of these points (ascending), unparsed: the furthest one with the same content before it. */
  private async pass(reader: ContentReader, points: readonly EveFileRecord[], name: string): Promise<EveFileRecord | undefined> {
    reader.cutAt(points.map((point) => point.bytes));
    let same: EveFileRecord | undefined;
    const last = points[points.length - 1]!.bytes;
    while (reader.endOfLines < last) {
      const segment = await reader.next();
      if (!segment) break;
      if (segment.bytes) this.memory.give(segment.bytes);
      const at = points.find((point) => point.bytes === segment.end);
      if (at && sameFingerprint(reader.fingerprinted().current(), at)) same = at;
      await this.turn(name, reader);
    }
    return same;
  }

  /** Between segments: the progress told, the event loop turned (the helper's answers come in), a cancel heard. */
  private async turn(name: string, reader: ContentReader): Promise<void> {
    this.tell(name, reader);
    await new Promise<void>((resolve) => setImmediate(resolve));
    if (this.io.cancelled()) throw cancelled();
  }

  /** Parse a segment, on the helper thread while it has room (near a file's end less, so that both end together), else here. */
  private parse(segment: Segment, reader: ContentReader): Promise<SegmentCounts> {
    // A log of more than a segment is worth a helper thread, started as early as that is known.
    if (!this.helperTried && (reader.segmentsLeft > 0 || ++this.segments === 2)) {
      this.helperTried = true;
      this.helper = Helper.start(this.options.helperCode, this.options.database);
    }
    const { helper } = this;
    const input: SegmentInput = segment.overlong ? { overlong: true } : segment.bytes ? { bytes: segment.bytes } : { fd: reader.plain!.fd, start: segment.start, end: segment.end };
    if (helper && helper.busy < (segment.bytes ? HELPER_STREAMED : Math.min(HELPER_RANGES, reader.segmentsLeft + 1))) {
      return helper.parse('fd' in input ? { ...reader.plain!, start: segment.start, end: segment.end } : input).then(({ parsed, bytes }) => {
        if (bytes) this.memory.give(bytes);
        const { values, hosts, ...counts } = parsed;
        this.batch.merge(values, hosts);
        this.told.events += counts.eventsUsed;
        this.stageIfFull();
        return counts;
      });
    }
    const counts = parseSegment(input, this.batch);
    if (segment.bytes) this.memory.give(segment.bytes);
    this.told.events += counts.eventsUsed;
    this.stageIfFull();
    return Promise.resolve(counts);
  }

  /** A segment's counts into the summary's, its lines numbered from `before` in `file`. */
  private count(counts: SegmentCounts, file: string, before: number): void {
    this.totals.lines += counts.lines;
    this.totals.eventsUsed += counts.eventsUsed;
    this.totals.eventsOther += counts.eventsOther;
    const add = <R extends string>(into: Reasons<R>, from: Partial<Record<R, Counted>>) => {
      for (const [reason, counted] of Object.entries(from) as [R, Counted][]) {
        const entry = (into[reason] ??= { count: 0, first: [] });
        entry.count += counted.count;
        for (const at of counted.first) if (entry.first.length < FIRST_KEPT) entry.first.push(`${file}:${before + at}`);
      }
    };
    add(this.skipped, counts.skipped);
    add(this.dropped, counts.dropped);
  }

  /** Tell the progress, at most four times a second (the staged addresses counted by a scan: every two seconds). */
  private tell(file: string, reader: ContentReader | undefined, force = false, waitingFor?: string): void {
    const now = Date.now();
    if (!force && now - this.told.at < 250) return;
    this.told.at = now;
    if (force || now - this.told.stagedAt >= 2000) Object.assign(this.told, { staged: this.services.evidence.stagedHosts(this.importPk!), stagedAt: now });
    const bytesTotal = this.options.sources.reduce((sum, source) => sum + (source.size ?? 0), 0);
    const hosts = this.told.staged + this.batch.hosts.size;
    this.io.progress({ file, bytesRead: this.told.bytes + (reader?.counter.raw ?? 0), bytesTotal, events: this.told.events, hosts, ...(waitingFor ? { waitingFor } : {}) });
  }

  private stageIfFull(): void {
    if (this.batch.size >= (this.options.batchEntries ?? BATCH_ENTRIES) || this.batch.textHeld >= BATCH_TEXT) this.stage();
  }

  private stage(): void {
    this.services.evidence.stage(this.importPk!, { values: this.batch.staged(), hosts: this.batch.hosts.values() });
    this.batch.clear();
  }

  async close(): Promise<void> {
    for (const reader of this.readers) reader.close();
    await this.helper?.close();
    this.services.close();
  }
}

/** Is a plain file as a former import read it, up to where that one stopped (`quick`: this very file was read then; its tail is enough)? */
function sameUpTo(reader: ContentReader, record: EveFileRecord, quick: boolean): boolean {
  const { fd, size } = reader.plain!;
  if (record.bytes > size) return false;
  return (quick && fileTail(fd, record.bytes) === record.tail) || sameFingerprint(fileFingerprint(fd, record.bytes), record);
}

/** Does a fingerprint match a record's (its samples; a record from before them, its tail)? */
function sameFingerprint(fingerprint: { samples: string; tail: string }, record: EveFileRecord): boolean {
  return record.samples === null ? fingerprint.tail === record.tail : fingerprint.samples === record.samples;
}

/**
 * Write the identities of every pending address in one transaction: two chunks in three made on
 * the helper thread, from a snapshot it takes once this thread holds the write lock, the third
 * here, all written here in order (all made here without a helper, or if it fails). New hosts, and
 * hosts whose identity changed (one that would not change is not written).
 */
async function writeIdentities(services: Services, helper: Helper | undefined, visit: VisitStart | undefined): Promise<{ hostsCreated: number; hostsUpdated: number }> {
  const { hosts, visits } = services;
  return services.store.writeAsync(async () => {
    if (!visit) return writeAll(services, helper);
    const recording = visits.begin(visit);
    const written = await hosts.recordingIntoAsync(recording, () => writeAll(services, helper));
    const pk = visits.flush(recording)!;
    services.history.attach(visit.historyPk!, 'visit', { value: pk });
    return written;
  });
}

async function writeAll(services: Services, helper: Helper | undefined): Promise<{ hostsCreated: number; hostsUpdated: number }> {
  const { hosts, evidence } = services;
  const before = hosts.count();
  let changed = 0;
  let made = false;
  if (helper) {
    try {
      const homeNets = evidence.homeNets();
      const ips = hosts.sources.pendingIps();
      const theirs = helper.identities(homeNets);
      for (let chunk = 0; chunk * IDENTITY_CHUNK < ips.length; chunk++) {
        const rows = helperMakes(chunk) ? (await theirs.next()).value : identityRecords(hosts.sources.chunkOf(ips, chunk), networksOf(homeNets));
        if (!rows) throw new Error('the helper thread gave fewer chunks than there are');
        changed += hosts.writeIdentities(rows);
      }
      await theirs.return(undefined);
      hosts.pendingWritten();
      made = true;
    } catch {
      // Made here instead: those written already are the same, and not written again.
    }
  }
  if (!made) changed += hosts.refreshPending().changed;
  const created = hosts.count() - before;
  return { hostsCreated: created, hostsUpdated: changed - created };
}

function adminOf({ users }: Services): { pk: number; username: string } {
  const { pk, username } = users.byUsername('admin') ?? { pk: 0, username: 'outpost' };
  return { pk, username };
}
