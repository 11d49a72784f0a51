/**
 * The EVE import's worker program (bundled on its own as eveWorker.cjs): segments of a plain EVE
 * file in, their evidence and counts out (eveSegment.ts), one at a time; or, set up once with a
 * port, chunks of hosts in and their identity rows out (identityThread.ts).
 */
import { parentPort } from 'node:worker_threads';
import { readSegment, type SegmentTask } from './eveSegment';
import type { SegmentAnswer } from './eveWorkers';
import { serveIdentities, type IdentitySetup } from './identityThread';

parentPort?.on('message', (message: SegmentTask | IdentitySetup) => {
  if ('identities' in message) {
    serveIdentities(message);
    return;
  }
  let answer: SegmentAnswer;
  try {
    answer = { result: readSegment(message) };
  } catch (error) {
    answer = { error: error instanceof Error ? error.message : String(error) };
  }
  parentPort?.postMessage(answer);
});
