/**
 * The app's sync answers (`GET /app/status` → `sync`, `GET /app/sync`, its entries; their shapes
 * are in shared/app/sync.ts), read defensively from JSON: a field the server leaves out must not
 * break the status bar. Pure: no DOM, no I/O.
 */
import { syncErrorKindOf, type Connection, type ConflictField, type EntryOp, type EntryState, type EntryView, type SyncProgress, type SyncStatusView } from '../../../shared/app/sync';
import type { JsonObject, JsonValue } from '../../../shared/resources';

export interface RemoteInfo {
  readonly name: string;
  readonly url: string;
  readonly insecure: boolean;
  readonly pin: string | null;
  readonly hasToken: boolean;
}

function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function textOrNull(value: JsonValue | undefined): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}

function count(value: JsonValue | undefined): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}

const CONNECTIONS: readonly Connection[] = ['unknown', 'online', 'offline', 'auth_failed'];

function connectionOf(value: JsonValue | undefined): Connection {
  return CONNECTIONS.find((c) => c === value) ?? 'unknown';
}

function progressOf(value: JsonValue | undefined): SyncProgress | null {
  if (!isObject(value)) return null;
  return {
    phase: value.phase === 'pull' ? 'pull' : 'push',
    done: count(value.done),
    total: count(value.total),
    ...(typeof value.endpoint === 'string' ? { endpoint: value.endpoint } : {}),
  };
}

/** A sync status from JSON; null for anything that is not one (a standalone workspace's `sync: null`). */
export function parseSyncStatus(value: JsonValue | undefined): SyncStatusView | null {
  if (!isObject(value)) return null;
  const remote = isObject(value.remote) ? value.remote : {};
  const outbox = isObject(value.outbox) ? { pending: count(value.outbox.pending), parked: count(value.outbox.parked), conflicts: count(value.outbox.conflicts) } : null;
  return {
    remote: { name: typeof remote.name === 'string' ? remote.name : '', url: textOrNull(remote.url) },
    connection: connectionOf(value.connection),
    syncing: value.syncing === true,
    progress: progressOf(value.progress),
    lastPull: textOrNull(value.lastPull),
    lastPush: textOrNull(value.lastPush),
    lastSync: textOrNull(value.lastSync),
    lastError: textOrNull(value.lastError),
    lastErrorKind: syncErrorKindOf(value.lastErrorKind),
    outbox,
    problem: textOrNull(value.problem),
  };
}

const STATES: readonly EntryState[] = ['pending', 'sending', 'parked', 'conflict'];
const OPS: readonly EntryOp[] = ['create', 'update', 'delete'];

function conflictOf(value: JsonValue): ConflictField | undefined {
  if (!isObject(value) || typeof value.field !== 'string') return undefined;
  return { field: value.field, base: value.base ?? null, mine: value.mine ?? null, theirs: value.theirs ?? null };
}

export function parseEntry(value: JsonValue): EntryView | undefined {
  if (!isObject(value) || typeof value.seq !== 'number') return undefined;
  return {
    seq: value.seq,
    op: OPS.find((o) => o === value.op) ?? 'update',
    resource: typeof value.resource === 'string' ? value.resource : '',
    pk: count(value.pk),
    label: typeof value.label === 'string' ? value.label : `entry ${value.seq}`,
    state: STATES.find((s) => s === value.state) ?? 'pending',
    message: textOrNull(value.message),
    comment: textOrNull(value.comment),
    fields: isObject(value.fields) ? value.fields : {},
    created: typeof value.created === 'string' ? value.created : '',
    conflicts: Array.isArray(value.conflicts) ? value.conflicts.map(conflictOf).filter((c): c is ConflictField => c !== undefined) : [],
  };
}

export function parseEntries(value: JsonValue | undefined): EntryView[] {
  return Array.isArray(value) ? value.map(parseEntry).filter((e): e is EntryView => e !== undefined) : [];
}

export function parseRemotes(value: JsonValue): RemoteInfo[] {
  if (!Array.isArray(value)) return [];
  return value.filter(isObject).map((r) => ({
    name: String(r.name ?? ''),
    url: String(r.url ?? ''),
    insecure: r.insecure === true,
    pin: textOrNull(r.pin),
    hasToken: r.hasToken === true,
  }));
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
