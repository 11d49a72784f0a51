/**
 * `outpost import-eve` and the app's upload (app.md §4, §5; docs/eve.md): an EVE import runs on
 * a thread of its own (eveRun.ts, in the EVE worker program) with a connection of its own, so that
 * neither its reading nor its transactions hold the caller's event loop: the server answers
 * requests all along. This side hands it the sources, relays an upload's bytes (the upload read no
 * faster than the import takes it), its progress and a cancel, and gets the summary or the error.
 */
import { createRequire } from 'node:module';
import { receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads';
import { parseHomeNets } from '../../shared/eve/identity';
import type { EveProgress, EveSummary, IgnoredFile } from '../../shared/eve/summary';
import { eveWorkerCode } from '../server/http/workerSource';
import { databaseSource } from '../server/store/database';
import type { Services } from '../server/store/services';
import { DiskFullError, EveImportError, isDiskFull } from './eveContent';
import { runImport, type RunOptions, type RunSource } from './eveRun';

export { DiskFullError, EveImportError, MAX_LINE_BYTES } from './eveContent';
export { fileSources, NOT_AN_EVE_NAME } from './eveFiles';
export type { RunSource as EveSource } from './eveRun';
export type { EveProgress, EveSummary, IgnoredFile } from '../../shared/eve/summary';

/** The import thread's young generation, in MB: the default let the 1 GB replay's peak RSS reach 360 MB, 16 MB about 290 MB. */
const IMPORT_YOUNG_GENERATION_MB = 16;
/** Bytes of an upload relayed and not yet taken by the import: reading the upload pauses past this. */
const RELAY_AHEAD_BYTES = 4 * 1024 * 1024;

export interface EveImportOptions {
  readonly sources: readonly RunSource[];
  /** Files of folders that are not read, for the summary. */
  readonly ignored?: readonly IgnoredFile[];
  /** An upload's bytes, for each source that is no file (by its index). */
  readonly streams?: ReadonlyMap<number, AsyncIterable<Buffer>>;
  /** Home networks to set for the workspace (CIDR list) before the hosts are written. */
  readonly homeNets?: string;
  readonly onProgress?: (progress: EveProgress) => void;
  readonly signal?: AbortSignal;
  /** The history's user (the local admin unless given). */
  readonly user?: { readonly pk: number; readonly username: string };
  /** Tests: evidence held before it is staged, a segment's bytes, identities from which the helper makes them. */
  readonly batchEntries?: number;
  readonly segmentBytes?: number;
  readonly helperFrom?: number;
  /** Tests: the import on the caller's thread, or without the helper thread. */
  readonly here?: boolean;
  readonly helper?: false;
}

type FailureKind = 'input' | 'full' | 'other';
type FromImport = { readonly progress: EveProgress } | { readonly consumed: number; readonly source: number } | { readonly done: EveSummary } | { readonly failed: string; readonly kind: FailureKind };
type ToImport = { readonly chunk: Uint8Array; readonly source: number } | { readonly end: number } | { readonly aborted: number } | { readonly cancel: true };

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
  const code = workerProgram();
  const { sources, user, batchEntries, segmentBytes, helperFrom } = options;
  const helperCode = options.helper === false ? undefined : code;
  const run: RunOptions = { database, sources, ignored: options.ignored ?? [], homeNets, user, helperCode, batchEntries, segmentBytes, helperFrom };
  services.importsRunning++;
  try {
    if (code && !options.here) return await inWorker(code, run, options);
    const stream = async function* (index: number) {
      try {
        yield* options.streams!.get(index)!;
      } catch {
        throw stopped(run, index);
      }
    };
    return await runImport(run, { progress: (p) => options.onProgress?.(p), cancelled: () => options.signal?.aborted === true, stream }).catch((error: unknown) => {
      const failure = failureOf(error, database.file);
      throw errorOf(failure);
    });
  } finally {
    services.importsRunning--;
    // Written by another connection: this one's caches go, and the search index catches up.
    services.store.changedElsewhere();
  }
}

/** The home networks changed: the identity of every address the local imports saw written again, on a thread of its own. */
export async function refreshIdentities(services: Services): Promise<EveSummary> {
  return importEve(services, { sources: [] });
}

