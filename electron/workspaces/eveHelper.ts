/**
 * The import's helper thread (a worker of the EVE worker program, eveWorkerEntry.ts), beside the
 * import's own thread. While the logs are read it parses segments as the import thread does
 * (eveParse.ts: a plain file's read from the file by position, a stream's moved here and back)
 * and sends back each one's counts and evidence, which the import thread merges into its batch.
 * When the identities are written, it reads and makes two chunks in three of them from a
 * connection of its own (the one reader, store/identitySources.ts, and the one builder,
 * shared/eve/identity.ts) while the import thread makes the third and writes them all. Both sides
 * talk by messages and promises: nothing here blocks a thread. Where no worker can run, there is
 * no helper and the import thread does it all.
 */
import fs from 'node:fs';
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
 * The chunks of identities the helper makes: two in three. The import thread makes the others
 * while it writes them all, so that both threads work to the end (the helper alone made 1.3 s of
 * the 1 GB replay's 2 s, the import thread then waited for it).
 */
export const helperMakes = (chunk: number): boolean => chunk % 3 !== 0;
/**
 * The helper's young generation, in MB: parsing a segment and making identities make tens of MB
 * of short-lived objects and text; more only raised the import's peak RSS.
 */
const YOUNG_GENERATION_MB = 8;

/** What the helper is given: the import's database (for identities). */
export interface HelperSetup {
  readonly database: DatabaseSource;
}

/** A segment as the helper is given it: a plain file's range (the file as the import thread opened it), or a stream's bytes. */
export type HelperSegment = { readonly file: string; readonly dev: number; readonly ino: number; readonly start: number; readonly end: number } | { readonly bytes: Uint8Array } | { readonly overlong: true };

type Request = { readonly parse: number; readonly segment: HelperSegment } | { readonly identities: readonly string[] } | { readonly taken: number };

type Answer =
  | { readonly parsed: number; readonly segment: ParsedSegment; readonly bytes?: Uint8Array }
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
  private readonly waiting = new Map<number, { resolve: (answer: Answer) => void; reject: (error: Error) => void }>();
  private rows: { push: (answer: Answer) => void } | undefined;
  private failure: Error | undefined;
  private next = 0;

  private constructor(private readonly worker: Worker) {
    worker.on('message', (answer: Answer) => this.answered(answer));
    worker.on('error', (error: Error) => this.failed(error));
    worker.on('exit', (code) => this.failed(new Error(`the EVE import's helper thread exited (${code})`)));
  }

  /** A helper running `code` (the EVE worker program) for this import, or undefined where none can run. */
  static start(code: string | undefined, setup: HelperSetup): Helper | undefined {
    if (code === undefined) return undefined;
    try {
      return new Helper(new Worker(code, { eval: true, workerData: { role: 'helper', setup }, resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB } }));
    } catch {
      return undefined;
    }
  }

  /** Requests given and not answered yet. */
  get busy(): number {
    return this.waiting.size;
  }

  /** Parse a segment there: its counts and evidence; a stream's memory moves there and back. */
  async parse(segment: HelperSegment): Promise<{ parsed: ParsedSegment; bytes?: Uint8Array }> {
    const transfer = 'bytes' in segment ? [segment.bytes.buffer as ArrayBuffer] : [];
    const answer = await this.ask((id) => ({ parse: id, segment }), transfer);
    if (!('parsed' in answer)) throw new Error('the helper thread answered something else');
    return { parsed: answer.segment, ...(answer.bytes ? { bytes: answer.bytes } : {}) };
  }

  private ask(request: (id: number) => Request, transfer: ArrayBuffer[] = []): Promise<Answer> {
    const id = this.next++;
    return new Promise((resolve, reject) => {
      if (this.failure) return reject(this.failure);
      this.waiting.set(id, { resolve, reject });
      this.worker.postMessage(request(id), transfer);
    });
  }

  /**
   * The identities of the pending addresses of the chunks it makes (`helperMakes`), made there a
   * chunk at a time from a snapshot taken now (the caller holds the write lock: the state the
   * caller's transaction starts from), as they come; each chunk taken lets it make one more.
   */
  async *identities(homeNets: readonly string[]): AsyncGenerator<IdentityRecord[]> {
    const queue: Answer[] = [];
    let wake: (() => void) | undefined;
    this.rows = {
      push: (answer) => {
        queue.push(answer);
        wake?.();
      },
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
        this.worker.postMessage({ taken: 1 } satisfies Request);
        yield unpackRecords(answer.rows);
      }
    } finally {
      this.rows = undefined;
    }
  }

  private answered(answer: Answer): void {
    const id = 'parsed' in answer ? answer.parsed : undefined;
    if (id !== undefined) {
      const waiting = this.waiting.get(id);
      this.waiting.delete(id);
      waiting?.resolve(answer);
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
export function serveHelper(setup: HelperSetup, port: { on(event: 'message', listener: (request: Request) => void): void; postMessage(answer: Answer, transfer?: ArrayBuffer[]): void }): void {
  let credit = AHEAD;
  let wake: (() => void) | undefined;
  port.on('message', (request) => {
    try {
      if ('parse' in request) {
        const { segment } = request;
        if ('bytes' in segment) {
          const parsed = parseApart({ bytes: Buffer.from(segment.bytes.buffer, segment.bytes.byteOffset, segment.bytes.byteLength) });
          port.postMessage({ parsed: request.parse, segment: parsed, bytes: segment.bytes }, [segment.bytes.buffer as ArrayBuffer]);
        } else port.postMessage({ parsed: request.parse, segment: 'overlong' in segment ? parseApart(segment) : parseFileRange(segment) });
      } else if ('taken' in request) {
        credit += request.taken;
        wake?.();
      } else {
        credit = AHEAD;
        void makeIdentities(request.identities, async () => {
          while (credit <= 0) await new Promise<void>((resolve) => (wake = resolve));
          credit--;
        }).then(
          () => port.postMessage({ end: true }),
          (error: unknown) => port.postMessage({ error: error instanceof Error ? error.message : String(error) }),
        );
      }
    } catch (error) {
      port.postMessage({ error: error instanceof Error ? error.message : String(error) });
    }
  });

  /** A plain file's range, read here from the file the import thread opened (the same device and inode: not one put in its place since). */
  function parseFileRange(segment: { file: string; dev: number; ino: number; start: number; end: number }): ParsedSegment {
    const fd = fs.openSync(segment.file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
    try {
      const stat = fs.fstatSync(fd);
      if (stat.dev !== segment.dev || stat.ino !== segment.ino) throw new Error(`${segment.file} was replaced while it was read`);
      return parseApart({ fd, start: segment.start, end: segment.end });
    } finally {
      fs.closeSync(fd);
    }
  }

  async function makeIdentities(homeNets: readonly string[], mayPost: () => Promise<void>): Promise<void> {
    const networks = networksOf(homeNets);
    const store = new Store(openReadOnly(setup.database));
    try {
      for (const chunk of new IdentitySources(store).pendingSnapshot(helperMakes)) {
        const rows = packRecords(identityRecords(chunk, networks));
        await mayPost();
        port.postMessage({ rows });
      }
    } finally {
      store.close();
    }
  }
}
