/**
 * The reader core of the EVE import: the content of a source (a plain file, a gzip file, an
 * upload streamed by the app), cut into segments of whole lines of about 8 MiB that any thread
 * can parse. A plain file is read by position (a resume point is a seek, and nothing is copied);
 * gzip and uploads are gathered as they stream by. Either way the first line names the content
 * (eveFingerprint.ts), a UTF-8 byte-order mark is not part of the first line, a line longer than
 * 16 MiB is read past without being held (a segment of its own that says so), and a last line
 * without its newline (a probe still writing it) is left for the next import.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import zlib from 'node:zlib';
import { HEAD_BYTES, sha256, StreamFingerprint } from './eveFingerprint';

export const MAX_LINE_BYTES = 16 * 1024 * 1024;
/** A segment's size: a thread parses one in about 60 ms. */
export const SEGMENT_BYTES = 8 * 1024 * 1024;
/** A UTF-8 byte-order mark, which some tools write first: no part of the first line. */
export const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/** An import refused for its input (a file that is no log, a truncated gzip, a cancel): nothing was imported. */
export class EveImportError extends Error {}

/** An import stopped because the disk holding the workspace is full: nothing was imported. */
export class DiskFullError extends Error {}

/** Is this error the disk being full (SQLite's SQLITE_FULL, or a write's ENOSPC)? */
export function isDiskFull(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  return code === 'SQLITE_FULL' || code === 'ENOSPC' || error instanceof DiskFullError;
}

/**
 * The memory segments are read into, used again once a segment is parsed (here, or on the helper
 * thread, which moves it back): fresh memory for every segment cost more than copying the file out
 * of the page cache (its pages are faulted in one by one; 0.5 s of a 200 MB import on this VM).
 */
export class SegmentMemory {
  private readonly free: ArrayBuffer[] = [];

  constructor(
    readonly size: number,
    private readonly kept = 3,
  ) {}

  /** `length` bytes to read into (longer than a segment: memory of its own). */
  take(length: number): Buffer {
    if (length > this.size) return Buffer.allocUnsafeSlow(length);
    const free = this.free.pop();
    return (free ? Buffer.from(free) : Buffer.allocUnsafeSlow(this.size)).subarray(0, length);
  }

  /** A segment parsed: its memory is free again. */
  give(bytes: Uint8Array): void {
    if (bytes.buffer instanceof ArrayBuffer && bytes.buffer.byteLength === this.size && this.free.length < this.kept) this.free.push(bytes.buffer);
  }
}

/**
 * Whole lines of the content, [start, end) (each line with its newline): a stream's gathered in
 * `bytes`; a plain file's read by whichever thread parses it (eveParse.ts), a megabyte at a time
 * through memory of its own, so that they are parsed while they are in the processor's cache.
 */
export interface Segment {
  /** Its content offset. */
  readonly start: number;
  /** Where the content after it starts. */
  readonly end: number;
  /** A stream's lines (a plain file's are read where they are parsed). */
  readonly bytes?: Buffer;
  /** A line longer than MAX_LINE_BYTES, read past: no bytes. */
  readonly overlong?: true;
}

/** Where an EVE source's bytes come from. */
export type ContentInput = { readonly file: string } | { readonly stream: AsyncIterable<Buffer> };

/** Open a file to read, never blocking on a FIFO or a device: only a regular file is read. */
export function openRegularFile(file: string): number {
  const fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  const stat = fs.fstatSync(fd);
  if (!stat.isFile()) {
    fs.closeSync(fd);
    throw new EveImportError(`${file} is not a regular file (${kindOf(stat)}): EVE logs are read from files; save the stream to a file first`);
  }
  return fd;
}

/** What a file that is not a regular one is. */
export function kindOf(stat: fs.Stats): string {
  if (stat.isFIFO()) return 'a FIFO';
  if (stat.isSocket()) return 'a socket';
  if (stat.isCharacterDevice() || stat.isBlockDevice()) return 'a device';
  if (stat.isDirectory()) return 'a folder';
  return 'not a file';
}

