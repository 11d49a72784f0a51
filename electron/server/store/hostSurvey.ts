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
import type { HostSearch, MatchedHosts, PathRow } from './hostSearch';

/** The hosts of a filter: how many, their pks as a JSON list, and, when it was made as one, a bitset over pk. */
export interface SurveySet extends MatchedHosts {
  readonly bits?: Uint32Array;
}

/** A set made as a bitset: its JSON list is written only if a statement needs it (a large search's page and counts do not). */
class BitsetSet implements SurveySet {
  private list: string | undefined;

  constructor(
    readonly bits: Uint32Array,
    readonly count: number,
  ) {}

  get pks(): string {
    this.list ??= JSON.stringify(pksOf(this.bits));
    return this.list;
  }
}
import { addTo, bitCount, bitsetOf, countIn, countUnionIn, pkSetOf, pksOf, PostingsCache, type PkSet } from './hostPostings';
import type { Hosts } from './hosts';
import { ReadCache, type Store } from './store';
import { visitHostSet } from './visits';

export interface SurveyFilter {
  readonly q?: QueryNode;
  readonly search?: string;
  readonly visit?: number;
  readonly visitChange?: VisitChange;
}

/** A row of the list as stored: the identity as JSON text, where its evidence came from, and when Outpost learned of it. */
export interface SurveyRow {
  readonly pk: number;
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
// Imports as visits (issue 24 §2): wired in when `host_id.learned`, `host_visit` and
// `visitHostSet(visitPk, change)` exist. Until then no import is known: no host has a `learned`, and
// a `visit` filter is refused (surveyRoutes.ts: 400 "no such import").

/** When Outpost learned of a host: the visit that first brought it (`host_id.learned`, migration 010) and when that visit ended. */
function learnedColumnsSql(): { readonly visit: string; readonly at: string } {
  return { visit: 'host_id.learned', at: '(SELECT v.finished FROM host_visit v WHERE v.pk = host_id.learned)' };
}

/** The hosts of the filter's import, new in it or changed by it (`changed` unless said), as a SELECT of pks (store/visits.ts). */
function visitCondition(filter: SurveyFilter): { readonly sql: string; readonly params: Readonly<Record<string, SqlParam>> } | undefined {
  if (filter.visit === undefined) return undefined;
  return visitHostSet(filter.visit, filter.visitChange ?? 'changed');
}

/** A row when the import or pull of pk `?` exists. */
function visitExistsSql(): string {
  return 'SELECT 1 FROM host_visit WHERE pk = ?';
}

// ---------------------------------------------------------------------------------------------

export const ORDER_SQL: Readonly<Record<HostOrderKey, string>> = {
  ip: 'ip',
  hits: 'hits',
  first_seen: 'first_seen',
  last_seen: 'last_seen',
  learned: 'learned',
};

/** How a page of a set is found and what a search keeps (smaller in a test only, to reach every way with few hosts). */
export interface SurveyLimits {
  /** Past this many hosts, a page is found by walking the order's index and keeping the set's hosts. */
  readonly walkOrderAbove: number;
  /** A set of at least 1/this of the hosts is looked up in a bitset while the order's index is walked. */
  readonly denseSetRatio: number;
  /** A search that finds at most this many values keeps those of many hosts (the others are read each time)… */
  readonly searchKeptValues: number;
  /** …those of at least this many hosts… */
  readonly searchKeepFrom: number;
  /** …while all kept hold at most this many pks. */
  readonly searchKeptPks: number;
}

export const SURVEY_LIMITS: SurveyLimits = { walkOrderAbove: 2000, denseSetRatio: 20, searchKeptValues: 1000, searchKeepFrom: 1000, searchKeptPks: 4_000_000 };

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
  private readonly sets: ReadCache<string, SurveySet>;
  /**
   * The facets' postings: an index kept in memory rather than an answer, so it is kept whatever
   * OUTPOST_READ_CACHE says (the first counts after a write read it again).
   */
  private readonly postingsCache: PostingsCache;
  /** Each set's hosts as a bitset spanning the postings' pks (made once per set, for all its facets). */
  private readonly setBits = new WeakMap<SurveySet, Uint32Array>();
  /** Read while a page of a large set is found (synchronously): the set as a bitset over pk. */
  private member: Uint32Array | undefined;

