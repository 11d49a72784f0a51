/**
 * The EVE import's worker program (bundled on its own as eveWorker.cjs): the segments of a plain
 * EVE file, claimed in turn with the import's thread, read into evidence and counts posted back
 * (eveWorkers.ts); or, set up once with a port, chunks of hosts in and their identity rows out
 * (identityThread.ts).
 */
import { parentPort } from 'node:worker_threads';
import { readClaimed, type SegmentAnswer, type SegmentJob } from './eveWorkers';
import { serveIdentities, type IdentitySetup } from './identityThread';

parentPort?.on('message', (message: SegmentJob | IdentitySetup) => {
  if ('identities' in message) {
    serveIdentities(message);
    return;
  }
  readClaimed(message, (answer: SegmentAnswer) => parentPort?.postMessage(answer));
});
