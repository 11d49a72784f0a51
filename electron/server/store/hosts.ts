/**
 * Host identities (api.md §7): one `host_id` row per address. `data` holds the host_id object as
 * served; ip, hits, first_seen, last_seen and hostnames are columns so that filters, search and
 * ordering run in SQL; host_id_qfilter is answered in SQL too, through the index of every
 * identity's values that each write here keeps (store/hostSearch.ts).
 */
import type { HostEntry } from '../../../shared/api/hostIdentity';
import { hostRecordOf, type HostRecord } from '../../../shared/api/imports';
import { pageNumber, type OrderTerm, type PageRequest } from '../../../shared/api/listParams';
import type { QueryNode } from '../../../shared/api/qfilter';
import { identityRecords, networksOf } from '../../../shared/eve/identity';
import type { IdentityRecord } from '../../../shared/eve/identitySource';
import { HOST_LISTS } from '../../../shared/resources';
import { CENTRAL_SQL } from './centralPart';
import type { Evidence } from './evidence';
import { HostSearch, type MatchedHosts, type VocabLayout } from './hostSearch';
import { IdentitySources } from './identitySources';
import { CACHING, ReadCache, type Store } from './store';
import type { VisitRecording } from './visits';

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
VALUES (@ip, coalesce(@hits, 0), coalesce(@hits, 0), @first_seen, @last_seen, @hostnames, @data, '')
ON CONFLICT(ip) DO UPDATE SET
  central_hits = coalesce(@hits, host_id.central_hits, 0),
  hits = coalesce(@hits, host_id.central_hits, 0),
  first_seen = excluded.first_seen,
  last_seen = excluded.last_seen,
  hostnames = excluded.hostnames,
  data = excluded.data,
  central = ''`;

/**
 * The served identity of an address that local evidence has a part in; its central part kept
 * (written out first if it was the served identity: SET reads the row as it was). A row that
 * would not change is not written: a change counts only what really changed.
 */
const UPSERT_MERGED = `
INSERT INTO host_id (ip, hits, first_seen, last_seen, hostnames, data)
VALUES (?, ?, ?, ?, ?, ?)
ON CONFLICT(ip) DO UPDATE SET
  central = ${CENTRAL_SQL},
  hits = excluded.hits,
  first_seen = excluded.first_seen,
  last_seen = excluded.last_seen,
  hostnames = excluded.hostnames,
  data = excluded.data
