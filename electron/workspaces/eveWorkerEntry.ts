/**
 * The EVE worker program (bundled on its own as eveWorker.cjs, started by eveImport.ts): an
 * import's own thread (eveRun.ts) or its helper thread (eveHelper.ts).
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { DatabaseSource } from '../server/store/database';
import { serveHelper } from './eveHelper';
import { serveImport } from './eveImport';
import type { RunOptions } from './eveRun';

const role = workerData as { readonly role: 'import'; readonly run: RunOptions } | { readonly role: 'helper'; readonly database: DatabaseSource };
if (parentPort) {
  if (role.role === 'import') serveImport(role.run, parentPort);
  else serveHelper(role.database, parentPort);
}