/** The content of one source, segment by segment. */
export class ContentReader {
  /** Content offset after the last complete line given (where the next import starts). */
  endOfLines = 0;
  /** Content offsets no segment crosses (points a former import reached). */
  private cuts: number[] = [];
  /** The first line's hash, once read (undefined when there is no complete first line). */
  head: string | undefined;
  /** Has the content no byte at all? */
  empty = false;
  private fingerprint: StreamFingerprint | undefined;
  private position = 0;
  /** A stream's content from `position` on, gathered in memory of the segments' own (`heldBytes` of it). */
  private held: Buffer = Buffer.alloc(0);
  private heldBytes = 0;
  /** What is left of the last chunk the stream gave, not gathered yet. */
  private spill: Buffer | undefined;
  private readonly chunks: AsyncIterator<Buffer> | undefined;
  /** The end of a plain file's last complete line (after it, a line a probe may still be writing). */
  private fileEnd = 0;
  private constructor(
    private readonly fd: number | undefined,
    private readonly size: number,
    stream: AsyncIterable<Buffer> | undefined,
    /** Bytes of the source read so far (compressed bytes for gzip), for progress. */
    private readonly counter: { raw: number },
    private readonly memory: SegmentMemory,
  ) {
    this.chunks = stream?.[Symbol.asyncIterator]();
  }

  /**
   * Open a source and read its first line. A file whose first bytes are gzip's magic is read as a
   * stream of its decompressed content; a plain file by position.
   */
  static async open(name: string, input: ContentInput, memory = new SegmentMemory(SEGMENT_BYTES)): Promise<ContentReader> {
    let reader: ContentReader;
    if ('file' in input) {
      const fd = openRegularFile(input.file);
      const magic = Buffer.alloc(2);
      const got = fs.readSync(fd, magic, 0, 2, 0);
      if (got === 2 && magic[0] === 0x1f && magic[1] === 0x8b) {
        fs.closeSync(fd);
        const counter = { raw: 0 };
        reader = new ContentReader(undefined, 0, gunzipped(name, fs.createReadStream(input.file, { highWaterMark: 256 * 1024 }), counter), counter, memory);
      } else {
        const stat = fs.fstatSync(fd);
        reader = new ContentReader(fd, stat.size, undefined, { raw: 0 }, memory);
        reader.identity = { file: path.resolve(input.file), dev: stat.dev, ino: stat.ino };
      }
    } else {
      const counter = { raw: 0 };
      reader = new ContentReader(undefined, 0, sniffed(name, input.stream, counter), counter, memory);
    }
    await reader.readHead();
    return reader;
  }

  /** Bytes of the source read so far (compressed bytes for gzip). */
  get rawRead(): number {
    return this.counter.raw;
  }

  /** Can the reader start further on without reading what comes before (a plain file)? */
  get seekable(): boolean {
    return this.fd !== undefined;
  }

  /** A plain file's path, device and inode: another thread opens it again, and checks it is the same. */
  identity: { readonly file: string; readonly dev: number; readonly ino: number } | undefined;

  /** A plain file's descriptor (its fingerprint is read by position). */
  get descriptor(): number | undefined {
    return this.fd;
  }

  /** A plain file's size when opened. */
  get fileSize(): number {
    return this.size;
  }

  /** Start at `offset`, a point a former import reached (a plain file only, before any segment). */
  seek(offset: number): void {
    if (this.fd === undefined || this.endOfLines !== 0) throw new Error('only a plain file not read yet can seek');
    this.position = this.endOfLines = this.counter.raw = offset;
  }

  /** Segments will not cross these points (a stream whose first line is known: the points former imports reached). */
  cutAt(points: readonly number[]): void {
    this.cuts = [...points].sort((a, b) => a - b);
  }

