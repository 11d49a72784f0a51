/**
 * Large import bodies are parsed and checked in a worker thread, so that the event loop keeps
 * answering other requests meanwhile (tens of megabytes take seconds to parse and check). The
 * handler then only writes, in one transaction. A worker is started for each body and ended
 * after it, one at a time: each may hold a large body's parse in memory, and ending it frees all.
 */
import { Worker } from 'node:worker_threads';
import { refusedImport, type PreparedImport } from '../../../shared/api/imports';
import { withEntries, type WorkerMessage } from './bodyWorkerMessages';
import { runImportJob, type ImportJob } from './importJob';
import { bodyWorkerCode } from './workerSource';

/** Bodies smaller than this are prepared at once: starting a worker costs more than parsing them. */
export const OFF_THREAD_BYTES = 256 * 1024;

export const TOO_LARGE_TO_PROCESS = 'Request body is too large to process.';

let workersUnavailable = false;
let queue: Promise<unknown> = Promise.resolve();

/**
 * The job's result; in a worker when the body is large and a worker can run here. The body's bytes
 * may be moved to the worker: the caller must not read them afterwards.
 */
export function prepareImportBody(job: ImportJob): Promise<PreparedImport> {
  const code = job.body.byteLength < OFF_THREAD_BYTES || workersUnavailable ? undefined : bodyWorkerCode();
  if (code === undefined) return Promise.resolve(runImportJob(job));
  const run = queue.then(() => inWorker(code, job));
  queue = run.catch(() => undefined);
  return run;
}

/** The bytes' ArrayBuffer when they fill it alone: it can then be moved to the worker instead of copied. */
function movableBuffer(bytes: Uint8Array): ArrayBuffer | undefined {
  const { buffer } = bytes;
  return buffer instanceof ArrayBuffer && bytes.byteOffset === 0 && bytes.byteLength === buffer.byteLength ? buffer : undefined;
}

function inWorker(code: string, job: ImportJob): Promise<PreparedImport> {
  let worker: Worker;
  try {
    worker = new Worker(code, { eval: true });
  } catch {
    // A host without worker threads: this thread does the work, now and from now on.
    workersUnavailable = true;
    return Promise.resolve(runImportJob(job));
  }
  return new Promise<PreparedImport>((resolve, reject) => {
    let settled = false;
    const settle = (finish: () => void) => {
      if (settled) return;
      settled = true;
      finish();
      void worker.terminate();
    };
    const slices: (readonly unknown[])[] = [];
    worker.on('message', (message: WorkerMessage) => {
      if ('entries' in message) slices.push(message.entries);
      else settle(() => resolve(withEntries(message.done, slices)));
    });
    worker.once('error', (error: Error & { code?: string }) =>
      settle(() =>
        // A body whose parse outgrows the worker's heap is refused; anything else is a bug.
        error.code === 'ERR_WORKER_OUT_OF_MEMORY' ? resolve(refusedImport(job.name, 413, { detail: TOO_LARGE_TO_PROCESS })) : reject(error),
      ),
    );
    worker.once('exit', (exitCode) => settle(() => reject(new Error(`the body worker exited (${exitCode}) without an answer`))));
    const moved = movableBuffer(job.body);
    worker.postMessage(job, moved ? [moved] : []);
  });
}
