/** A real Outpost server on a real SQLite file in a temporary folder, listening on a free port. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { listen } from '../../electron/server/http/nodeAdapter';
import type { TlsMaterial } from '../../electron/server/http/tls';
import { createAppHandler } from '../../electron/app/appHandler';
import { openWorkspace, type OpenedWorkspace } from '../../electron/workspaces/openWorkspace';
import { WorkspaceHost } from '../../electron/workspaces/host';
import { Client } from './http';

export const ADMIN_TOKEN = 'a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0';

export interface TestServer {
  readonly url: string;
  readonly dir: string;
  readonly file: string;
  readonly workspace: OpenedWorkspace;
  /** Admin client. */
  readonly api: Client;
  close(): Promise<void>;
}

export async function startServer(options: { tls?: TlsMaterial; dir?: string } = {}): Promise<TestServer> {
  const dir = options.dir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'outpost-test-'));
  const file = path.join(dir, 'workspaces', 'default.sqlite3');
  const workspace = openWorkspace({ file, instance: { name: 'outpost-test', version: 'test', address: '127.0.0.1' }, adminToken: ADMIN_TOKEN });
  const server = await listen(workspace.api, { host: '127.0.0.1', port: 0, ...(options.tls ? { tls: options.tls } : {}) });
  return {
    url: server.url,
    dir,
    file,
    workspace,
    api: new Client(server.url, ADMIN_TOKEN),
    close: async () => {
      await server.close();
      workspace.close();
      if (!options.dir) fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Create a user with a role and a known token; returns a client for it. */
export function addUser(server: TestServer, username: string, role: 'Superuser' | 'Admin' | 'Read-only', token: string, active = true): Client {
  const { services } = server.workspace;
  services.store.write(() => {
    services.store.db
      .prepare('INSERT INTO user (username, password, role, is_active, date_joined) VALUES (?, ?, ?, ?, ?)')
      .run(username, '', role, active ? 1 : 0, services.store.now());
  });
  const user = services.users.byUsername(username)!;
  services.users.setToken(user.pk, token);
  return new Client(server.url, token);
}

export interface TestAppServer {
  readonly url: string;
  readonly dir: string;
  readonly host: WorkspaceHost;
  readonly api: Client;
  close(): Promise<void>;
}

/** The whole server as `outpost serve` runs it: workspaces, /app/ endpoints and, if given, the renderer's files. */
export async function startAppServer(options: { rendererDir?: string; dir?: string } = {}): Promise<TestAppServer> {
  const dir = options.dir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'outpost-app-'));
  const host = new WorkspaceHost({ dataDir: dir, instance: { name: 'outpost-test', version: 'test', address: '127.0.0.1' }, adminToken: ADMIN_TOKEN });
  const handler = createAppHandler({ host, version: 'test', ...(options.rendererDir ? { rendererDir: options.rendererDir } : {}) });
  const server = await listen(handler, { host: '127.0.0.1', port: 0 });
  return {
    url: server.url,
    dir,
    host,
    api: new Client(server.url, ADMIN_TOKEN),
    close: async () => {
      await server.close();
      await host.close();
      if (!options.dir) fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