  /** A stream's fingerprint, fed as its content passes (to record it, and to check points passed). */
  fingerprinted(): StreamFingerprint {
    return (this.fingerprint ??= new StreamFingerprint());
  }

  private async readHead(): Promise<void> {
    let first: Buffer;
    if (this.fd !== undefined) {
      first = Buffer.alloc(Math.min(HEAD_BYTES, this.size));
      first = first.subarray(0, fs.readSync(this.fd, first, 0, first.length, 0));
      this.fileEnd = this.lastLineEnd();
    } else {
      this.held = this.memory.take(this.memory.size);
      while (this.heldBytes < HEAD_BYTES && (await this.gather(HEAD_BYTES)) && !this.held.subarray(0, this.heldBytes).includes(0x0a));
      first = this.held.subarray(0, Math.min(this.heldBytes, HEAD_BYTES));
    }
    this.empty = first.length === 0;
    const newline = first.indexOf(0x0a);
    // A first line not complete yet cannot name the file.
    if (newline === -1 && first.length < HEAD_BYTES) return;
    this.head = sha256(first.subarray(0, newline === -1 ? first.length : newline + 1));
  }

  /**
   * Gather more of a stream, up to `upTo` bytes held: false at its end. The memory held grows past
   * a segment only for a line longer than one.
   */
  private async gather(upTo: number): Promise<boolean> {
    if (!this.spill) {
      const next = await this.chunks!.next();
      if (next.done) return false;
      this.spill = next.value;
    }
    if (upTo > this.held.length) {
      const larger = this.memory.take(Math.max(upTo, this.held.length * 2));
      this.held.copy(larger, 0, 0, this.heldBytes);
      this.held = larger;
    }
    const taken = Math.min(this.spill.length, upTo - this.heldBytes);
    this.spill.copy(this.held, this.heldBytes, 0, taken);
    this.heldBytes += taken;
    this.spill = taken < this.spill.length ? this.spill.subarray(taken) : undefined;
    return true;
  }

  /** The next segment, or undefined at the end of the complete lines. */
  async next(): Promise<Segment | undefined> {
    const segment = this.fd !== undefined ? this.nextOfFile() : await this.nextOfStream();
    if (!segment) return undefined;
    this.endOfLines = segment.end;
    return segment.start === 0 && segment.bytes?.subarray(0, 3).equals(BOM) ? { ...segment, bytes: segment.bytes.subarray(3) } : segment;
  }

  /** The limit of the segment starting at `start`: its size, or the next cut. */
  private limit(start: number): number {
    const cut = this.cuts.find((point) => point > start);
    return cut === undefined ? start + this.memory.size : Math.min(cut, start + this.memory.size);
  }

  /** The segments of a plain file left to read, about (none known for a stream). */
  get segmentsLeft(): number {
    return this.fd === undefined ? 0 : Math.ceil((this.fileEnd - this.position) / this.memory.size);
  }

  /** A plain file's next segment: a segment's size of it, to the end of the line there (found by a few small reads). */
  private nextOfFile(): Segment | undefined {
    const start = this.position;
    if (start >= this.fileEnd) return undefined;
    const nominal = start + this.memory.size;
    const end = nominal >= this.fileEnd ? this.fileEnd : this.lineStartFrom(nominal);
    this.position = this.counter.raw = end;
    return { start, end };
  }

  /** Where the first line starting at or after `at` begins (at most the file's end of lines). */
  private lineStartFrom(at: number): number {
    const probe = Buffer.allocUnsafe(64 * 1024);
    for (let from = at - 1; from < this.fileEnd; ) {
      const got = fs.readSync(this.fd!, probe, 0, Math.min(probe.length, this.fileEnd - from), from);
      const newline = probe.subarray(0, got).indexOf(0x0a);
      if (newline !== -1) return from + newline + 1;
      from += got;
    }
    return this.fileEnd;
  }

