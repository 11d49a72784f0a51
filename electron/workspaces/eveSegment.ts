/**
 * One segment of a plain EVE file, read on its own: the complete lines that start in
 * [start, end), each turned into host evidence gathered in one batch. A large file is cut into
 * segments that worker threads read side by side (eveWorkers.ts); the import takes their results
 * in file order, so that what it stages is what one reader going line by line would stage.
 *
 * A line belongs to the segment it starts in and is read to its newline, past `end` if need be;
 * a line with no newline before `size` (a probe still writing it) is not read. A line longer
 * than MAX_LINE_BYTES is read past without being held.
 */
import { isAscii } from 'node:buffer';
import fs from 'node:fs';
import { EvidenceBatch, type GatheredHost, type GatheredValue } from '../../shared/eve/accumulate';
import { deriveEvidence, type Derived } from '../../shared/eve/derive';
import { readEveLine, type SkipReason } from '../../shared/eve/event';

export const MAX_LINE_BYTES = 16 * 1024 * 1024;
const CHUNK_BYTES = 1024 * 1024;
/**
 * Whole lines are decoded this many bytes at a time at most: a text of a megabyte is made outside
 * the V8 heap and kept until a full collection, with all its lines' memory, where one of 64 KiB
 * is made in the young generation and goes with them.
 */
const RUN_BYTES = 64 * 1024;
/**
 * The chunk a thread reads into, used again by each segment it reads (segments are read one at a
 * time on a thread, and nothing read is kept in it): fresh memory for every chunk cost more than
 * copying the file out of the page cache.
 */
let chunkBuffer: Buffer | undefined;
/** First lines of each skip reason kept (as line numbers within the segment, from 1). */
export const FIRST_SKIPS = 5;

export interface SegmentTask {
  readonly file: string;
  readonly start: number;
  readonly end: number;
  /** The file's size when the import began: nothing after it is read. */
  readonly size: number;
  /** `start` is known to be the start of a line (the first segment). */
  readonly atLineStart: boolean;
}

export interface SegmentResult {
  /** Where the segment's first line starts and where its last complete line ends (after its newline). */
  readonly from: number;
  readonly to: number;
  /** Complete lines, blank ones included. */
  readonly lines: number;
  readonly events: number;
  readonly eventsUsed: number;
  readonly eventsOther: number;
  readonly skipped: Partial<Record<SkipReason, { count: number; first: number[] }>>;
  /** The evidence gathered (none when it was gathered into the import's batch). */
  readonly values: GatheredValue[];
  readonly hosts: GatheredHost[];
}

class SegmentTally {
  lines = 0;
  events = 0;
  eventsUsed = 0;
  eventsOther = 0;
  readonly skipped: Partial<Record<SkipReason, { count: number; first: number[] }>> = {};

  constructor(readonly batch: EvidenceBatch) {}

  skip(reason: SkipReason): void {
    const entry = (this.skipped[reason] ??= { count: 0, first: [] });
    entry.count++;
    if (entry.first.length < FIRST_SKIPS) entry.first.push(this.lines);
  }

  /** One complete line (without its newline), or undefined for one too long to hold. */
  line(text: string | undefined): void {
    this.lines++;
    const outcome = lineOutcome(text);
    if (outcome === 'blank') return;
    if ('skip' in outcome) {
      this.skip(outcome.skip);
      return;
    }
    this.events++;
    if ('other' in outcome) this.eventsOther++;
    else {
      this.eventsUsed++;
      this.batch.add(outcome.derived);
    }
  }
}

/** What one line gives: nothing (a blank line), a skip and its reason, an event of another type, or evidence. */
export type LineOutcome = 'blank' | { readonly skip: SkipReason } | { readonly other: string } | { readonly derived: Derived };

/** One complete line of a log (without its newline; undefined: too long to hold), read. */
export function lineOutcome(text: string | undefined): LineOutcome {
  if (text === undefined) return { skip: 'line too long' };
  const line = text.endsWith('\r') ? text.slice(0, -1) : text;
  if (line.trim() === '') return 'blank';
  const parsed = readEveLine(line);
  if ('skip' in parsed || 'other' in parsed) return parsed;
  return { derived: deriveEvidence(parsed.event) };
}

