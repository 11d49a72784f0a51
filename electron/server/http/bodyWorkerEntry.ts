/**
 * The body worker's program (bundled on its own as bodyWorker.cjs): one import job in, its
 * prepared result out, the entries in slices (bodyWorkerMessages.ts). It holds no state; a worker
 * is started for each large body.
 */
import { parentPort } from 'node:worker_threads';
import { messagesOf } from './bodyWorkerMessages';
import { runImportJob, type ImportJob } from './importJob';

parentPort?.once('message', (job: ImportJob) => {
  for (const message of messagesOf(runImportJob(job))) parentPort?.postMessage(message);
});
