/**
 * What the status bar shows at all times: the workspace, the signed-in user, and the local
 * server's state (restarts included). Sync state joins it for bound workspaces.
 */
import { create } from 'zustand';
import type { ServerStatus } from '../../../shared/app/bridge';
import type { JsonObject } from '../../../shared/resources';
import { bridge } from '../api/bridge';
import { api } from '../api/client';

export interface AppStatus {
  readonly version: string;
  readonly workspace: string;
  readonly mode: 'standalone' | 'bound';
  readonly user: { readonly pk: number; readonly username: string; readonly role: string };
}

interface StatusState {
  readonly app: AppStatus | undefined;
  readonly server: ServerStatus;
  readonly error: string | undefined;
  refresh(): Promise<void>;
  setServer(status: ServerStatus): void;
}

function toAppStatus(body: JsonObject): AppStatus {
  const user = body.user as JsonObject;
  return {
    version: String(body.version),
    workspace: String(body.workspace),
    mode: body.mode === 'bound' ? 'bound' : 'standalone',
    user: { pk: Number(user.pk), username: String(user.username), role: String(user.role) },
  };
}

export const useStatus = create<StatusState>((set) => ({
  app: undefined,
  server: { state: 'starting', restarts: 0 },
  error: undefined,
  async refresh() {
    try {
      set({ app: toAppStatus(await api.get('/app/status')), error: undefined });
    } catch (error) {
      set({ error: error instanceof Error ? error.message : String(error) });
    }
  },
  setServer(server) {
    set({ server });
  },
}));

/** Follow the bridge's server status; after a restart, read the app status again. */
export function followServerStatus(): () => void {
  void bridge.serverStatus().then((status) => useStatus.getState().setServer(status));
  return bridge.onServerStatus((status) => {
    useStatus.getState().setServer(status);
    if (status.state === 'running') void useStatus.getState().refresh();
  });
}
