/**
 * A workspace bound to a real remote (the reference server): its own data folder, the remote
 * added with the reference's token, the whole app server listening (API, /app/, /remote/), and
 * the sync run on demand (no timer) unless asked.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { SyncOptions } from '../../electron/remote/engine';
import type { SyncReport } from '../../shared/app/sync';
import type { PushMode } from '../../shared/sync/review';
import { RemoteSession, type SessionOptions } from '../../electron/remote/session';
import { createAppHandler } from '../../electron/app/appHandler';
import { listen } from '../../electron/server/http/nodeAdapter';
import { WorkspaceHost } from '../../electron/workspaces/host';
import { afterAll, beforeAll } from 'vitest';
import { Client } from './http';
import { startReference, type ReferenceServer } from './reference';
import { ADMIN_TOKEN } from './server';

export interface BoundWorkspace {
  readonly url: string;
  readonly dir: string;
  readonly host: WorkspaceHost;
  /** The local API (admin). */
  readonly api: Client;
  session(): RemoteSession;
  sync(options?: SyncOptions): Promise<SyncReport>;
  close(): Promise<void>;
}

export interface BoundOptions {
  readonly dir?: string;
  readonly workspace?: string;
  readonly remote?: string;
  readonly token?: string;
  readonly sync?: SessionOptions;
  /** Serve the renderer's build from this folder too (browser tests). */
  readonly rendererDir?: string;
  /** How a new workspace sends its changes; automatic unless told (the sync tests were written for it). */
  readonly pushMode?: PushMode;
}

export async function startBound(reference: Pick<ReferenceServer, 'url' | 'token'>, options: BoundOptions = {}): Promise<BoundWorkspace> {
  const dir = options.dir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'outpost-bound-'));
  const workspace = options.workspace ?? 'site';
  const remote = options.remote ?? 'central';
  const sync: SessionOptions = { client: { backoff: () => 20, connectTimeoutMs: 2_000, headersTimeoutMs: 10_000 }, ...(options.sync ?? {}) };
  const base = { dataDir: dir, instance: { name: 'outpost-test', version: 'test', address: '127.0.0.1' }, adminToken: ADMIN_TOKEN, sync };
  const setup = new WorkspaceHost(base);
  if (!setup.remotes.get(remote)) setup.remotes.add({ name: remote, url: reference.url }, options.token ?? reference.token);
  if (!setup.list().some((w) => w.name === workspace)) setup.create(workspace, { remote, pushMode: options.pushMode ?? 'automatic' });
  await setup.close();
  const host = new WorkspaceHost({ ...base, workspace });
  const server = await listen(createAppHandler({ host, version: 'test', ...(options.rendererDir ? { rendererDir: options.rendererDir } : {}) }), { host: '127.0.0.1', port: 0 });
  const session = (): RemoteSession => {
    const current = host.session();
    if (!(current instanceof RemoteSession)) throw new Error('the workspace is not linked to its remote');
    return current;
  };
  return {
    url: server.url,
    dir,
    host,
    api: new Client(server.url, ADMIN_TOKEN),
    session,
    sync: (opts = {}) => session().syncNow(opts),
    close: async () => {
      await server.close();
      await host.close();
      if (!options.dir) fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Local writes to a bound workspace of data folder `dir` (the CLI makes none): the workspace
 * opened in this process for a moment, written through its API, and closed.
 */
export async function writeOffline(reference: Pick<ReferenceServer, 'url' | 'token'>, dir: string, write: (api: Client) => Promise<void>): Promise<void> {
  const site = await startBound(reference, { dir });
  try {
    await write(site.api);
  } finally {
    await site.close();
  }
}

/**
 * A reference central server and a workspace bound to it, for the tests of one file: started
 * before them, stopped after (its properties are read once they have started).
 */
export function boundSiteForFile(): { readonly remote: ReferenceServer; readonly site: BoundWorkspace } {
  let remote: ReferenceServer | undefined;
  let site: BoundWorkspace | undefined;
  beforeAll(async () => {
    remote = await startReference();
    site = await startBound(remote);
  }, 60_000);
  afterAll(async () => {
    await site?.close();
    await remote?.stop();
  });
  return {
    get remote() {
      return remote!;
    },
    get site() {
      return site!;
    },
  };
}
