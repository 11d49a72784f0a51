/**
 * What changed in a host between two visits (issue 24 §2), with no I/O: the facts of an identity
 * as a comparison needs them, the diff of two identities a visit records, the net change of a
 * host over several visits, the compact form of a visit's seen hosts, and a comparison's points
 * as the engineer writes them. The store (electron/server/store/visits.ts) keeps and reads them.
 */
import { parseDateTimeInput } from '../api/datetime';
import type { JsonObject, JsonValue } from '../resources/fields';
import type { ChangeKind } from './hostSurvey';

/** Facts a comparison reports on. */
export type FactKind = 'role' | 'user' | 'hostname' | 'service' | 'tls';

/**
 * An identity's facts: `kind:key` → value. Roles, users, host names and services are there or
 * not (value `''`; a host name's value is its spelling, its key folded: docs/eve.md makes it one
 * whatever its case); a TLS certificate is a service's value (subject, issuer, fingerprint), which
 * a later one replaces.
 */
export type Facts = Map<string, string>;

const SEP = '\u001f';
/** Bound on a fact's text: a hostile log's megabyte value is still told apart, never stored whole twice. */
const MAX_FACT = 512;

const bounded = (text: string): string => (text.length > MAX_FACT ? `${text.slice(0, MAX_FACT)}…` : text);
const isObject = (value: JsonValue | undefined): value is JsonObject => value !== null && typeof value === 'object' && !Array.isArray(value);
const items = (identity: JsonObject, list: string): JsonObject[] => {
  const value = identity[list];
  return Array.isArray(value) ? value.filter(isObject) : [];
};
const textOf = (value: JsonValue | undefined): string | undefined => (typeof value === 'string' || typeof value === 'number' ? String(value) : undefined);

/** A service as the comparison names it: `443/tcp tls` (port, protocol in lower case, application protocol). */
export function serviceKey(service: JsonObject, value?: JsonObject): string | undefined {
  const port = textOf(service.port);
  if (port === undefined) return undefined;
  const proto = (textOf(service.proto) ?? '').toLowerCase();
  const app = textOf(value?.app_proto) ?? textOf(service.app_proto) ?? 'unknown';
  return bounded(`${port}/${proto} ${app}`);
}

/** A certificate as one value: subject, issuer and fingerprint (any of them may change). */
function certificateOf(value: JsonObject): string | undefined {
  const tls = value.tls;
  if (!isObject(tls)) return undefined;
  const parts = [textOf(tls.subject) ?? '', textOf(tls.issuerdn) ?? '', textOf(tls.fingerprint) ?? ''];
  return parts.every((part) => part === '') ? undefined : parts.map(bounded).join(SEP);
}

export function identityFacts(identity: JsonObject): Facts {
  const facts: Facts = new Map();
  for (const role of items(identity, 'roles')) {
    const name = textOf(role.name);
    if (name !== undefined) facts.set(`role:${bounded(name)}`, '');
  }
  for (const user of items(identity, 'username')) {
    const name = textOf(user.user);
    if (name !== undefined) facts.set(`user:${bounded(name)}`, '');
  }
  for (const host of items(identity, 'hostname')) {
    const name = textOf(host.host);
    if (name !== undefined) facts.set(`hostname:${bounded(name.toLowerCase())}`, bounded(name));
  }
  // api.md §7: a service is a port and protocol with one value per application protocol, each
  // with its own details (the certificate of `tls`).
  for (const service of items(identity, 'services')) {
    const values = items(service, 'values');
    for (const value of values.length > 0 ? values : [service]) {
      const key = serviceKey(service, value);
      if (key === undefined) continue;
      facts.set(`service:${key}`, '');
      const certificate = certificateOf(value);
      if (certificate !== undefined) facts.set(`tls:${key}`, certificate);
    }
  }
  return facts;
}

/** One fact's change: added (`+`, its value), removed (`-`, the value it had) or replaced (`~`, new then old). */
export type FactChange = readonly ['+', string, string] | readonly ['-', string, string] | readonly ['~', string, string, string];

/** How `before` became `after`, fact by fact, in key order (empty: no fact changed). */
export function diffFacts(before: Facts, after: Facts): FactChange[] {
  const out: FactChange[] = [];
  for (const [key, value] of after) {
    const old = before.get(key);
    if (old === undefined) out.push(['+', key, value]);
    else if (old !== value) out.push(['~', key, value, old]);
  }
  for (const [key, value] of before) if (!after.has(key)) out.push(['-', key, value]);
  return out.sort((a, b) => (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0));
}

