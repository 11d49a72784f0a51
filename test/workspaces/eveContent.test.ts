/**
 * The reader core of the EVE import (issue 22, "one path"): a plain file, its gzipped copy and the
 * same bytes streamed as an upload give the same segments' lines, skips and evidence whatever the
 * segment size; long and over-long lines, a byte-order mark and a last line still being written;
 * and the fingerprint of a stream passing by equals that of the file read by position.
 */
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { describe, expect, test } from 'vitest';
import { EvidenceBatch } from '../../shared/eve/accumulate';
import { deriveEvidence } from '../../shared/eve/derive';
import { readEveLine } from '../../shared/eve/event';
import { ContentReader, MAX_LINE_BYTES, SegmentMemory } from '../../electron/workspaces/eveContent';

type ContentInput = Parameters<typeof ContentReader.open>[1];
import { fileFingerprint, StreamFingerprint } from '../../electron/workspaces/eveFingerprint';
import { parseSegment } from '../../electron/workspaces/eveParse';
import { prng } from '../helpers/prng';
import { SAMPLES_DIR } from '../helpers/workplace';
import { tempWorkspaces } from '../helpers/tempWorkspaces';

const TROLLOPE = path.join(SAMPLES_DIR, 'eve', 'Tr0llope-suricata_report_generator-eve.json');

const { tempDir } = tempWorkspaces('outpost-content-');

/** Bytes as an upload sends them: in chunks of uneven sizes. */
async function* chunked(bytes: Buffer, random: () => number): AsyncGenerator<Buffer> {
  for (let at = 0; at < bytes.length; ) {
    const size = 1 + Math.floor(random() * 70_000);
    yield bytes.subarray(at, at + size);
    at += size;
  }
}

interface Read {
  readonly lines: number;
  readonly events: number;
  readonly skipped: Record<string, number[]>;
  readonly evidence: unknown;
  readonly endOfLines: number;
  readonly head: string | undefined;
}

/** Every segment of a source, parsed in order as the import parses them (skipped lines numbered over the whole). */
async function readAll(input: ContentInput, segmentBytes: number): Promise<Read> {
  const reader = await ContentReader.open('eve.json', input, new SegmentMemory(segmentBytes));
  const batch = new EvidenceBatch();
  const skipped: Record<string, number[]> = {};
  let lines = 0;
  let events = 0;
  try {
    let expectedStart = 0;
    for (let segment = await reader.next(); segment; segment = await reader.next()) {
      // Segments follow one another, each of whole lines.
      if (segment.start !== expectedStart && segment.start !== 3) throw new Error(`segment at ${segment.start}, expected ${expectedStart}`);
      expectedStart = segment.end;
      if (segment.bytes && segment.bytes.length > 0) expect(segment.bytes[segment.bytes.length - 1]).toBe(0x0a);
      // A stream's segment holds its bytes; a plain file's is read from the file where it is parsed.
      const input = segment.overlong ? ({ overlong: true } as const) : segment.bytes ? { bytes: segment.bytes } : { fd: reader.plain!.fd, start: segment.start, end: segment.end };
      const counts = parseSegment(input, batch);
      for (const [reason, entry] of Object.entries(counts.skipped)) (skipped[reason] ??= []).push(...entry.first.map((n) => lines + n));
      lines += counts.lines;
      events += counts.events;
    }
    const values = [...batch.eachValue()].map((v) => [v.ip, v.list, v.key, JSON.stringify(v.item), v.first, v.last].join('|')).sort();
    const hosts = [...batch.hosts.values()].map((h) => [h.ip, h.hits, h.first, h.last].join('|')).sort();
    return { lines, events, skipped, evidence: { values, hosts }, endOfLines: reader.endOfLines, head: reader.head };
  } finally {
    reader.close();
  }
}

