/**
 * Host identities (api.md §7): one `host_id` row per address. `data` holds the host_id object as
 * served; ip, hits, first_seen, last_seen and hostnames are columns so that filters, search and
 * ordering run in SQL. Only host_id_qfilter looks into `data`, in JS, over the rows SQL kept.
 */
import type { HostEntry } from '../../../shared/api/hostIdentity';
import { hostRecordOf, type HostRecord } from '../../../shared/api/imports';
import { pageNumber, type OrderTerm, type PageRequest } from '../../../shared/api/listParams';
import { matchesHost, QueryHost, type QueryNode } from '../../../shared/api/qfilter';
import { HOST_LISTS } from '../../../shared/resources';
import type { Store } from './store';

/** A stored host as the API shows it. */
export interface HostRow {
  readonly ip: string;
  readonly hits: number;
  /** The host_id object as JSON text. */
  readonly data: string;
}

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

export interface HostPage {
  readonly count: number;
  readonly page: number;
  readonly pageSize: number;
  readonly rows: readonly HostRow[];
}

/** SQL of each ordering name; identifiers come from this table only, never from the request. */
const ORDER_SQL: Readonly<Record<string, string>> = {
  ip: 'ip',
  hits: 'hits',
  'host_id.first_seen': 'first_seen',
  'host_id.last_seen': 'last_seen',
  ...Object.fromEntries(HOST_LISTS.map((list) => [`host_id.${list}_count`, `json_extract(data, '$."${list}_count"')`])),
};

const UPSERT = `
INSERT INTO host_id (ip, hits, first_seen, last_seen, hostnames, data)
VALUES (@ip, coalesce(@hits, 0), @first_seen, @last_seen, @hostnames, @data)
ON CONFLICT(ip) DO UPDATE SET
  hits = coalesce(@hits, host_id.hits),
  first_seen = excluded.first_seen,
  last_seen = excluded.last_seen,
  hostnames = excluded.hostnames,
  data = excluded.data`;

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

export class Hosts {
  constructor(private readonly store: Store) {}

  /** The stored host of a normalised address, if any. */
  find(ip: string): HostRow | undefined {
    return this.store.query('SELECT ip, hits, data FROM host_id WHERE ip = ?').get(ip) as HostRow | undefined;
  }

  /** Store a checked host, texts made already, in place of the host of its ip; a null `hits` keeps the stored one. */
  saveRecord(record: HostRecord): void {
    this.store.command(UPSERT).run({
      ip: record.ip,
      hits: record.hits,
      first_seen: record.firstSeen,
      last_seen: record.lastSeen,
      hostnames: record.hostnames,
      data: record.data,
    });
  }

  /** Store one checked entry in place of the host of its ip; an absent `hits` keeps the stored one. */
  save(entry: HostEntry): void {
    this.saveRecord(hostRecordOf(entry));
  }

  remove(ip: string): void {
    this.store.command('DELETE FROM host_id WHERE ip = ?').run(ip);
  }

  ips(): string[] {
    return this.store.query('SELECT ip FROM host_id').pluck().all() as string[];
  }

  /** One page of hosts: counted and paged in SQL, or filtered by host_id_qfilter in JS first (undefined past the end). */
  list(query: HostListQuery): HostPage | undefined {
    const { store } = this;
    const { sql, params } = whereSql(query);
    const order = orderSql(query.ordering);
    const { pageSize } = query;
    if (!query.qfilter) {
      const countSql = `SELECT count(*) FROM host_id WHERE ${sql}`;
      const count = store.cachedCount(`${countSql}\u0000${JSON.stringify(params)}`, () => Number(store.query(countSql).pluck().get(...params)));
      const page = pageNumber(query.page, count, pageSize);
      if (page === undefined) return undefined;
      const rows =
        count === 0
          ? []
          : (store.query(`SELECT ip, hits, data FROM host_id WHERE ${sql} ORDER BY ${order} LIMIT ? OFFSET ?`).all(...params, pageSize, (page - 1) * pageSize) as HostRow[]);
      return { count, page, pageSize, rows };
    }
    const node = query.qfilter;
    const matching: HostRow[] = [];
    for (const row of store.query(`SELECT ip, hits, data FROM host_id WHERE ${sql} ORDER BY ${order}`).iterate(...params) as IterableIterator<HostRow>) {
      if (matchesHost(node, new QueryHost(row.ip, row.hits, row.data))) matching.push(row);
    }
    const page = pageNumber(query.page, matching.length, pageSize);
    if (page === undefined) return undefined;
    return { count: matching.length, page, pageSize, rows: matching.slice((page - 1) * pageSize, page * pageSize) };
  }
}
