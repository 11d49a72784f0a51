/**
 * The site survey's reads (issue 24 §1): the host list under a filter (a host_id_qfilter query, a
 * substring search over every identity value and the address, an import), its counts by value of
 * a path (the facets), the paths and values the query box completes, and the count of host writes
 * that tells the list to follow the data.
 *
 * Everything is read from the search index of store/hostSearch.ts: `host_vocab` (each distinct
 * value of a path, folded, with its trigram index) and `host_term` (value → hosts). Hosts written
 * since the index last caught up (`host_search_dirty`, a few after a write, for seconds) are left
 * out of the index's answer and read from their identities with the same rules in JS, so that
 * every answer is exact, also right after a write.
 */
import { covers, fieldScope, type QueryNode } from '../../../shared/api/qfilter';
import { hostTerms, type PathKind } from '../../../shared/api/hostTerms';
import { pageNumber, type PageRequest } from '../../../shared/api/listParams';
import { foldText, hostContains } from '../../../shared/app/hostSubstring';
import type { HostOrderKey, VisitChange } from '../../../shared/app/hostSurvey';
import type { JsonValue } from '../../../shared/resources';
import type { MatchedHosts, PathRow } from './hostSearch';
import type { Hosts } from './hosts';
import { ReadCache, type Store } from './store';

export interface SurveyFilter {
  readonly q?: QueryNode;
  readonly search?: string;
  readonly visit?: number;
  readonly visitChange?: VisitChange;
}

/** A row of the list as stored: the identity as JSON text, where its evidence came from, and when Outpost learned of it. */
export interface SurveyRow {
  readonly ip: string;
  readonly hits: number;
  readonly data: string;
  readonly local: boolean;
  readonly central: boolean;
  readonly learnedVisit: number | null;
  /** Epoch microseconds. */
  readonly learnedAt: number | null;
}

export interface SurveyPage {
  readonly count: number;
  readonly page: number;
  readonly rows: readonly SurveyRow[];
}

/** The hosts of a filter having one value (values equal once folded count as one: `:` matches so). */
export interface ValueCount {
  /** The value as most of them write it. */
  readonly text: string;
  readonly count: number;
  /** Its vocabulary ids (for a sample of its hosts). */
  readonly ids: readonly number[];
}

/** A path of the index: its kind, how many distinct values it holds and one of them. */
export interface SurveyPath {
  readonly path: string;
  readonly kind: PathKind;
  readonly values: number;
  readonly example: string | undefined;
}

/** Values longer than this are not offered for completion (a wildcard finds them). */
export const COMPLETION_VALUE_MAX = 256;

type SqlParam = string | number;

// ---------------------------------------------------------------------------------------------
// Imports as visits (issue 24 §2): wired in when `host_id.learned` and `host_visit` exist.

/** The import or pull that first brought a host (its pk) and when it ended (µs): none recorded yet. */
function learnedColumnsSql(): { readonly visit: string; readonly at: string } {
  return { visit: 'NULL', at: 'NULL' };
}

/** The hosts of the filter's import, new in it or changed by it, as a SELECT of pks: none recorded yet. */
function visitCondition(filter: SurveyFilter): { readonly sql: string; readonly params: readonly SqlParam[] } | undefined {
  if (filter.visit === undefined) return undefined;
  return { sql: 'SELECT pk FROM host_id WHERE 0', params: [] };
}

/** Is there an import or pull of this pk? None is recorded yet. */
function visitExistsSql(): string {
  return 'SELECT 0 WHERE ? IS NULL';
}

// ---------------------------------------------------------------------------------------------

const ORDER_SQL: Readonly<Record<HostOrderKey, string>> = {
  ip: 'ip',
  hits: 'hits',
  first_seen: 'first_seen',
  last_seen: 'last_seen',
  learned: learnedColumnsSql().visit,
};

/** Past this many hosts, a page is found by walking the order's index and keeping the set's hosts. */
const WALK_ORDER_ABOVE = 2000;

const ASCII_TEXT = /^[\x01-\x7f]*$/;
/** Characters of an address as stored (lower case): a search with another cannot be in one. */
const ADDRESS_TEXT = /^[0-9a-f.:]+$/;

