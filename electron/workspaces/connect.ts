/**
 * Connecting a workspace of the data folder to one of its remotes (shared/sync/connect.ts): the
 * plan and the connect on the workspace as the host serves it (or opened for it), then the
 * workspace opened again as bound and its first pull. One path for `/app/` and the CLI.
 */
import type { ConnectPlan, ConnectRequest, ConnectResult } from '../../shared/sync/connect';
import { RemoteClient, type ClientOptions } from '../remote/client';
import { connectStandalone, firstPull } from '../remote/connect';
import { planConnect, type ReadOptions } from '../remote/connectPlan';
import type { OpenedWorkspace } from './openWorkspace';
import { WorkspaceError, type WorkspaceHost } from './host';

export interface ConnectRunOptions extends ReadOptions {
  /** The client's limits; the host's own (those its sync sessions use) when not given. */
  readonly client?: ClientOptions;
  /** Run inside the connect's transaction just before it commits (the tests force a failure there). */
  readonly beforeCommit?: () => void;
}

function clientFor(host: WorkspaceHost, remote: string, options: ConnectRunOptions): { client: RemoteClient; config: { name: string; url: string } } {
  const config = host.remotes.get(remote);
  if (!config) throw new WorkspaceError(`there is no remote "${remote}"; add it first`, 404);
  const token = host.remotes.token(remote);
  if (token === undefined) throw new WorkspaceError(`the remote "${remote}" has no token; give it one (outpost remote set-token ${remote} --token T)`, 409);
  return { client: new RemoteClient(config, () => token, options.client ?? host.clientOptions), config: { name: config.name, url: config.url } };
}

const standalone = (name: string, opened: OpenedWorkspace) => ({ name, services: opened.services, api: opened.api, adminToken: opened.adminToken });

/** The plan of connecting workspace `name` to `remote`: GETs of the central server only, nothing written. */
export async function connectPlanIn(host: WorkspaceHost, name: string, remote: string, options: ConnectRunOptions = {}): Promise<ConnectPlan> {
  const { client, config } = clientFor(host, remote, options);
  return host.onWorkspace(name, async (opened) => (await planConnect(standalone(name, opened), client, config, options)).plan);
}

/** Connect as planned, then the first pull. Refused (ConnectRefused) or failing before the commit: nothing changed. */
export async function connectIn(host: WorkspaceHost, name: string, request: ConnectRequest, options: ConnectRunOptions = {}): Promise<ConnectResult> {
  const { client, config } = clientFor(host, request.remote, options);
  const committed = await host.onWorkspace(name, (opened) =>
    connectStandalone(standalone(name, opened), client, config, request, { dataDir: host.dataDir, ...options }),
  );
  const pull = await host.reopenBound(name, (opened) => firstPull(opened.services, client, options));
  return { ...committed, ...pull };
}
