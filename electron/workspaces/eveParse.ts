/**
 * A segment of EVE content (whole lines, eveContent.ts) read into host evidence and counts, on
 * whichever thread parses it: each line an event this import uses, an event of another type, or a
 * skipped line with its reason (docs/eve.md). Lines are decoded 64 KiB at a time at most, as ASCII
 * when they are (four times faster than UTF-8; a newline is never part of a UTF-8 sequence, so the
 * text splits where the bytes do): a text of a megabyte would be made outside the V8 heap and kept,
 * with its lines, until a full collection.
 */
import { isAscii } from 'node:buffer';
import fs from 'node:fs';
import { EvidenceBatch, type GatheredHost, type GatheredValue } from '../../shared/eve/accumulate';
import { deriveEvidence } from '../../shared/eve/derive';
import { readEveLine, type DropReason, type SkipReason } from '../../shared/eve/event';
import { BOM, MAX_LINE_BYTES } from './eveContent';

const RUN_BYTES = 64 * 1024;
/** A plain file's segment is read this much at a time, through this thread's own memory: parsed while in the processor's cache. */
const READ_BYTES = 1024 * 1024;
let readBuffer: Buffer | undefined;
/** First lines of each reason kept (as line numbers within the segment, from 1). */
export const FIRST_KEPT = 5;

/** How many of a reason, and the first few lines (within the segment, from 1). */
export interface Counted {
  count: number;
  readonly first: number[];
}

/** What a segment's lines gave, but the evidence. */
export interface SegmentCounts {
  lines: number;
  events: number;
  eventsUsed: number;
  eventsOther: number;
  readonly skipped: Partial<Record<SkipReason, Counted>>;
  readonly dropped: Partial<Record<DropReason, Counted>>;
}

/** A segment parsed on another thread: its counts and the evidence it gathered. */
export interface ParsedSegment extends SegmentCounts {
  readonly values: GatheredValue[];
  readonly hosts: GatheredHost[];
}

function count<R extends string>(counts: Partial<Record<R, Counted>>, reason: R, line: number): void {
  const entry = (counts[reason] ??= { count: 0, first: [] });
  entry.count++;
  if (entry.first.length < FIRST_KEPT) entry.first.push(line);
}

/** Read one line (without its newline; undefined: too long to hold) into the batch and counts. */
function readLine(text: string | undefined, batch: EvidenceBatch, counts: SegmentCounts): void {
  counts.lines++;
  const line = text?.endsWith('\r') ? text.slice(0, -1) : text;
  if (line?.trim() === '') return;
  const read = line === undefined ? { skip: 'line too long' as const } : readEveLine(line);
  if ('skip' in read) return count(counts.skipped, read.skip, counts.lines);
  counts.events++;
  if ('other' in read) return void counts.eventsOther++;
  counts.eventsUsed++;
  const derived = deriveEvidence(read.event);
  for (const reason of derived.dropped) count(counts.dropped, reason, counts.lines);
  batch.add(derived);
}

/** What is parsed: a stream's segment (its bytes), or a plain file's, [start, end) read here. */
export type SegmentInput = { readonly bytes: Buffer } | { readonly overlong: true } | { readonly fd: number; readonly start: number; readonly end: number };

/** Parse a segment's lines into `batch`; its counts. */
export function parseSegment(input: SegmentInput, batch: EvidenceBatch): SegmentCounts {
  const counts: SegmentCounts = { lines: 0, events: 0, eventsUsed: 0, eventsOther: 0, skipped: {}, dropped: {} };
  if ('overlong' in input) readLine(undefined, batch, counts);
  else if ('bytes' in input) parseRuns(input.bytes, batch, counts);
  else for (const run of fileRuns(input.fd, input.start, input.end)) run === undefined ? readLine(undefined, batch, counts) : parseRuns(run, batch, counts);
  return counts;
}

/** Whole lines, decoded a run at a time. */
function parseRuns(bytes: Buffer, batch: EvidenceBatch, counts: SegmentCounts): void {
  for (let at = 0; at < bytes.length; ) {
    // A run of whole lines: up to RUN_BYTES, one line at least.
    let end = bytes.lastIndexOf(0x0a, Math.min(bytes.length - 1, at + RUN_BYTES));
    if (end < at) end = bytes.indexOf(0x0a, at);
    const run = bytes.subarray(at, end);
    const texts = run.toString(isAscii(run) ? 'latin1' : 'utf8').split('\n');
    for (const text of texts) readLine(text, batch, counts);
    at = end + 1;
  }
}

/**
 * The whole lines of [start, end) of a file (`end` ends a line), a run at a time, read through
 * this thread's own memory (a run is good until the next is asked for); a line longer than
 * MAX_LINE_BYTES is read past, and comes as undefined. A byte-order mark at the file's start is
 * no part of its first line.
 */
function* fileRuns(fd: number, start: number, end: number): Generator<Buffer | undefined> {
  let buffer = (readBuffer ??= Buffer.allocUnsafeSlow(READ_BYTES));
  /** Bytes of a line begun and not ended, at the buffer's start. */
  let held = 0;
  let overlong = false;
  let bom = start === 0;
  for (let at = start; at < end; ) {
    if (held === buffer.length) {
      // A line longer than the memory: more memory for it, up to the bound; past it, read past.
      if (buffer.length > MAX_LINE_BYTES) {
        overlong = true;
        held = 0;
      } else {
        const larger = Buffer.allocUnsafeSlow(Math.min(buffer.length * 2, MAX_LINE_BYTES + READ_BYTES));
        buffer.copy(larger, 0, 0, held);
        buffer = larger;
      }
    }
    const got = fs.readSync(fd, buffer, held, Math.min(buffer.length - held, end - at), at);
    if (got <= 0) return;
    at += got;
    const filled = held + got;
    let from = 0;
    if (overlong) {
      const newline = buffer.indexOf(0x0a, held);
      if (newline === -1 || newline >= filled) {
        held = 0;
        continue;
      }
      yield undefined;
      overlong = false;
      from = newline + 1;
    }
    if (bom && filled >= 3) {
      if (buffer.subarray(0, 3).equals(BOM)) from = 3;
      bom = false;
    }
    // The line carried over, ended here, may be past the bound.
    const first = buffer.indexOf(0x0a, Math.max(from, held));
    if (first !== -1 && first < filled && first - from > MAX_LINE_BYTES) {
      yield undefined;
      from = first + 1;
    }
    const last = buffer.lastIndexOf(0x0a, filled - 1);
    if (last >= from) yield buffer.subarray(from, last + 1);
    const rest = last >= from ? last + 1 : from;
    buffer.copy(buffer, 0, rest, filled);
    held = filled - rest;
    if (buffer !== readBuffer && held < READ_BYTES) {
      readBuffer.set(buffer.subarray(0, held));
      buffer = readBuffer;
    }
  }
}

/** Parse a segment on its own (another thread): counts and evidence together. */
export function parseApart(input: SegmentInput): ParsedSegment {
  const batch = new EvidenceBatch();
  const counts = parseSegment(input, batch);
  return { ...counts, values: [...batch.eachValue()], hosts: [...batch.hosts.values()] };
}