/** Values of equal counts in order: numbers (ports) as numbers, then texts. */
function byText(a: string, b: string): number {
  const numeric = /^\d{1,15}$/;
  if (numeric.test(a) && numeric.test(b)) return Number(a) - Number(b);
  return a < b ? -1 : a > b ? 1 : 0;
}

/** A text as one FTS5 phrase. */
function ftsPhrase(text: string): string {
  return `"${text.replace(/"/g, '""')}"`;
}

/** A text as a GLOB pattern of itself. */
function globLiteral(text: string): string {
  return text.replace(/[*?[]/g, (char) => `[${char}]`);
}

/** The pks of a set as an SQL membership test of `column` (the set a JSON list bound as `?`). */
function inSet(column: string): string {
  return `${column} IN (SELECT value FROM json_each(?))`;
}

export class HostSurvey {
  /** The sets of recent filters, for the next pages and the counts that follow; emptied by any write. */
  private readonly sets: ReadCache<string, MatchedHosts>;

  constructor(
    private readonly store: Store,
    private readonly hosts: Hosts,
  ) {
    this.sets = store.register(new ReadCache<string, MatchedHosts>(16));
  }

  private get index() {
    return this.hosts.searchIndex;
  }

  /** The count of host writes by any connection: it moves whenever an identity is written. */
  writes(): number {
    return this.hosts.writes();
  }

  /** Is there an import or pull of this pk (issue 24 §2)? */
  visitExists(pk: number): boolean {
    return this.store.query(visitExistsSql()).get(pk) !== undefined;
  }

  // -------------------------------------------------------------------------------------------
  // The filter's hosts

  /** The hosts under the filter (undefined: all of them), exact, kept until the next write. */
  hostSet(filter: SurveyFilter): MatchedHosts | undefined {
    const key = JSON.stringify([filter.q ?? null, filter.search ?? null, filter.visit ?? null, filter.visitChange ?? null]);
    const known = this.sets.get(key);
    if (known) return known;
    const parts: MatchedHosts[] = [];
    if (filter.q) parts.push(this.hosts.matched(filter.q));
    if (filter.search !== undefined) parts.push(this.containing(foldText(filter.search)));
    const visit = visitCondition(filter);
    if (visit) parts.push(this.setOfRows(visit.sql, visit.params));
    if (parts.length === 0) return undefined;
    parts.sort((a, b) => a.count - b.count);
    const set = parts.reduce((a, b) => this.intersect(a, b));
    this.sets.set(key, set);
    return set;
  }

  private setOfRows(sql: string, params: readonly SqlParam[]): MatchedHosts {
    const [count, pks] = this.store.queryOnce(`SELECT count(*), json_group_array(pk) FROM (SELECT DISTINCT pk FROM (${sql}))`, 'select host_id (visit)').raw().get(...params) as [number, string];
    return { count, pks };
  }

  private intersect(a: MatchedHosts, b: MatchedHosts): MatchedHosts {
    if (a.count === 0) return a;
    const [count, pks] = this.store.query(`SELECT count(*), json_group_array(value) FROM json_each(?) WHERE ${inSet('value')}`).raw().get(a.pks, b.pks) as [number, string];
    return { count, pks };
  }

  /**
   * The hosts whose address or one of whose indexed values contains `needle` (folded; three
   * characters at least): the trigram index's candidates, kept without being read when their id
   * says they are ASCII (the index's match is then the substring itself), else checked; an
   * address only when the needle could be part of one.
   */
  private containing(needle: string): MatchedHosts {
    const { index } = this;
    const id = 'host_vocab_trigram.rowid';
    const checked = `instr((SELECT fold FROM host_vocab WHERE id = ${id}), $needle) > 0`;
    const accept = ASCII_TEXT.test(needle) ? `(${index.asciiOf(id)} OR ${checked})` : checked;
    const sets = [`SELECT t.pk AS pk FROM host_vocab_trigram JOIN host_term t ON t.value_id = ${id} WHERE host_vocab_trigram MATCH $phrase AND ${accept}`];
    if (ADDRESS_TEXT.test(needle)) sets.push('SELECT pk FROM host_id WHERE instr(ip, $needle) > 0');
    const pending = index.waiting();
    const [count, pks] = this.store
      .query(`SELECT count(*), json_group_array(pk) FROM (SELECT DISTINCT pk FROM (${sets.join(' UNION ')})${pending ? ' EXCEPT SELECT pk FROM host_search_dirty' : ''})`, 'select host_id (search)')
      .raw()
      .get({ needle, phrase: ftsPhrase(needle) }) as [number, string];
    if (!pending) return { count, pks };
    const found = JSON.parse(pks) as number[];
    for (const host of this.dirtyHosts(undefined)) if (hostContains(host.ip, JSON.parse(host.data) as JsonValue, needle)) found.push(host.pk);
    return { count: found.length, pks: JSON.stringify(found) };
  }

  /** The hosts waiting for the index (of the set, if given). */
  private dirtyHosts(set: MatchedHosts | undefined): { pk: number; ip: string; data: string }[] {
    const where = set ? `WHERE ${inSet('d.pk')}` : '';
    return this.store.query(`SELECT h.pk AS pk, h.ip AS ip, h.data AS data FROM host_search_dirty d JOIN host_id h ON h.pk = d.pk ${where}`).all(...(set ? [set.pks] : [])) as {
      pk: number;
      ip: string;
      data: string;
    }[];
  }

  // -------------------------------------------------------------------------------------------
  // The list

  /** How many hosts are under the filter. */
  count(filter: SurveyFilter): number {
    const set = this.hostSet(filter);
    return set ? set.count : this.store.cachedCount('survey all', () => Number(this.store.query('SELECT count(*) FROM host_id').pluck().get()));
  }

  /** One page of the filter's hosts in the order asked (the pk breaks ties); undefined past the end. */
  list(filter: SurveyFilter, order: { readonly key: HostOrderKey; readonly descending: boolean }, page: PageRequest, pageSize: number): SurveyPage | undefined {
    const set = this.hostSet(filter);
    const count = this.count(filter);
    const n = pageNumber(page, count, pageSize);
    if (n === undefined) return undefined;
    if (count === 0) return { count, page: n, rows: [] };
    const learned = learnedColumnsSql();
    const where = set ? inSet(set.count > WALK_ORDER_ABOVE ? '+pk' : 'pk') : '1';
    const raw = this.store
      .query(
        `SELECT ip, hits, data, central IS NOT NULL AS central, EXISTS (SELECT 1 FROM host_local l WHERE l.ip = host_id.ip) AS local, ` +
          `${learned.visit} AS learned_visit, ${learned.at} AS learned_at FROM host_id WHERE ${where} ` +
          `ORDER BY ${ORDER_SQL[order.key]} ${order.descending ? 'DESC' : 'ASC'}, pk ASC LIMIT ? OFFSET ?`,
        'select host_id (survey page)',
      )
      .all(...(set ? [set.pks] : []), pageSize, (n - 1) * pageSize) as {
      ip: string;
      hits: number;
      data: string;
      central: number;
      local: number;
      learned_visit: number | null;
      learned_at: number | null;
    }[];
    const rows = raw.map((r) => ({ ip: r.ip, hits: r.hits, data: r.data, local: r.local === 1, central: r.central === 1, learnedVisit: r.learned_visit, learnedAt: r.learned_at }));
    return { count, page: n, rows };
  }

  // -------------------------------------------------------------------------------------------
  // Counts by value (facets)

  /** The index's paths a field covers (its own and its sub-paths), of the kinds that hold values. */
  private coveredPaths(field: string): PathRow[] {
    const scope = fieldScope(field);
    return this.index.paths().filter((p) => p.kind !== 'x' && covers(scope, p.path));
  }

  /** Conditions on `host_term t` for the ids of these paths: one per own range, one for the shared ids. */
  private idRanges(paths: readonly PathRow[]): { sql: string; params: SqlParam[] }[] {
    const { index } = this;
    const out: { sql: string; params: SqlParam[] }[] = [];
    for (const p of paths) {
      const own = index.ownIds(p.id);
      if (own) out.push({ sql: 't.value_id >= ? AND t.value_id < ?', params: [own.from, own.to] });
    }
    if (paths.length > 0) out.push({ sql: `t.value_id >= ${index.sharedFrom} AND ${index.pathsOf('t.value_id', paths.map((p) => p.id))}`, params: [] });
    return out;
  }

  /** The restriction of `host_term t` to the set and to the indexed hosts. */
  private termFilter(set: MatchedHosts | undefined, pending: boolean): { sql: string; params: SqlParam[] } {
    return {
      sql: `${set ? ` AND ${inSet('t.pk')}` : ''}${pending ? ' AND t.pk NOT IN (SELECT pk FROM host_search_dirty)' : ''}`,
      params: set ? [set.pks] : [],
    };
  }

  /**
   * The hosts under the filter by value of a field (`roles.name`), values equal once folded
   * counted as one, most hosts first: exact, the hosts waiting for the index read one by one.
   */
  valueCounts(filter: SurveyFilter, field: string): ValueCount[] {
    const set = this.hostSet(filter);
    if (set?.count === 0) return [];
    const paths = this.coveredPaths(field);
    if (paths.length === 0) return [];
    const pending = this.index.waiting();
    const restrict = this.termFilter(set, pending);
    const byId = new Map<number, number>();
    for (const range of this.idRanges(paths)) {
      const rows = this.store
        .query(`SELECT t.value_id AS id, count(*) AS n FROM host_term t WHERE ${range.sql}${restrict.sql} GROUP BY t.value_id`, 'select host_term (survey counts)')
        .raw()
        .all(...range.params, ...restrict.params) as [number, number][];
      for (const [id, n] of rows) byId.set(id, n);
    }
    // The values, grouped by folded text: a group of several ids is counted again by distinct host.
    const groups = new Map<string, { texts: Map<string, number>; ids: number[]; count: number }>();
    if (byId.size > 0) {
      const vocab = this.store.query('SELECT id, text, fold FROM host_vocab WHERE id IN (SELECT value FROM json_each(?))').raw().all(JSON.stringify([...byId.keys()])) as [number, string, string][];
      for (const [id, text, fold] of vocab) {
        const n = byId.get(id)!;
        let group = groups.get(fold);
        if (!group) {
          group = { texts: new Map(), ids: [], count: 0 };
          groups.set(fold, group);
        }
        group.texts.set(text, n);
        group.ids.push(id);
        group.count += n;
      }
      for (const group of groups.values()) {
        if (group.ids.length > 1) {
          group.count = Number(
            this.store.query(`SELECT count(DISTINCT t.pk) FROM host_term t WHERE ${inSet('t.value_id')}${restrict.sql}`).pluck().get(JSON.stringify(group.ids), ...restrict.params),
          );
        }
      }
    }
    if (pending) {
      const scope = fieldScope(field);
      for (const host of this.dirtyHosts(set)) {
        const folds = new Map<string, string>();
        for (const [path, kind, text] of hostTerms(JSON.parse(host.data) as JsonValue)) {
          if (kind !== 'x' && covers(scope, path)) {
            const fold = foldText(text);
            if (!folds.has(fold)) folds.set(fold, text);
          }
        }
        for (const [fold, text] of folds) {
          let group = groups.get(fold);
          if (!group) {
            group = { texts: new Map(), ids: [], count: 0 };
            groups.set(fold, group);
          }
          group.texts.set(text, (group.texts.get(text) ?? 0) + 1);
          group.count++;
        }
      }
    }
    const out = [...groups.values()].map((group) => {
      const text = [...group.texts.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]![0];
      return { text, count: group.count, ids: group.ids };
    });
    return out.sort((a, b) => b.count - a.count || byText(a.text, b.text));
  }

  /** How many hosts under the filter have any value at a field (`username.user`). */
  hostsWithAny(filter: SurveyFilter, field: string): number {
    const set = this.hostSet(filter);
    if (set?.count === 0) return 0;
    const paths = this.coveredPaths(field);
    const pending = this.index.waiting();
    const restrict = this.termFilter(set, pending);
    let count = 0;
    const ranges = this.idRanges(paths);
    if (ranges.length > 0) {
      count = Number(
        this.store
          .query(`SELECT count(*) FROM (${ranges.map((r) => `SELECT t.pk FROM host_term t WHERE ${r.sql}${restrict.sql}`).join(' UNION ')})`, 'select host_term (survey presence)')
          .pluck()
          .get(...ranges.flatMap((r) => [...r.params, ...restrict.params])),
      );
    }
    if (pending) {
      const scope = fieldScope(field);
      for (const host of this.dirtyHosts(set)) {
        if (hostTerms(JSON.parse(host.data) as JsonValue).some(([path, kind]) => kind !== 'x' && covers(scope, path))) count++;
      }
    }
    return count;
  }

  /** Up to `limit` identities (JSON text) of hosts having one of these values: what a bucket's label is made from. */
  sampleIdentities(ids: readonly number[], limit: number): string[] {
    return this.store
      .query(`SELECT h.data FROM host_term t JOIN host_id h ON h.pk = t.pk WHERE ${inSet('t.value_id')} LIMIT ?`)
      .pluck()
      .all(JSON.stringify(ids), limit) as string[];
  }

  // -------------------------------------------------------------------------------------------
  // Fields and values of the query language

  /** Every path of the index with its kind, how many values it holds and a short one of them. */
  paths(): SurveyPath[] {
    return this.store.cachedQuery('survey paths', () => {
      const counts = new Map(this.store.query('SELECT path_id, count(*) FROM host_vocab GROUP BY path_id').raw().all() as [number, number][]);
      const example = this.store.query('SELECT text FROM host_vocab WHERE path_id = ? AND length(text) BETWEEN 1 AND 64 LIMIT 1').pluck();
      return this.index.paths().map((p) => ({
        path: p.path,
        kind: p.kind,
        values: counts.get(p.id) ?? 0,
        example: p.kind === 'x' ? undefined : (example.get(p.id) as string | undefined),
      }));
    });
  }

  /** An address the workspace holds and its latest last seen (µs), for the examples of the fields. */
  sample(): { readonly ip: string | undefined; readonly lastSeen: number | null } {
    const [ip, lastSeen] = this.store.query('SELECT (SELECT ip FROM host_id ORDER BY pk LIMIT 1), (SELECT max(last_seen) FROM host_id)').raw().get() as [string | null, number | null];
    return { ip: ip ?? undefined, lastSeen };
  }

  /**
   * The values at a field starting with `prefix` (folded), then those containing it (three
   * characters at least), each with its hosts, most hosts first, at most `limit`. Read from the
   * index: a value only a host waiting for it holds is offered once the index has caught up.
   */
  values(field: string, prefix: string, limit: number): { readonly value: string; readonly count: number }[] {
    const paths = this.coveredPaths(field);
    if (paths.length === 0) return [];
    const ofPaths = this.index.pathsOf('v.id', paths.map((p) => p.id));
    const folded = foldText(prefix);
    const candidates = 200;
    const starting = this.store
      .query(`SELECT v.id, v.text FROM host_vocab v WHERE v.fold GLOB ? AND ${ofPaths} AND length(v.text) <= ${COMPLETION_VALUE_MAX} LIMIT ${candidates}`, 'select host_vocab (completion)')
      .raw()
      .all(`${globLiteral(folded)}*`) as [number, string][];
    let containing: [number, string][] = [];
    if (starting.length < limit && [...folded].length >= 3) {
      const id = 'host_vocab_trigram.rowid';
      containing = this.store
        .query(
          `SELECT v.id, v.text FROM host_vocab_trigram JOIN host_vocab v ON v.id = ${id} WHERE host_vocab_trigram MATCH ? AND ${ofPaths} ` +
            `AND instr(v.fold, ?) > 1 AND length(v.text) <= ${COMPLETION_VALUE_MAX} LIMIT ${candidates}`,
          'select host_vocab (completion)',
        )
        .raw()
        .all(ftsPhrase(folded), folded) as [number, string][];
    }
    const hostsOf = this.store.query('SELECT count(*) FROM host_term WHERE value_id = ?').pluck();
    const ranked = (rows: [number, string][]) =>
      rows.map(([id, text]) => ({ value: text, count: Number(hostsOf.get(id)) })).sort((a, b) => b.count - a.count || byText(a.value, b.value));
    return [...ranked(starting), ...ranked(containing)].slice(0, limit);
  }
}
