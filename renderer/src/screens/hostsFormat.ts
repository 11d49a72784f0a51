/**
 * Pure helpers of the Host lookup screen (no DOM, no I/O): reading the address box, showing the
 * host identity's timestamps, mapping the seen-in window between date inputs and the API's epoch
 * seconds, and reading an import's per-entry errors.
 */
import { parseIp } from '../../../shared/api/address';
import type { JsonObject, JsonValue } from '../../../shared/resources';
import { boundedText } from '../components/bounded';

/** The address box: the canonical address, or why the text is not one (quoting it bounded: it may come from a link). */
export function checkAddress(text: string): { readonly ip: string } | { readonly error: string } {
  const trimmed = text.trim();
  if (trimmed === '') return { error: 'Type an IPv4 or IPv6 address, e.g. 10.0.0.5 or 2001:db8::1.' };
  const ip = parseIp(trimmed);
  if (ip) return { ip: ip.text };
  if (/\/\d+$/.test(trimmed)) return { error: `“${boundedText(trimmed)}” is a network; type one address of it, e.g. 10.0.0.5.` };
  return { error: `“${boundedText(trimmed)}” is not an IPv4 or IPv6 address (e.g. 10.0.0.5 or 2001:db8::1).` };
}

const TIMESTAMP = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(Z|[+-]\d{2}(?::?\d{2})?)?$/;

const pad = (n: number) => String(n).padStart(2, '0');

/**
 * A timestamp of the API (`…+00:00`, the EVE form `…+0000`, DRF's `…Z`) as a UTC time to read,
 * to the second; text that is not a timestamp is shown as given.
 */
export function formatSeen(value: JsonValue | undefined): string {
  if (value === null || value === undefined || value === '') return '—';
  const text = String(value);
  const m = TIMESTAMP.exec(text);
  if (!m) return text;
  const [, y, mo, d, h, mi, s = '0', zone = 'Z'] = m;
  let offsetMinutes = 0;
  if (zone !== 'Z') {
    const digits = zone.slice(1).replace(':', '');
    offsetMinutes = (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2) || '0')) * (zone.startsWith('-') ? -1 : 1);
  }
  const utc = new Date(Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi) - offsetMinutes, Number(s)));
  if (Number.isNaN(utc.getTime())) return text;
  return `${utc.getUTCFullYear()}-${pad(utc.getUTCMonth() + 1)}-${pad(utc.getUTCDate())} ${pad(utc.getUTCHours())}:${pad(utc.getUTCMinutes())}:${pad(utc.getUTCSeconds())} UTC`;
}

const DAY_SECONDS = 86_400;

/**
 * A day of the date input (`YYYY-MM-DD`, UTC) as the list's `start_date` / `end_date` (epoch
 * seconds): the window starts at the day's first microsecond and ends at its last, so that a
 * one-day window holds every host seen that day. Empty or malformed → undefined (no filter).
 */
export function windowParam(day: string, edge: 'start' | 'end'): string | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
  if (!m) return undefined;
  const start = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])) / 1000;
  if (!Number.isFinite(start)) return undefined;
  return edge === 'start' ? String(start) : `${start + DAY_SECONDS - 1}.999999`;
}

/** The day (`YYYY-MM-DD`, UTC) a `start_date` / `end_date` value falls on; '' when not a number. */
export function windowDay(param: string | undefined): string {
  if (param === undefined || param.trim() === '') return '';
  const seconds = Number(param);
  if (!Number.isFinite(seconds)) return '';
  const at = new Date(Math.floor(seconds) * 1000);
  if (Number.isNaN(at.getTime())) return '';
  return `${String(at.getUTCFullYear()).padStart(4, '0')}-${pad(at.getUTCMonth() + 1)}-${pad(at.getUTCDate())}`;
}

/** One message of an invalid import entry, with where in the entry it applies. */
export interface EntryProblem {
  /** `ip`, `host_id.hostname[1].first_seen`; '' for the entry as a whole. */
  readonly path: string;
  readonly message: string;
}

export interface InvalidEntry {
  /** 1-based position of the entry in the file. */
  readonly position: number;
  readonly problems: readonly EntryProblem[];
}

function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function join(path: string, key: string): string {
  if (key === 'non_field_errors') return path;
  // DRF keys the errors of list items by their index: `{"0": [...]}`.
  if (/^\d+$/.test(key)) return `${path}[${key}]`;
  return path === '' ? key : `${path}.${key}`;
}

/** DRF's nested error shapes (messages, per-field objects, per-item lists) as flat messages. */
export function flattenErrors(errors: JsonValue, path = ''): EntryProblem[] {
  if (typeof errors === 'string') return [{ path, message: errors }];
  if (Array.isArray(errors)) {
    if (errors.every((item) => typeof item === 'string')) return errors.map((message) => ({ path, message: String(message) }));
    return errors.flatMap((item, i) => flattenErrors(item, `${path}[${i}]`));
  }
  if (isObject(errors)) return Object.entries(errors).flatMap(([key, value]) => flattenErrors(value, join(path, key)));
  return [];
}

/**
 * The import's 400 answer when it lists one error object per entry (`{}` for a valid one): the
 * entries in error, the first `limit` of them with their messages. Undefined for other bodies.
 */
export function invalidEntries(body: JsonValue, limit: number): { readonly total: number; readonly inError: number; readonly first: readonly InvalidEntry[] } | undefined {
  if (!Array.isArray(body)) return undefined;
  const entries: InvalidEntry[] = [];
  let inError = 0;
  body.forEach((errors, index) => {
    const problems = flattenErrors(errors);
    if (problems.length === 0) return;
    inError++;
    if (entries.length < limit) entries.push({ position: index + 1, problems });
  });
  return { total: body.length, inError, first: entries };
}

/** Bytes in words, in decimal units as the command and the desktop's file managers write them: `2.4 MB` for 2,400,000. */
export function formatBytes(bytes: number): string {
  if (bytes < 1000) return `${bytes} B`;
  const units = ['kB', 'MB', 'GB'];
  let value = bytes / 1000;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]!}`;
}

/** The lists of a host identity in words, for ordering by their counts. */
const HOST_LIST_WORDS: Readonly<Record<string, string>> = {
  net_info: 'networks',
  hostname: 'hostnames',
  username: 'users',
  roles: 'roles',
  client_service: 'client services',
  'http.user_agent': 'HTTP user agents',
  'tls.ja3': 'TLS JA3 fingerprints',
  'tls.ja4': 'TLS JA4 fingerprints',
  'ssh.client': 'SSH clients',
  services: 'services',
};

/**
 * The known hosts' ordering fields in words (api.md §7): `host_id.tls.ja3_count` → "Number of
 * TLS JA3 fingerprints"; the kind says what ascending means.
 */
export function hostOrderingLabel(field: string): { label: string; kind: 'text' | 'number' | 'date' } {
  if (field === 'ip') return { label: 'Address', kind: 'text' };
  if (field === 'hits') return { label: 'Hits', kind: 'number' };
  if (field === 'host_id.first_seen') return { label: 'First seen', kind: 'date' };
  if (field === 'host_id.last_seen') return { label: 'Last seen', kind: 'date' };
  const list = /^host_id\.(.+)_count$/.exec(field)?.[1];
  if (list !== undefined) return { label: `Number of ${HOST_LIST_WORDS[list] ?? list}`, kind: 'number' };
  return { label: field, kind: 'text' };
}