  /** The end of a plain file's last complete line, found reading back from its end. */
  private lastLineEnd(): number {
    const probe = Buffer.allocUnsafe(64 * 1024);
    for (let end = this.size; end > 0; ) {
      const from = Math.max(0, end - probe.length);
      const got = fs.readSync(this.fd!, probe, 0, end - from, from);
      const newline = probe.subarray(0, got).lastIndexOf(0x0a);
      if (newline !== -1) return from + newline + 1;
      end = from;
    }
    return 0;
  }

  private async nextOfStream(): Promise<Segment | undefined> {
    const start = this.position;
    const limit = this.limit(start) - start;
    while (this.heldBytes < limit && (await this.gather(limit)));
    const last = this.held.subarray(0, Math.min(this.heldBytes, limit)).lastIndexOf(0x0a);
    if (last !== -1) return this.segment(last + 1);
    // No newline within a segment: one long line, held while it may be under the bound.
    let searched = 0;
    while (this.heldBytes <= MAX_LINE_BYTES + 1) {
      const newline = this.held.indexOf(0x0a, searched);
      if (newline !== -1 && newline < this.heldBytes) return newline > MAX_LINE_BYTES ? this.passLine(start, newline + 1) : this.segment(newline + 1);
      searched = this.heldBytes;
      if (!(await this.gather(this.heldBytes + 1024 * 1024))) return undefined;
    }
    // Past the bound: read past without being held, to its newline.
    for (;;) {
      const newline = this.held.subarray(0, this.heldBytes).indexOf(0x0a);
      if (newline !== -1) return this.passLine(start, newline + 1);
      this.pass(this.heldBytes);
      if (!(await this.gather(this.memory.size))) return undefined;
    }
  }

  /** A line too long to hold, passed: a segment that says so. */
  private passLine(start: number, length: number): Segment {
    this.pass(length);
    return { start, end: this.position, overlong: true };
  }

  /** The first `length` bytes held, as the next segment; what follows is held in memory of its own. */
  private segment(length: number): Segment {
    const start = this.position;
    const bytes = this.held.subarray(0, length);
    this.fingerprinted().feed(bytes);
    const rest = this.memory.take(Math.max(this.memory.size, this.heldBytes - length));
    this.held.copy(rest, 0, length, this.heldBytes);
    this.held = rest;
    this.heldBytes -= length;
    this.position += length;
    return { start, end: this.position, bytes };
  }

  /** Pass the first `length` bytes held (fingerprinted on the way), keeping the memory. */
  private pass(length: number): void {
    this.fingerprinted().feed(this.held.subarray(0, length));
    this.held.copy(this.held, 0, length, this.heldBytes);
    this.heldBytes -= length;
    this.position += length;
  }

  close(): void {
    if (this.fd !== undefined) fs.closeSync(this.fd);
    void this.chunks?.return?.();
  }
}

/** A stream's bytes, gunzipped when they start with gzip's magic bytes. */
async function* sniffed(name: string, stream: AsyncIterable<Buffer>, counter: { raw: number }): AsyncGenerator<Buffer> {
  const iterator = stream[Symbol.asyncIterator]();
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
      yield next.value;
    }
  }
  if (head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b) yield* gunzipped(name, raw(), { raw: 0 });
  else yield* raw();
}

/** Gzip content decompressed; a damaged or truncated file is a clear error. */
async function* gunzipped(name: string, bytes: AsyncIterable<Buffer>, counter: { raw: number }): AsyncGenerator<Buffer> {
  const counted = async function* () {
    for await (const chunk of bytes) {
      counter.raw += chunk.length;
      yield chunk;
    }
  };
  const gunzip = Readable.from(counted()).pipe(zlib.createGunzip());
  try {
    for await (const chunk of gunzip as AsyncIterable<Buffer>) yield chunk;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'Z_BUF_ERROR' || code === 'Z_DATA_ERROR' || /unexpected end of file/i.test((error as Error).message)) {
      throw new EveImportError(`${name} is a damaged or truncated gzip file (${(error as Error).message}); nothing was imported`);
    }
    throw error;
  }
}
