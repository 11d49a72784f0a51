/**
 * An IdentityBuilder on a worker thread (the EVE worker program, eveWorkerEntry.ts): at the end
 * of a large import, the refresh reads a chunk of hosts from SQLite and writes the chunk before
 * while this thread makes the rows between (merging, formatting and JSON: half of a refresh's
 * time). The refresh runs inside a synchronous transaction, so the rows are taken with
 * receiveMessageOnPort, waiting on a counter the worker bumps (Atomics.wait), never on the event
 * loop. A thread that fails or does not answer in time is given up, and what it had not made is
 * made here: the refresh is never left waiting.
 */
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads';
import { identityRecords, type IdentityBuilder, type IdentityRecord, type IdentitySource } from '../../shared/eve/identity';
import { eveWorkerCode } from '../server/http/workerSource';
import type { DatabaseSource } from '../server/store/database';
import { StagedEvidence } from '../server/store/stagedEvidence';
import { ChunkClaims, STAGED_CHUNK } from './stagedIdentities';

/** What the worker is given once: the port chunks come by, and the counter it bumps after each answer. */
export interface IdentitySetup {
  readonly identities: MessagePort;
  readonly answered: SharedArrayBuffer;
}

export interface IdentityChunk {
  readonly sources: readonly IdentitySource[];
  readonly homeNets: readonly string[];
}

/**
 * A staged import whose identities the thread reads itself, from a connection of its own (see
 * IdentityThread.readStaged), posting them a chunk at a time.
 */
export interface StagedRead {
  readonly database: DatabaseSource;
  readonly importPk: number;
  /** The addresses, in order (Evidence.stagedAddresses). */
  readonly ips: readonly string[];
  /** Their chunks' claims (stagedIdentities.ts): the thread makes those it claims. */
  readonly claims: SharedArrayBuffer;
  readonly homeNets: readonly string[];
  /** Chunks taken so far (the thread posts no more than READ_AHEAD past it). */
  readonly taken: SharedArrayBuffer;
}

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

export type IdentityAnswer = { readonly rows: IdentityRecord[] } | { readonly packed: PackedRecords; readonly chunk: number } | { readonly end: true } | { readonly error: string };

/** A chunk of a staged read: its number and its rows. */
export interface ReadChunk {
  readonly chunk: number;
  readonly rows: IdentityRecord[];
}

/** Addresses to write from which their identities are made on a thread (fewer: not worth starting one). */
const IDENTITY_THREAD_FROM = 4096;
/** How long a chunk's rows are waited for before the thread is given up (a chunk takes milliseconds). */
const ANSWER_TIMEOUT_MS = 10_000;
/**
 * The thread's young generation, in MB: a staged read makes tens of MB of short-lived text; at
 * 8 MB its collections took a third of its time, at 32 MB the import's peak RSS neared 300 MB.
 */
const IDENTITY_YOUNG_GENERATION_MB = 16;
/** Chunks a staged read posts ahead of those taken: its rows wait in memory, a few MB at most. */
const READ_AHEAD = 16;

/**
 * Can this thread block on a shared counter? Node's main thread can; a host that forbids it (a
 * browser's main thread, and perhaps an embedder's) throws, and then the rows are made here.
 */
function canWait(): boolean {
  try {
    // The counter holds 0, not 1: answers "not-equal" at once where waiting is allowed.
    return Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 1, 0) === 'not-equal';
  } catch {
    return false;
  }
}

export class IdentityThread implements IdentityBuilder {
  private readonly queue: IdentityChunk[] = [];
  private readonly counter: Int32Array;
  private broken = false;
  /** A staged read under way: the chunks taken of it, shared with the thread. */
  private reading: { readonly taken: Int32Array; count: number } | undefined;

  private constructor(
    private readonly worker: Worker,
    private readonly port: MessagePort,
    answered: SharedArrayBuffer,
    private readonly timeoutMs: number,
  ) {
    this.counter = new Int32Array(answered);
    // Its failure is noticed by the next take (no answer): the event loop may not turn before.
    worker.on('error', () => undefined);
  }

  /** A thread of the EVE worker program, or undefined where no worker can run. */
  static start(timeoutMs = ANSWER_TIMEOUT_MS): IdentityThread | undefined {
    const code = eveWorkerCode();
    if (code === undefined || !canWait()) return undefined;
    let worker: Worker;
    try {
      worker = new Worker(code, { eval: true, resourceLimits: { maxYoungGenerationSizeMb: IDENTITY_YOUNG_GENERATION_MB } });
    } catch {
      return undefined;
    }
    const { port1, port2 } = new MessageChannel();
    const answered = new SharedArrayBuffer(4);
    const setup: IdentitySetup = { identities: port2, answered };
    worker.postMessage(setup, [port2]);
    return new IdentityThread(worker, port1, answered, timeoutMs);
  }

  submit(sources: readonly IdentitySource[], homeNets: readonly string[]): void {
    const chunk = { sources, homeNets };
    this.queue.push(chunk);
    if (!this.broken) this.port.postMessage(chunk);
  }