/** A diff as stored (JSON), and read back; anything else reads as no change. */
export function parseDiff(text: string | null): FactChange[] {
  if (text === null) return [];
  try {
    const value: unknown = JSON.parse(text);
    if (!Array.isArray(value)) return [];
    return value.filter(
      (item): item is FactChange =>
        Array.isArray(item) && typeof item[1] === 'string' && typeof item[2] === 'string' && (item[0] === '+' || item[0] === '-' || (item[0] === '~' && typeof item[3] === 'string')),
    );
  } catch {
    return [];
  }
}

/** A change of a host the comparison reports (the address is the caller's). */
export interface NetChange {
  readonly kind: ChangeKind;
  readonly value: string | null;
  readonly previous: string | null;
}

const APPEARED: Readonly<Partial<Record<FactKind, ChangeKind>>> = { role: 'role_new', user: 'user_new', hostname: 'hostname_new', service: 'service_added' };

/** A certificate's value as the engineer reads it: its subject, and its fingerprint when the subject alone does not tell two apart. */
export function certificateText(value: string, other?: string): string {
  const [subject = '', issuer = '', fingerprint = ''] = value.split(SEP);
  const [otherSubject] = other?.split(SEP) ?? [];
  const name = subject || issuer || fingerprint;
  return other !== undefined && otherSubject === subject && fingerprint !== '' ? `${name} (${fingerprint})` : name;
}

/**
 * The net change of one host over consecutive visits' diffs (oldest first): a fact added then
 * removed is no change; one there before and gone after went; one absent before and there after
 * appeared; a certificate there before and another after changed. Values that went are reported
 * for services only, and roles, users and names only as they appear (what a site visit asks).
 */
export function netChanges(diffs: readonly (readonly FactChange[])[]): NetChange[] {
  const first = new Map<string, FactChange>();
  const last = new Map<string, FactChange>();
  for (const diff of diffs) {
    for (const change of diff) {
      if (!first.has(change[1])) first.set(change[1], change);
      last.set(change[1], change);
    }
  }
  const out: NetChange[] = [];
  for (const [key, opening] of first) {
    const closing = last.get(key)!;
    const colon = key.indexOf(':');
    const kind = key.slice(0, colon) as FactKind;
    const name = key.slice(colon + 1);
    const wasThere = opening[0] !== '+';
    const isThere = closing[0] !== '-';
    const before = opening[0] === '+' ? undefined : opening[0] === '-' ? opening[2] : opening[3];
    const now = isThere ? closing[2] : undefined;
    if (kind === 'tls') {
      if (now !== undefined && now !== before) out.push({ kind: 'tls_changed', value: `${name}: ${certificateText(now, before)}`, previous: before === undefined ? null : certificateText(before, now) });
      continue;
    }
    // A host name's key is folded; it is told in the spelling it has now.
    if (!wasThere && isThere && APPEARED[kind]) out.push({ kind: APPEARED[kind]!, value: now || name, previous: null });
    else if (wasThere && !isThere && kind === 'service') out.push({ kind: 'service_gone', value: name, previous: null });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// A visit's seen hosts: sorted pks, each as its distance from the one before in LEB128 varints
// (1 byte for the usual gaps below 128: about 1 MB for a million hosts).

export function encodePks(sorted: Iterable<number>): Uint8Array {
  const bytes: number[] = [];
  let previous = 0;
  for (const pk of sorted) {
    let gap = pk - previous;
    previous = pk;
    while (gap >= 0x80) {
      bytes.push((gap % 0x80) | 0x80);
      gap = Math.floor(gap / 0x80);
    }
    bytes.push(gap);
  }
  return Uint8Array.from(bytes);
}

export function decodePks(bytes: Uint8Array, each: (pk: number) => void): void {
  let pk = 0;
  let gap = 0;
  let scale = 1;
  for (const byte of bytes) {
    gap += (byte & 0x7f) * scale;
    if (byte & 0x80) {
      scale *= 0x80;
      continue;
    }
    pk += gap;
    each(pk);
    gap = 0;
    scale = 1;
  }
}

// ---------------------------------------------------------------------------------------------
// The points of a comparison as written: an import or pull by its number, a date, or `pull`.

export type PointText = { readonly visit: number } | { readonly at: number } | { readonly pull: true };

/** A point from its text (`12`, `2026-11-20`, `2026-11-20T14:00:00+01:00`, `pull`); a date or time without a zone is UTC. */
export function parsePoint(text: string): PointText | { readonly error: string } {
  const value = text.trim();
  if (value === 'pull') return { pull: true };
  if (/^\d{1,15}$/.test(value) && Number(value) > 0) return { visit: Number(value) };
  const at = parseDateTimeInput(value);
  if (at !== undefined) return { at };
  return { error: 'give the number of an import or pull, a date (2026-11-20 or 2026-11-20T14:00:00Z), or "pull"' };
}
