/**
 * api.md §7 host identity: detail by address, the list (window, search, ip, ordering,
 * host_id_qfilter) and `import/`. A host is one `host_id` row: `data` holds its host_id object
 * as served; ip, hits, first_seen, last_seen and hostnames are columns so that filters, search
 * and ordering run in SQL. Only host_id_qfilter looks into `data`, in JS, over the rows SQL kept.
 */
import { ApiError } from '../../../shared/api/errors';
import { parseEpochSeconds, type HostEntry } from '../../../shared/api/hostIdentity';
import { checkHostImport, hostRecordOf, type HostRecord } from '../../../shared/api/imports';
import { parseFilterValue, parseOrdering, parsePage, parsePageSize, parseSearch, resolvePage, type OrderTerm, type PageRequest } from '../../../shared/api/listParams';
import { MESSAGES } from '../../../shared/api/messages';
import { matchesHost, parseQFilter, QueryError, QueryHost, type QueryNode } from '../../../shared/api/qfilter';
import { queryGet, type QueryPairs } from '../../../shared/api/queryString';
import { parseIp } from '../../../shared/api/address';
import { HOST_LISTS, hostId, type JsonObject, type JsonValue } from '../../../shared/resources';
import { ok } from '../http/types';
import type { Endpoint, Handler } from '../routing/endpoint';
import type { Services } from '../services';
import type { Store } from '../store/store';
import { importHandler, type ImportKind } from './imports';
import { paginated } from './pagination';

export type { HostEntry } from '../../../shared/api/hostIdentity';

/** A stored host as the API shows it. */
export interface HostRow {
  readonly ip: string;
  readonly hits: number;
  /** The host_id object as JSON text. */
  readonly data: string;
}

export function hostJson(row: HostRow): JsonObject {
  return { ip: row.ip, hits: row.hits, host_id: JSON.parse(row.data) as JsonValue };
}

/** The stored host of a normalised address, if any. */
export function findHost(store: Store, ip: string): HostRow | undefined {
  return store.prepare('SELECT ip, hits, data FROM host_id WHERE ip = ?').get(ip) as HostRow | undefined;
}

const UPSERT = `
INSERT INTO host_id (ip, hits, first_seen, last_seen, hostnames, data)
VALUES (@ip, coalesce(@hits, 0), @first_seen, @last_seen, @hostnames, @data)
ON CONFLICT(ip) DO UPDATE SET
  hits = coalesce(@hits, host_id.hits),
  first_seen = excluded.first_seen,
  last_seen = excluded.last_seen,
  hostnames = excluded.hostnames,
  data = excluded.data`;

/** Store a checked host, texts made already, in place of the host of its ip; a null `hits` keeps the stored one. */
export function saveHostRecord(store: Store, record: HostRecord): void {
  store.prepare(UPSERT).run({
    ip: record.ip,
    hits: record.hits,
    first_seen: record.firstSeen,
    last_seen: record.lastSeen,
    hostnames: record.hostnames,
    data: record.data,
  });
}

/** Store one checked entry in place of the host of its ip; an absent `hits` keeps the stored one. */
export function saveHost(store: Store, entry: HostEntry): void {
  saveHostRecord(store, hostRecordOf(entry));
}

/**
 * `host_id/import/` (and `outpost import-hosts`): entries checked with no I/O (in the body worker
 * for large bodies), each stored as its record.
 */
export const hostImport: ImportKind<HostRecord> = {
  actionType: 'import_host_id',
  check: checkHostImport,
  prepared: (req) => (req.prepared?.name === 'host_id' ? req.prepared.checked : undefined),
  save(record, services) {
    saveHostRecord(services.store, record);
  },
};

// ---------------------------------------------------------------------------------------------
// List parameters

/** SQL of each ordering name; identifiers come from this table only, never from the request. */
const ORDER_SQL: Readonly<Record<string, string>> = {
  ip: 'ip',
  hits: 'hits',
  'host_id.first_seen': 'first_seen',
  'host_id.last_seen': 'last_seen',
  ...Object.fromEntries(HOST_LISTS.map((list) => [`host_id.${list}_count`, `json_extract(data, '$."${list}_count"')`])),
};

export interface HostListQuery {
  readonly page: PageRequest;
  readonly pageSize: number;
  readonly ordering: readonly OrderTerm[];
  readonly search: readonly string[];
  readonly ip?: string;
  /** Seen at or after (last_seen ≥), epoch microseconds. */
  readonly start?: number;
  /** Seen at or before (first_seen ≤), epoch microseconds. */
  readonly end?: number;
  readonly qfilter?: QueryNode;
}

