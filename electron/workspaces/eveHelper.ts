/**
 * The import's helper thread (a worker of the EVE worker program, eveWorkerEntry.ts), beside the
 * import's own thread: while the logs are read it parses segments as the import thread does
 * (eveParse.ts), and when the identities are written it reads and makes them (the one reader,
 * store/identitySources.ts, and the one builder, shared/eve/identity.ts) from a connection of its
 * own while the import thread writes them. Both sides talk by messages and promises: nothing here
 * blocks a thread. Where no worker can run, there is no helper and the import thread does it all.
 */
import { Worker } from 'node:worker_threads';
import { identityRecords, networksOf } from '../../shared/eve/identity';
import type { IdentityRecord } from '../../shared/eve/identitySource';
import { openReadOnly, type DatabaseSource } from '../server/store/database';
import { IdentitySources } from '../server/store/identitySources';
import { Store } from '../server/store/store';
import { parseApart, type ParsedSegment } from './eveParse';

/** Chunks of rows the helper makes ahead of those the import thread has written: a few MB at most. */
const AHEAD = 16;
/**
 * The helper's young generation, in MB: reading a segment and making identities make tens of MB
 * of short-lived text; at 8 MB collections took a third of the identities' time, at 32 MB the
 * import's peak RSS neared 300 MB.
 */
const YOUNG_GENERATION_MB = 16;

type Request =
  | { readonly parse: number; readonly bytes: Uint8Array; readonly overlong: boolean }
  | { readonly identities: DatabaseSource; readonly homeNets: readonly string[] }
  | { readonly taken: number };

type Answer =
  | { readonly parsed: number; readonly segment: ParsedSegment }
  | { readonly rows: PackedRecords }
  | { readonly end: true }
  | { readonly error: string };

/**
 * A chunk's rows in two pieces, which cross between threads far faster than as many objects of
 * strings: their texts one after the other in one string, and their numbers and text lengths.
 */
export interface PackedRecords {
  readonly text: string;
  /** Per row: hits, first seen, last seen, and the lengths of its ip, hostnames and data. */
  readonly numbers: Float64Array;
}

const PACKED_FIELDS = 6;

export function packRecords(records: readonly IdentityRecord[]): PackedRecords {
  const numbers = new Float64Array(records.length * PACKED_FIELDS);
  let text = '';
  records.forEach((record, n) => {
    numbers.set([record.hits, record.first_seen, record.last_seen, record.ip.length, record.hostnames.length, record.data.length], n * PACKED_FIELDS);
    text += record.ip + record.hostnames + record.data;
  });
  return { text, numbers };
}

export function unpackRecords({ text, numbers }: PackedRecords): IdentityRecord[] {
  const records: IdentityRecord[] = [];
  let at = 0;
  const take = (length: number) => text.slice(at, (at += length));
  for (let n = 0; n < numbers.length; n += PACKED_FIELDS) {
    const field = (k: number) => numbers[n + k]!;
    records.push({ ip: take(field(3)), hits: field(0), first_seen: field(1), last_seen: field(2), hostnames: take(field(4)), data: take(field(5)) });
  }
  return records;
}

/** The import thread's side of its helper. */
export class Helper {
  private readonly waiting = new Map<number, { resolve: (segment: ParsedSegment) => void; reject: (error: Error) => void }>();
  private rows: { push: (answer: Answer) => void } | undefined;
  private failure: Error | undefined;
  private next = 0;

  private constructor(private readonly worker: Worker) {
    worker.on('message', (answer: Answer) => this.answered(answer));
    worker.on('error', (error: Error) => this.failed(error));
    worker.on('exit', (code) => this.failed(new Error(`the EVE import's helper thread exited (${code})`)));
  }

