/**
 * The desktop app's server process (bundled as dist/electron/server.cjs, run by the main process
 * in an Electron utility process): the same server as `outpost serve` — the workspaces of the
 * user-data folder, the API, `/app/` and the renderer's files — on 127.0.0.1 and a free port.
 * It tells its parent where it listens and with which token, and stops when told to.
 *
 * Plain Node: the message port is a parameter, Electron's `process.parentPort` in the app, a
 * Node IPC channel when forked by Node (tests), or any fake.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { instanceFor, VERSION } from './cli/context';
import { createAppHandler } from './app/appHandler';
import { listen, type RunningServer } from './server/http/nodeAdapter';
import { DatabaseTooNewError } from './server/store/database';
import { StorageError } from './server/store/storageErrors';
import { DataFolderError } from './workspaces/dataFolder';
import { WorkspaceError, WorkspaceHost } from './workspaces/host';
import { fileSecrets, relaySecrets, type SecretStore } from './remote/remotes';
import { parseSupervisorMessage, type ServerMessage } from './main/serverMessages';

/** The parent's end as this process sees it (Electron's ParentPort has this shape). */
export interface ParentPortLike {
  on(event: 'message', listener: (event: { data: unknown }) => void): unknown;
  postMessage(message: ServerMessage): void;
}

export interface ServerProcessOptions {
  readonly dataDir: string;
  /** The renderer's build folder, served at `/` as by `outpost serve`. */
  readonly rendererDir?: string;
  /** better-sqlite3 built for Electron (under Electron); Node's own build otherwise. */
  readonly nativeBinding?: string;
  /**
   * Where remote tokens live: `relay` — the main process keeps them with safeStorage and sends
   * them at start; `file` (default) — 0600 files in the data folder, as the CLI keeps them.
   */
  readonly secrets?: 'relay' | 'file';
}

export interface ServerProcessRun extends ServerProcessOptions {
  readonly port: ParentPortLike;
  /** Called once the server has stopped (the process exits with this code). */
  readonly exit: (code: number) => void;
  readonly log?: (line: string) => void;
}

export interface RunningServerProcess {
  readonly server: RunningServer;
  readonly host: WorkspaceHost;
  /** Close the server and the workspace, then exit(0); the stop message does the same. */
  stop(): Promise<void>;
}

/** Errors that starting again cannot cure: the user (or an upgrade) must act. */
export function isPermanentFailure(error: unknown): boolean {
  // A lost, empty or damaged database, a full or read-only disk: the user must restore, delete or free space first.
  if (error instanceof DataFolderError || error instanceof DatabaseTooNewError || error instanceof WorkspaceError || error instanceof StorageError) return true;
  const { code, message } = error as { code?: unknown; message?: unknown };
  // A native module built for another runtime, or missing: rebuilding is the cure, not retrying.
  return code === 'ERR_DLOPEN_FAILED' || (typeof message === 'string' && /NODE_MODULE_VERSION|better_sqlite3\.node/.test(message));
}

/** The tokens the main process sends right after the start (it always does, at once). */
function secretsFromMain(port: ParentPortLike, timeoutMs: number): Promise<Readonly<Record<string, string>>> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the app did not hand over the remote tokens')), timeoutMs);
    timer.unref?.();
    port.on('message', (event) => {
      const message = parseSupervisorMessage(event.data);
      if (message?.type !== 'secrets') return;
      clearTimeout(timer);
      resolve(message.secrets);
    });
  });
}

