/**
 * The site survey (issue 24), declared once for the server, the CLI and the renderer: the host
 * list's columns (what each shows of an identity, and the `host_id_qfilter` field its values
 * answer to), the filter a list, its facets, its export and the site report share, and the
 * shapes of the survey's `/app/` answers. No I/O.
 */
import type { JsonObject, JsonValue } from '../resources/fields';

// ---------------------------------------------------------------------------------------------
// Columns

export type HostColumnId =
  | 'ip'
  | 'roles'
  | 'users'
  | 'hostnames'
  | 'services'
  | 'tls_subjects'
  | 'ja3'
  | 'ja4'
  | 'user_agents'
  | 'ssh_clients'
  | 'networks'
  | 'first_seen'
  | 'last_seen'
  | 'hits'
  | 'source'
  | 'learned';

export interface HostColumn {
  readonly id: HostColumnId;
  readonly label: string;
  /** `list`: several values of the identity; `time`: one ISO time, never cut; `text`/`number`: one value. */
  readonly kind: 'text' | 'list' | 'time' | 'number';
  /**
   * The identity path (qfilter's, below `host_id.`) whose values the column shows, when it shows
   * one path's values as they are; undefined for the columns made otherwise (services, source…).
   */
  readonly path?: string;
}

export const HOST_COLUMNS: readonly HostColumn[] = [
  { id: 'ip', label: 'Address', kind: 'text' },
  { id: 'roles', label: 'Roles', kind: 'list', path: 'roles.name' },
  { id: 'users', label: 'Users', kind: 'list', path: 'username.user' },
  { id: 'hostnames', label: 'Host names', kind: 'list', path: 'hostname.host' },
  { id: 'services', label: 'Services', kind: 'list' },
  { id: 'tls_subjects', label: 'TLS subjects', kind: 'list', path: 'services.values.tls.subject' },
  { id: 'ja3', label: 'JA3', kind: 'list', path: 'tls.ja3.hash' },
  { id: 'ja4', label: 'JA4', kind: 'list', path: 'tls.ja4.hash' },
  { id: 'user_agents', label: 'User agents', kind: 'list', path: 'http.user_agent.agent' },
  { id: 'ssh_clients', label: 'SSH clients', kind: 'list', path: 'ssh.client.software_version' },
  { id: 'networks', label: 'Networks', kind: 'list', path: 'net_info.agg' },
  { id: 'first_seen', label: 'First seen', kind: 'time' },
  { id: 'last_seen', label: 'Last seen', kind: 'time' },
  { id: 'hits', label: 'Hits', kind: 'number' },
  { id: 'source', label: 'Evidence from', kind: 'text' },
  { id: 'learned', label: 'Learned', kind: 'time' },
];

export const HOST_COLUMN_IDS: readonly HostColumnId[] = HOST_COLUMNS.map((c) => c.id);

/** What the list shows until the engineer picks: address, host names, roles, services, hits, last seen. */
export const DEFAULT_HOST_COLUMNS: readonly HostColumnId[] = ['ip', 'hostnames', 'roles', 'services', 'hits', 'last_seen'];

export function hostColumn(id: string): HostColumn | undefined {
  return HOST_COLUMNS.find((c) => c.id === id);
}

/** Column ids from a comma list (`roles,users`): the known ones, each once, in the order given; `ip` always first. */
export function parseHostColumns(text: string | undefined): HostColumnId[] {
  if (text === undefined || text.trim() === '') return [...DEFAULT_HOST_COLUMNS];
  const out: HostColumnId[] = ['ip'];
  for (const part of text.split(',')) {
    const column = hostColumn(part.trim());
    if (column && !out.includes(column.id)) out.push(column.id);
  }
  return out;
}

/** Where a host's evidence came from: the local imports, the central server (or a host file), or both. */
export type HostSource = 'local' | 'central' | 'both';

