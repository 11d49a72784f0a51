/**
 * Worker threads that read the segments of a plain EVE file (eveSegment.ts) beside the import's
 * own thread. For each file, every thread claims the next segment through shared counters
 * (segmentClaims.ts) as soon as it is free and posts its result; the import takes the results in
 * file order. Started for one import and ended after it. Where no worker can run (no worker
 * program, a host without threads), there is no pool and the import reads every segment itself,
 * the same way.
 */
import os from 'node:os';
import { Worker } from 'node:worker_threads';
import { eveWorkerCode } from '../server/http/workerSource';
import { readSegment, type SegmentResult, type SegmentTask } from './eveSegment';
import { SegmentClaims } from './segmentClaims';

/** One file's segments, given to every worker: claimed in turn through `shared`. */
export interface SegmentJob {
  readonly job: number;
  readonly tasks: readonly SegmentTask[];
  readonly shared: SharedArrayBuffer;
  readonly ahead: number;
}

/** What a worker posts for each segment it claimed. */
export type SegmentAnswer =
  | { readonly job: number; readonly index: number; readonly result: SegmentResult }
  | { readonly job: number; readonly index: number; readonly error: string };

/** A worker's side of a job: claim, read and post, until no segment is left to claim. */
export function readClaimed(job: SegmentJob, post: (answer: SegmentAnswer) => void): void {
  const claims = SegmentClaims.of(job.shared, job.tasks.length, job.ahead);
  for (;;) {
    const index = claims.claim(true);
    if (typeof index !== 'number') return;
    try {
      post({ job: job.job, index, result: readSegment(job.tasks[index]!) });
    } catch (error) {
      post({ job: job.job, index, error: error instanceof Error ? error.message : String(error) });
      return;
    }
  }
}

/** The workers' results of one file, as they come. */
export class SharedRead {
  private readonly answers = new Map<number, SegmentResult>();
  private failure: Error | undefined;
  private wake: (() => void) | undefined;

  constructor(readonly job: number) {}

  /** The result of segment `index` if a worker has posted it (then forgotten here); a worker's failure is thrown. */
  take(index: number): SegmentResult | undefined {
    if (this.failure) throw this.failure;
    const result = this.answers.get(index);
    this.answers.delete(index);
    return result;
  }

  /** Until the next result or failure comes. */
  next(): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve) => {
      this.wake = resolve;
    });
  }

  answered(answer: SegmentAnswer): void {
    if ('error' in answer) this.failed(new Error(answer.error));
    else this.answers.set(answer.index, answer.result);
    this.woken();
  }

  failed(error: Error): void {
    this.failure ??= error;
    this.woken();
  }

  private woken(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }
}

export class SegmentReaders {
  private jobs = 0;
  private current: SharedRead | undefined;
  private failure: Error | undefined;
  private closing = false;

  private constructor(private readonly workers: readonly Worker[]) {
    for (const worker of workers) {
      worker.on('message', (answer: SegmentAnswer) => {
        if (answer.job === this.current?.job) this.current.answered(answer);
      });
      worker.on('error', (error: Error) => this.failed(error));
      worker.on('exit', (code) => this.failed(new Error(`an EVE reader thread exited (${code})`)));
    }
  }

  /** As many readers as the machine has cores (at most `limit`), or undefined when no worker can run here. */
  static start(limit = 4): SegmentReaders | undefined {
    const code = eveWorkerCode();
    if (code === undefined) return undefined;
    const count = Math.max(1, Math.min(limit, os.availableParallelism()));
    const workers: Worker[] = [];
    try {
      // Small heaps: a segment's garbage is short-lived, and the import's memory stays bounded.
      for (let n = 0; n < count; n++) workers.push(new Worker(code, { eval: true, resourceLimits: { maxYoungGenerationSizeMb: 8 } }));
    } catch {
      for (const worker of workers) void worker.terminate();
      return undefined;
    }
    return new SegmentReaders(workers);
  }

  get size(): number {
    return this.workers.length;
  }

  /** The workers join the reading of these segments, claimed through `claims`; their results come to the SharedRead. */
  share(tasks: readonly SegmentTask[], claims: SegmentClaims): SharedRead {
    const read = new SharedRead(++this.jobs);
    this.current = read;
    if (this.failure) read.failed(this.failure);
    else {
      const job: SegmentJob = { job: read.job, tasks, shared: claims.shared, ahead: claims.ahead };
      for (const worker of this.workers) worker.postMessage(job);
    }
    return read;
  }

  private failed(error: Error): void {
    if (this.closing) return;
    this.failure ??= error;
    this.current?.failed(this.failure);
  }

  async close(): Promise<void> {
    this.closing = true;
    await Promise.all(this.workers.map((worker) => worker.terminate()));
  }
}
