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

/** What the worker is given once: the port chunks come by, and the counter it bumps after each answer. */
export interface IdentitySetup {
  readonly identities: MessagePort;
  readonly answered: SharedArrayBuffer;
}

export interface IdentityChunk {
  readonly sources: readonly IdentitySource[];
  readonly homeNets: readonly string[];
}

export type IdentityAnswer = { readonly rows: IdentityRecord[] } | { readonly error: string };

/** Addresses to write from which their identities are made on a thread (fewer: not worth starting one). */
const IDENTITY_THREAD_FROM = 4096;
/** How long a chunk's rows are waited for before the thread is given up (a chunk takes milliseconds). */
const ANSWER_TIMEOUT_MS = 10_000;

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
      worker = new Worker(code, { eval: true, resourceLimits: { maxYoungGenerationSizeMb: 8 } });
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

/** The worker's side: rows for each chunk that comes by the port, the counter bumped after each answer. */
export function serveIdentities(setup: IdentitySetup): void {
  const counter = new Int32Array(setup.answered);
  setup.identities.on('message', (chunk: IdentityChunk) => {
    let answer: IdentityAnswer;
    try {
      answer = { rows: identityRecords(chunk.sources, chunk.homeNets) };
    } catch (error) {
      answer = { error: error instanceof Error ? error.message : String(error) };
    }
    setup.identities.postMessage(answer);
    Atomics.add(counter, 0, 1);
    Atomics.notify(counter, 0);
  });
}
