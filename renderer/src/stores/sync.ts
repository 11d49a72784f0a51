/**
 * The Sync screen's state (app.md §4 "Sync"): the binding's status and outbox from
 * `GET /app/sync`, read every 500 ms while a sync runs and every few seconds otherwise, and the
 * user's actions on it (sync now, resolve a conflict's field, retry or discard a refused change).
 * Also the remotes of the data folder, shared by Settings' two sections.
 */
import { create } from 'zustand';
import type { RemoteInfo } from '../../../shared/app/routes';
import type { EntryView, SyncStatusView } from '../../../shared/app/sync';
import { ApiFailure, appCall } from '../api/client';
import { startPolling } from './poll';
import { useStatus } from './status';
import { statusView } from './syncModel';

export const POLL_SYNCING_MS = 500;
export const POLL_IDLE_MS = 4000;

interface SyncState {
  readonly status: SyncStatusView | undefined;
  readonly entries: readonly EntryView[];
  /** The first answer came (or failed). */
  readonly loaded: boolean;
  /** Why there is no sync state: a standalone workspace (404) or a remote that is not configured (409). */
  readonly unavailable: { readonly status: number; readonly message: string } | undefined;
  /** The last failure of reading or of an action, in words. */
  readonly error: string | undefined;
  load(): Promise<void>;
  syncNow(options?: { allowMassDelete?: boolean }): Promise<void>;
  resolve(seq: number, field: string, choice: 'mine' | 'theirs'): Promise<void>;
  retry(seq: number): Promise<void>;
  discard(seq: number): Promise<void>;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

let wake: ((ms: number) => void) | undefined;

export const useSync = create<SyncState>((set, get) => {
  /** After an action: read the state again, and let the status bar know at once. */
  const after = async () => {
    await get().load();
    void useStatus.getState().refresh();
  };
  return {
    status: undefined,
    entries: [],
    loaded: false,
    unavailable: undefined,
    error: undefined,
    async load() {
      try {
        const body = await appCall('sync');
        set({ status: statusView(body.status), entries: body.entries, loaded: true, unavailable: undefined });
        if (get().error?.startsWith('Reading')) set({ error: undefined });
      } catch (error) {
        if (error instanceof ApiFailure && (error.status === 404 || error.status === 409)) {
          set({ loaded: true, unavailable: { status: error.status, message: error.message }, status: undefined, entries: [] });
        } else set({ loaded: true, error: `Reading the sync state failed: ${messageOf(error)}` });
      }
    },
    async syncNow(options = {}) {
      set({ error: undefined });
      try {
        const started = await appCall('syncNow', { body: options.allowMassDelete ? { allowMassDelete: true } : {} });
        set({ status: statusView(started) });
        wake?.(POLL_SYNCING_MS);
        void useStatus.getState().refresh();
      } catch (error) {
        set({ error: messageOf(error) });
      }
    },
    async resolve(seq, field, choice) {
      set({ error: undefined });
      try {
        await appCall('resolveEntry', { params: { seq }, body: { field, choice } });
      } catch (error) {
        set({ error: messageOf(error) });
      }
      await after();
    },
    async retry(seq) {
      set({ error: undefined });
      try {
        await appCall('retryEntry', { params: { seq }, body: {} });
      } catch (error) {
        set({ error: messageOf(error) });
      }
      await after();
    },
    async discard(seq) {
      // Failures reach the confirmation dialog, which shows them.
      await appCall('discardEntry', { params: { seq } });
      await after();
    },
  };
});

/** Read the sync state now and keep reading it: fast while a sync runs. */
export function followSync(): () => void {
  const poller = startPolling(
    () => useSync.getState().load(),
    () => (useSync.getState().status?.syncing ? POLL_SYNCING_MS : POLL_IDLE_MS),
  );
  wake = (ms) => poller.soon(ms);
  return () => {
    wake = undefined;
    poller.stop();
  };
}

interface RemotesState {
  readonly remotes: readonly RemoteInfo[];
  readonly loaded: boolean;
  readonly error: string | undefined;
  load(): Promise<void>;
}

export const useRemotes = create<RemotesState>((set) => ({
  remotes: [],
  loaded: false,
  error: undefined,
  async load() {
    try {
      set({ remotes: await appCall('remotes'), loaded: true, error: undefined });
    } catch (error) {
      set({ loaded: true, error: messageOf(error) });
    }
  },
}));
