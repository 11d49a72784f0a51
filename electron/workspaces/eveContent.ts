/**
 * The reader core of the EVE import: a source's content (a plain file, a gzip file, any stream)
 * as segments of whole lines of about 8 MiB that either thread can parse. A plain file's are found
 * by a few small reads at each boundary and read where they are parsed (eveParse.ts); a stream's
 * are gathered as it passes, into memory used again. Either way the first line names the content
 * (eveFingerprint.ts), a UTF-8 byte-order mark is no part of it, a line longer than 16 MiB is read
 * past without being held (a segment of its own says so), and a last line without its newline (a
 * probe still writing it) is left for the next import.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import zlib from 'node:zlib';
import { HEAD_BYTES, sha256, StreamFingerprint } from './eveFingerprint';

export const MAX_LINE_BYTES = 16 * 1024 * 1024;
export const SEGMENT_BYTES = 8 * 1024 * 1024;
/** A UTF-8 byte-order mark, which some tools write first. */
export const BOM = Buffer.from([0xef, 0xbb, 0xbf]);
const PROBE_BYTES = 64 * 1024;

/** An import refused for its input (a file that is no log, a truncated gzip, a cancel): nothing was imported. */
export class EveImportError extends Error {}

/** An import stopped by a full disk: nothing was imported. */
export class DiskFullError extends Error {}

export function isDiskFull(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  return code === 'SQLITE_FULL' || code === 'ENOSPC' || error instanceof DiskFullError;
}

/**
 * The memory a stream's segments are gathered into, used again once a segment is parsed (the
 * helper thread moves it back): fresh memory for each cost 0.5 s of a 200 MB import in page faults.
 */
export class SegmentMemory {
  private readonly free: ArrayBuffer[] = [];

  constructor(readonly size: number, private readonly kept = 3) {}

  /** `length` bytes (longer than a segment: memory of its own). */
  take(length: number): Buffer {
    if (length > this.size) return Buffer.allocUnsafeSlow(length);
    const free = this.free.pop();
    return (free ? Buffer.from(free) : Buffer.allocUnsafeSlow(this.size)).subarray(0, length);
  }

  give(bytes: Uint8Array): void {
    if (bytes.buffer instanceof ArrayBuffer && bytes.buffer.byteLength === this.size && this.free.length < this.kept) this.free.push(bytes.buffer);
  }
}

/** Whole lines of the content, [start, end): a stream's in `bytes`; a plain file's read where they are parsed. */
export interface Segment {
  readonly start: number;
  readonly end: number;
  readonly bytes?: Buffer;
  /** A line longer than MAX_LINE_BYTES, read past. */
  readonly overlong?: true;
}

/** A plain file as its reader opened it: another thread opens it again and checks it is the same. */
export interface PlainFile {
  readonly fd: number;
  readonly size: number;
  readonly file: string;
  readonly dev: number;
  readonly ino: number;
}

/** What a file that is not a regular one is. */
export function kindOf(stat: fs.Stats): string {
  if (stat.isFIFO()) return 'a FIFO';
  if (stat.isSocket()) return 'a socket';
  if (stat.isCharacterDevice() || stat.isBlockDevice()) return 'a device';
  return stat.isDirectory() ? 'a folder' : 'not a file';
}

export class ContentReader {
  /** The first line's hash (undefined when there is no complete first line). */
  head: string | undefined;
  empty = false;
  /** Where the content after the last complete line given starts (where the next import starts). */
  endOfLines = 0;
  /** Bytes of the source read so far (compressed bytes for gzip), for progress. */
  readonly counter = { raw: 0 };
  private position = 0;
  /** Points no segment crosses (those former imports of a stream's first line reached). */
  private cuts: number[] = [];
  private fingerprint: StreamFingerprint | undefined;
  /** A stream's content from `position` on, `heldBytes` of it, and what is left of its last chunk. */
  private held: Buffer = Buffer.alloc(0);
  private heldBytes = 0;
  private spill: Buffer | undefined;
  private chunks: AsyncIterator<Buffer> | undefined;
  /** The end of a plain file's last complete line. */
  private fileEnd = 0;

