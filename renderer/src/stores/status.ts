/**
 * What the status bar shows at all times: the workspace, the signed-in user, and the local
 * server's state (restarts included). Sync state joins it for bound workspaces.
 */
import { create } from 'zustand';
import type { ServerStatus } from '../../../shared/app/bridge';
import type { AppStatus } from '../../../shared/app/routes';
import { bridge } from '../api/bridge';
import { appCall, followsPageWorkspace, workspaceChanged } from '../api/client';
import { startPolling } from './poll';

export type { AppStatus };

interface StatusState {
  readonly app: AppStatus | undefined;
  readonly server: ServerStatus;
  readonly error: string | undefined;
  refresh(): Promise<void>;
  setServer(status: ServerStatus): void;
}

export const useStatus = create<StatusState>((set) => ({
  app: undefined,
  server: { state: 'starting', restarts: 0 },
  error: undefined,
  async refresh() {
    try {
      const app = await appCall('status');
      // Another window switched the workspace: this page's data and forms belong to the old one.
      if (!followsPageWorkspace(app.workspace)) return workspaceChanged(app.workspace);
      set({ app, error: undefined });
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

/** How often the status bar reads `/app/status`: its sync indicator changes on its own. */
export const STATUS_POLL_MS = 3000;
export const STATUS_POLL_SYNCING_MS = 1000;

/** Keep the app status fresh: every few seconds, every second while a sync runs. */
export function followAppStatus(): () => void {
  const syncing = () => useStatus.getState().app?.sync?.syncing === true;
  const poller = startPolling(
    () => useStatus.getState().refresh(),
    () => (syncing() ? STATUS_POLL_SYNCING_MS : STATUS_POLL_MS),
  );
  // A sync started elsewhere (the Sync screen) is followed closely from the moment it is known.
  const unsubscribe = useStatus.subscribe((state, previous) => {
    if (state.app?.sync?.syncing && !previous.app?.sync?.syncing) poller.soon(STATUS_POLL_SYNCING_MS);
  });
  return () => {
    unsubscribe();
    poller.stop();
  };
}
