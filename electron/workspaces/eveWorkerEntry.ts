/**
 * The EVE import's worker program (bundled on its own as eveWorker.cjs): segments of a plain EVE
 * file in, their evidence and counts out (eveSegment.ts), one at a time.
 */
import { parentPort } from 'node:worker_threads';
import { readSegment, type SegmentTask } from './eveSegment';
import type { SegmentAnswer } from './eveWorkers';

parentPort?.on('message', (task: SegmentTask) => {
  let answer: SegmentAnswer;
  try {
    answer = { result: readSegment(task) };
  } catch (error) {
    answer = { error: error instanceof Error ? error.message : String(error) };
  }
  parentPort?.postMessage(answer);
});
