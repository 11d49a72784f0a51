/**
 * The EVE worker program (bundled on its own as eveWorker.cjs, started by eveImport.ts): an
 * import's own thread (eveRun.ts), its helper thread (eveHelper.ts), or the thread that writes the
 * identities waiting after the home networks changed.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { serveHelper, type HelperSetup } from './eveHelper';
import { serveImport } from './eveImport';
import { runRefresh, type RunOptions } from './eveRun';
import type { DatabaseSource } from '../server/store/database';

type Role = { readonly role: 'import'; readonly run: RunOptions } | { readonly role: 'helper'; readonly setup: HelperSetup } | { readonly role: 'refresh'; readonly database: DatabaseSource; readonly helperCode?: string };

const role = workerData as Role;
const port = parentPort;
if (port) {
  if (role.role === 'import') serveImport(role.run, port);
  else if (role.role === 'helper') serveHelper(role.setup, port);
  else
    runRefresh(role.database, role.helperCode).then(
      (done) => port.postMessage({ done }),
      (error: unknown) => port.postMessage({ failed: error instanceof Error ? error.message : String(error) }),
    );
}
