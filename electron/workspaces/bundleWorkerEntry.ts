/**
 * The bundle worker program (bundled on its own as bundleWorker.cjs, started by bundleThread.ts):
 * one workspace bundle's import or export, then it ends.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { serveBundleTask, type BundleTask } from './bundleThread';

if (parentPort) serveBundleTask(workerData as BundleTask, parentPort);