  take(): IdentityRecord[] {
    const chunk = this.queue.shift();
    if (!chunk) throw new Error('no chunk of identities is pending');
    if (!this.broken) {
      const answer = this.answer();
      if (answer && 'rows' in answer) return answer.rows;
      // Given up: its later answers, if any come, are never read; the rest is made here.
      this.broken = true;
    }
    return identityRecords(chunk.sources, chunk.homeNets);
  }

  get pending(): number {
    return this.queue.length;
  }

  /**
   * Have the thread read the identities of a staged import itself (StagedEvidence), from a
   * connection of its own opened now: the caller holds the write lock of the transaction that
   * commits the import, so the thread reads the state that transaction starts from. Rows come by
   * `nextRead`. False when the thread is given up already (the caller reads them itself).
   */
  readStaged(read: Omit<StagedRead, 'taken'>): boolean {
    if (this.broken || this.queue.length > 0 || this.reading) return false;
    const taken = new SharedArrayBuffer(4);
    this.reading = { taken: new Int32Array(taken), count: 0 };
    this.port.postMessage({ ...read, taken } satisfies StagedRead);
    return true;
  }

  /**
   * The next chunk of a staged read's rows; undefined once the thread has made all it claimed;
   * 'failed' when it failed or fell silent (given up then: the caller makes the rows itself);
   * 'later' when none has come yet and `wait` is false.
   */
  nextRead(wait = true): ReadChunk | undefined | 'failed' | 'later' {
    const reading = this.reading;
    if (!reading) throw new Error('no staged read is under way');
    if (!wait && !this.broken) {
      const received = receiveMessageOnPort(this.port);
      if (!received) return 'later';
      return this.readAnswer(reading, received.message as IdentityAnswer);
    }
    return this.readAnswer(reading, this.broken ? undefined : this.answer());
  }

  private readAnswer(reading: { readonly taken: Int32Array; count: number }, answer: IdentityAnswer | undefined): ReadChunk | undefined | 'failed' {
    if (answer && 'packed' in answer) {
      Atomics.store(reading.taken, 0, ++reading.count);
      Atomics.notify(reading.taken, 0);
      return { chunk: answer.chunk, rows: unpackRecords(answer.packed) };
    }
    this.reading = undefined;
    if (answer && 'end' in answer) return undefined;
    this.broken = true;
    return 'failed';
  }

  /** Has the thread been given up (a failure or no answer in time)? */
  get givenUp(): boolean {
    return this.broken;
  }

  private answer(): IdentityAnswer | undefined {
    const deadline = Date.now() + this.timeoutMs;
    for (;;) {
      const seen = Atomics.load(this.counter, 0);
      const received = receiveMessageOnPort(this.port);
      if (received) return received.message as IdentityAnswer;
      const left = deadline - Date.now();
      if (left <= 0) return undefined;
      Atomics.wait(this.counter, 0, seen, Math.min(left, 250));
    }
  }

  async close(): Promise<void> {
    this.port.close();
    await this.worker.terminate();
  }
}

/** A thread for a refresh of `count` addresses, if that many are worth one (and one can run here). */
export function identityThreadFor(count: number, from = IDENTITY_THREAD_FROM): IdentityThread | undefined {
  return count >= from ? IdentityThread.start() : undefined;
}

/**
 * The worker's side: rows for each chunk that comes by the port, or every row of a staged read;
 * the counter bumped after each answer.
 */
export function serveIdentities(setup: IdentitySetup): void {
  const counter = new Int32Array(setup.answered);
  const answer = (message: IdentityAnswer) => {
    setup.identities.postMessage(message);
    Atomics.add(counter, 0, 1);
    Atomics.notify(counter, 0);
  };
  setup.identities.on('message', (message: IdentityChunk | StagedRead) => {
    if ('importPk' in message) {
      readStaged(message, answer);
      return;
    }
    try {
      answer({ rows: identityRecords(message.sources, message.homeNets) });
    } catch (error) {
      answer({ error: error instanceof Error ? error.message : String(error) });
    }
  });
}

/**
 * A staged read on the worker: the rows of each chunk it claims posted in order, no more than
 * READ_AHEAD past those taken, then the end.
 */
function readStaged(read: StagedRead, answer: (message: IdentityAnswer) => void): void {
  const taken = new Int32Array(read.taken);
  const claims = ChunkClaims.of(read.claims);
  let staged: StagedEvidence | undefined;
  try {
    staged = StagedEvidence.open(read.database);
    let posted = 0;
    for (const { chunk, sources } of staged.sources(read.importPk, read.ips, STAGED_CHUNK, (k) => claims.claim(k, 'thread'))) {
      const made = identityRecords(sources, read.homeNets);
      for (let seen = Atomics.load(taken, 0); posted - seen >= READ_AHEAD; seen = Atomics.load(taken, 0)) Atomics.wait(taken, 0, seen, 1000);
      answer({ packed: packRecords(made), chunk });
      posted++;
    }
    answer({ end: true });
  } catch (error) {
    answer({ error: error instanceof Error ? error.message : String(error) });
  } finally {
    staged?.close();
  }
}
