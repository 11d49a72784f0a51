/**
 * How an EVE file read before is found again, with a few bounded reads: the hash of its first line
 * (`head`: a file that grows keeps it, its gzipped rotation too), then, at the point the former
 * import reached, the hash of windows spread over everything before that point (`samples`). The
 * windows are 1 KiB at every multiple of a stride (64 KiB doubled until at most 64 fit) and the
 * last 4 KiB: about 70 KiB read whatever the size, at positions that depend on the point alone,
 * so a file read by position and a stream passing by give the same hash. A file of the same size,
 * first line and last 4 KiB but other content in between is not taken for the one read before.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';

/** At most this much of a file's first line names it. */
export const HEAD_BYTES = 64 * 1024;
/** The bytes before the point reached, hashed on their own in records from before the samples. */
export const TAIL_BYTES = 4096;
const WINDOW_BYTES = 1024;
const MAX_WINDOWS = 64;
const BASE_STRIDE = 64 * 1024;

export function sha256(data: Uint8Array): string {
  return crypto.createHash('sha256').update(data).digest('hex');
}

/** The stride of the windows of [0, end): the smallest power of two times 64 KiB that takes at most 64 windows. */
function strideOf(end: number): number {
  let stride = BASE_STRIDE;
  while (Math.ceil(end / stride) > MAX_WINDOWS) stride *= 2;
  return stride;
}

/** The ranges hashed for a point `end`, in order: each window, then the tail. */
export function sampleRanges(end: number): [number, number][] {
  const stride = strideOf(end);
  const ranges: [number, number][] = [];
  for (let at = 0; at < end; at += stride) ranges.push([at, Math.min(at + WINDOW_BYTES, end)]);
  ranges.push([Math.max(0, end - TAIL_BYTES), end]);
  return ranges;
}

/** The bytes of a regular file in [start, end) (fewer past its end). */
function readRange(fd: number, start: number, end: number): Buffer {
  const bytes = Buffer.alloc(end - start);
  return bytes.subarray(0, fs.readSync(fd, bytes, 0, bytes.length, start));
}

/** The hash of a plain file's last 4 KiB before `end` alone: enough for a file this process read up to there on its last `--follow` tick. */
export function fileTail(fd: number, end: number): string {
  return sha256(readRange(fd, Math.max(0, end - TAIL_BYTES), end));
}

/** The fingerprint of a plain file's first `end` bytes, read by position: the samples' hash, and the tail's alone. */
export function fileFingerprint(fd: number, end: number): { samples: string; tail: string } {
  const hash = crypto.createHash('sha256');
  const ranges = sampleRanges(end);
  for (const [start, stop] of ranges) hash.update(readRange(fd, start, stop));
  const [tailStart, tailEnd] = ranges[ranges.length - 1]!;
  return { samples: hash.digest('hex'), tail: sha256(readRange(fd, tailStart, tailEnd)) };
}

/**
 * The fingerprint of content that streams by (a gzip file's content): it keeps the windows the
 * stride of the content read so far needs (the stride only grows, and the windows of a larger one
 * are among those of a smaller) and the last 4 KiB, so that the fingerprint of the point reached
 * can be given at any time, and that of a point passed on the way when the content is fed up to it.
 */
export class StreamFingerprint {
  private readonly windows = new Map<number, Buffer>();
  private stride = BASE_STRIDE;
  private tail = Buffer.alloc(0);
  private fed = 0;

  /** Content from the current point on. */
  feed(chunk: Buffer): void {
    const start = this.fed;
    const end = start + chunk.length;
    this.fed = end;
    while (Math.ceil(end / this.stride) > MAX_WINDOWS) {
      this.stride *= 2;
      for (const at of [...this.windows.keys()]) if (at % this.stride !== 0) this.windows.delete(at);
    }
    for (let at = Math.ceil(Math.max(0, start - WINDOW_BYTES + 1) / this.stride) * this.stride; at < end; at += this.stride) {
      const have = this.windows.get(at) ?? Buffer.alloc(0);
      if (have.length >= WINDOW_BYTES) continue;
      const from = at + have.length;
      if (from < start) continue;
      const part = chunk.subarray(from - start, Math.min(at + WINDOW_BYTES, end) - start);
      this.windows.set(at, Buffer.concat([have, part]));
    }
    const keep = Math.min(TAIL_BYTES, this.tail.length + chunk.length);
    this.tail = Buffer.concat([this.tail.subarray(this.tail.length - Math.max(0, keep - chunk.length)), chunk.subarray(Math.max(0, chunk.length - keep))]);
  }

  /** The fingerprint of the content fed so far (its point is `position`). */
  current(): { samples: string; tail: string } {
    const hash = crypto.createHash('sha256');
    const end = this.fed;
    for (const [start, stop] of sampleRanges(end).slice(0, -1)) hash.update((this.windows.get(start) ?? Buffer.alloc(0)).subarray(0, stop - start));
    const tail = this.tail.subarray(Math.max(0, this.tail.length - Math.min(TAIL_BYTES, end)));
    hash.update(tail);
    return { samples: hash.digest('hex'), tail: sha256(tail) };
  }
}
