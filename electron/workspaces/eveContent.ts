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
import { Readable } from 'node:stream';
import zlib from 'node:zlib';
import { HEAD_BYTES, sha256, StreamFingerprint } from './eveFingerprint';

export const MAX_LINE_BYTES = 16 * 1024 * 1024;
/** A segment's size: a thread parses one in about 60 ms. */
export const SEGMENT_BYTES = 8 * 1024 * 1024;
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/** An import refused for its input (a file that is no log, a truncated gzip, a cancel): nothing was imported. */
export class EveImportError extends Error {}

/** An import stopped because the disk holding the workspace is full: nothing was imported. */
export class DiskFullError extends Error {}

/** Is this error the disk being full (SQLite's SQLITE_FULL, or a write's ENOSPC)? */
export function isDiskFull(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  return code === 'SQLITE_FULL' || code === 'ENOSPC' || error instanceof DiskFullError;
}

/** Whole lines of the content, from `start` (each line with its newline), or one line too long to hold. */
export interface Segment {
  /** Its content offset. */
  readonly start: number;
  /** Where the content after it starts. */
  readonly end: number;
  readonly bytes: Buffer;
  /** A line longer than MAX_LINE_BYTES, read past: `bytes` is empty. */
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
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private readonly chunks: AsyncIterator<Buffer> | undefined;
  private ended = false;
  private overlong = false;
  private constructor(
    private readonly fd: number | undefined,
    private readonly size: number,
    stream: AsyncIterable<Buffer> | undefined,
    /** Bytes of the source read so far (compressed bytes for gzip), for progress. */
    private readonly counter: { raw: number },
    private readonly segmentBytes: number,
  ) {
    this.chunks = stream?.[Symbol.asyncIterator]();
  }

  /**
   * Open a source and read its first line. A file whose first bytes are gzip's magic is read as a
   * stream of its decompressed content; a plain file by position.
   */
  static async open(name: string, input: ContentInput, segmentBytes = SEGMENT_BYTES): Promise<ContentReader> {
    let reader: ContentReader;
    if ('file' in input) {
      const fd = openRegularFile(input.file);
      const magic = Buffer.alloc(2);
      const got = fs.readSync(fd, magic, 0, 2, 0);
      if (got === 2 && magic[0] === 0x1f && magic[1] === 0x8b) {
        fs.closeSync(fd);
        const counter = { raw: 0 };
        reader = new ContentReader(undefined, 0, gunzipped(name, fs.createReadStream(input.file, { highWaterMark: 256 * 1024 }), counter), counter, segmentBytes);
      } else reader = new ContentReader(fd, fs.fstatSync(fd).size, undefined, { raw: 0 }, segmentBytes);
    } else {
      const counter = { raw: 0 };
      reader = new ContentReader(undefined, 0, sniffed(name, input.stream, counter), counter, segmentBytes);
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
    } else {
      while (this.pendingBytes < HEAD_BYTES && !this.ended && !this.pending.some((chunk) => chunk.includes(0x0a))) await this.pull();
      first = Buffer.concat(this.pending).subarray(0, HEAD_BYTES);
    }
    this.empty = first.length === 0;
    const newline = first.indexOf(0x0a);
    // A first line not complete yet cannot name the file.
    if (newline === -1 && first.length < HEAD_BYTES) return;
    this.head = sha256(first.subarray(0, newline === -1 ? first.length : newline + 1));
  }

  /** Take the next chunk of a stream into `pending`. */
  private async pull(): Promise<void> {
    const next = await this.chunks!.next();
    if (next.done) this.ended = true;
    else if (next.value.length > 0) {
      this.pending.push(next.value);
      this.pendingBytes += next.value.length;
    }
  }

  /** The next segment, or undefined at the end of the complete lines. */
  async next(): Promise<Segment | undefined> {
    const segment = this.fd !== undefined ? this.nextOfFile() : await this.nextOfStream();
    if (segment) {
      if (segment.start === 0 && segment.bytes.subarray(0, 3).equals(BOM)) return { ...segment, bytes: segment.bytes.subarray(3) };
      this.endOfLines = segment.end;
    }
    return segment;
  }

