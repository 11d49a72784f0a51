/**
 * Host identities (api.md §7): one `host_id` row per address. `data` holds the host_id object as
 * served; ip, hits, first_seen, last_seen and hostnames are columns so that filters, search and
 * ordering run in SQL. Only host_id_qfilter looks into `data`, in JS, over the rows SQL kept.
 */
import type { HostEntry } from '../../../shared/api/hostIdentity';
import { hostRecordOf, type HostRecord } from '../../../shared/api/imports';
import { pageNumber, type OrderTerm, type PageRequest } from '../../../shared/api/listParams';
import { matchesHost, QueryHost, type QueryNode } from '../../../shared/api/qfilter';
import { parseNetwork, type Network } from '../../../shared/api/address';
import { parseIsoDateTime } from '../../../shared/api/datetime';
import { hostnamesText } from '../../../shared/api/hostIdentity';
import { hostIdentity } from '../../../shared/eve/identity';
import { HOST_LISTS, type JsonObject } from '../../../shared/resources';
import type { Evidence } from './evidence';
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

/** The central server's identity of an address (or an imported one) as served, and kept as its central part. */
const UPSERT_CENTRAL = `
INSERT INTO host_id (ip, hits, central_hits, first_seen, last_seen, hostnames, data, central)
VALUES (@ip, coalesce(@hits, 0), coalesce(@hits, 0), @first_seen, @last_seen, @hostnames, @data, @data)
ON CONFLICT(ip) DO UPDATE SET
  central_hits = coalesce(@hits, host_id.central_hits, 0),
  hits = coalesce(@hits, host_id.central_hits, 0),
  first_seen = excluded.first_seen,
  last_seen = excluded.last_seen,
  hostnames = excluded.hostnames,
  data = excluded.data,
  central = excluded.central`;

/** The served identity of an address that local evidence has a part in (its central part kept). */
const UPSERT_MERGED = `
INSERT INTO host_id (ip, hits, first_seen, last_seen, hostnames, data)
VALUES (@ip, @hits, @first_seen, @last_seen, @hostnames, @data)
ON CONFLICT(ip) DO UPDATE SET
  hits = excluded.hits,
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
  constructor(
    private readonly store: Store,
    private readonly evidence: Evidence,
  ) {}

  /** The stored host of a normalised address, if any. */
  find(ip: string): HostRow | undefined {
    return this.store.query('SELECT ip, hits, data FROM host_id WHERE ip = ?').get(ip) as HostRow | undefined;
  }

  /**
   * Store a checked host (an import or the central server's), texts made already, as the central
   * part of its address; a null `hits` keeps the stored one. Local evidence of the address stays
   * and is merged in.
   */
  saveRecord(record: HostRecord): void {
    this.store.command(UPSERT_CENTRAL).run({
      ip: record.ip,
      hits: record.hits,
      first_seen: record.firstSeen,
      last_seen: record.lastSeen,
      hostnames: record.hostnames,
      data: record.data,
    });
    if (this.hasLocal(record.ip)) this.refresh([record.ip]);
  }

  /** Is this exactly the central part stored for its address (a pull need not write it)? */
  sameCentral(record: HostRecord): boolean {
    const row = this.store.query('SELECT central, central_hits FROM host_id WHERE ip = ?').get(record.ip) as { central: string | null; central_hits: number | null } | undefined;
    return row !== undefined && row.central === record.data && (record.hits === null || row.central_hits === record.hits);
  }

  /** Addresses with a central part (what a pull compares with the central server's list). */
  centralIps(): string[] {
    return this.store.query('SELECT ip FROM host_id WHERE central IS NOT NULL').pluck().all() as string[];
  }

  /** The central server no longer has the address: its central part goes, local evidence stays. */
  removeCentral(ip: string): void {
    if (!this.hasLocal(ip)) {
      this.remove(ip);
      return;
    }
    this.store.command('UPDATE host_id SET central = NULL, central_hits = NULL WHERE ip = ?').run(ip);
    this.refresh([ip]);
  }

  private hasLocal(ip: string): boolean {
    // Most workspaces have no local evidence: one look (kept until the next change) spares a
    // lookup per host of a large import.
    const any = this.store.cachedQuery('host_local any', () => this.store.query('SELECT EXISTS (SELECT 1 FROM host_local)').pluck().get() === 1);
    return any && this.store.query('SELECT 1 FROM host_local WHERE ip = ?').get(ip) !== undefined;
  }

  /** Write again the served identity of addresses with local evidence: central part and local evidence merged. */
  refresh(ips: Iterable<string>): number {
    const networks = this.evidence.homeNets().map((text) => parseNetwork(text)).filter((n): n is Network => n !== undefined);
    const write = this.store.command(UPSERT_MERGED);
    let count = 0;
    for (const ip of ips) {
      const local = this.evidence.local(ip);
      if (!local) continue;
      const row = this.store.query('SELECT central, central_hits FROM host_id WHERE ip = ?').get(ip) as { central: string | null; central_hits: number | null } | undefined;
      const central = row?.central ? (JSON.parse(row.central) as JsonObject) : undefined;
      const identity = hostIdentity({ ip, central, local, homeNets: networks });
      write.run({
        ip,
        // The larger of the two counts: the central server counts the alerts of this site's probe too (docs/decisions.md).
        hits: Math.max(row?.central_hits ?? 0, local.hits),
        first_seen: parseIsoDateTime(String(identity.first_seen)) ?? local.first,
        last_seen: parseIsoDateTime(String(identity.last_seen)) ?? local.last,
        hostnames: hostnamesText(identity),
        data: JSON.stringify(identity),
      });
      count++;
    }
    return count;
  }

  /** Store one checked entry in place of the host of its ip; an absent `hits` keeps the stored one. */
  save(entry: HostEntry): void {
    this.saveRecord(hostRecordOf(entry));
  }

  remove(ip: string): void {
    this.store.command('DELETE FROM host_id WHERE ip = ?').run(ip);
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