const stopped = (run: RunOptions, index: number) => new EveImportError(`the upload of ${run.sources[index]?.name ?? 'the log'} stopped before its end; nothing was imported`);

/** Run the import on its own thread: relay its streams, its progress and a cancel. */
function inWorker(code: string, run: RunOptions, options: EveImportOptions): Promise<EveSummary> {
  return new Promise<EveSummary>((resolve, reject) => {
    const worker = new Worker(code, { eval: true, workerData: { role: 'import', run }, resourceLimits: { maxYoungGenerationSizeMb: IMPORT_YOUNG_GENERATION_MB } });
    const send = (message: ToImport, transfer?: ArrayBuffer[]) => worker.postMessage(message, transfer);
    const relays = new Map<number, { ahead: number; wake?: () => void }>();
    let settled = false;
    const cancel = () => send({ cancel: true });
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      options.signal?.removeEventListener('abort', cancel);
      for (const relay of relays.values()) relay.wake?.();
      outcome();
      void worker.terminate();
    };
    options.signal?.addEventListener('abort', cancel);
    if (options.signal?.aborted) cancel();
    worker.on('message', (message: FromImport) => {
      if ('progress' in message) options.onProgress?.(message.progress);
      else if ('consumed' in message) {
        const relay = relays.get(message.source)!;
        relay.ahead -= message.consumed;
        relay.wake?.();
      } else settle(() => ('done' in message ? resolve(message.done) : reject(errorOf(message))));
    });
    worker.on('error', (error) => settle(() => reject(error)));
    worker.on('exit', (exitCode) => settle(() => reject(new Error(`the EVE import's thread ended (${exitCode})`))));
    for (const [index, stream] of options.streams ?? []) {
      const relay: { ahead: number; wake?: () => void } = { ahead: 0 };
      relays.set(index, relay);
      void (async () => {
        try {
          for await (const chunk of stream) {
            if (settled) return;
            const own = new Uint8Array(chunk);
            relay.ahead += own.length;
            send({ chunk: own, source: index }, [own.buffer]);
            while (relay.ahead > RELAY_AHEAD_BYTES && !settled) await new Promise<void>((wake) => (relay.wake = wake));
          }
          send({ end: index });
        } catch {
          // The upload stopped before its end (the connection dropped, the user cancelled).
          if (!settled) send({ aborted: index });
        }
      })();
    }
  });
}

/** The import thread's side: run the import, its streams fed by the messages that come. */
export function serveImport(run: RunOptions, port: MessagePort): void {
  let cancelled = false;
  const streams = new Map<number, { chunks: Buffer[]; ended?: true; aborted?: true; wake?: () => void }>();
  const stateOf = (index: number) => streams.get(index) ?? streams.set(index, { chunks: [] }).get(index)!;
  const handle = (message: ToImport) => {
    if ('cancel' in message) cancelled = true;
    else {
      const state = stateOf('chunk' in message ? message.source : 'end' in message ? message.end : message.aborted);
      if ('chunk' in message) state.chunks.push(Buffer.from(message.chunk.buffer, message.chunk.byteOffset, message.chunk.byteLength));
      else if ('end' in message) state.ended = true;
      else state.aborted = true;
    }
    for (const state of streams.values()) state.wake?.();
  };
  port.on('message', handle);
  // The messages that came are taken at once: a cancel is heard without waiting for a turn of the event loop.
  const take = () => {
    for (let received = receiveMessageOnPort(port); received; received = receiveMessageOnPort(port)) handle(received.message as ToImport);
  };
  async function* stream(index: number): AsyncGenerator<Buffer> {
    const state = stateOf(index);
    for (;;) {
      const chunk = state.chunks.shift();
      if (chunk) {
        port.postMessage({ consumed: chunk.length, source: index } satisfies FromImport);
        yield chunk;
      } else if (cancelled) throw new EveImportError('the import was cancelled; nothing was imported');
      else if (state.aborted) throw stopped(run, index);
      else if (state.ended) return;
      else await new Promise<void>((wake) => (state.wake = wake));
    }
  }
  runImport(run, { progress: (progress) => port.postMessage({ progress } satisfies FromImport), cancelled: () => (take(), cancelled), stream }).then(
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