  /** The limit of the segment starting at `start`: its size, or the next cut. */
  private limit(start: number): number {
    const cut = this.cuts.find((point) => point > start);
    return cut === undefined ? start + this.segmentBytes : Math.min(cut, start + this.segmentBytes);
  }

  private nextOfFile(): Segment | undefined {
    const fd = this.fd!;
    const start = this.position;
    if (start >= this.size) return undefined;
    let buffer = Buffer.allocUnsafe(Math.min(this.limit(start), this.size) - start);
    buffer = buffer.subarray(0, fs.readSync(fd, buffer, 0, buffer.length, start));
    this.counter.raw = start + buffer.length;
    const last = buffer.lastIndexOf(0x0a);
    if (last !== -1) {
      this.position = start + last + 1;
      return { start, end: this.position, bytes: buffer.subarray(0, last + 1) };
    }
    // No newline in a whole segment: a line longer than that, read on to its end.
    const scan = Buffer.allocUnsafe(1024 * 1024);
    for (let at = start + buffer.length; at < this.size; ) {
      const got = fs.readSync(fd, scan, 0, Math.min(scan.length, this.size - at), at);
      if (got <= 0) break;
      const newline = scan.subarray(0, got).indexOf(0x0a);
      if (newline !== -1) {
        const end = at + newline + 1;
        this.position = end;
        this.counter.raw = end;
        if (end - start - 1 > MAX_LINE_BYTES) return { start, end, bytes: Buffer.alloc(0), overlong: true };
        const line = Buffer.allocUnsafe(end - start);
        return { start, end, bytes: line.subarray(0, fs.readSync(fd, line, 0, line.length, start)) };
      }
      at += got;
    }
    // The last line has no newline yet: it is left for the next import.
    this.position = this.size;
    return undefined;
  }

  private async nextOfStream(): Promise<Segment | undefined> {
    let lineStart = this.position;
    for (;;) {
      if (this.overlong) {
        // A line past the bound: its bytes are dropped as they come, until its newline.
        const held = this.taken();
        const newline = held.indexOf(0x0a);
        if (newline === -1) {
          if (this.ended) return undefined;
          this.drop(held.length);
          await this.pull();
          continue;
        }
        this.drop(newline + 1);
        this.overlong = false;
        return { start: lineStart, end: this.position, bytes: Buffer.alloc(0), overlong: true };
      }
      const start = this.position;
      lineStart = start;
      const limit = this.limit(start) - start;
      while (!this.ended && this.pendingBytes < limit) await this.pull();
      const held = this.taken();
      const last = held.subarray(0, limit).lastIndexOf(0x0a);
      if (last !== -1) return this.segment(last + 1);
      // No newline within a segment: one long line, held while it may be under the bound.
      for (;;) {
        const newline = this.taken().indexOf(0x0a, limit);
        if (newline !== -1 && newline <= MAX_LINE_BYTES) return this.segment(newline + 1);
        if (newline !== -1 || this.pendingBytes > MAX_LINE_BYTES) break;
        if (this.ended) return undefined;
        await this.pull();
      }
      this.overlong = true;
    }
  }

  /** What is held of the stream, as one buffer. */
  private taken(): Buffer {
    if (this.pending.length > 1) this.pending = [Buffer.concat(this.pending, this.pendingBytes)];
    return this.pending[0] ?? Buffer.alloc(0);
  }

  /** The first `length` bytes held, as the next segment. */
  private segment(length: number): Segment {
    const start = this.position;
    const held = this.taken();
    const bytes = Buffer.from(held.subarray(0, length));
    this.drop(length);
    return { start, end: this.position, bytes };
  }

  /** Pass the first `length` bytes held (fingerprinted on the way). */
  private drop(length: number): void {
    const held = this.taken();
    this.fingerprinted().feed(held.subarray(0, length));
    const rest = held.subarray(length);
    this.pending = rest.length > 0 ? [rest] : [];
    this.pendingBytes = rest.length;
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