export async function runServerProcess(run: ServerProcessRun): Promise<RunningServerProcess | undefined> {
  const log = run.log ?? ((line: string) => process.stderr.write(line + '\n'));
  let host: WorkspaceHost | undefined;
  try {
    let secrets: SecretStore | undefined;
    if (run.secrets === 'relay') {
      const initial = await secretsFromMain(run.port, 10_000);
      secrets = relaySecrets(initial, (name, secret) => run.port.postMessage({ type: 'secret', name, secret }), fileSecrets(run.dataDir));
    }
    host = new WorkspaceHost({
      dataDir: run.dataDir,
      instance: instanceFor('127.0.0.1'),
      ...(run.nativeBinding ? { nativeBinding: run.nativeBinding } : {}),
      ...(secrets ? { secrets } : {}),
      sync: { auto: true, label: 'app' },
    });
    const handler = createAppHandler({ host, version: VERSION, ...(run.rendererDir ? { rendererDir: run.rendererDir } : {}) });
    const server = await listen(handler, { host: '127.0.0.1', port: 0 }, log);
    const opened = host;
    let stopping: Promise<void> | undefined;
    const stop = (): Promise<void> =>
      (stopping ??= (async () => {
        // The sync lease first: an `outpost sync` run right after the app closes finds it free.
        await opened.stopSyncing();
        await server.close();
        await opened.close();
        run.exit(0);
      })());
    run.port.on('message', (event) => {
      if (parseSupervisorMessage(event.data)?.type === 'stop') void stop();
    });
    opened.onTokenChange((token) => run.port.postMessage({ type: 'token', token }));
    run.port.postMessage({ type: 'ready', port: server.port, token: opened.token });
    return { server, host: opened, stop };
  } catch (error) {
    await host?.close();
    const message = error instanceof Error ? error.message : String(error);
    log(`the server could not start: ${message}`);
    run.port.postMessage({ type: 'failed', message, permanent: isPermanentFailure(error) });
    run.exit(1);
    return undefined;
  }
}

/** Options from the command line the main process gives the utility process. */
export function parseServerProcessArgs(args: readonly string[]): ServerProcessOptions {
  const { values } = parseArgs({
    args: [...args],
    options: { data: { type: 'string' }, renderer: { type: 'string' }, 'native-binding': { type: 'string' }, secrets: { type: 'string' } },
    strict: true,
  });
  if (!values.data) throw new Error('--data is required');
  if (values.secrets !== undefined && values.secrets !== 'relay' && values.secrets !== 'file') throw new Error('--secrets takes relay or file');
  const rendererDir = values.renderer && fs.existsSync(path.join(values.renderer, 'index.html')) ? values.renderer : undefined;
  return {
    dataDir: values.data,
    ...(rendererDir ? { rendererDir } : {}),
    ...(values['native-binding'] ? { nativeBinding: values['native-binding'] } : {}),
    ...(values.secrets === 'relay' || values.secrets === 'file' ? { secrets: values.secrets } : {}),
  };
}

/** The port this process was given: Electron's parentPort, else a Node IPC channel (fork). */
export function processParentPort(proc: NodeJS.Process = process): ParentPortLike | undefined {
  const electronPort = (proc as { parentPort?: ParentPortLike }).parentPort;
  if (electronPort) return electronPort;
  const send = proc.send?.bind(proc);
  if (!send) return undefined;
  return {
    on: (_event, listener) => proc.on('message', (data: unknown) => listener({ data })),
    postMessage: (message) => void send(message),
  };
}

function main(): void {
  const port = processParentPort();
  if (!port) {
    process.stderr.write("this is the Outpost app's server process; run `outpost serve` to serve without the app\n");
    process.exit(2);
  }
  let options: ServerProcessOptions;
  try {
    options = parseServerProcessArgs(process.argv.slice(2));
  } catch (error) {
    port.postMessage({ type: 'failed', message: (error as Error).message, permanent: true });
    process.exit(2);
  }
  // Node IPC keeps a forked process alive; exit explicitly once stopped.
  void runServerProcess({ ...options, port, exit: (code) => process.exit(code) });
}

// Started as a program, not imported (tests import runServerProcess): in a utility process Electron
// imports the entry through the ESM loader, so `require.main` is not this module there; its
// parentPort says it. Forked or run by Node, this module is the main one.
if ((process as { parentPort?: unknown }).parentPort !== undefined || require.main === module) main();
