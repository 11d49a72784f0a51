/**
 * `outpost import-eve` and the app's upload (app.md §4, §5; docs/eve.md): an EVE import runs on
 * a thread of its own (eveRun.ts, in the EVE worker program), with a connection of its own, so
 * that neither its reading nor its final transactions hold the caller's event loop: the server
 * answers requests all along. This side hands it the sources, relays an upload's bytes (with
 * backpressure: the upload is read no faster than it is imported), its progress and a cancel, and
 * gets the summary or the error. Where no worker can run, the same import runs here.
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

export { DiskFullError, EveImportError } from './eveContent';
export { fileSources, NOT_AN_EVE_NAME } from './eveFiles';
export { MAX_LINE_BYTES } from './eveContent';
export type { RunSource as EveSource } from './eveRun';
export type { EveProgress, EveSummary, IgnoredFile } from '../../shared/eve/summary';

/**
 * The import thread's young generation, in MB: each segment parsed makes tens of MB of short-lived
 * objects; the default let the 1 GB replay's peak RSS reach 360 MB, 16 MB about 290 MB, 8 MB 275 MB.
 */
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
  /** Tests: evidence entries held before they are staged, a segment's bytes, pending identities from which the helper makes them. */
  readonly batchEntries?: number;
  readonly segmentBytes?: number;
  readonly helperFrom?: number;
  /**
   * Run the import on the caller's thread (the command, which has nothing else to do meanwhile: a
   * thread less, and its start spared); the server never does, so that it answers all along.
   */
  readonly here?: boolean;
  /** Without the helper thread (tests of the import done by one thread alone). */
  readonly helper?: false;
}

/** What the import thread says. */
type FromImport =
  | { readonly progress: EveProgress }
  | { readonly consumed: number; readonly source: number }
  | { readonly done: EveSummary }
  | { readonly failed: string; readonly kind: FailureKind };

/** How an import failed: its input, a full disk, or anything else. */
type FailureKind = 'input' | 'full' | 'other';

/** What it is told. */
type ToImport = { readonly chunk: Uint8Array; readonly source: number } | { readonly end: number } | { readonly aborted: number } | { readonly cancel: true };

/** The worker program, with `require` resolving from here (an evaluated worker resolves nothing itself; better-sqlite3 is beside this code). */
export function workerProgram(): string | undefined {
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
  services.importsRunning++;
  const run: RunOptions = {
    database,
    sources: options.sources,
    ignored: options.ignored ?? [],
    ...(homeNets ? { homeNets } : {}),
    ...(options.user ? { user: options.user } : {}),
    ...(code && options.helper !== false ? { helperCode: code } : {}),
    ...(options.batchEntries ? { batchEntries: options.batchEntries } : {}),
    ...(options.segmentBytes ? { segmentBytes: options.segmentBytes } : {}),
    ...(options.helperFrom ? { helperFrom: options.helperFrom } : {}),
  };
  try {
    if (code === undefined || options.here) {
      const io = { progress: (p: EveProgress) => options.onProgress?.(p), cancelled: () => options.signal?.aborted === true, stream: (index: number) => upload(options, index) };
      return await runImport(run, io).catch((error: unknown) => {
        const failure = failureOf(error, database.file);
        throw errorOf(failure.failed, failure.kind);
      });
    }
    return await inWorker(code, run, options);
  } finally {
    services.importsRunning--;
    // Written by another connection: this one's caches go, and the search index catches up.
    services.store.changedElsewhere();
  }
}

/** An upload's bytes; one that stops before its end is an error of its input. */
async function* upload(options: EveImportOptions, index: number): AsyncGenerator<Buffer> {
  const stream = options.streams?.get(index);
  if (!stream) throw new Error(`source ${index} is no file and has no stream`);
  try {
    yield* stream;
  } catch {
    throw new EveImportError(`the upload of ${options.sources[index]?.name ?? 'the log'} stopped before its end; nothing was imported`);
  }
}

