/**
 * The import's helper thread (the EVE worker program, eveWorkerEntry.ts), beside the import's own.
 * While the logs are read it parses segments as the import thread does (eveParse.ts: a plain
 * file's read from the file by position, a stream's moved here and back) and sends back each one's
 * counts and evidence, which the import thread merges into its batch. When the identities are
 * written, it makes two chunks in three from a connection of its own (the one reader,
 * store/identitySources.ts, and the one builder, shared/eve/identity.ts) while the import thread
 * makes the third and writes them all. Both sides talk by messages and promises: nothing here
 * blocks a thread.
 */
import fs from 'node:fs';
import { Worker } from 'node:worker_threads';
import { identityRecords, networksOf } from '../../shared/eve/identity';
import type { IdentityRecord } from '../../shared/eve/identitySource';
import { openReadOnly, type DatabaseSource } from '../server/store/database';
import { IdentitySources } from '../server/store/identitySources';
import { Store } from '../server/store/store';
import { parseApart, type ParsedSegment } from './eveParse';

/** Chunks of rows made ahead of those the import thread has written: a few MB at most. */
const AHEAD = 16;
/**
 * The import thread's and the helper's heaps, in MB. Any bound makes V8 collect as a heap grows
 * instead of letting it grow towards a quarter of the machine's memory: the 1 GB replay's peak RSS
 * fell from 270-294 MB to 194-208 MB at the same speed (docs/eve.md). Neither holds more than a
 * batch, a chunk of identities and one line of at most 16 MiB.
 */
export const EVE_HEAP_MB = 256;
/** The helper's young generation, in MB: more only raised the import's peak RSS. */
const YOUNG_GENERATION_MB = 8;
/** The chunks of identities the helper makes: two in three (alone, it made 1.3 s of the 1 GB replay's 2 s while the import thread waited). */
export const helperMakes = (chunk: number): boolean => chunk % 3 !== 0;

/** A segment as the helper is given it: a plain file's range (the file as the import thread opened it), a stream's bytes, or a line too long. */
export type HelperSegment = { readonly file: string; readonly dev: number; readonly ino: number; readonly start: number; readonly end: number } | { readonly bytes: Uint8Array } | { readonly overlong: true };

type Request = { readonly parse: number; readonly segment: HelperSegment } | { readonly identities: readonly string[] } | { readonly taken: true };
type Answer = { readonly parsed: number; readonly segment: ParsedSegment; readonly bytes?: Uint8Array } | { readonly rows: PackedRecords } | { readonly end: true } | { readonly error: string };

/** A chunk's rows as two pieces, which cross between threads far faster than objects of strings: their texts in one string, and their numbers and lengths. */
export interface PackedRecords {
  readonly text: string;
  /** Per row: hits, first seen, last seen, and the lengths of its ip, hostnames and data. */
  readonly numbers: Float64Array;
}

export function packRecords(records: readonly IdentityRecord[]): PackedRecords {
  const numbers = new Float64Array(records.length * 6);
  records.forEach((r, n) => numbers.set([r.hits, r.first_seen, r.last_seen, r.ip.length, r.hostnames.length, r.data.length], n * 6));
  return { text: records.map((r) => r.ip + r.hostnames + r.data).join(''), numbers };
}

export function unpackRecords({ text, numbers }: PackedRecords): IdentityRecord[] {
  const records: IdentityRecord[] = [];
  let at = 0;
  const take = (length: number) => text.slice(at, (at += length));
  for (let n = 0; n < numbers.length; n += 6) {
    const [hits, first, last, ip, hostnames, data] = numbers.subarray(n, n + 6) as unknown as [number, number, number, number, number, number];
    records.push({ ip: take(ip), hits, first_seen: first, last_seen: last, hostnames: take(hostnames), data: take(data) });
  }
  return records;
}

/** The import thread's side of its helper. */
export class Helper {
  private readonly waiting = new Map<number, { resolve: (answer: Answer) => void; reject: (error: Error) => void }>();
  private rows: ((answer: Answer) => void) | undefined;
  private failure: Error | undefined;
  private next = 0;

  private constructor(private readonly worker: Worker) {
    worker.on('message', (answer: Answer) => {
      const waiting = 'parsed' in answer ? this.waiting.get(answer.parsed) : undefined;
      if ('parsed' in answer) this.waiting.delete(answer.parsed);
      if (waiting) waiting.resolve(answer);
      else if (this.rows) this.rows(answer);
      else if ('error' in answer) this.failed(new Error(answer.error));
    });
    worker.on('error', (error: Error) => this.failed(error));
    worker.on('exit', (code) => this.failed(new Error(`the EVE import's helper thread exited (${code})`)));
  }