/** A real log with bad lines, blank lines, CRLF endings, long lines, non-ASCII text and a last line still being written. */
function messyLog(): { text: string; lines: string[]; partial: string } {
  const sample = fs.readFileSync(TROLLOPE, 'utf8').split('\n').filter((l) => l.trim() !== '');
  const long = (n: number) => `{"timestamp":"2024-01-01T00:00:00.000000+0000","event_type":"stats","stats":{"pad":"${'y'.repeat(n)}"}}`;
  const lines = sample.flatMap((line, i) =>
    i % 37 === 5 ? ['not json {', line] : i % 53 === 7 ? ['', `${line}\r`] : i % 61 === 9 ? ['{"event_type":"flow"}', line] : i % 97 === 3 ? [line.replace(/"sni":"[^"]*"/, '"sni":"hôte-ü.example"')] : i % 500 === 250 ? [line, long(150_000)] : [line],
  );
  const partial = '{"timestamp":"2024-01-01T00:00:00.000000+0000","event_ty';
  return { text: `${lines.join('\n')}\n${partial}`, lines, partial };
}

describe('segments of a plain file, a gzip file and an upload', () => {
  test('give the lines, skips and evidence of each line read alone, whatever the segment size', async () => {
    const dir = tempDir();
    const { text, lines, partial } = messyLog();
    const plain = path.join(dir, 'eve.json');
    fs.writeFileSync(plain, text);
    const gzip = path.join(dir, 'eve.json.gz');
    fs.writeFileSync(gzip, zlib.gzipSync(text));
    // Each line alone, through the line reader: the oracle.
    const oracle = new EvidenceBatch();
    let events = 0;
    const skipped: Record<string, number[]> = {};
    lines.forEach((raw, n) => {
      const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
      if (line.trim() === '') return;
      const read = readEveLine(line);
      if ('skip' in read) (skipped[read.skip] ??= []).push(n + 1);
      else {
        events++;
        if ('event' in read) oracle.add(deriveEvidence(read.event));
      }
    });
    const values = [...oracle.eachValue()].map((v) => [v.ip, v.list, v.key, JSON.stringify(v.item), v.first, v.last].join('|')).sort();
    const hosts = [...oracle.hosts.values()].map((h) => [h.ip, h.hits, h.first, h.last].join('|')).sort();
    const size = Buffer.byteLength(text);
    const firstFive = Object.fromEntries(Object.entries(skipped).map(([reason, at]) => [reason, at]));
    const random = prng(22);
    for (const segmentBytes of [1024, 9_999, 65_536, 1_000_000, 8 * 1024 * 1024]) {
      for (const input of [{ file: plain }, { file: gzip }, { stream: chunked(Buffer.from(text), random) }, { stream: chunked(zlib.gzipSync(text), random) }] as ContentInput[]) {
        const read = await readAll(input, segmentBytes);
        const where = `${'file' in input ? input.file : 'upload'} in segments of ${segmentBytes}`;
        expect(read.lines, where).toBe(lines.length);
        expect(read.events, where).toBe(events);
        expect(read.endOfLines, where).toBe(size - Buffer.byteLength(partial));
        expect(read.evidence, where).toEqual({ values, hosts });
        // Every skipped line is numbered (parseSegment keeps the first five of each segment).
        for (const [reason, at] of Object.entries(read.skipped)) for (const n of at) expect(firstFive[reason], where).toContain(n);
      }
    }
  });

  test('a line longer than the limit is read past as one skipped line, never held; the lines around it are read', async () => {
    const dir = tempDir();
    const good = fs.readFileSync(TROLLOPE, 'utf8').split('\n').filter((l) => l.trim() !== '').slice(0, 20);
    const big = `{"pad":"${'x'.repeat(MAX_LINE_BYTES + 1024)}"}`;
    const text = `${good.slice(0, 10).join('\n')}\n${big}\n${good.slice(10).join('\n')}\n`;
    const plain = path.join(dir, 'eve.json');
    fs.writeFileSync(plain, text);
    const random = prng(5);
    for (const input of [() => ({ file: plain }), () => ({ stream: chunked(Buffer.from(text), random) })]) {
      for (const segmentBytes of [4096, 8 * 1024 * 1024]) {
        const read = await readAll(input(), segmentBytes);
        expect(read.lines).toBe(21);
        expect(read.skipped).toEqual({ 'line too long': [11] });
        expect(read.endOfLines).toBe(Buffer.byteLength(text));
      }
    }
  });

  test('a byte-order mark is not part of the first line; the first line names the content (gzipped or not)', async () => {
    const dir = tempDir();
    const line = fs.readFileSync(TROLLOPE, 'utf8').split('\n')[0]!;
    const plain = path.join(dir, 'eve.json');
    fs.writeFileSync(plain, Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(`${line}\n${line}\n`)]));
    const read = await readAll({ file: plain }, 1024);
    expect(read.events).toBe(2);
    expect(read.skipped).toEqual({});
    const gzip = path.join(dir, 'eve.json.gz');
    fs.writeFileSync(gzip, zlib.gzipSync(fs.readFileSync(plain)));
    expect((await readAll({ file: gzip }, 1024)).head).toBe(read.head);
  });

  test('content with no complete first line has no head: an empty file, or one line still being written', async () => {
    const dir = tempDir();
    const empty = path.join(dir, 'empty.json');
    fs.writeFileSync(empty, '');
    const open = async (input: ContentInput) => {
      const reader = await ContentReader.open('x', input);
      reader.close();
      return { head: reader.head, empty: reader.empty };
    };
    expect(await open({ file: empty })).toEqual({ head: undefined, empty: true });
    const partial = path.join(dir, 'partial.json');
    fs.writeFileSync(partial, '{"timestamp":');
    expect(await open({ file: partial })).toEqual({ head: undefined, empty: false });
  });

  test('a stream is not cut across a point a former import reached', async () => {
    const text = fs.readFileSync(TROLLOPE);
    const points = [text.indexOf(0x0a, 10_000) + 1, text.indexOf(0x0a, 300_000) + 1];
    const reader = await ContentReader.open('eve.json', { stream: chunked(text, prng(3)) }, new SegmentMemory(1024 * 1024));
    reader.cutAt(points);
    const ends: number[] = [];
    for (let segment = await reader.next(); segment; segment = await reader.next()) ends.push(segment.end);
    reader.close();
    for (const point of points) expect(ends).toContain(point);
  });
});