/** Where the first line starting at or after `start` begins (`size` if none does). */
function firstLineStart(fd: number, start: number, size: number, buffer: Buffer): number {
  for (let at = start - 1; at < size; ) {
    const got = fs.readSync(fd, buffer, 0, Math.min(buffer.length, size - at), at);
    if (got <= 0) break;
    const newline = buffer.subarray(0, got).indexOf(0x0a);
    if (newline !== -1) return at + newline + 1;
    at += got;
  }
  return size;
}

/**
 * Read a segment. Its evidence is gathered `into` the batch given (a reader on the import's own
 * thread: no second gathering), else returned in the result (a worker thread's).
 */
export function readSegment(task: SegmentTask, into?: EvidenceBatch): SegmentResult {
  const { file, end, size } = task;
  const tally = new SegmentTally(into ?? new EvidenceBatch());
  const buffer = (chunkBuffer ??= Buffer.allocUnsafe(CHUNK_BYTES));
  const fd = fs.openSync(file, 'r');
  let from = task.start;
  let to = task.start;
  try {
    from = task.atLineStart ? task.start : firstLineStart(fd, task.start, size, buffer);
    to = from;
    // The line being read: its start, and the parts of it read so far (none held when too long).
    let lineStart = from;
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    let overlong = false;
    let at = from;
    reading: while (at < size && lineStart < end) {
      const got = fs.readSync(fd, buffer, 0, Math.min(buffer.length, size - at), at);
      if (got <= 0) break;
      const chunk = buffer.subarray(0, got);
      let i = 0;
      while (i < got) {
        if (lineStart >= end) break reading;
        const newline = chunk.indexOf(0x0a, i);
        if (newline === -1) {
          if (!overlong) {
            if (pendingBytes + (got - i) > MAX_LINE_BYTES) {
              overlong = true;
              pending = [];
              pendingBytes = 0;
            } else {
              pending.push(Buffer.from(chunk.subarray(i)));
              pendingBytes += got - i;
            }
          }
          break;
        }
        if (overlong || pendingBytes > 0) {
          // The end of a line begun in an earlier chunk.
          if (!overlong && pendingBytes + (newline - i) > MAX_LINE_BYTES) overlong = true;
          if (overlong) tally.line(undefined);
          else {
            pending.push(chunk.subarray(i, newline));
            tally.line(Buffer.concat(pending).toString('utf8'));
          }
          pending = [];
          pendingBytes = 0;
          overlong = false;
          i = newline + 1;
          lineStart = to = at + i;
          continue;
        }
        // A run of whole lines in this chunk, up to the last that starts before `end`: decoded at
        // once (a newline is never part of a UTF-8 sequence, so the text splits where the bytes do).
        const lastStart = end - 1 - at;
        const stop = lastStart < i ? newline : chunk.indexOf(0x0a, Math.max(newline, lastStart));
        const wholeEnd = stop === -1 ? chunk.lastIndexOf(0x0a) : stop;
        // At most RUN_BYTES at a time (one line at least): a longer text would be made outside the
        // heap, and outlive its lines until the next full collection.
        const runEnd = wholeEnd - i <= RUN_BYTES ? wholeEnd : Math.max(newline, chunk.lastIndexOf(0x0a, i + RUN_BYTES));
        // Most logs are ASCII through and through: such a run is decoded four times faster as ASCII.
        const run = chunk.subarray(i, runEnd);
        const texts = run.toString(isAscii(run) ? 'ascii' : 'utf8').split('\n');
        for (const text of texts) tally.line(text);
        i = runEnd + 1;
        lineStart = to = at + i;
      }
      at += got;
    }
  } finally {
    fs.closeSync(fd);
  }
  return {
    from,
    to,
    lines: tally.lines,
    events: tally.events,
    eventsUsed: tally.eventsUsed,
    eventsOther: tally.eventsOther,
    skipped: tally.skipped,
    values: into ? [] : [...tally.batch.eachValue()],
    hosts: into ? [] : [...tally.batch.hosts.values()],
  };
}