  /** A helper running `code` (the EVE worker program), or undefined where none can run. */
  static start(code: string | undefined, database: DatabaseSource): Helper | undefined {
    try {
      return code === undefined ? undefined : new Helper(new Worker(code, { eval: true, workerData: { role: 'helper', database }, resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB, maxOldGenerationSizeMb: EVE_HEAP_MB } }));
    } catch {
      return undefined;
    }
  }

  /** Segments given and not answered yet. */
  get busy(): number {
    return this.waiting.size;
  }

  /** Parse a segment there: its counts and evidence (a stream's memory moves there and back). */
  parse(segment: HelperSegment): Promise<{ parsed: ParsedSegment; bytes?: Uint8Array }> {
    const id = this.next++;
    return new Promise((resolve, reject) => {
      if (this.failure) return reject(this.failure);
      this.waiting.set(id, { resolve: (answer) => ('parsed' in answer ? resolve({ parsed: answer.segment, ...(answer.bytes ? { bytes: answer.bytes } : {}) }) : reject(new Error('the helper answered something else'))), reject });
      this.worker.postMessage({ parse: id, segment } satisfies Request, 'bytes' in segment ? [segment.bytes.buffer as ArrayBuffer] : []);
    });
  }

  /**
   * The identities of the pending addresses of its chunks (`helperMakes`), made there from a
   * snapshot taken now (the caller holds the write lock: the state its transaction starts from),
   * as they come; each chunk taken lets it make one more.
   */
  async *identities(homeNets: readonly string[]): AsyncGenerator<IdentityRecord[]> {
    const queue: Answer[] = [];
    let wake: (() => void) | undefined;
    this.rows = (answer) => {
      queue.push(answer);
      wake?.();
    };
    this.worker.postMessage({ identities: homeNets } satisfies Request);
    try {
      for (;;) {
        while (queue.length === 0) {
          if (this.failure) throw this.failure;
          await new Promise<void>((resolve) => (wake = resolve));
        }
        const answer = queue.shift()!;
        if ('end' in answer) return;
        if ('error' in answer) throw new Error(answer.error);
        if (!('rows' in answer)) continue;
        this.worker.postMessage({ taken: true } satisfies Request);
        yield unpackRecords(answer.rows);
      }
    } finally {
      this.rows = undefined;
    }
  }

  private failed(error: Error): void {
    if (this.failure) return;
    this.failure = error;
    for (const waiting of this.waiting.values()) waiting.reject(error);
    this.waiting.clear();
    this.rows?.({ error: error.message });
  }

  async close(): Promise<void> {
    this.failure ??= new Error('the helper thread was closed');
    await this.worker.terminate();
  }
}

/** The helper's side: answer each request as it comes. */
export function serveHelper(database: DatabaseSource, port: { on(event: 'message', listener: (request: Request) => void): void; postMessage(answer: Answer, transfer?: ArrayBuffer[]): void }): void {
  let credit = AHEAD;
  let wake: (() => void) | undefined;
  port.on('message', (request) => {
    try {
      if ('taken' in request) {
        credit++;
        wake?.();
      } else if ('identities' in request) {
        credit = AHEAD;
        makeIdentities(request.identities).then(
          () => port.postMessage({ end: true }),
          (error: unknown) => port.postMessage({ error: error instanceof Error ? error.message : String(error) }),
        );
      } else if ('bytes' in request.segment) {
        const { bytes } = request.segment;
        port.postMessage({ parsed: request.parse, segment: parseApart({ bytes: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) }), bytes }, [bytes.buffer as ArrayBuffer]);
      } else port.postMessage({ parsed: request.parse, segment: 'overlong' in request.segment ? parseApart(request.segment) : parseRange(request.segment) });
    } catch (error) {
      port.postMessage({ error: error instanceof Error ? error.message : String(error) });
    }
  });

  /** A plain file's range, read from the file the import thread opened (the same device and inode: none put in its place since). */
  function parseRange(segment: { file: string; dev: number; ino: number; start: number; end: number }): ParsedSegment {
    const fd = fs.openSync(segment.file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
    try {
      const stat = fs.fstatSync(fd);
      if (stat.dev !== segment.dev || stat.ino !== segment.ino) throw new Error(`${segment.file} was replaced while it was read`);
      return parseApart({ fd, start: segment.start, end: segment.end });
    } finally {
      fs.closeSync(fd);
    }
  }

  async function makeIdentities(homeNets: readonly string[]): Promise<void> {
    const networks = networksOf(homeNets);
    const store = new Store(openReadOnly(database));
    try {
      for (const chunk of new IdentitySources(store).pendingSnapshot(helperMakes)) {
        const rows = packRecords(identityRecords(chunk, networks));
        while (credit <= 0) await new Promise<void>((resolve) => (wake = resolve));
        credit--;
        port.postMessage({ rows });
      }
    } finally {
      store.close();
    }
  }
}
