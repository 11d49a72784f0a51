/**
 * A segment of EVE content (whole lines, eveContent.ts) read into host evidence and counts, on
 * whichever thread parses it: each line an event this import uses, an event of another type, or a
 * skipped line with its reason (docs/eve.md). Lines are decoded 64 KiB at a time at most, as ASCII
 * when they are (four times faster than UTF-8; a newline is never part of a UTF-8 sequence, so the
 * text splits where the bytes do): a text of a megabyte would be made outside the V8 heap and kept,
 * with its lines, until a full collection.
 */
import { isAscii } from 'node:buffer';
import { EvidenceBatch, type GatheredHost, type GatheredValue } from '../../shared/eve/accumulate';
import { deriveEvidence } from '../../shared/eve/derive';
import { readEveLine, type DropReason, type SkipReason } from '../../shared/eve/event';

const RUN_BYTES = 64 * 1024;
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

/** Read one line (without its newline) into the batch and counts. */
function readLine(text: string, batch: EvidenceBatch, counts: SegmentCounts): void {
  counts.lines++;
  const line = text.endsWith('\r') ? text.slice(0, -1) : text;
  if (line.trim() === '') return;
  const read = readEveLine(line);
  if ('skip' in read) {
    count(counts.skipped, read.skip, counts.lines);
    return;
  }
  counts.events++;
  if ('other' in read) {
    counts.eventsOther++;
    return;
  }
  counts.eventsUsed++;
  const derived = deriveEvidence(read.event);
  for (const reason of derived.dropped) count(counts.dropped, reason, counts.lines);
  batch.add(derived);
}

export function emptyCounts(): SegmentCounts {
  return { lines: 0, events: 0, eventsUsed: 0, eventsOther: 0, skipped: {}, dropped: {} };
}

/** Parse a segment's lines into `batch` (and `batch.hitsAside`, when set); its counts. */
export function parseSegment(bytes: Buffer, overlong: boolean, batch: EvidenceBatch): SegmentCounts {
  const counts = emptyCounts();
  if (overlong) {
    counts.lines = 1;
    count(counts.skipped, 'line too long', 1);
    return counts;
  }
  for (let at = 0; at < bytes.length; ) {
    // A run of whole lines: up to RUN_BYTES, one line at least.
    let end = bytes.lastIndexOf(0x0a, Math.min(bytes.length - 1, at + RUN_BYTES));
    if (end < at) end = bytes.indexOf(0x0a, at);
    const run = bytes.subarray(at, end);
    const texts = run.toString(isAscii(run) ? 'latin1' : 'utf8').split('\n');
    for (const text of texts) readLine(text, batch, counts);
    at = end + 1;
  }
  return counts;
}

/** Parse a segment on its own (another thread): counts and evidence together. */
export function parseApart(bytes: Buffer, overlong: boolean): ParsedSegment {
  const batch = new EvidenceBatch();
  const counts = parseSegment(bytes, overlong, batch);
  return { ...counts, values: [...batch.eachValue()], hosts: [...batch.hosts.values()] };
}
