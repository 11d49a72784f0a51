/**
 * The shapes of a bound workspace's sync as the embedded server answers them (`GET /app/status`
 * → `sync`, `GET /app/sync`, `POST /app/sync`, `outpost sync --json`): one definition for the
 * engine that makes them, the CLI that prints them and the renderer that reads them.
 */
import type { JsonObject, JsonValue } from '../resources';
import type { PushMode } from '../sync/review';

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

/** A sync's report with the time it ended. */
export interface SyncResult extends SyncReport {
  readonly finished: string;
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
  /** When the central server last accepted a change from here (not when a push was tried). */
  readonly lastPush: string | null;
  /** When a sync last completed (push and pull). */
  readonly lastSync: string | null;
  /** When a sync last started, whatever came of it. */
  readonly lastAttempt: string | null;
  /** When the next automatic sync starts; null while one runs, when none is planned (token refused, one-shot commands). */
  readonly nextAttemptAt: string | null;
  /** How the last sync of this session ended (what "Sync now" reports), null before one ended. */
  readonly lastResult: SyncResult | null;
  /** The last sync's error, worded for people; null once a sync succeeds. */
  readonly lastError: string | null;
  /** What kind of error that was (the Sync screen offers "allow mass delete" for `mass_delete`). */
  readonly lastErrorKind: SyncErrorKind | null;
  readonly outbox: OutboxCounts;
  /** automatic: changes leave on their own; review: only what the user reviewed and sent (shared/sync/review.ts). */
  readonly pushMode: PushMode;
  /** Changes that wait for the user's review before they leave (0 in automatic mode): counted apart in the status bar. */
  readonly awaitingReview: number;
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
/** An entry's state as the outbox stores it: 'sending' marks a create whose request may have reached the central server. */
export type StoredEntryState = 'pending' | 'sending' | 'parked' | 'conflict';
/**
 * An entry's state as shown: 'sending' only while its request is in flight; 'unconfirmed' for a
 * stored 'sending' no request carries now (its outcome is looked up before it is sent again).
 */
export type EntryState = 'pending' | 'sending' | 'unconfirmed' | 'parked' | 'conflict';

/** The state shown for a stored entry, given whether this process is sending it now. */
export function entryState(stored: StoredEntryState, inFlight: boolean): EntryState {
  if (inFlight) return 'sending';
  return stored === 'sending' ? 'unconfirmed' : stored;
}

/**
 * The connection after a sync: online only when the central server answered and the sync did
 * not stop on it; a refused token or an unreachable / failing server says so; a sync that
 * stopped on its own (busy, stopped, mass delete guard, a bug) without an answer changes nothing.
 */
export function connectionAfter(previous: Connection, answered: boolean, failure: SyncErrorKind | null): Connection {
  if (failure === 'auth') return 'auth_failed';
  if (failure === 'network' || failure === 'tls' || failure === 'timeout' || failure === 'invalid') return 'offline';
  return answered ? 'online' : previous;
}

/** The central server accepted something: only then is "last push" moved. */
export function acceptedPush(pushed: number): boolean {
  return pushed > 0;
}

/**
 * What to try after a sync stopped with `kind`, one sentence, true whatever the cause (the
 * same words in the app and on the command line); null when there is nothing to do.
 */
export function syncAdvice(kind: SyncErrorKind | null): string | null {
  switch (kind) {
    case 'network':
    case 'timeout':
      return 'Check this computer’s network and VPN, and the remote’s URL in Settings → Remotes (Test connection there, or outpost remote test NAME); changes are kept here and sent when it answers.';
    case 'tls':
      return 'The central server’s certificate was not accepted: check the remote’s URL and its certificate pin in Settings → Remotes (Test connection there, or outpost remote test NAME, shows the certificate’s SHA-256).';
    case 'auth':
      return 'Replace the remote’s token in Settings → Remotes (outpost remote set-token); nothing is sent until then.';
    case 'invalid':
      return 'Something answered that is not the central server’s API: check the remote’s URL in Settings → Remotes (a proxy or login page may be in the way).';
    case 'busy':
      return 'Another Outpost process is syncing this workspace; this one tries again after it.';
    case 'mass_delete':
      return 'If those objects really were deleted on the central server, sync once allowing mass delete.';
    case 'stopped':
      return null;
    case 'internal':
      return 'Try again; if it happens again, report it with the message above.';
    default:
      return null;
  }
}

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
