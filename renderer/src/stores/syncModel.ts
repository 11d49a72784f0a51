/**
 * The app's sync answers as the screens show them (their shapes are typed by the routes:
 * shared/app/routes.ts, shared/app/sync.ts). Pure: no DOM, no I/O.
 */
import type { SyncStatus, SyncStatusView } from '../../../shared/app/sync';

/** The engine's status (`/app/sync`, `POST /app/sync`) as the status bar's view of it: a linked remote has no problem. */
export function statusView(status: SyncStatus): SyncStatusView {
  return { ...status, problem: null };
}

/**
 * Whether the status bar may show the central server's state: only what the local server said
 * while it answers. A stopped local server, or an unanswered status read, leaves that state
 * unknown ("Online" beside "Local server: not running" would be a stale claim).
 */
export function syncShown(server: 'starting' | 'running' | 'restarting' | 'failed', readError: string | undefined, sync: SyncStatusView | null): 'shown' | 'unknown' | 'none' {
  if (sync === null) return 'none';
  return server === 'running' && readError === undefined ? 'shown' : 'unknown';
}