/** Run the import on its own thread: relay its streams, its progress and a cancel. */
function inWorker(code: string, run: RunOptions, options: EveImportOptions): Promise<EveSummary> {
  return new Promise<EveSummary>((resolve, reject) => {
    const worker = new Worker(code, { eval: true, workerData: { role: 'import', run }, resourceLimits: { maxYoungGenerationSizeMb: IMPORT_YOUNG_GENERATION_MB } });
    const send = (message: ToImport, transfer?: ArrayBuffer[]) => worker.postMessage(message, transfer);
    const relays = new Map<number, { ahead: number; wake: (() => void) | undefined }>();
    let settled = false;
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      options.signal?.removeEventListener('abort', cancel);
      for (const relay of relays.values()) relay.wake?.();
      outcome();
      void worker.terminate();
    };
    const cancel = () => send({ cancel: true });
    options.signal?.addEventListener('abort', cancel);
    if (options.signal?.aborted) cancel();
    worker.on('message', (message: FromImport) => {
      if ('progress' in message) options.onProgress?.(message.progress);
      else if ('consumed' in message) {
        const relay = relays.get(message.source);
        if (relay) {
          relay.ahead -= message.consumed;
          relay.wake?.();
        }
      } else if ('done' in message) settle(() => resolve(message.done));
      else settle(() => reject(errorOf(message.failed, message.kind)));
    });
    worker.on('error', (error) => settle(() => reject(error)));
    worker.on('exit', (exitCode) => settle(() => reject(new Error(`the EVE import's thread ended (${exitCode})`))));
    for (const [index, stream] of options.streams ?? new Map<number, AsyncIterable<Buffer>>()) {
      const relay = { ahead: 0, wake: undefined as (() => void) | undefined };
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

/**
 * Write the identities waiting (the home networks changed: every address with local evidence) on
 * a thread of its own; how many hosts changed.
 */
export async function refreshIdentities(services: Services): Promise<{ hostsCreated: number; hostsUpdated: number }> {
  const database = databaseSource(services.store.db);
  const code = workerProgram();
  services.importsRunning++;
  try {
    if (!database || code === undefined) {
      const before = services.hosts.count();
      const { changed } = services.hosts.refreshPending();
      const created = services.hosts.count() - before;
      return { hostsCreated: created, hostsUpdated: changed - created };
    }
    return await new Promise((resolve, reject) => {
      const worker = new Worker(code, { eval: true, workerData: { role: 'refresh', database, helperCode: code } });
      worker.once('message', (message: { done: { hostsCreated: number; hostsUpdated: number } } | { failed: string }) => {
        void worker.terminate();
        if ('done' in message) resolve(message.done);
        else reject(new Error(message.failed));
      });
      worker.once('error', reject);
    });
  } finally {
    services.importsRunning--;
    services.store.changedElsewhere();
  }
}

/** The import thread's side: run the import, its streams fed by the messages that come. */
export function serveImport(run: RunOptions, port: MessagePort): void {
  let stopped = false;
  const streams = new Map<number, { chunks: Buffer[]; ended: boolean; aborted: boolean; wake: (() => void) | undefined }>();
  const streamState = (index: number) => {
    let state = streams.get(index);
    if (!state) streams.set(index, (state = { chunks: [], ended: false, aborted: false, wake: undefined }));
    return state;
  };
  const handle = (message: ToImport) => {
    if ('cancel' in message) {
      stopped = true;
      for (const state of streams.values()) state.wake?.();
      return;
    }
    const state = streamState('chunk' in message ? message.source : 'end' in message ? message.end : message.aborted);
    if ('chunk' in message) state.chunks.push(Buffer.from(message.chunk.buffer, message.chunk.byteOffset, message.chunk.byteLength));
    else if ('end' in message) state.ended = true;
    else state.aborted = true;
    state.wake?.();
  };
  port.on('message', handle);
  /** Take the messages that came (a cancel is heard at once, not at the next turn of the event loop). */
  const take = () => {
    for (let received = receiveMessageOnPort(port); received; received = receiveMessageOnPort(port)) handle(received.message as ToImport);
  };
  async function* stream(index: number): AsyncGenerator<Buffer> {
    const state = streamState(index);
    for (;;) {
      const chunk = state.chunks.shift();
      if (chunk) {
        port.postMessage({ consumed: chunk.length, source: index });
        yield chunk;
        continue;
      }
      if (stopped) throw new EveImportError('the import was cancelled; nothing was imported');
      if (state.aborted) throw new EveImportError(`the upload of ${run.sources[index]?.name ?? 'the log'} stopped before its end; nothing was imported`);
      if (state.ended) return;
      await new Promise<void>((wake) => (state.wake = wake));
      state.wake = undefined;
    }
  }
  runImport(run, { progress: (progress) => port.postMessage({ progress }), cancelled: () => (take(), stopped), stream }).then(
    (done) => port.postMessage({ done }),
    (error: unknown) => port.postMessage(failureOf(error, run.database.file)),
  );
}

/** An import's error as the thread tells it: the disk named when it is full (SQLite's own words say nothing of it). */
function failureOf(error: unknown, file: string): { failed: string; kind: FailureKind } {
  const message = error instanceof Error ? error.message : String(error);
  if (isDiskFull(error)) return { failed: `the disk holding ${file} is full (${message}): nothing was imported; free some space there and import again`, kind: 'full' };
  return { failed: message, kind: error instanceof EveImportError ? 'input' : 'other' };
}

function errorOf(message: string, kind: FailureKind): Error {
  return kind === 'input' ? new EveImportError(message) : kind === 'full' ? new DiskFullError(message) : new Error(message);
}
