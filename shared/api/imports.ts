/**
 * Import bodies (api.md §7: `host_id/import/`, `threat/import/`) checked with no I/O, so that the
 * same code runs on the main thread (small bodies, the CLI) and in the body worker (large ones):
 * the list itself, each entry as the real server's serializer checks it, and a bound on what a
 * refusal reports.
 *
 * The bound: a refusal lists one error object per entry (`{}` for valid ones), as DRF does, but
 * holds at most MAX_REPORTED_MESSAGES messages. Checking stops at the entry where the last of them
 * falls; that entry's errors are cut to the messages that fit, and the entries after it are neither
 * checked nor listed. A body with fewer errors gets exactly DRF's answer.
 */
import { HOST_LISTS, threat, type JsonObject, type JsonValue } from '../resources';
import { ApiError } from './errors';
import { checkHostEntry, hostnamesText, type HostEntry } from './hostIdentity';
import { MESSAGES, message, pythonTypeName } from './messages';
import { arrayItems, firstSignificant, jsonSyntaxError, parseJsonText } from './pythonJson';
import { validateWrite, type Lookups } from './validate';

/** Messages a refused import reports at most. */
export const MAX_REPORTED_MESSAGES = 100;

export type EntryCheck<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly errors: JsonObject };

/** A whole import: the entries to save, or the answer that refuses it (a parse error, a 400). */
export type ImportCheck<T> =
  | { readonly ok: true; readonly entries: readonly T[] }
  | { readonly ok: false; readonly status: number; readonly body: JsonValue };

/**
 * Checks one entry (already known to be an object). `budget` is how many messages the report
 * can still hold: a check may stop listing errors beyond it, never stop finding that the entry
 * is invalid.
 */
export type EntryChecker<T> = (entry: JsonObject, budget: number) => EntryCheck<T>;

function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** An error tree cut to its first `budget` messages (strings), in order; and how many it kept. */
export function firstMessages(errors: JsonValue, budget: number): { readonly value: JsonValue; readonly count: number } {
  if (typeof errors === 'string') return { value: errors, count: 1 };
  if (Array.isArray(errors)) {
    const kept: JsonValue[] = [];
    let count = 0;
    for (const item of errors) {
      if (count >= budget) break;
      const cut = firstMessages(item, budget - count);
      kept.push(cut.value);
      count += cut.count;
    }
    return { value: kept, count };
  }
  if (isObject(errors)) {
    const kept: JsonObject = {};
    let count = 0;
    for (const [key, item] of Object.entries(errors)) {
      if (count >= budget) break;
      const cut = firstMessages(item, budget - count);
      kept[key] = cut.value;
      count += cut.count;
    }
    return { value: kept, count };
  }
  return { value: errors, count: 0 };
}

/** The body of an import: a list of entries, each checked, or the refusal in DRF's shape (bounded). */
export function checkImport<T>(body: JsonValue, check: EntryChecker<T>): ImportCheck<T> {
  if (body === null) return { ok: false, status: 400, body: { non_field_errors: [MESSAGES.noData] } };
  if (!Array.isArray(body)) return { ok: false, status: 400, body: { non_field_errors: [message.expectedList(pythonTypeName(body))] } };
  return checkEntries(body, check);
}

/**
 * An import body's JSON text: its syntax checked whole first (DRF parses before it validates),
 * then, for a list, its entries parsed and checked one at a time up to the bound: the list is
 * never built whole, and after the 100th message the rest is not even parsed.
 */
export function checkImportText<T>(text: string, check: EntryChecker<T>): ImportCheck<T> {
  const syntax = jsonSyntaxError(text);
  if (syntax !== undefined) return { ok: false, status: 400, body: { detail: message.jsonParseError(syntax) } };
  const first = firstSignificant(text);
  try {
    if (first === '[') return checkEntries(arrayItems(text), check);
    // Not a list: its type alone makes the answer, whatever an object holds.
    return checkImport(first === '{' ? {} : (JSON.parse(text) as JsonValue), check);
  } catch (error) {
    // Python's grammar (the syntax check) and JSON.parse's agree; should they ever not, the
    // document is parsed whole as parseBody would.
    if (!(error instanceof SyntaxError)) throw error;
    const parsed = parseJsonText(text);
    return parsed.ok ? checkImport(parsed.value, check) : { ok: false, status: 400, body: { detail: message.jsonParseError(parsed.reason) } };
  }
}