/** The list's parameters, with errors in the real server's order: filters, search, then the query. */
export function parseHostListQuery(pairs: QueryPairs): HostListQuery {
  const errors: JsonObject = {};
  const rawIp = queryGet(pairs, 'ip');
  const ip = rawIp === undefined ? {} : parseFilterValue(hostId.fields.ip!, rawIp);
  if (ip.error) errors.ip = [ip.error];
  const window: { start?: number; end?: number } = {};
  for (const [param, key] of [
    ['start_date', 'start'],
    ['end_date', 'end'],
  ] as const) {
    const raw = queryGet(pairs, param);
    const parsed = raw === undefined ? {} : parseEpochSeconds(raw);
    if (parsed.error) errors[param] = [parsed.error];
    else if (parsed.value !== undefined) window[key] = parsed.value;
  }
  if (Object.keys(errors).length > 0) throw ApiError.validation(errors);
  const ordering = parseOrdering(queryGet(pairs, 'ordering'), hostId.ordering, hostId.defaultOrdering);
  const search = parseSearch(queryGet(pairs, 'search'));
  let qfilter: QueryNode | undefined;
  try {
    qfilter = parseQFilter(queryGet(pairs, 'host_id_qfilter') ?? '');
  } catch (error) {
    if (error instanceof QueryError) throw ApiError.validation({ host_id_qfilter: [error.message] });
    throw error;
  }
  return {
    page: parsePage(queryGet(pairs, 'page')),
    pageSize: parsePageSize(queryGet(pairs, 'page_size')),
    ordering,
    search,
    ...(typeof ip.value === 'string' ? { ip: ip.value } : {}),
    ...window,
    ...(qfilter ? { qfilter } : {}),
  };
}

type SqlParam = string | number;

function whereSql(query: HostListQuery): { sql: string; params: SqlParam[] } {
  const clauses: string[] = [];
  const params: SqlParam[] = [];
  if (query.ip !== undefined) {
    clauses.push('ip = ?');
    params.push(query.ip);
  }
  if (query.start !== undefined) {
    clauses.push('last_seen >= ?');
    params.push(query.start);
  }
  if (query.end !== undefined) {
    clauses.push('first_seen <= ?');
    params.push(query.end);
  }
  for (const term of query.search) {
    clauses.push('(contains_folded(ip, ?) OR contains_folded(hostnames, ?))');
    params.push(term, term);
  }
  return { sql: clauses.length > 0 ? clauses.join(' AND ') : '1', params };
}

function orderSql(ordering: readonly OrderTerm[]): string {
  const terms = ordering.map((term) => `${ORDER_SQL[term.field]!} ${term.descending ? 'DESC' : 'ASC'}`);
  return [...terms, 'pk ASC'].join(', ');
}

/** One page of hosts: counted and paged in SQL, or filtered by host_id_qfilter in JS first. */
export function listHosts(store: Store, query: HostListQuery): { count: number; page: number; pageSize: number; rows: HostRow[] } {
  const { sql, params } = whereSql(query);
  const order = orderSql(query.ordering);
  const { pageSize } = query;
  if (!query.qfilter) {
    const countSql = `SELECT count(*) FROM host_id WHERE ${sql}`;
    const count = store.cachedCount(`${countSql}\u0000${JSON.stringify(params)}`, () => Number(store.prepare(countSql).pluck().get(...params)));
    const page = resolvePage(query.page, count, pageSize);
    const rows =
      count === 0
        ? []
        : (store.prepare(`SELECT ip, hits, data FROM host_id WHERE ${sql} ORDER BY ${order} LIMIT ? OFFSET ?`).all(...params, pageSize, (page - 1) * pageSize) as HostRow[]);
    return { count, page, pageSize, rows };
  }
  const node = query.qfilter;
  const matching: HostRow[] = [];
  for (const row of store.prepare(`SELECT ip, hits, data FROM host_id WHERE ${sql} ORDER BY ${order}`).iterate(...params) as IterableIterator<HostRow>) {
    if (matchesHost(node, new QueryHost(row.ip, row.hits, row.data))) matching.push(row);
  }
  const page = resolvePage(query.page, matching.length, pageSize);
  return { count: matching.length, page, pageSize, rows: matching.slice((page - 1) * pageSize, page * pageSize) };
}

// ---------------------------------------------------------------------------------------------
// Endpoint

export function hostIdEndpoint(services: Services): Endpoint {
  const { store } = services;

  const list: Handler = (ctx) => {
    const page = listHosts(store, parseHostListQuery(ctx.query));
    return ok(paginated(ctx, page, page.rows.map(hostJson)));
  };

  const retrieve: Handler = (_ctx, id) => {
    const ip = parseIp(id);
    if (!ip) throw ApiError.detail(400, MESSAGES.invalidIp);
    const row = findHost(store, ip.text);
    return ok(row ? hostJson(row) : { ip: ip.text, hits: 0 });
  };

  return {
    resource: hostId,
    lookup: '[^/]+',
    list,
    retrieve,
    actions: [{ name: 'import', detail: false, methods: ['POST'], handler: importHandler(hostImport) }],
  };
}