/** One row of the survey's list. */
export interface HostRow {
  readonly ip: string;
  readonly hits: number;
  /** The identity as the API serves it (`GET /rest/appliances/host_id/<ip>/`'s `host_id`). */
  readonly host_id: JsonObject;
  readonly source: HostSource;
  /** When Outpost learned of the host: the import or pull that brought it first (null: before imports were recorded). */
  readonly learned: { readonly visit: number | null; readonly at: string | null };
}

/**
 * The keys a path's part from `depth` on may be, longest first, each with the depth it leads to: a
 * key may hold dots itself (`tls.ja3`, `http.user_agent`), and the longest one present wins. Worked
 * out once per path (an export asks for them for every value of every host).
 */
const KEY_CHOICES = new Map<string, (readonly (readonly [key: string, next: number])[])[]>();

function keyChoices(path: string): (readonly (readonly [key: string, next: number])[])[] {
  let choices = KEY_CHOICES.get(path);
  if (!choices) {
    const keys = path.split('.');
    choices = keys.map((_, depth) => {
      const out: (readonly [string, number])[] = [];
      for (let end = keys.length; end > depth; end--) out.push([keys.slice(depth, end).join('.'), end]);
      return out;
    });
    if (KEY_CHOICES.size < 1000) KEY_CHOICES.set(path, choices);
  }
  return choices;
}

/** Every scalar value at a path of an identity (list items share their list's path), each once, in order. */
export function valuesAt(identity: JsonValue, path: string): string[] {
  const out = new Set<string>();
  const choices = keyChoices(path);
  const walk = (value: JsonValue | undefined, depth: number): void => {
    if (value === undefined || value === null) return;
    if (Array.isArray(value)) {
      for (const item of value) walk(item, depth);
      return;
    }
    if (depth === choices.length) {
      if (typeof value !== 'object') out.add(String(value));
      return;
    }
    if (typeof value === 'object') {
      for (const [key, next] of choices[depth]!) {
        if (key in value) {
          walk((value as JsonObject)[key], next);
          return;
        }
      }
    }
  };
  walk(identity, 0);
  return [...out];
}

/**
 * A service as short texts, one for each application protocol seen on it: `443/tcp tls`
 * (api.md §7: a service is `{proto, port, values: [{app_proto, …}]}`); `443/tcp` alone when no
 * value names one.
 */
export function serviceTexts(service: JsonValue): string[] {
  if (service === null || typeof service !== 'object' || Array.isArray(service)) return [];
  const port = service.port;
  if (typeof port !== 'number' && typeof port !== 'string') return [];
  const base = `${port}${typeof service.proto === 'string' && service.proto !== '' ? `/${service.proto}` : ''}`;
  const apps = valuesAt(service, 'values.app_proto');
  if (typeof service.app_proto === 'string' && service.app_proto !== '' && !apps.includes(service.app_proto)) apps.unshift(service.app_proto);
  return apps.length === 0 ? [base] : apps.map((app) => `${base} ${app}`);
}

/** The texts a column shows for a row (one for `text`, `number` and `time` columns, none when absent). */
export function columnValues(row: HostRow, id: HostColumnId): string[] {
  const column = hostColumn(id);
  if (column?.path !== undefined) return valuesAt(row.host_id, column.path);
  switch (id) {
    case 'ip':
      return [row.ip];
    case 'hits':
      return [String(row.hits)];
    case 'first_seen':
    case 'last_seen': {
      const value = row.host_id[id];
      return typeof value === 'string' ? [value] : [];
    }
    case 'services': {
      const services = row.host_id.services;
      if (!Array.isArray(services)) return [];
      const out: string[] = [];
      for (const service of services) {
        for (const text of serviceTexts(service)) if (!out.includes(text)) out.push(text);
      }
      return out;
    }
    case 'source':
      return [row.source];
    case 'learned':
      return row.learned.at === null ? [] : [row.learned.at];
    default:
      return [];
  }
}

