/**
 * Pure helpers of the Sync screen and the status bar's sync indicator (no DOM, no I/O): the
 * connection and progress in words, outbox entries in words, conflicting values made readable,
 * and how long a change has waited.
 */
import { syncAdvice, type Connection, type EntryOp, type EntryState, type EntryView, type SyncProgress, type SyncResult, type SyncStatusView } from '../../../shared/app/sync';
import { RESOURCES, type JsonValue } from '../../../shared/resources';
import { objectRoute, typeLabel } from './historyFormat';
import { PARAMETER_LABELS } from './templatesFields';

export const CONNECTION_TEXT: Readonly<Record<Connection, string>> = {
  online: 'Online',
  offline: 'Offline',
  auth_failed: 'Token refused',
  unknown: 'Not yet reached',
};

/** The connection as the status bar and the Sync screen name it: before any answer, "Connecting…" while the first sync runs. */
export function connectionText(status: Pick<SyncStatusView, 'connection' | 'syncing'>): string {
  return status.connection === 'unknown' && status.syncing ? 'Connecting…' : CONNECTION_TEXT[status.connection];
}

/** "in 42 s", "in 3 min 5 s"; "now" once the time has come (the attempt is starting). */
export function countdownText(at: string, nowMs: number): string {
  const when = Date.parse(at);
  if (Number.isNaN(when)) return '';
  const seconds = Math.ceil((when - nowMs) / 1000);
  if (seconds <= 0) return 'now';
  if (seconds < 60) return `in ${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  const rest = seconds % 60;
  return rest === 0 ? `in ${minutes} min` : `in ${minutes} min ${rest} s`;
}

/** How a sync ended, one line: "Pushed 2 changes, pulled 5." or the error with what to try. */
export function resultText(result: SyncResult): { readonly ok: boolean; readonly text: string; readonly advice: string | null } {
  const moved = `pushed ${plural(result.pushed, 'change', 'changes')}, pulled ${plural(result.pulled, 'change', 'changes')}`;
  if (result.outcome === 'error') {
    const kind = result.error?.kind ?? 'internal';
    const what = result.pushed > 0 ? ` (${moved} before it stopped)` : '';
    return { ok: false, text: `Stopped: ${sentence(result.error?.message ?? 'unknown error')}${what}`, advice: syncAdvice(kind) };
  }
  const waiting = result.conflicts + result.parked;
  const tail = waiting > 0 ? ` ${plural(waiting, 'change waits', 'changes wait')} for you (conflicts or refused).` : '';
  return { ok: true, text: `${moved.charAt(0).toUpperCase()}${moved.slice(1)}.${tail}`, advice: null };
}

/** What the connection means for the user, one sentence. */
export function connectionExplained(status: Pick<SyncStatusView, 'connection' | 'remote'>): string {
  const name = status.remote.name ? `“${status.remote.name}”` : 'The central server';
  switch (status.connection) {
    case 'online':
      return `${name} answered at the last attempt.`;
    case 'offline':
      return `${name} could not be reached at the last attempt. Changes are kept here and sent when it answers again.`;
    case 'auth_failed':
      return `${name} refused the token. Nothing is sent until the token is replaced in Settings → Remotes.`;
    default:
      return `No sync has reached ${name} yet from this workspace.`;
  }
}

const ENDPOINT_TEXT: Readonly<Record<string, string>> = {
  vendor_device: 'vendor devices',
  source: 'sources',
  ruleset: 'rulesets',
  vendor_probe_template: 'templates',
  vendor_probe: 'vendor probes',
  engine_probe: 'engine probes',
  threat: 'threats',
  host_id: 'host identities',
  history: 'history',
};

/** The phase of a running sync: "Pushing changes", "Pulling vendor probes". */
export function progressText(progress: SyncProgress | null): string {
  if (!progress) return 'Starting…';
  if (progress.phase === 'push') return 'Pushing changes';
  const endpoint = progress.endpoint;
  return `Pulling ${endpoint === undefined ? 'the central server’s objects' : (ENDPOINT_TEXT[endpoint] ?? endpoint.replace(/_/g, ' '))}`;
}

/** "3 of 12" for a progress with a total; '' without one. */
export function progressCount(progress: SyncProgress | null): string {
  if (!progress || progress.total <= 0) return '';
  return `${Math.min(progress.done, progress.total)} of ${progress.total}`;
}

export const OP_TEXT: Readonly<Record<EntryOp, string>> = { create: 'Create', update: 'Change', delete: 'Delete' };

export const STATE_TEXT: Readonly<Record<EntryState, string>> = {
  pending: 'Waiting',
  sending: 'Being sent',
  unconfirmed: 'Waiting (last send unanswered)',
  parked: 'Refused',
  conflict: 'Conflict',
};

/**
 * The status bar's count of waiting changes: after review, "3 changes awaiting review" (nothing
 * leaves until the engineer sends it); automatically, "3 changes waiting" (to be sent on their own).
 */
export function waitingText(sync: Pick<SyncStatusView, 'pushMode' | 'awaitingReview'> & { readonly outbox: { readonly pending: number } }): { readonly text: string; readonly kind: 'review' | 'waiting' | 'clear' } {
  if (sync.pushMode === 'review' && sync.awaitingReview > 0) {
    return { text: plural(sync.awaitingReview, 'change awaiting review', 'changes awaiting review'), kind: 'review' };
  }
  const pending = sync.outbox.pending;
  return pending > 0 ? { text: plural(pending, 'change waiting', 'changes waiting'), kind: 'waiting' } : { text: 'No changes waiting', kind: 'clear' };
}

/** "1 change waiting", "3 changes waiting". */
export function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** The app route of an entry's object, while it exists here and a screen shows it. */
export function entryRoute(entry: Pick<EntryView, 'op' | 'resource' | 'pk'>): string | undefined {
  if (entry.op === 'delete') return undefined;
  // The templates screen opens templates by their central pk only.
  if (entry.resource === 'vendor_probe_template' && entry.pk < 0) return undefined;
  return objectRoute({ type: entry.resource, pk: entry.pk });
}

export function resourceText(resource: string): string {
  return typeLabel(resource);
}

/** A field's label as the forms show it ("NTP server"), else the declaration's ("Location"). */
export function fieldLabel(resource: string, field: string): string {
  if (field === 'parent_tmpl') return resource === 'vendor_probe_template' ? 'Parent template' : 'Template';
  const known = PARAMETER_LABELS[field];
  if (known) return known;
  const declared = RESOURCES.find((r) => r.name === resource)?.fields[field]?.label;
  return declared ?? field.charAt(0).toUpperCase() + field.slice(1).replace(/_/g, ' ');
}

const ITEM_FLAGS: Readonly<Record<string, { readonly flag: string; readonly on: string; readonly off: string }>> = {
  interfaces: { flag: 'active', on: 'active', off: 'inactive' },
  protocols: { flag: 'detection', on: 'detection on', off: 'detection off' },
};

function scalarText(value: JsonValue): string {
  if (value === null) return '(none)';
  if (value === '') return '(empty)';
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (typeof value === 'string' || typeof value === 'number') return String(value);
  return JSON.stringify(value);
}

/**
 * A value of a field as lines to read: interfaces and protocols one per line as name and flag
 * (their pks are each server's own), other lists one item a line, booleans as yes/no, an empty
 * string as “(empty)”, nothing as “(none)”.
 */
export function valueLines(field: string, value: JsonValue | undefined): string[] {
  const v = value ?? null;
  if (!Array.isArray(v)) return [scalarText(v)];
  if (v.length === 0) return ['(none)'];
  const items = ITEM_FLAGS[field];
  return v
    .map((item) => {
      if (typeof item === 'object' && item !== null && !Array.isArray(item) && typeof item.name === 'string') {
        const flag = items?.flag ?? ('active' in item ? 'active' : 'detection' in item ? 'detection' : undefined);
        if (flag === undefined) return { name: item.name, text: item.name };
        const on = item[flag] !== false;
        const words = items ?? ITEM_FLAGS[flag === 'active' ? 'interfaces' : 'protocols']!;
        return { name: item.name, text: `${item.name} (${on ? words.on : words.off})` };
      }
      const text = scalarText(item);
      return { name: text, text };
    })
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map((line) => line.text);
}

/** How long ago a timestamp of the server was, in words; '' when unreadable. */
export function ageText(timestamp: string, nowMs: number): string {
  const at = Date.parse(timestamp);
  if (Number.isNaN(at)) return '';
  const seconds = Math.max(0, Math.round((nowMs - at) / 1000));
  if (seconds < 45) return 'just now';
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.round(minutes / 60);
  if (hours < 36) return `${hours} h ago`;
  return plural(Math.round(hours / 24), 'day ago', 'days ago');
}


/** How a remote's certificate is checked, in words. */
export function tlsText(remote: { readonly url: string; readonly insecure: boolean; readonly pin: string | null }): string {
  if (remote.url.startsWith('http:')) return 'plain http (no TLS)';
  if (remote.pin) return 'pinned';
  if (remote.insecure) return 'not verified';
  return 'verified';
}

export type RemoteFormField = 'name' | 'url' | 'token' | 'pin';

/** A server sentence as a message to show: capitalised, ending with a full stop. */
export function sentence(message: string): string {
  const text = message.trim();
  if (text === '') return text;
  const capital = text.charAt(0).toUpperCase() + text.slice(1);
  return /[.!?]$/.test(capital) ? capital : `${capital}.`;
}

export type LineChange = 'same' | 'changed' | 'added' | 'removed';

export interface ComparedLine {
  readonly text: string;
  readonly change: LineChange;
}

function namedItems(field: string, value: JsonValue | undefined): Map<string, boolean> | undefined {
  const flag = ITEM_FLAGS[field]?.flag;
  if (flag === undefined || !Array.isArray(value)) return undefined;
  const items = new Map<string, boolean>();
  for (const item of value) {
    if (typeof item !== 'object' || item === null || Array.isArray(item) || typeof item.name !== 'string') return undefined;
    items.set(item.name, item[flag] !== false);
  }
  return items;
}

/**
 * Interfaces or protocols against the base, item by item, so that what each side did stands
 * out: items changed or added, and items the base had that this side removed (“eth1 (removed)”).
 * Other values: their lines, unmarked.
 */
export function comparedLines(field: string, value: JsonValue | undefined, base: JsonValue | undefined): ComparedLine[] {
  const mine = namedItems(field, value ?? null);
  const before = namedItems(field, base ?? null);
  const words = ITEM_FLAGS[field];
  if (!mine || !before || !words) return valueLines(field, value).map((text) => ({ text, change: 'same' }));
  const names = [...new Set([...mine.keys(), ...before.keys()])].sort();
  if (names.length === 0) return [{ text: '(none)', change: 'same' }];
  return names.map((name) => {
    const on = mine.get(name);
    const was = before.get(name);
    if (on === undefined) return { text: `${name} (removed)`, change: 'removed' };
    const text = `${name} (${on ? words.on : words.off})`;
    return { text, change: was === undefined ? 'added' : was === on ? 'same' : 'changed' };
  });
}

/** The changes in conflict of one object (a probe's or a template's page says so), oldest first. */
export function conflictsOf(entries: readonly EntryView[], resource: string, pk: number): EntryView[] {
  return entries.filter((entry) => entry.state === 'conflict' && entry.resource === resource && entry.pk === pk).sort((a, b) => a.seq - b.seq);
}
