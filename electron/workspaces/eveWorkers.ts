/**
 * Worker threads that read segments of a plain EVE file side by side (eveSegment.ts), one
 * segment each at a time. Started for one import and ended after it. Where no worker can run (no
 * worker program, a host without threads), there is no pool and the import reads its segments on
 * the main thread, the same way.
 */
import os from 'node:os';
import { Worker } from 'node:worker_threads';
import { eveWorkerCode } from '../server/http/workerSource';
import type { SegmentResult, SegmentTask } from './eveSegment';

/** What a worker answers for one segment. */
export type SegmentAnswer = { readonly result: SegmentResult } | { readonly error: string };

interface Job {
  readonly task: SegmentTask;
  readonly resolve: (result: SegmentResult) => void;
  readonly reject: (error: Error) => void;
}

export class SegmentReaders {
  private readonly idle: Worker[] = [];
  private readonly busy = new Map<Worker, Job>();
  private readonly waiting: Job[] = [];
  private failure: Error | undefined;

  private constructor(private readonly workers: readonly Worker[]) {
    for (const worker of workers) {
      this.idle.push(worker);
      worker.on('message', (answer: SegmentAnswer) => this.answered(worker, answer));
      worker.on('error', (error: Error) => this.failed(error));
      worker.on('exit', (code) => {
        if (this.busy.has(worker)) this.failed(new Error(`an EVE reader thread exited (${code}) in the middle of a segment`));
      });
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

  read(task: SegmentTask): Promise<SegmentResult> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      this.waiting.push({ task, resolve, reject });
      this.dispatch();
    });
  }

  private dispatch(): void {
    while (this.idle.length > 0 && this.waiting.length > 0) {
      const worker = this.idle.pop()!;
      const job = this.waiting.shift()!;
      this.busy.set(worker, job);
      worker.postMessage(job.task);
    }
  }

  private answered(worker: Worker, answer: SegmentAnswer): void {
    const job = this.busy.get(worker);
    if (!job) return;
    this.busy.delete(worker);
    this.idle.push(worker);
    if ('error' in answer) job.reject(new Error(answer.error));
    else job.resolve(answer.result);
    this.dispatch();
  }

  private failed(error: Error): void {
    this.failure ??= error;
    for (const job of [...this.busy.values(), ...this.waiting]) job.reject(this.failure);
    this.busy.clear();
    this.waiting.length = 0;
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((worker) => worker.terminate()));
  }
}