// ---------------------------------------------------------------------------------------------
// The filter a list, its facets, its export and the report share

/** Which hosts of an import or pull: those it brought first, or those it changed (new ones included). */
export type VisitChange = 'new' | 'changed';

export type HostOrderKey = 'ip' | 'hits' | 'first_seen' | 'last_seen' | 'learned';

export interface HostFilter {
  /** A `host_id_qfilter` query (facet chips are added to it as its own text). */
  readonly q?: string;
  /** Substring over every identity value and the address, from its third character (case-folded). */
  readonly search?: string;
  /** Hosts of this import or pull (its pk in the visits list)… */
  readonly visit?: number;
  /** …new in it, or changed by it (default `changed`). */
  readonly visitChange?: VisitChange;
}

/** The query parameters of a filter (the names every survey route reads): `q`, `search`, `visit`, `visit_change`. */
export const HOST_FILTER_PARAMS = ['q', 'search', 'visit', 'visit_change'] as const;

/** The smallest search the box sends: shorter ones would match nearly everything. */
export const SEARCH_MIN_CHARS = 3;

/** A filter from query parameters; an error names the parameter and what it takes. */
export function parseHostFilter(query: (name: string) => string | undefined): HostFilter | { readonly error: string } {
  const filter: { q?: string; search?: string; visit?: number; visitChange?: VisitChange } = {};
  const q = query('q')?.trim();
  if (q) filter.q = q;
  const search = query('search')?.trim();
  if (search) {
    if ([...search].length < SEARCH_MIN_CHARS) return { error: `search: give at least ${SEARCH_MIN_CHARS} characters.` };
    filter.search = search;
  }
  const visit = query('visit');
  if (visit !== undefined && visit !== '') {
    if (!/^[1-9]\d{0,15}$/.test(visit)) return { error: 'visit: give the number of an import or pull.' };
    filter.visit = Number(visit);
  }
  const change = query('visit_change');
  if (change !== undefined && change !== '') {
    if (change !== 'new' && change !== 'changed') return { error: 'visit_change: give "new" or "changed".' };
    filter.visitChange = change;
  }
  return filter;
}

/** A filter as query parameters (the ones set). */
export function hostFilterQuery(filter: HostFilter): Record<string, string> {
  const out: Record<string, string> = {};
  if (filter.q) out.q = filter.q;
  if (filter.search) out.search = filter.search;
  if (filter.visit !== undefined) out.visit = String(filter.visit);
  if (filter.visitChange) out.visit_change = filter.visitChange;
  return out;
}

/** The ordering of the survey's list: a key, `-` for descending (default `-last_seen`). */
export function parseHostOrdering(text: string | undefined): { readonly key: HostOrderKey; readonly descending: boolean } | undefined {
  const value = text?.trim() || '-last_seen';
  const descending = value.startsWith('-');
  const key = descending ? value.slice(1) : value;
  return key === 'ip' || key === 'hits' || key === 'first_seen' || key === 'last_seen' || key === 'learned' ? { key, descending } : undefined;
}

// ---------------------------------------------------------------------------------------------
// Answers of the survey's routes (shared/app/routes.ts)

export interface HostListAnswer {
  readonly count: number;
  readonly results: readonly HostRow[];
  /** The version of the host data this page was read at (`hostsVersion`). */
  readonly version: string;
}

export interface FacetBucket {
  /** The value as the identity holds it (`domain controller`, `443`, `true`). */
  readonly value: string;
  /** How it reads in the list (`443/tcp https`…). */
  readonly label: string;
  readonly count: number;
  /** The `host_id_qfilter` text that selects these hosts: what the chip teaches. */
  readonly qfilter: string;
}

export type FacetId = 'roles' | 'services' | 'networks' | 'in_home_net' | 'has_users' | 'tls_server';

export interface Facet {
  readonly id: FacetId;
  readonly label: string;
  readonly buckets: readonly FacetBucket[];
  /** Values beyond the buckets shown (the most frequent are shown). */
  readonly more: number;
}