describe('the fingerprint of content read before', () => {
  test('a stream passing by gives, at any point, the fingerprint of the file read by position up to it', () => {
    const dir = tempDir();
    const random = prng(11);
    for (const size of [0, 1, 1023, 4096, 70_000, 5_000_000, 9_000_000]) {
      const bytes = Buffer.alloc(size);
      for (let i = 0; i < size; i++) bytes[i] = Math.floor(random() * 256);
      const file = path.join(dir, `f${size}`);
      fs.writeFileSync(file, bytes);
      const fd = fs.openSync(file, 'r');
      try {
        const stream = new StreamFingerprint();
        // Fed in chunks of any size; checked at several points on the way.
        for (let at = 0; at < size; ) {
          const next = Math.min(size, at + 1 + Math.floor(random() * 300_000));
          stream.feed(bytes.subarray(at, next));
          at = next;
          if (random() < 0.3 || at === size) expect(stream.current(), `${size} at ${at}`).toEqual(fileFingerprint(fd, at));
        }
        if (size === 0) expect(stream.current()).toEqual(fileFingerprint(fd, 0));
      } finally {
        fs.closeSync(fd);
      }
    }
  });

  test('the same size, first bytes and last 4 KiB but other bytes between give another fingerprint', () => {
    const dir = tempDir();
    const a = Buffer.alloc(3_000_000, 0x61);
    const b = Buffer.from(a);
    // Bytes changed everywhere but the first 64 KiB and the last 4 KiB.
    for (let at = 65_536; at < b.length - 4096; at += 1000) b[at] = 0x62;
    const fingerprint = (bytes: Buffer) => {
      const file = path.join(dir, `x${Math.random()}`);
      fs.writeFileSync(file, bytes);
      const fd = fs.openSync(file, 'r');
      try {
        return fileFingerprint(fd, bytes.length);
      } finally {
        fs.closeSync(fd);
      }
    };
    const [fa, fb] = [fingerprint(a), fingerprint(b)];
    expect(fb.tail).toBe(fa.tail);
    expect(fb.samples).not.toBe(fa.samples);
  });
});