  constructor(
    private readonly store: Store,
    private readonly hosts: Hosts,
    private readonly limits: SurveyLimits = SURVEY_LIMITS,
  ) {
    this.sets = store.register(new ReadCache<string, SurveySet>(16));
    this.postingsCache = store.register(new PostingsCache());
    store.defineFunction('survey_member', (pk: number) => {
      const word = this.member?.[pk >>> 5];
      return word !== undefined && (word & (1 << (pk & 31))) !== 0 ? 1 : 0;
    });
  }

  private get index(): HostSearch {
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
  hostSet(filter: SurveyFilter): SurveySet | undefined {
    const key = JSON.stringify([filter.q ?? null, filter.search ?? null, filter.visit ?? null, filter.visitChange ?? null]);
    const known = this.sets.get(key);
    if (known) return known;
    const parts: SurveySet[] = [];
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

  private setOfRows(sql: string, params: Readonly<Record<string, SqlParam>>): SurveySet {
    const [count, pks] = this.store.queryOnce(`SELECT count(*), json_group_array(pk) FROM (SELECT DISTINCT pk FROM (${sql}))`, 'select host_id (visit)').raw().get(params) as [number, string];
    return { count, pks };
  }

  private intersect(a: SurveySet, b: SurveySet): SurveySet {
    if (a.count === 0) return a;
    // A bitset keeps the other's pks that it holds (its own list is never written).
    const bits = b.bits ?? a.bits;
    if (bits) {
      const kept = (JSON.parse((b.bits ? a : b).pks) as number[]).filter((pk) => ((bits[pk >>> 5] ?? 0) & (1 << (pk & 31))) !== 0);
      return { count: kept.length, pks: JSON.stringify(kept) };
    }
    const [count, pks] = this.store.query(`SELECT count(*), json_group_array(value) FROM json_each(?) WHERE ${inSet('value')}`).raw().get(a.pks, b.pks) as [number, string];
    return { count, pks };
  }

  /**
   * The hosts whose address or one of whose indexed values contains `needle` (folded; three
   * characters at least): the trigram index's candidates, kept without being read when their id
   * says they are ASCII (the index's match is then the substring itself), else checked; an
   * address only when the needle could be part of one.
   */
  private containing(needle: string): SurveySet {
    const { index } = this;
    const id = 'host_vocab_trigram.rowid';
    const checked = `instr((SELECT fold FROM host_vocab WHERE id = ${id}), $needle) > 0`;
    const accept = ASCII_TEXT.test(needle) ? `(${index.asciiOf(id)} OR ${checked})` : checked;
    const candidates = this.store
      .query(`SELECT json_group_array(${id}) FROM host_vocab_trigram WHERE host_vocab_trigram MATCH $phrase AND ${accept}`, 'select host_vocab (search)')
      .pluck()
      .get({ needle, phrase: ftsPhrase(needle) }) as string;
    const maxPk = this.maxPk();
    const found = new Uint32Array((maxPk >>> 5) + 1);
    const ids = JSON.parse(candidates) as number[];
    // The hosts of each value found, as SQLite lists them (a host once per value), made distinct in
    // a bitset. A few values (a search most hosts match is usually one of a few values: a user
    // agent, a domain) keep their hosts until the next write when they have many, as the facets'
    // postings do: the next keystroke finds them again.
    const { searched } = this.postingsCache;
    const missing = ids.length <= this.limits.searchKeptValues ? ids.filter((valueId) => !searched.has(valueId)) : ids;
    if (missing.length > 0) {
      const byValue = ids.length <= this.limits.searchKeptValues;
      const rows = this.store
        .query(
          byValue
            ? `SELECT t.value_id, json_group_array(t.pk) FROM host_term t WHERE ${inSet('t.value_id')} GROUP BY t.value_id`
            : `SELECT NULL, json_group_array(t.pk) FROM host_term t WHERE ${inSet('t.value_id')}`,
          'select host_term (search)',
        )
        .raw()
        .all(missing === ids ? candidates : JSON.stringify(missing)) as [number | null, string][];
      for (const [valueId, pks] of rows) {
        const posting = pkSetOf(JSON.parse(pks) as number[], maxPk);
        addTo(found, posting);
        if (valueId !== null && posting.size >= this.limits.searchKeepFrom && this.postingsCache.searchedPks + posting.size <= this.limits.searchKeptPks) {
          searched.set(valueId, posting);
          this.postingsCache.searchedPks += posting.size;
        }
      }
    }
    if (ids.length <= this.limits.searchKeptValues) for (const valueId of ids) if (searched.has(valueId)) addTo(found, searched.get(valueId)!);
    // The addresses are scanned in their own index.
    if (ADDRESS_TEXT.test(needle)) {
      const pks = this.store.query('SELECT json_group_array(pk) FROM host_id WHERE instr(ip, ?) > 0', 'select host_id (search)').pluck().get(needle) as string;
      addTo(found, pkSetOf(JSON.parse(pks) as number[], maxPk));
    }
    // Hosts waiting for the index: their identities say, not the index.
    for (const host of index.waiting() ? this.dirtyHosts(undefined) : []) {
      const contains = hostContains(host.ip, JSON.parse(host.data) as JsonValue, needle);
      if (contains) found[host.pk >>> 5]! |= 1 << (host.pk & 31);
      else found[host.pk >>> 5]! &= ~(1 << (host.pk & 31));
    }
    return new BitsetSet(found, bitCount(found));
  }

  /** The hosts waiting for the index (of the set, if given): few, so they drive the join (CROSS JOIN keeps that order). */
  private dirtyHosts(set: SurveySet | undefined): { pk: number; ip: string; data: string }[] {
    const where = set ? `WHERE ${inSet('d.pk')}` : '';
    return this.store.query(`SELECT h.pk AS pk, h.ip AS ip, h.data AS data FROM host_search_dirty d CROSS JOIN host_id h ON h.pk = d.pk ${where}`).all(...(set ? [set.pks] : [])) as {
      pk: number;
      ip: string;
      data: string;
    }[];
  }

  // -------------------------------------------------------------------------------------------
  // The list

  /** How many hosts a set (undefined: all) holds. */
  count(set: SurveySet | undefined): number {
    return set ? set.count : this.store.cachedCount('survey all', () => Number(this.store.query('SELECT count(*) FROM host_id').pluck().get()));
  }

  /** One page of the filter's hosts in the order asked (the pk breaks ties); undefined past the end. */
  list(filter: SurveyFilter, order: { readonly key: HostOrderKey; readonly descending: boolean }, page: PageRequest, pageSize: number): SurveyPage | undefined {
    const set = this.hostSet(filter);
    const count = this.count(set);
    const n = pageNumber(page, count, pageSize);
    if (n === undefined) return undefined;
    if (count === 0) return { count, page: n, rows: [] };
    // The page's pks first (the order's index walked, or the set's few rows sorted; the pk breaks
    // ties in the key's direction so that the index serves both), then their rows.
    const direction = order.descending ? 'DESC' : 'ASC';
    const ordered = (where: string, params: readonly unknown[]) =>
      this.store
        .query(`SELECT pk FROM host_id WHERE ${where} ORDER BY ${ORDER_SQL[order.key]} ${direction}, pk ${direction} LIMIT ? OFFSET ?`, 'select host_id (survey page)')
        .pluck()
        .all(...params, pageSize, (n - 1) * pageSize) as number[];
    let pks: number[];
    if (!set) pks = ordered('1', []);
    else if (set.count <= this.limits.walkOrderAbove) pks = ordered(inSet('pk'), [set.pks]);
    else {
      // Along the order's index, keeping the set's hosts: a set of a good part of the hosts is
      // looked up in a bitset here (few index entries are walked before the page is full), a
      // sparser one in SQLite's own index of the list (many are, each looked up there).
      const maxPk = Number(this.store.query('SELECT coalesce(max(pk), 0) FROM host_id').pluck().get());
      if (set.count * this.limits.denseSetRatio >= maxPk) {
        this.member = set.bits ?? bitsetOf(JSON.parse(set.pks) as number[], maxPk);
        try {
          pks = ordered('survey_member(pk)', []);
        } finally {
          this.member = undefined;
        }
      } else pks = ordered(inSet('+pk'), [set.pks]);
    }
    const rows = this.rows(pks);
    return { count, page: n, rows };
  }

  /** The rows of these hosts, in the order given (those removed meanwhile left out): the list's page, and an export's batch. */
  rows(pks: readonly number[]): SurveyRow[] {
    const learned = learnedColumnsSql();
    const raw = this.store
      .query(
        `SELECT pk, ip, hits, data, central IS NOT NULL AS central, EXISTS (SELECT 1 FROM host_local l WHERE l.ip = host_id.ip) AS local, ` +
          `${learned.visit} AS learned_visit, ${learned.at} AS learned_at FROM host_id WHERE ${inSet('pk')}`,
        'select host_id (survey rows)',
      )
      .all(JSON.stringify(pks)) as {
      pk: number;
      ip: string;
      hits: number;
      data: string;
      central: number;
      local: number;
      learned_visit: number | null;
      learned_at: number | null;
    }[];
    const byPk = new Map(raw.map((r) => [r.pk, r]));
    return pks.flatMap((pk) => {
      const r = byPk.get(pk);
      return r ? [{ pk, ip: r.ip, hits: r.hits, data: r.data, local: r.local === 1, central: r.central === 1, learnedVisit: r.learned_visit, learnedAt: r.learned_at }] : [];
    });
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

  /** The largest pk, as the postings read so far span it. */
  private maxPk(): number {
    const cache = this.postingsCache;
    if (cache.maxPk < 0) cache.maxPk = Number(this.store.query('SELECT coalesce(max(pk), 0) FROM host_id').pluck().get());
    return cache.maxPk;
  }

  /** The hosts of each value of a field, read once until the next write (store/hostPostings.ts). */
  private postings(field: string): ReadonlyMap<number, PkSet> {
    const maxPk = this.maxPk();
    const known = this.postingsCache.values.get(field);
    if (known) return known;
    const values = new Map<number, PkSet>();
    for (const range of this.idRanges(this.coveredPaths(field))) {
      const rows = this.store
        .query(`SELECT t.value_id, json_group_array(t.pk) FROM host_term t WHERE ${range.sql} GROUP BY t.value_id`, 'select host_term (survey postings)')
        .raw()
        .all(...range.params) as [number, string][];
      for (const [id, pks] of rows) values.set(id, pkSetOf(JSON.parse(pks) as number[], maxPk));
    }
    this.postingsCache.values.set(field, values);
    return values;
  }

  /** The hosts with any value at a field, read once until the next write. */
  private anyPosting(field: string): PkSet {
    const maxPk = this.maxPk();
    const known = this.postingsCache.any.get(field);
    if (known) return known;
    const ranges = this.idRanges(this.coveredPaths(field));
    let any: PkSet = { size: 0, pks: new Int32Array(0) };
    if (ranges.length > 0) {
      const pks = this.store
        .query(`SELECT json_group_array(pk) FROM (${ranges.map((r) => `SELECT t.pk AS pk FROM host_term t WHERE ${r.sql}`).join(' UNION ')})`, 'select host_term (survey postings)')
        .pluck()
        .get(...ranges.flatMap((r) => r.params)) as string;
      any = pkSetOf(JSON.parse(pks) as number[], maxPk);
    }
    this.postingsCache.any.set(field, any);
    return any;
  }

  /**
   * The counts of the whole list by value id, from the index itself (no postings need be read:
   * a count of each value's index range), the hosts waiting for the index left out.
   */
  private wholeListCounts(field: string, pending: boolean): Map<number, number> {
    const byId = new Map<number, number>();
    const waiting = pending ? ' AND t.pk NOT IN (SELECT pk FROM host_search_dirty)' : '';
    for (const range of this.idRanges(this.coveredPaths(field))) {
      const rows = this.store
        .query(`SELECT t.value_id AS id, count(*) AS n FROM host_term t WHERE ${range.sql}${waiting} GROUP BY t.value_id`, 'select host_term (survey counts)')
        .raw()
        .all(...range.params) as [number, number][];
      for (const [id, n] of rows) byId.set(id, n);
    }
    return byId;
  }

  /** How many hosts of the whole list have one of these value ids (or, with none given, any value of the field): from the index. */
  private wholeListDistinct(field: string, ids: readonly number[] | undefined, pending: boolean): number {
    const waiting = pending ? ' AND t.pk NOT IN (SELECT pk FROM host_search_dirty)' : '';
    if (ids) return Number(this.store.query(`SELECT count(DISTINCT t.pk) FROM host_term t WHERE ${inSet('t.value_id')}${waiting}`).pluck().get(JSON.stringify(ids)));
    const ranges = this.idRanges(this.coveredPaths(field));
    if (ranges.length === 0) return 0;
    return Number(
      this.store
        .query(`SELECT count(*) FROM (${ranges.map((r) => `SELECT t.pk FROM host_term t WHERE ${r.sql}${waiting}`).join(' UNION ')})`, 'select host_term (survey presence)')
        .pluck()
        .get(...ranges.flatMap((r) => r.params)),
    );
  }

  /**
   * How to count a posting under the filter: the hosts of the set that the index holds as they are
   * (a bitset), or, with no set, all of them less those waiting for the index.
   */
  private counter(set: SurveySet | undefined, dirty: readonly number[]): { count(posting: PkSet): number; union(postings: readonly PkSet[]): number } {
    const maxPk = this.maxPk();
    if (set) {
      // The set as a bitset once for all the facets of a request; a copy less the hosts waiting for the index.
      let bits = this.setBits.get(set);
      if (!bits || bits.length !== (maxPk >>> 5) + 1) {
        bits = set.bits?.length === (maxPk >>> 5) + 1 ? set.bits : bitsetOf(set.bits ? pksOf(set.bits) : (JSON.parse(set.pks) as number[]), maxPk);
        this.setBits.set(set, bits);
      }
      let within = bits;
      if (dirty.length > 0) {
        within = bits.slice();
        for (const pk of dirty) if (pk <= maxPk) within[pk >>> 5]! &= ~(1 << (pk & 31));
      }
      return { count: (posting) => countIn(posting, within), union: (postings) => countUnionIn(postings, within) };
    }
    if (dirty.length === 0) {
      const all = () => new Uint32Array((maxPk >>> 5) + 1).fill(0xffffffff);
      return { count: (posting) => posting.size, union: (postings) => countUnionIn(postings, all()) };
    }
    const waiting = bitsetOf(dirty, maxPk);
    const indexed = waiting.map((word) => ~word >>> 0);
    return { count: (posting) => posting.size - countIn(posting, waiting), union: (postings) => countUnionIn(postings, indexed) };
  }

  /** The pks waiting for the index (none, most of the time). */
  private dirtyPks(): number[] {
    if (!this.index.waiting()) return [];
    return JSON.parse(this.store.query('SELECT json_group_array(pk) FROM host_search_dirty').pluck().get() as string) as number[];
  }

  /**
   * The hosts of a set (undefined: all) by value of a field (`roles.name`), values equal once folded
   * counted as one, most hosts first: exact, the hosts waiting for the index read one by one.
   */
  valueCounts(set: SurveySet | undefined, field: string): ValueCount[] {
    if (set?.count === 0) return [];
    const dirty = this.dirtyPks();
    // The whole list is counted in the index itself until the postings are read (the first counts
    // under a set after a write read them).
    const whole = !set && !this.postingsCache.values.has(field);
    const postings = whole ? undefined : this.postings(field);
    const counter = this.counter(set, dirty);
    const byId = whole ? this.wholeListCounts(field, dirty.length > 0) : new Map<number, number>();
    for (const [id, posting] of postings ?? []) {
      const n = counter.count(posting);
      if (n > 0) byId.set(id, n);
    }
    // The values, grouped by folded text: a group of several ids is counted again by distinct host.
    const groups = new Map<string, { texts: Map<string, number>; ids: number[]; count: number }>();
    const groupOf = (fold: string) => {
      let group = groups.get(fold);
      if (!group) {
        group = { texts: new Map(), ids: [], count: 0 };
        groups.set(fold, group);
      }
      return group;
    };
    if (byId.size > 0) {
      const vocab = this.store.query('SELECT id, text, fold FROM host_vocab WHERE id IN (SELECT value FROM json_each(?))').raw().all(JSON.stringify([...byId.keys()])) as [number, string, string][];
      for (const [id, text, fold] of vocab) {
        const group = groupOf(fold);
        const n = byId.get(id)!;
        group.texts.set(text, n);
        group.ids.push(id);
        group.count += n;
      }
      for (const group of groups.values()) {
        if (group.ids.length > 1) {
          group.count = postings ? counter.union(group.ids.map((id) => postings.get(id)!)) : this.wholeListDistinct(field, group.ids, dirty.length > 0);
        }
      }
    }
    if (dirty.length > 0) {
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
          const group = groupOf(fold);
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

  /** How many hosts of a set (undefined: all) have any value at a field (`username.user`). */
  hostsWithAny(set: SurveySet | undefined, field: string): number {
    if (set?.count === 0) return 0;
    const dirty = this.dirtyPks();
    let count = !set && !this.postingsCache.any.has(field) ? this.wholeListDistinct(field, undefined, dirty.length > 0) : this.counter(set, dirty).count(this.anyPosting(field));
    if (dirty.length > 0) {
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
    const folded = foldText(prefix);
    const candidates = 200;
    const scope = fieldScope(field);
    if (scope.within === 'entry' && scope.path === 'ip') {
      // Addresses are stored in lower case, one host each.
      const ips = this.store.query(`SELECT ip FROM host_id WHERE ip GLOB ? ORDER BY ip LIMIT ?`).pluck().all(`${globLiteral(folded)}*`, limit) as string[];
      return ips.map((ip) => ({ value: ip, count: 1 }));
    }
    const paths = this.coveredPaths(field);
    if (paths.length === 0) return [];
    const ofPaths = this.index.pathsOf('v.id', paths.map((p) => p.id));
    // Without a prefix, each path's own ids are read from their range (no scan of other paths' values).
    const narrow = folded === '' ? `(${this.idRanges(paths).map((r) => r.sql.replaceAll('t.value_id', 'v.id')).join(' OR ')})` : 'v.fold GLOB ?';
    const narrowParams = folded === '' ? this.idRanges(paths).flatMap((r) => r.params) : [`${globLiteral(folded)}*`];
    const starting = this.store
      .query(`SELECT v.id, v.text FROM host_vocab v WHERE ${narrow} AND ${ofPaths} AND length(v.text) <= ${COMPLETION_VALUE_MAX} LIMIT ${candidates}`, 'select host_vocab (completion)')
      .raw()
      .all(...narrowParams) as [number, string][];
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
