/**
 * A workspace bundle's import and export on a thread of their own (the bundle worker program,
 * bundleWorkerEntry.ts), so that neither holds the server's event loop: checking a bundle of
 * 100k rows and writing it takes seconds, reading and rendering a large workspace too, and other
 * requests are answered all along. The bytes cross between threads moved, not copied; a bundle
 * crosses as those bytes only, never as objects (a structured clone of its rows would hold the
 * receiving thread for about as long as the work). Where no worker program can run, the work is
 * done on the caller's thread (bundleWork.ts).
 */
import { createRequire } from 'node:module';
import { Worker, type MessagePort } from 'node:worker_threads';
import type { ImportedAccounts } from '../../shared/app/importedAccounts';
import { bundleWorkerCode } from '../server/http/workerSource';
import { StorageError, type StorageFault } from '../server/store/storageErrors';
import { BundleError, BundleSyntaxError, BundleUnnamedError } from './bundle';
import { exportWork, importWork, type ExportJob, type ImportJob } from './bundleWork';

/** What the thread is started for: its job, and an import's bytes (moved to it). */
export type BundleTask = { readonly task: 'import'; readonly job: ImportJob; readonly bytes: Uint8Array } | { readonly task: 'export'; readonly job: ExportJob };

/** A failure as it crosses back: each kind becomes the error the caller's thread would have thrown. */
type Failure =
  | { readonly kind: 'syntax'; readonly reason: string }
  | { readonly kind: 'unnamed' }
  | { readonly kind: 'refused'; readonly message: string }
  | { readonly kind: 'storage'; readonly message: string; readonly fault: StorageFault; readonly file: string }
  | { readonly kind: 'other'; readonly message: string };

type FromThread = { readonly named: string } | { readonly imported: ImportedAccounts } | { readonly exported: Uint8Array } | { readonly failed: Failure };
type ToThread = { readonly go: true };

function failureOf(error: unknown): Failure {
  if (error instanceof BundleSyntaxError) return { kind: 'syntax', reason: error.reason };
  if (error instanceof BundleUnnamedError) return { kind: 'unnamed' };
  if (error instanceof BundleError) return { kind: 'refused', message: error.message };
  if (error instanceof StorageError) return { kind: 'storage', message: error.message, fault: error.fault, file: error.file };
  return { kind: 'other', message: error instanceof Error ? error.message : String(error) };
}

function errorOf(failure: Failure): Error {
  switch (failure.kind) {
    case 'syntax':
      return new BundleSyntaxError(failure.reason);
    case 'unnamed':
      return new BundleUnnamedError();
    case 'refused':
      return new BundleError(failure.message);
    case 'storage':
      return new StorageError(failure.message, failure.fault, failure.file);
    case 'other':
      return new Error(failure.message);
  }
}

/** The worker program, `require` resolving from here (an evaluated worker resolves nothing itself; better-sqlite3 is beside this code). */
function workerProgram(): string | undefined {
  const code = bundleWorkerCode();
  return code === undefined ? undefined : `(function (require) {${code}\n})(require('node:module').createRequire(${JSON.stringify(createRequire(__filename).resolve('better-sqlite3'))}));`;
}

/** The bytes' ArrayBuffer when they fill it alone: it can then be moved instead of copied. */
function movable(bytes: Uint8Array): ArrayBuffer[] {
  const { buffer } = bytes;
  return buffer instanceof ArrayBuffer && bytes.byteOffset === 0 && bytes.byteLength === buffer.byteLength ? [buffer] : [];
}

/**
 * Import a bundle (see importWork) on the bundle thread. `named` is called on this thread with the
 * workspace's name before anything is checked or written; it refuses the name by throwing, which
 * ends the thread and rejects with its error. `bytes` may be moved: the caller must not read them
 * afterwards. Once this settles, the thread has ended (its connection closed).
 */
export function importOnThread(job: ImportJob, bytes: Uint8Array, named: (name: string) => void): Promise<ImportedAccounts> {
  const code = workerProgram();
  if (code === undefined) return importWork(job, bytes, async (name) => named(name));
  return onThread<ImportedAccounts>(code, { task: 'import', job, bytes }, movable(bytes), (message, worker) => {
    if ('named' in message) {
      named(message.named);
      worker.postMessage({ go: true } satisfies ToThread);
      return undefined;
    }
    return 'imported' in message ? { value: message.imported } : undefined;
  });
}

/** A workspace's bundle file (see exportWork), made on the bundle thread. */
export function exportOnThread(job: ExportJob): Promise<Uint8Array> {
  const code = workerProgram();
  if (code === undefined) return Promise.resolve().then(() => exportWork(job));
  return onThread<Uint8Array>(code, { task: 'export', job }, [], (message) => ('exported' in message ? { value: message.exported } : undefined));
}

/** Run a task on a new bundle thread; `answer` reads its messages (the result, or undefined while there is none yet). */
function onThread<T>(code: string, task: BundleTask, transferList: ArrayBuffer[], answer: (message: FromThread, worker: Worker) => { value: T } | undefined): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const worker = new Worker(code, { eval: true, workerData: task, transferList });
    let settled = false;
    // The thread has ended before the caller hears of it: its connection is closed, its files can be removed.
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      void worker.terminate().finally(outcome);
    };
    worker.on('message', (message: FromThread) => {
      try {
        if ('failed' in message) return settle(() => reject(errorOf(message.failed)));
        const result = answer(message, worker);
        if (result) settle(() => resolve(result.value));
      } catch (error) {
        settle(() => reject(error));
      }
    });
    worker.on('error', (error: Error & { code?: string }) => {
      const outOfMemory = error.code === 'ERR_WORKER_OUT_OF_MEMORY';
      settle(() => reject(outOfMemory ? new BundleError(`the bundle is too large to ${task.task} here (${error.message}); nothing was changed`) : error));
    });
    worker.on('exit', (exitCode) => settle(() => reject(new Error(`the bundle's thread ended (${exitCode}) before its answer`))));
  });
}

/** The bundle thread's side: do the task, tell its outcome (an import's name first, and wait to be let on). */
export function serveBundleTask(task: BundleTask, port: MessagePort): void {
  const fail = (error: unknown) => port.postMessage({ failed: failureOf(error) } satisfies FromThread);
  if (task.task === 'export') {
    try {
      const exported = exportWork(task.job);
      port.postMessage({ exported } satisfies FromThread, movable(exported));
    } catch (error) {
      fail(error);
    }
    return;
  }
  const letOn = () => new Promise<void>((resolve) => port.once('message', (_message: ToThread) => resolve()));
  importWork(task.job, task.bytes, async (name) => {
    port.postMessage({ named: name } satisfies FromThread);
    await letOn();
  }).then((imported) => port.postMessage({ imported } satisfies FromThread), fail);
}