WHERE data IS NOT excluded.data OR hits IS NOT excluded.hits OR first_seen IS NOT excluded.first_seen
  OR last_seen IS NOT excluded.last_seen OR hostnames IS NOT excluded.hostnames OR central = ''`;

type SqlParam = string | number;

/**
 * The count of host writes, kept in the database so that every connection's writes move it (an
 * import's own thread, a terminal's `outpost import-eve`, a sync): the survey's `hostsVersion`.
 */
const COUNT_WRITE = "INSERT INTO host_search_state (key, value) VALUES ('hosts_written', 1) ON CONFLICT(key) DO UPDATE SET value = value + 1";

/** Past this many matches, a page of a host_id_qfilter is found along the order's index. */
const WALK_ORDER_ABOVE = 2000;
/**
 * The sets of recent host_id_qfilter queries (pks as JSON text), for the next pages of the same
 * query; emptied by any write. Bounded in characters, so that a client's many broad queries
 * cannot fill the memory.
 */
class QuerySets {
  private readonly sets = new Map<string, MatchedHosts>();
  private size = 0;

  constructor(private readonly limit = 4 * 1024 * 1024) {}

  get(key: string): MatchedHosts | undefined {
    return this.sets.get(key);
  }

  set(key: string, matched: MatchedHosts): void {
    const { length } = matched.pks;
    if (!CACHING || length > this.limit / 4) return;
    if (this.size + length > this.limit) this.clear();
    this.sets.set(key, matched);
    this.size += length;
  }

  clear(): void {
    this.sets.clear();
    this.size = 0;
  }
}

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
  private readonly search: HostSearch;
  private readonly sets: QuerySets;
  /** Each address's entry as the API renders it, kept until the next change (filled by the handler). */
  readonly rendered: ReadCache<string, object>;
  /** The write in which the count of host writes last moved (it moves once per transaction). */
  private countedWrite: number | undefined;

  /** What identities are made from (the one reader of it). */
  readonly sources: IdentitySources;

  /** The visit (an import, a pull) the identities written now belong to: each is noted in it, old and new. */
  private recording: VisitRecording | undefined;

  constructor(
    private readonly store: Store,
    private readonly evidence: Evidence,
    /** How the search index lays out its ids (store/hostSearch.ts; smaller in a test only). */
    searchLayout?: VocabLayout,
  ) {
    this.sources = new IdentitySources(store);
    this.search = new HostSearch(store, searchLayout);
    this.sets = store.register(new QuerySets());
    this.rendered = store.register(new ReadCache<string, object>());
    // A database migrated to the search index (or indexed by another version) is indexed again,
    // in the background (workspaces/hostIndexer.ts).
    if (!this.search.current()) store.write(() => this.search.rebuild());
  }

  /** Hosts written since the search index last caught up. */
  pendingIndex(): number {
    return this.search.pending();
  }

  /** Is any host waiting for the search index? */
  indexWaiting(): boolean {
    return this.search.waiting();
  }

  /**
   * Bring the search index up to date with up to `limit` hosts written since, in one write that
   * stops once `budgetMs` is spent; whether any is still waiting.
   */
  indexPending(limit: number, budgetMs?: number): boolean {
    return this.store.write(() => this.search.catchUp(limit, budgetMs));
  }

  /**
   * Run `write` (synchronous, inside the caller's transaction) with every identity it writes
   * noted in `recording`; the write and its record are one transaction.
   */
  recordingInto<T>(recording: VisitRecording, write: () => T): T {
    const outer = this.recording;
    this.recording = recording;
    try {
      return write();
    } finally {
      this.recording = outer;
    }
  }

  /** The same for a write that awaits (an EVE import's identities, on its own connection, where nothing else writes meanwhile). */
  async recordingIntoAsync<T>(recording: VisitRecording, write: () => Promise<T>): Promise<T> {
    const outer = this.recording;
    this.recording = recording;
    try {
      return await write();
    } finally {
      this.recording = outer;
    }
  }

  private stored(ip: string): { pk: number; hits: number; data: string } | undefined {
    return this.store.query('SELECT pk, hits, data FROM host_id WHERE ip = ?').get(ip) as { pk: number; hits: number; data: string } | undefined;
  }

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
    this.written();
    const { recording } = this;
    if (recording === undefined) {
      this.writeCentral(record);
      return;
    }
    // Noted once, old against final: the central part written, then merged with local evidence.
    const before = this.stored(record.ip);
    this.recording = undefined;
    try {
      this.writeCentral(record);
    } finally {
      this.recording = recording;
    }
    const after = this.stored(record.ip)!;
    recording.note(after.pk, before?.data, after.data, before === undefined || before.data !== after.data || before.hits !== after.hits);
  }

  private writeCentral(record: HostRecord): void {
    this.store.command(UPSERT_CENTRAL).run({
      ip: record.ip,
      hits: record.hits,
      first_seen: record.firstSeen,
      last_seen: record.lastSeen,
      hostnames: record.hostnames,
      data: record.data,
    });
    if (this.evidence.hasLocal(record.ip)) this.refreshAddresses([record.ip]);
    else this.search.changed(record.ip);
  }

  /** Is this exactly the central part stored for its address (a pull need not write it)? */
  sameCentral(record: HostRecord): boolean {
    return this.sameCentralPk(record) !== undefined;
  }

  /** The pk of the host whose stored central part is exactly this one (a pull need not write it, and saw it). */
  sameCentralPk(record: HostRecord): number | undefined {
    const row = this.store.query(`SELECT pk, ${CENTRAL_SQL} AS central, central_hits FROM host_id WHERE ip = ?`).get(record.ip) as { pk: number; central: string | null; central_hits: number | null } | undefined;
    return row !== undefined && row.central === record.data && (record.hits === null || row.central_hits === record.hits) ? row.pk : undefined;
  }

  /** Addresses with a central part (what a pull compares with the central server's list). */
  centralIps(): string[] {
    return this.store.query('SELECT ip FROM host_id WHERE central IS NOT NULL').pluck().all() as string[];
  }

  /** The central server no longer has the address: its central part goes, local evidence stays. */
  removeCentral(ip: string): void {
    if (!this.evidence.hasLocal(ip)) {
      this.remove(ip);
      return;
    }
    this.store.command('UPDATE host_id SET central = NULL, central_hits = NULL WHERE ip = ?').run(ip);
    this.written();
    this.refreshAddresses([ip]);
  }

  /** Write again, here and now, the served identity of these addresses (their central part or local evidence changed). */
  refreshAddresses(ips: readonly string[]): number {
    const homeNets = networksOf(this.evidence.homeNets());
    const changed = this.writeIdentities(identityRecords(this.sources.of(ips), homeNets));
    this.store.command('DELETE FROM host_identity_pending WHERE ip IN (SELECT value FROM json_each(?))').run(JSON.stringify(ips));
    return changed;
  }

  /**
   * Write again the identities waiting (host_identity_pending), here, a chunk at a time, until
   * none waits or `budgetMs` is spent, in one write (a background catch-up, or all of them): how
   * many changed, and whether any waits still.
   */
  refreshPending(budgetMs = Infinity): { changed: number; waiting: boolean } {
    return this.store.write(() => {
      const started = performance.now();
      const homeNets = networksOf(this.evidence.homeNets());
      let changed = 0;
      for (const chunk of this.sources.pendingChunks()) {
        changed += this.writeIdentities(identityRecords(chunk, homeNets));
        this.store.command('DELETE FROM host_identity_pending WHERE ip IN (SELECT value FROM json_each(?))').run(JSON.stringify(chunk.map((source) => source.ip)));
        if (performance.now() - started > budgetMs) break;
      }
      return { changed, waiting: this.evidence.pendingCount() > 0 };
    });
  }

  /** Forget every pending identity (once all of them are written, in the same transaction). */
  pendingWritten(): void {
    this.store.command('DELETE FROM host_identity_pending').run();
  }

  /**
   * Write served identities (local evidence and central part merged), made here or on another
   * thread; how many rows were new or changed (an identical row is not written).
   */
  writeIdentities(records: readonly IdentityRecord[]): number {
    const write = this.store.command(UPSERT_MERGED);
    const changed: string[] = [];
    const { recording } = this;
    // Bound by position: 5-8 % faster than by name over the rows of a large import.
    for (const record of records) {
      const before = recording && this.stored(record.ip);
      const result = write.run(record.ip, record.hits, record.first_seen, record.last_seen, record.hostnames, record.data);
      if (result.changes > 0) changed.push(record.ip);
      if (recording) recording.note(before?.pk ?? Number(result.lastInsertRowid), before?.data, record.data, result.changes > 0);
    }
    if (changed.length > 0) {
      this.search.changedMany(JSON.stringify(changed));
      this.written();
    }
    return changed.length;
  }

  /** How many hosts are stored. */
  count(): number {
    return this.store.query('SELECT count(*) FROM host_id').pluck().get() as number;
  }

  /** Store one checked entry in place of the host of its ip; an absent `hits` keeps the stored one. */
  save(entry: HostEntry): void {
    this.saveRecord(hostRecordOf(entry));
  }

  remove(ip: string): void {
    const pk = this.store.query('SELECT pk FROM host_id WHERE ip = ?').pluck().get(ip) as number | undefined;
    if (pk === undefined) return;
    this.search.removed(pk);
    this.store.command('DELETE FROM host_id WHERE pk = ?').run(pk);
    this.written();
  }

  /**
   * A host identity was written: the count of writes moves, once per transaction (a host file of a
   * million hosts moves it once, not a million times), in that transaction.
   */
  private written(): void {
    const write = this.store.currentWrite();
    if (write !== undefined && write === this.countedWrite) return;
    this.countedWrite = write;
    this.store.command(COUNT_WRITE).run();
  }

  /** The count of host writes so far, by any connection (0 before the first). */
  writes(): number {
    return Number(this.store.query("SELECT value FROM host_search_state WHERE key = 'hosts_written'").pluck().get() ?? 0);
  }

  /** The hosts a host_id_qfilter query matches (exactly: the hosts waiting for the index are read), kept until the next change. */
  matched(node: QueryNode): MatchedHosts {
    const search = this.search.condition(node);
    let matched = this.sets.get(search.key);
    if (matched === undefined) {
      matched = this.search.matching(node, search);
      this.sets.set(search.key, matched);
    }
    return matched;
  }

  /** The search index (store/hostSurvey.ts reads it for the survey's counts and substring search). */
  get searchIndex(): HostSearch {
    return this.search;
  }

  /** The hosts a host_id_qfilter matches (kept for the next pages of the same query, as the list's). */
  matching(qfilter: QueryNode): MatchedHosts {
    const search = this.search.condition(qfilter);
    let matched = this.sets.get(search.key);
    if (matched === undefined) {
      matched = this.search.matching(qfilter, search);
      this.sets.set(search.key, matched);
    }
    return matched;
  }

  /** One page of hosts, counted and paged in SQL, host_id_qfilter included (undefined past the end). */
  list(query: HostListQuery): HostPage | undefined {
    const { store } = this;
    const base = whereSql(query);
    const order = orderSql(query.ordering);
    const { pageSize } = query;
    if (!query.qfilter) {
      const countSql = `SELECT count(*) FROM host_id WHERE ${base.sql}`;
      const count = store.cachedCount(`${countSql}\u0000${JSON.stringify(base.params)}`, () => Number(store.query(countSql).pluck().get(...base.params)));
      const page = pageNumber(query.page, count, pageSize);
      if (page === undefined) return undefined;
      const rows =
        count === 0
          ? []
          : (store.query(`SELECT ip, hits, data FROM host_id WHERE ${base.sql} ORDER BY ${order} LIMIT ? OFFSET ?`).all(...base.params, pageSize, (page - 1) * pageSize) as HostRow[]);
      return { count, page, pageSize, rows };
    }
    // The query's hosts are found once (store/hostSearch.ts), without reading a host row for
    // the usual shapes; the filters, the count and the page then read that set of pks. A query's
    // translation differs with its shape: its statements are prepared for this request, not kept.
    const search = this.search.condition(query.qfilter);
    const matched = this.matched(query.qfilter);
    const pks = matched.pks;
    const inSet = (walk: boolean) => `${base.sql} AND ${walk ? '+pk' : 'pk'} IN (SELECT value FROM json_each(?))`;
    const countSql = `SELECT count(*) FROM host_id WHERE ${inSet(false)}`;
    const count =
      base.params.length === 0
        ? matched.count
        : store.cachedCount(`${countSql}\u0000${JSON.stringify(base.params)}\u0000${search.key}`, () => Number(store.query(countSql).pluck().get(...base.params, pks)));
    const page = pageNumber(query.page, count, pageSize);
    if (page === undefined) return undefined;
    // Few matches are read and sorted; of many, the page is found by walking the order's index
    // and keeping the hosts in the set (`+pk`: the set may not drive the query).
    const rows =
      count === 0
        ? []
        : (store.query(`SELECT ip, hits, data FROM host_id WHERE ${inSet(count > WALK_ORDER_ABOVE)} ORDER BY ${order} LIMIT ? OFFSET ?`).all(...base.params, pks, pageSize, (page - 1) * pageSize) as HostRow[]);
    return { count, page, pageSize, rows };
  }
}
