/**
 * The shapes of a bound workspace's sync as the embedded server answers them (`GET /app/status`
 * → `sync`, `GET /app/sync`, `POST /app/sync`, `outpost sync --json`): one definition for the
 * engine that makes them, the CLI that prints them and the renderer that reads them.
 */
import type { JsonObject, JsonValue } from '../resources';

/** How the last exchange with the central server went. */
export type Connection = 'unknown' | 'online' | 'offline' | 'auth_failed';

/** Why the central server could not be asked: no answer, a bad certificate, a refused token, too slow. */
/** `invalid`: the central server answered something the API does not (too large, not JSON, a redirect, a wrong shape). */
export type RemoteFailure = 'network' | 'tls' | 'auth' | 'timeout' | 'invalid';

/** Why a sync stopped: the central server (above), the mass-delete guard, another process syncing, the workspace closing, a bug. */
export const SYNC_ERROR_KINDS = ['network', 'tls', 'auth', 'timeout', 'invalid', 'mass_delete', 'busy', 'stopped', 'internal'] as const;
export type SyncErrorKind = (typeof SYNC_ERROR_KINDS)[number];

/** The kind a stored or received value names, or null for anything else. */
export function syncErrorKindOf(value: unknown): SyncErrorKind | null {
  return SYNC_ERROR_KINDS.find((kind) => kind === value) ?? null;
}

export interface SyncProgress {
  readonly phase: 'push' | 'pull';
  readonly done: number;
  readonly total: number;
  /** The endpoint being pulled. */
  readonly endpoint?: string;
}

export interface SyncReport {
  /** done: nothing waits; conflicts: conflicts or refused changes wait for the user; error: stopped. */
  readonly outcome: 'done' | 'conflicts' | 'error';
  readonly pushed: number;
  readonly pulled: number;
  readonly conflicts: number;
  readonly parked: number;
  readonly waiting: number;
  readonly error?: { readonly kind: SyncErrorKind; readonly message: string };
}

/** Outbox entries by what they wait for (pending counts those being sent too). */
export interface OutboxCounts {
  readonly pending: number;
  readonly parked: number;
  readonly conflicts: number;
}

/** A bound workspace's sync state, as its engine keeps it. */
export interface SyncStatus {
  readonly remote: { readonly name: string; readonly url: string };
  readonly connection: Connection;
  readonly syncing: boolean;
  readonly progress: SyncProgress | null;
  readonly lastPull: string | null;
  readonly lastPush: string | null;
  readonly lastSync: string | null;
  /** The last sync's error, worded for people; null once a sync succeeds. */
  readonly lastError: string | null;
  /** What kind of error that was (the Sync screen offers "allow mass delete" for `mass_delete`). */
  readonly lastErrorKind: SyncErrorKind | null;
  readonly outbox: OutboxCounts;
}

/**
 * The sync state as `/app/` answers it: also for a workspace whose remote is not configured in
 * this data folder (no URL, no outbox counts, and `problem` saying why).
 */
export interface SyncStatusView extends Omit<SyncStatus, 'remote' | 'outbox'> {
  readonly remote: { readonly name: string; readonly url: string | null };
  readonly outbox: OutboxCounts | null;
  /** Why the workspace cannot reach its remote at all (e.g. the remote was removed), else null. */
  readonly problem: string | null;
}

export type EntryOp = 'create' | 'update' | 'delete';
export type EntryState = 'pending' | 'sending' | 'parked' | 'conflict';

/** One field of a conflict: the value both sides started from, the local one and the central server's. */
export interface ConflictField {
  readonly field: string;
  readonly base: JsonValue;
  readonly mine: JsonValue;
  readonly theirs: JsonValue;
}

/** An outbox entry as the Sync screen and `outpost conflicts` show it. */
export interface EntryView {
  readonly seq: number;
  readonly op: EntryOp;
  readonly resource: string;
  readonly pk: number;
  /** The object's name (or what identifies it), as known here. */
  readonly label: string;
  readonly state: EntryState;
  /** Why it is parked (the central server's message). */
  readonly message: string | null;
  readonly comment: string | null;
  readonly fields: JsonObject;
  readonly created: string;
  /** For conflicts: each field's base, local and central value. */
  readonly conflicts: readonly ConflictField[];
}