export interface HostFacetsAnswer {
  /** Hosts under the filter. */
  readonly count: number;
  readonly facets: readonly Facet[];
  readonly version: string;
}

/** A field of the query language, as the query box lists it. */
export interface QueryField {
  /** The full name the query takes: `host_id.roles.name`, `ip`, `hits`. */
  readonly field: string;
  /** 'text', 'number', 'boolean' or 'time' (times and counts compare with `>`, `<`…). */
  readonly kind: 'text' | 'number' | 'boolean' | 'time';
  /** A query using it with a value the workspace holds (or a made-up one when it holds none). */
  readonly example: string;
  /** Distinct values the workspace holds at it (0 for times and counts). */
  readonly values: number;
}

export interface HostFieldsAnswer {
  readonly fields: readonly QueryField[];
}

export interface HostValuesAnswer {
  readonly field: string;
  /** The values starting with (or, past them, containing) the prefix, most hosts first. */
  readonly values: readonly { readonly value: string; readonly count: number }[];
}

export interface HostsVersionAnswer {
  /** Changes whenever a host identity is written, by this process or another (a terminal's import, a sync). */
  readonly version: string;
}

/** A file an import read. */
export interface VisitFile {
  readonly name: string;
  readonly size: number;
  /** SHA-256 of the bytes this import read of it (the whole file when it read it from its start), hex. */
  readonly sha256: string;
  /** The byte it started at (0: from the start) and the lines it read. */
  readonly from: number;
  readonly lines: number;
}

export type VisitKind = 'eve' | 'host_file' | 'pull';

/** An import (EVE log, host file) or a pull that changed hosts: a point the engineer compares. */
export interface Visit {
  readonly pk: number;
  readonly kind: VisitKind;
  /** When it ended (ISO, UTC). */
  readonly at: string;
  /** Who ran it: a username, or `cli:<user>` for the outpost command. */
  readonly user: string;
  readonly files: readonly VisitFile[];
  readonly hostsNew: number;
  readonly hostsUpdated: number;
  /** Its entry in the local history. */
  readonly historyPk: number | null;
}

export type ChangeKind =
  | 'host_new'
  | 'host_not_seen'
  | 'service_added'
  | 'service_gone'
  | 'role_new'
  | 'user_new'
  | 'hostname_new'
  | 'tls_changed';

export const CHANGE_KINDS: readonly ChangeKind[] = ['host_new', 'host_not_seen', 'service_added', 'service_gone', 'role_new', 'user_new', 'hostname_new', 'tls_changed'];

/** How each kind of change is named in the Changes view and the site report. */
export const CHANGE_KIND_LABELS: Readonly<Record<ChangeKind, string>> = {
  host_new: 'New hosts',
  host_not_seen: 'Hosts not seen since',
  service_added: 'Services that appeared',
  service_gone: 'Services that went',
  role_new: 'New roles',
  user_new: 'New users',
  hostname_new: 'New host names',
  tls_changed: 'TLS certificates that changed',
};

export interface HostChange {
  readonly kind: ChangeKind;
  readonly ip: string;
  /** The value that appeared, went or replaced (a service's text, a role, a certificate's subject…); null for host changes. */
  readonly value: string | null;
  /** For a replaced value (a certificate), the one before. */
  readonly previous: string | null;
}

/** A point of a comparison: an import or pull, or a date (the visits up to it). */
export interface ComparePoint {
  readonly visit: number | null;
  readonly at: string | null;
  readonly label: string;
}

export interface HostComparison {
  readonly since: ComparePoint;
  readonly until: ComparePoint;
  readonly totals: Readonly<Record<ChangeKind, number>>;
  /** The changes, by kind then address, at most `limit` of them (`truncated` says when more). */
  readonly changes: readonly HostChange[];
  readonly truncated: boolean;
}