  private constructor(
    /** A plain file (read by position: a resume point is a seek); none for a stream. */
    readonly plain: PlainFile | undefined,
    private readonly memory: SegmentMemory,
  ) {}

  /** Open a source and read its first line. A file starting with gzip's magic bytes is read as a stream of what it holds. */
  static async open(name: string, input: { readonly file: string } | { readonly stream: AsyncIterable<Buffer> }, memory = new SegmentMemory(SEGMENT_BYTES)): Promise<ContentReader> {
    let reader: ContentReader;
    if ('file' in input) {
      // Non-blocking: a FIFO or a device is found out, never waited on.
      const fd = fs.openSync(input.file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
      const stat = fs.fstatSync(fd);
      const magic = Buffer.alloc(2);
      if (!stat.isFile() || (fs.readSync(fd, magic, 0, 2, 0) === 2 && magic[0] === 0x1f && magic[1] === 0x8b)) fs.closeSync(fd);
      if (!stat.isFile()) throw new EveImportError(`${input.file} is not a regular file (${kindOf(stat)}): EVE logs are read from files; save the stream to a file first`);
      if (magic[0] === 0x1f && magic[1] === 0x8b) return ContentReader.open(name, { stream: fs.createReadStream(input.file, { highWaterMark: 256 * 1024 }) }, memory);
      reader = new ContentReader({ fd, size: stat.size, file: path.resolve(input.file), dev: stat.dev, ino: stat.ino }, memory);
    } else {
      reader = new ContentReader(undefined, memory);
      reader.chunks = decoded(name, input.stream, reader.counter)[Symbol.asyncIterator]();
    }
    await reader.readHead();
    return reader;
  }

  /** Start at `offset`, a point a former import reached (a plain file only, before any segment). */
  seek(offset: number): void {
    this.position = this.endOfLines = this.counter.raw = offset;
  }

  cutAt(points: readonly number[]): void {
    this.cuts = [...points].sort((a, b) => a - b);
  }

  /** A stream's fingerprint, fed as its content passes (to record it, and to check the points passed). */
  fingerprinted(): StreamFingerprint {
    return (this.fingerprint ??= new StreamFingerprint());
  }

  /** The segments of a plain file left to read, about (0 for a stream). */
  get segmentsLeft(): number {
    return this.plain ? Math.ceil((this.fileEnd - this.position) / this.memory.size) : 0;
  }

  private async readHead(): Promise<void> {
    let first: Buffer;
    if (this.plain) {
      first = Buffer.alloc(Math.min(HEAD_BYTES, this.plain.size));
      first = first.subarray(0, fs.readSync(this.plain.fd, first, 0, first.length, 0));
      this.fileEnd = this.lastLineEnd();
    } else {
      this.held = this.memory.take(this.memory.size);
      while (this.heldBytes < HEAD_BYTES && (await this.gather(HEAD_BYTES)) && !this.held.subarray(0, this.heldBytes).includes(0x0a));
      first = this.held.subarray(0, Math.min(this.heldBytes, HEAD_BYTES));
    }
    this.empty = first.length === 0;
    const newline = first.indexOf(0x0a);
    // A first line not complete yet cannot name the content.
    if (newline !== -1 || first.length === HEAD_BYTES) this.head = sha256(first.subarray(0, newline === -1 ? first.length : newline + 1));
  }

  /** The next segment, or undefined at the end of the complete lines. */
  async next(): Promise<Segment | undefined> {
    const segment = this.plain ? this.nextOfFile() : await this.nextOfStream();
    if (!segment) return undefined;
    this.endOfLines = segment.end;
    return segment.start === 0 && segment.bytes?.subarray(0, 3).equals(BOM) ? { ...segment, bytes: segment.bytes.subarray(3) } : segment;
  }

  private nextOfFile(): Segment | undefined {
    const start = this.position;
    if (start >= this.fileEnd) return undefined;
    const end = start + this.memory.size >= this.fileEnd ? this.fileEnd : this.lineStartFrom(start + this.memory.size);
    this.position = this.counter.raw = end;
    return { start, end };
  }

  /** Where the first line starting at or after `at` begins. */
  private lineStartFrom(at: number): number {
    const probe = Buffer.allocUnsafe(PROBE_BYTES);
    for (let from = at - 1; from < this.fileEnd; from += PROBE_BYTES) {
      const newline = probe.subarray(0, fs.readSync(this.plain!.fd, probe, 0, Math.min(PROBE_BYTES, this.fileEnd - from), from)).indexOf(0x0a);
      if (newline !== -1) return from + newline + 1;
    }
    return this.fileEnd;
  }

  /** The end of a plain file's last complete line, read back from its end. */
  private lastLineEnd(): number {
    const probe = Buffer.allocUnsafe(PROBE_BYTES);
    for (let end = this.plain!.size; end > 0; end -= PROBE_BYTES) {
      const from = Math.max(0, end - PROBE_BYTES);
      const newline = probe.subarray(0, fs.readSync(this.plain!.fd, probe, 0, end - from, from)).lastIndexOf(0x0a);
      if (newline !== -1) return from + newline + 1;
    }
    return 0;
  }

  /** Gather more of a stream, up to `upTo` bytes held (the memory grows past a segment only for a long line): false at its end. */
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

  private async nextOfStream(): Promise<Segment | undefined> {
    const start = this.position;
    const cut = this.cuts.find((point) => point > start);
    const limit = Math.min(cut ?? Infinity, start + this.memory.size) - start;
    while (this.heldBytes < limit && (await this.gather(limit)));
    const last = this.held.subarray(0, Math.min(this.heldBytes, limit)).lastIndexOf(0x0a);
    if (last !== -1) return this.segment(last + 1);
    // One long line, held while it may be under the bound; past it, read past to its newline.
    for (let searched = 0; this.heldBytes <= MAX_LINE_BYTES + 1; ) {
      const newline = this.held.subarray(0, this.heldBytes).indexOf(0x0a, searched);
      if (newline !== -1) return newline > MAX_LINE_BYTES ? this.pass(newline + 1, start) : this.segment(newline + 1);
      searched = this.heldBytes;
      if (!(await this.gather(this.heldBytes + 1024 * 1024))) return undefined;
    }
    for (;;) {
      const newline = this.held.subarray(0, this.heldBytes).indexOf(0x0a);
      if (newline !== -1) return this.pass(newline + 1, start);
      this.pass(this.heldBytes);
      if (!(await this.gather(this.memory.size))) return undefined;
    }
  }

  /** The first `length` bytes held, as the next segment; what follows moves to other memory. */
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

  /** Pass the first `length` bytes held (fingerprinted on the way): a line too long, begun at `start`, if they end it. */
  private pass(length: number, start = this.position): Segment {
    this.fingerprinted().feed(this.held.subarray(0, length));
    this.held.copy(this.held, 0, length, this.heldBytes);
    this.heldBytes -= length;
    this.position += length;
    return { start, end: this.position, overlong: true };
  }

  close(): void {
    if (this.plain) fs.closeSync(this.plain.fd);
    void this.chunks?.return?.();
  }
}

/** A stream's bytes (counted as they come), gunzipped when they start with gzip's magic bytes; a damaged gzip is a clear error. */
async function* decoded(name: string, stream: AsyncIterable<Buffer>, counter: { raw: number }): AsyncGenerator<Buffer> {
  const iterator = stream[Symbol.asyncIterator]();
  const first = await iterator.next();
  if (first.done) return;
  const head = Buffer.from(first.value);
  async function* raw(): AsyncGenerator<Buffer> {
    for (let next: IteratorResult<Buffer> = { value: head }; !next.done; next = await iterator.next()) {
      counter.raw += next.value.length;
      yield next.value;
    }
  }
  if (!(head[0] === 0x1f && head[1] === 0x8b)) return yield* raw();
  try {
    for await (const chunk of Readable.from(raw()).pipe(zlib.createGunzip()) as AsyncIterable<Buffer>) yield chunk;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'Z_BUF_ERROR' || code === 'Z_DATA_ERROR' || /unexpected end of file/i.test((error as Error).message)) {
      throw new EveImportError(`${name} is a damaged or truncated gzip file (${(error as Error).message}); nothing was imported`);
    }
    throw error;
  }
}
