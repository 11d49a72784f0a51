/**
 * `outpost import-eve` and the app's upload (app.md §4, §5; docs/eve.md): an EVE import runs on
 * a thread of its own (eveRun.ts, in the EVE worker program) with a connection of its own, so that
 * neither its reading nor its transactions hold the caller's event loop: the server answers
 * requests all along. An upload is first received into a file beside the workspace's database
 * (eveSpool.ts), then imported as any file is; this side hands the thread the sources, its
 * progress and a cancel, and gets the summary or the error.
 */
import { createRequire } from 'node:module';
import { receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads';
import { parseHomeNets } from '../../shared/eve/identity';
import type { EveProgress, EveSummary, IgnoredFile } from '../../shared/eve/summary';
import { eveWorkerCode } from '../server/http/workerSource';
import { databaseSource } from '../server/store/database';
import type { Services } from '../server/store/services';
import { DiskFullError, EveImportError, isDiskFull } from './eveContent';
import { EVE_HEAP_MB } from './eveHelper';
import { runImport, type RunOptions, type RunSource } from './eveRun';
import { removeAll, spoolUploads, type SpoolWatch } from './eveSpool';

export { DiskFullError, EveImportError, MAX_LINE_BYTES } from './eveContent';
export { fileSources, NOT_AN_EVE_NAME } from './eveFiles';
export type { RunSource as EveSource } from './eveRun';
export type { EveProgress, EveSummary, IgnoredFile } from '../../shared/eve/summary';

/** The import thread's young generation, in MB: the default let the 1 GB replay's peak RSS reach 360 MB, 16 MB about 290 MB. */
const IMPORT_YOUNG_GENERATION_MB = 16;

/** What an import is given: its sources (files, or uploads: no `file`, their bytes in `streams` by index)… */
export interface EveImportOptions extends SpoolWatch, Pick<RunOptions, 'user' | 'visitUser' | 'batchEntries' | 'segmentBytes' | 'helperFrom'> {
  readonly sources: readonly (Omit<RunSource, 'file'> & { readonly file?: string })[];
  /** Files of folders that are not read, for the summary. */
  readonly ignored?: readonly IgnoredFile[];
  /** Home networks to set for the workspace (CIDR list) before the hosts are written. */
  readonly homeNets?: string;
  /** Tests: the import on the caller's thread, or without the helper thread. */
  readonly here?: boolean;
  readonly helper?: false;
}

type FailureKind = 'input' | 'full' | 'other';
type FromImport = { readonly progress: EveProgress } | { readonly done: EveSummary } | { readonly failed: string; readonly kind: FailureKind };

/** The worker program, `require` resolving from here (an evaluated worker resolves nothing itself; better-sqlite3 is beside this code). */
function workerProgram(): string | undefined {
  const code = eveWorkerCode();
  return code === undefined ? undefined : `(function (require) {${code}\n})(require('node:module').createRequire(${JSON.stringify(createRequire(__filename).resolve('better-sqlite3'))}));`;
}

/** Import EVE sources into the open workspace's host evidence; the summary, or an EveImportError. */
export async function importEve(services: Services, options: EveImportOptions): Promise<EveSummary> {
  let homeNets: string[] | undefined;
  if (options.homeNets !== undefined) {
    const parsed = parseHomeNets(options.homeNets);
    if ('error' in parsed) throw new EveImportError(`--home-net: ${parsed.error}`);
    homeNets = parsed.networks.map((network) => network.text);
  }
  const database = databaseSource(services.store.db);
  if (!database) throw new Error('an EVE import needs a workspace on disk');
  services.importsRunning++;
  const spooled: string[] = [];
  try {
    const sources = await spoolUploads(database.file, options.sources, options, spooled);
    const code = workerProgram();
    const { user, visitUser, batchEntries, segmentBytes, helperFrom } = options;
    const helperCode = options.helper === false ? undefined : code;
    const run: RunOptions = { database, sources, ignored: options.ignored ?? [], homeNets, user, ...(visitUser === undefined ? {} : { visitUser }), helperCode, batchEntries, segmentBytes, helperFrom };
    if (code && !options.here) return await inWorker(code, run, options);
    return await runImport(run, { progress: (p) => options.onProgress?.(p), cancelled: () => options.signal?.aborted === true }).catch((error: unknown) => {
      throw errorOf(failureOf(error, database.file));
    });
  } finally {
    await removeAll(spooled);
    services.importsRunning--;
    // Written by another connection: this one's caches go, and the search index catches up.
    services.store.changedElsewhere();
  }
}

/** The home networks changed: the identity of every address the local imports saw written again, on a thread of its own. */
export async function refreshIdentities(services: Services): Promise<EveSummary> {
  return importEve(services, { sources: [] });
}

/** Run the import on its own thread: relay its progress and a cancel. */
function inWorker(code: string, run: RunOptions, options: EveImportOptions): Promise<EveSummary> {
  return new Promise<EveSummary>((resolve, reject) => {
    const resourceLimits = { maxYoungGenerationSizeMb: IMPORT_YOUNG_GENERATION_MB, maxOldGenerationSizeMb: EVE_HEAP_MB };
    const worker = new Worker(code, { eval: true, workerData: { role: 'import', run }, resourceLimits });
    let settled = false;
    const cancel = () => worker.postMessage('cancel');
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      options.signal?.removeEventListener('abort', cancel);
      outcome();
      void worker.terminate();
    };
    options.signal?.addEventListener('abort', cancel);
    if (options.signal?.aborted) cancel();
    worker.on('message', (message: FromImport) => {
      if ('progress' in message) options.onProgress?.(message.progress);
      else settle(() => ('done' in message ? resolve(message.done) : reject(errorOf(message))));
    });
    worker.on('error', (error: Error & { code?: string }) => {
      const outOfMemory = error.code === 'ERR_WORKER_OUT_OF_MEMORY';
      settle(() => reject(outOfMemory ? new Error(`the EVE import ran out of its ${EVE_HEAP_MB} MB of memory (${error.message}); nothing was imported`) : error));
    });
    worker.on('exit', (exitCode) => settle(() => reject(new Error(`the EVE import's thread ended (${exitCode})`))));
  });
}

/** The import thread's side: run the import; a cancel is heard as soon as it is sent. */
export function serveImport(run: RunOptions, port: MessagePort): void {
  let cancelled = false;
  port.on('message', () => (cancelled = true));
  // The messages that came are taken at once: a cancel is heard without waiting for a turn of the event loop.
  const heard = () => {
    while (receiveMessageOnPort(port)) cancelled = true;
    return cancelled;
  };
  runImport(run, { progress: (progress) => port.postMessage({ progress } satisfies FromImport), cancelled: heard }).then(
    (done) => port.postMessage({ done } satisfies FromImport),
    (error: unknown) => port.postMessage(failureOf(error, run.database.file) satisfies FromImport),
  );
}

/** An import's error as the thread tells it: a full disk named as such (SQLite's own words say nothing of the disk). */
function failureOf(error: unknown, file: string): { failed: string; kind: FailureKind } {
  const message = error instanceof Error ? error.message : String(error);
  if (isDiskFull(error)) return { failed: `the disk holding ${file} is full (${message}): nothing was imported; free some space there and import again`, kind: 'full' };
  return { failed: message, kind: error instanceof EveImportError ? 'input' : 'other' };
}

function errorOf({ failed, kind }: { failed: string; kind: FailureKind }): Error {
  return kind === 'input' ? new EveImportError(failed) : kind === 'full' ? new DiskFullError(failed) : new Error(failed);
}