function checkEntries<T>(list: Iterable<JsonValue>, check: EntryChecker<T>): ImportCheck<T> {
  const entries: T[] = [];
  // The per-entry report exists only once an entry fails: a valid import of millions builds none.
  let report: JsonValue[] | undefined;
  let budget = MAX_REPORTED_MESSAGES;
  for (const entry of list) {
    const checked: EntryCheck<T> = isObject(entry)
      ? check(entry, budget)
      : { ok: false, errors: { non_field_errors: [message.expectedDictionary(pythonTypeName(entry))] } };
    if (checked.ok) {
      if (report) report.push({});
      else entries.push(checked.value);
      continue;
    }
    report ??= entries.map(() => ({}));
    const cut = firstMessages(checked.errors, budget);
    report.push(cut.value);
    budget -= cut.count;
    if (budget <= 0) break;
  }
  return report ? { ok: false, status: 400, body: report } : { ok: true, entries };
}

// ---------------------------------------------------------------------------------------------
// Host identities

/** A checked host as the `host_id` table stores it: its texts made here, off the main thread. */
export interface HostRecord {
  readonly ip: string;
  /** null keeps the stored value. */
  readonly hits: number | null;
  /** Epoch microseconds. */
  readonly firstSeen: number;
  readonly lastSeen: number;
  readonly hostnames: string;
  /** The completed host_id object as JSON text. */
  readonly data: string;
}

export function hostRecordOf(entry: HostEntry): HostRecord {
  return {
    ip: entry.ip,
    hits: entry.hits ?? null,
    firstSeen: entry.firstSeen,
    lastSeen: entry.lastSeen,
    hostnames: hostnamesText(entry.hostId),
    data: JSON.stringify(entry.hostId),
  };
}

const notADictionary = (item: JsonValue) => typeof item !== 'object' || item === null || Array.isArray(item);

/**
 * The entry with each host_id list cut after its `budget`-th item that is not a dictionary, when
 * it has that many: such an entry is invalid whatever follows, and its errors beyond the budget
 * would not be reported anyway, so a list of millions of numbers is not turned into millions of
 * messages first. Entries with fewer bad items come back untouched.
 */
function withBoundedLists(entry: JsonObject, budget: number): JsonObject {
  const hostId = entry.host_id;
  if (!isObject(hostId)) return entry;
  let bounded: JsonObject | undefined;
  for (const list of HOST_LISTS) {
    const items = hostId[list];
    if (!Array.isArray(items)) continue;
    let bad = 0;
    let end = 0;
    while (end < items.length && bad < budget) if (notADictionary(items[end++]!)) bad++;
    if (end === items.length) continue;
    bounded ??= { ...hostId };
    bounded[list] = items.slice(0, end);
  }
  return bounded ? { ...entry, host_id: bounded } : entry;
}

/** One entry of `host_id/import/`, as `hostIdentity.checkHostEntry` checks it, ready to store. */
export const checkHostImport: EntryChecker<HostRecord> = (entry, budget) => {
  const checked = checkHostEntry(withBoundedLists(entry, budget));
  return checked.ok ? { ok: true, value: hostRecordOf(checked.entry) } : { ok: false, errors: checked.errors };
};

// ---------------------------------------------------------------------------------------------
// Threats

/** A threat's validated field values (absent fields keep the stored values). */
export type ThreatValues = Record<string, JsonValue>;

/** Threats have no references nor unique names to look up. */
const NO_LOOKUPS: Lookups = { refExists: () => false, uniqueTaken: () => false };

/** One entry of `threat/import/`: every field checked as on a write (PUT: required fields too). */
export const checkThreatImport: EntryChecker<ThreatValues> = (entry) => {
  try {
    return { ok: true, value: validateWrite(threat, entry, 'update', NO_LOOKUPS).values };
  } catch (error) {
    if (error instanceof ApiError && isObject(error.body)) return { ok: false, errors: error.body };
    throw error;
  }
};

// ---------------------------------------------------------------------------------------------
// Prepared before the handler

export type ImportName = 'host_id' | 'threat';

/** An import body parsed and checked before its handler runs (in the body worker for large ones). */
export type PreparedImport =
  | { readonly name: 'host_id'; readonly checked: ImportCheck<HostRecord> }
  | { readonly name: 'threat'; readonly checked: ImportCheck<ThreatValues> };

/** Check an import body's JSON text as the named import. */
export function prepareImport(name: ImportName, text: string): PreparedImport {
  return name === 'host_id' ? { name, checked: checkImportText(text, checkHostImport) } : { name, checked: checkImportText(text, checkThreatImport) };
}

/** A body refused before it was checked (415, an undecodable body). */
export function refusedImport(name: ImportName, status: number, body: JsonValue): PreparedImport {
  const checked = { ok: false, status, body } as const;
  return name === 'host_id' ? { name, checked } : { name, checked };
}