  /** A helper running `code` (the EVE worker program), or undefined where none can run. */
  static start(code: string | undefined): Helper | undefined {
    if (code === undefined) return undefined;
    try {
      return new Helper(new Worker(code, { eval: true, workerData: { role: 'helper' }, resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB } }));
    } catch {
      return undefined;
    }
  }

  /** Segments given and not answered yet. */
  get busy(): number {
    return this.waiting.size;
  }

  /** Parse a segment there (its bytes move to that thread). */
  parse(bytes: Buffer, overlong: boolean): Promise<ParsedSegment> {
    const id = this.next++;
    return new Promise((resolve, reject) => {
      if (this.failure) return reject(this.failure);
      this.waiting.set(id, { resolve, reject });
      // A segment's memory is its own (a file's segment is read into it, a stream's copied into it): moved, not copied.
      const own = bytes.byteOffset === 0 && bytes.buffer.byteLength >= 64 * 1024 ? new Uint8Array(bytes.buffer, 0, bytes.length) : new Uint8Array(bytes);
      this.worker.postMessage({ parse: id, bytes: own, overlong } satisfies Request, [own.buffer as ArrayBuffer]);
    });
  }

  /**
   * The identities of every pending address, made there a chunk at a time from a connection it
   * opens now (the caller holds the write lock: it reads the state the caller's transaction starts
   * from), as they come; each chunk taken lets it make one more.
   */
  async *identities(database: DatabaseSource, homeNets: readonly string[]): AsyncGenerator<IdentityRecord[]> {
    const queue: Answer[] = [];
    let wake: (() => void) | undefined;
    this.rows = {
      push: (answer) => {
        queue.push(answer);
        wake?.();
      },
    };
    this.worker.postMessage({ identities: database, homeNets } satisfies Request);
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
        this.worker.postMessage({ taken: 1 } satisfies Request);
        yield unpackRecords(answer.rows);
      }
    } finally {
      this.rows = undefined;
    }
  }

  private answered(answer: Answer): void {
    if ('parsed' in answer) {
      const waiting = this.waiting.get(answer.parsed);
      this.waiting.delete(answer.parsed);
      waiting?.resolve(answer.segment);
    } else if (this.rows) this.rows.push(answer);
    else if ('error' in answer) this.failed(new Error(answer.error));
  }

  private failed(error: Error): void {
    if (this.failure) return;
    this.failure = error;
    for (const waiting of this.waiting.values()) waiting.reject(error);
    this.waiting.clear();
    this.rows?.push({ error: error.message });
  }

  async close(): Promise<void> {
    this.failure ??= new Error('the helper thread was closed');
    await this.worker.terminate();
  }
}

/** The helper's side: answer each request as it comes. */
export function serveHelper(port: { on(event: 'message', listener: (request: Request) => void): void; postMessage(answer: Answer): void }): void {
  let credit = AHEAD;
  let wake: (() => void) | undefined;
  port.on('message', (request) => {
    if ('parse' in request) {
      try {
        const bytes = Buffer.from(request.bytes.buffer, request.bytes.byteOffset, request.bytes.byteLength);
        port.postMessage({ parsed: request.parse, segment: parseApart(bytes, request.overlong) });
      } catch (error) {
        port.postMessage({ error: error instanceof Error ? error.message : String(error) });
      }
    } else if ('taken' in request) {
      credit += request.taken;
      wake?.();
    } else {
      credit = AHEAD;
      void makeIdentities(request.identities, request.homeNets, async () => {
        while (credit <= 0) await new Promise<void>((resolve) => (wake = resolve));
        credit--;
      }).then(
        () => port.postMessage({ end: true }),
        (error: unknown) => port.postMessage({ error: error instanceof Error ? error.message : String(error) }),
      );
    }
  });

  async function makeIdentities(database: DatabaseSource, homeNets: readonly string[], mayPost: () => Promise<void>): Promise<void> {
    const store = new Store(openReadOnly(database));
    try {
      const networks = networksOf(homeNets);
      for (const chunk of new IdentitySources(store).pendingSnapshot()) {
        const rows = packRecords(identityRecords(chunk, networks));
        await mayPost();
        port.postMessage({ rows });
      }
    } finally {
      store.close();
    }
  }
}
