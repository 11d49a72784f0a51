/**
 * host_id_qfilter in SQL (api.md §7, issue 10). Each host's identity is indexed by the values of
 * its paths (migration 004): `host_vocab` holds each distinct (path, value) once, with the
 * value's case-folded text (B-tree) and a trigram index of it (FTS5), and `host_term` links a
 * value to its hosts. A value's id names its path and whether its text is ASCII (`VocabLayout`), so
 * that an index's candidates are kept or dropped for their path without reading their rows. A
 * query's tree becomes one SQL condition over `host_id`:
 *
 * - a term on indexed paths finds the vocabulary entries its pattern can match through an index
 *   (equal folded text, a folded prefix, or the trigrams of its literal parts), keeps those that
 *   the term really matches (the same `passes` the JS evaluator uses, called from SQL on the
 *   candidates; not called, and the value not read, where the index's own match is already the
 *   term's: an ASCII value and a case-folded `x`, `x*` or `*x*` of ASCII), and then the hosts that
 *   have one of them;
 * - a term on `ip`, `hits`, the top-level times or the counts reads their columns;
 * - a term on paths that are not indexed (timestamps inside lists) is evaluated host by host
 *   with the JS evaluator, called from SQL — correct, and as slow as a scan.
 *
 * So a query's result is exactly `matchesHost`'s (test/server/hostSearch.test.ts compares them on
 * random queries), and the usual shapes (`hostname.host:"x"`, `*corp*`, `services.port:443`)
 * never read an identity that does not match.
 */
import {
  covers,
  fold,
  matchesHost,
  passes,
  QueryHost,
  termMatches,
  type FieldScope,
  type Glob,
  type QueryNode,
  type ValueTest,
} from '../../../shared/api/qfilter';
import { hostTerms, type PathKind } from '../../../shared/api/hostTerms';
import type { JsonValue } from '../../../shared/resources';
import type { Store } from './store';

/**
 * Bumped when what the index holds changes: the tables are filled again on the next open (the
 * layout of the ids is part of the version stored).
 */
const INDEX_VERSION = '2';

/**
 * How a vocabulary id is laid out: a path of id p below `sharedSlot` owns the ids from
 * p × 2^slotBits, the upper half for ASCII texts (an ASCII value passes a case-folded `x`, `x*`
 * or `*x*` that the index finds without being read); the ids from sharedSlot × 2^slotBits on are
 * shared by the paths beyond, and by the values a full range cannot take, and are told apart by
 * reading their row. The ids of one path are then together in the vocabulary, its trigram index
 * and `host_term`, and its own ids fit in 31 bits (4 bytes in a record).
 */
export interface VocabLayout {
  readonly slotBits: number;
  readonly sharedSlot: number;
}

/** 2M values of each kind per path before they go to the shared ids; 511 paths of their own (a workspace has about 50). */
export const VOCAB_LAYOUT: VocabLayout = { slotBits: 22, sharedSlot: 512 };

/** Printable and control ASCII but NUL: where case folding is one to one and the trigram tokenizer's folding is ours. */
const ASCII_TEXT = /^[\x01-\x7f]*$/;


export interface PathRow {
  readonly id: number;
  readonly path: string;
  readonly kind: PathKind;
}

type SqlParam = string | number;

/** The query's parameters, named `$q0`, `$q1`… (so that sets can be written in any order). */
class Params {
  readonly values: Record<string, SqlParam> = {};
  private next = 0;

  /** The parameter's name in SQL. */
  add(value: SqlParam): string {
    const name = `q${this.next++}`;
    this.values[name] = value;
    return `$${name}`;
  }
}

/**
 * The hosts a query matches, as SQL: `set` a SELECT of their pks (no host_id row is read to make
 * it unless a term needs its columns), with its named parameters and the terms its SQL functions
 * evaluate.
 */
export interface SearchCondition {
  readonly set: string;
  readonly params: Readonly<Record<string, SqlParam>>;
  readonly terms: readonly Term[];
  /** The whole query (its terms' tests are not all in the SQL's parameters): part of any cache key. */
  readonly key: string;
}

/** The hosts a query matches: how many, and their pks as a JSON list. */
export interface MatchedHosts {
  readonly count: number;
  readonly pks: string;
}

interface Term {
  readonly field: FieldScope | undefined;
  readonly test: ValueTest;
}

/** A text as a GLOB pattern of itself (`*`, `?` and `[` are GLOB's own). */
function globLiteral(text: string): string {
  return text.replace(/[*?[]/g, (char) => `[${char}]`);
}

/** A text as one FTS5 phrase. */
function ftsPhrase(text: string): string {
  return `"${text.replace(/"/g, '""')}"`;
}

/** The segment as folded text, or undefined if it holds a `?`. */
function literal(segment: readonly (string | undefined)[], exact: boolean | undefined): string | undefined {
  if (segment.includes(undefined)) return undefined;
  const chars = segment as readonly string[];
  return (exact ? chars.map(fold) : chars).join('');
}

/** The folded literal runs of a pattern (between its wildcards) of at least 3 code points: what a trigram index can look for. */
function trigramRuns(glob: Glob): string[] {
  const runs: string[] = [];
  for (const segment of glob.segments) {
    let run: string[] = [];
    for (const char of [...segment, undefined]) {
      if (char === undefined) {
        if (run.length >= 3) runs.push(run.join(''));
        run = [];
      } else run.push(...[...(glob.exact ? fold(char) : char)]);
    }
  }
  return runs;
}

/**
 * Is the index's narrowing of this pattern (equal folded text, a folded prefix, the trigrams of
 * its one literal) exactly its test on an ASCII value? So for `x`, `x*` and `*x*` with x of ASCII
 * (three characters at least for `*x*`), case folded: ASCII folds one to one, and the trigram
 * tokenizer folds ASCII as we do.
 */
function narrowingIsTest(glob: Glob): boolean {
  if (glob.exact) return false;
  const { segments } = glob;
  if (!segments.every((segment) => segment.every((char) => char !== undefined && ASCII_TEXT.test(char) && char.length === 1))) return false;
  if (segments.length === 1) return true;
  if (segments.length === 2) return segments[0]!.length > 0 && segments[1]!.length === 0;
  return segments.length === 3 && segments[0]!.length === 0 && segments[2]!.length === 0 && segments[1]!.length >= 3;
}

/** A number of this code's choosing, inlined in SQL (never a client's text). */
function sqlNumberList(ids: readonly number[]): string {
  return ids.map((id) => String(Math.trunc(id))).join(', ');
}

const COMPARE_SQL = { '>': '>', '>=': '>=', '<': '<', '<=': '<=' } as const;

/** Every host's pk, read from a small index rather than the rows. */
const ALL_HOSTS = 'SELECT pk FROM host_id INDEXED BY host_id_hits';

/** The hosts whose row meets a condition. */
function rowsWhere(condition: string): string {
  return `SELECT pk FROM host_id WHERE ${condition}`;
}

/** A set as an operand of a compound SELECT: compounds are wrapped. */
function operand(set: string): string {
  return / (UNION|INTERSECT|EXCEPT) /.test(set) ? `SELECT pk FROM (${set})` : set;
}

/** Ids known to exist, and the path strings made so far. */
class Cache {
  paths: PathRow[] | undefined;
  readonly pathIds = new Map<PathKind, Map<string, number>>();
  readonly values = new Map<number, Map<string, number>>();
  /** The next free id of each id range (its base). */
  readonly nextIds = new Map<number, number>();
  valueCount = 0;

  clear(): void {
    this.paths = undefined;
    this.pathIds.clear();
    this.values.clear();
    this.nextIds.clear();
    this.valueCount = 0;
  }
}

export class HostSearch {
  /** Read while a translated query runs (synchronously): the terms its SQL functions evaluate. */
  private active: readonly Term[] = [];
  /** Ids known to exist; emptied whenever a write ends, so that a rolled-back id is never reused. */
  private readonly cache: Cache;

  private readonly slotSize: number;
  /** The ascii bit of an own id. */
  private readonly asciiBit: number;
  /** The first shared id. */
  private readonly sharedBase: number;
  /** What the index holds: this code's version and layout. */
  private readonly version: string;

  /** `layout`: of the vocabulary's ids (smaller in a test only). */
  constructor(
    private readonly store: Store,
    private readonly layout: VocabLayout = VOCAB_LAYOUT,
  ) {
    this.slotSize = 2 ** layout.slotBits;
    this.asciiBit = this.slotSize / 2;
    this.sharedBase = layout.sharedSlot * this.slotSize;
    this.version = `${INDEX_VERSION}/${layout.slotBits}/${layout.sharedSlot}`;
    this.cache = store.register(new Cache());
    store.defineFunction('qfilter_value', (slot: number, text: string) => (passes(this.term(slot).test, text) ? 1 : 0));
    store.defineFunction('qfilter_scalar', (slot: number, value: string | number) => (passes(this.term(slot).test, value) ? 1 : 0));
    store.defineFunction('qfilter_host', (slot: number, ip: string, hits: number, data: string) => {
      const { field, test } = this.term(slot);
      return termMatches(field, test, new QueryHost(ip, hits, data)) ? 1 : 0;
    });
  }

  private term(slot: number): Term {
    const term = this.active[slot];
    if (!term) throw new Error(`host_id_qfilter: no term ${slot} in the running query`);
    return term;
  }

  // -------------------------------------------------------------------------------------------
  // Keeping the index

  /** Does the index hold this code's version of the hosts (pending ones aside)? */
  current(): boolean {
    return this.store.query("SELECT value FROM host_search_state WHERE key = 'version'").pluck().get() === this.version;
  }

  /**
   * Index every host again (a database migrated to this version, or an index of another
   * version): the index is emptied and every host marked pending, in the current write; the
   * background catches up.
   */
  rebuild(): void {
    const { store } = this;
    for (const table of ['host_term', 'host_term_set', 'host_vocab', 'host_path']) store.command(`DELETE FROM ${table}`).run();
    store.command("INSERT INTO host_vocab_trigram(host_vocab_trigram) VALUES ('delete-all')").run();
    store.command('INSERT OR IGNORE INTO host_search_dirty (pk) SELECT pk FROM host_id').run();
    this.cache.clear();
    store.command("INSERT INTO host_search_state (key, value) VALUES ('version', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value").run(this.version);
  }

  /** The host of `ip` was written: it is indexed again in the background (a write of many hosts stays short). */
  changed(ip: string): void {
    this.store.command('INSERT OR IGNORE INTO host_search_dirty (pk) SELECT pk FROM host_id WHERE ip = ?').run(ip);
  }

  /** The hosts of these addresses (a JSON array) changed: they wait for the index, as `changed` has it. */
  changedMany(ips: string): void {
    this.store.command('INSERT OR IGNORE INTO host_search_dirty (pk) SELECT pk FROM host_id WHERE ip IN (SELECT value FROM json_each(?))').run(ips);
  }

  /** Host `pk` is deleted: what was indexed for it goes now (one host: quick). */
  removed(pk: number): void {
    this.unindex(pk);
    this.store.command('DELETE FROM host_search_dirty WHERE pk = ?').run(pk);
  }

  /** Hosts waiting to be indexed. */
  pending(): number {
    return this.store.query('SELECT count(*) FROM host_search_dirty').pluck().get() as number;
  }

  /** Is any host waiting to be indexed? (No count: a backlog of a million is not counted at every batch.) */
  waiting(): boolean {
    return this.store.query('SELECT EXISTS (SELECT 1 FROM host_search_dirty)').pluck().get() === 1;
  }

  /**
   * Index up to `limit` pending hosts (in the caller's write), stopping once `budgetMs` is spent
   * (one host at least); whether any is still waiting.
   */
  catchUp(limit: number, budgetMs = Infinity): boolean {
    const started = performance.now();
    const rows = this.store.query('SELECT d.pk AS pk, h.data AS data FROM host_search_dirty d LEFT JOIN host_id h ON h.pk = d.pk ORDER BY d.pk LIMIT ?').all(limit) as {
      pk: number;
      data: string | null;
    }[];
    const done: number[] = [];
    for (const row of rows) {
      if (row.data === null) this.unindex(row.pk);
      else this.index(row.pk, JSON.parse(row.data) as JsonValue);
      done.push(row.pk);
      if (performance.now() - started >= budgetMs) break;
    }
    if (done.length > 0) this.store.command('DELETE FROM host_search_dirty WHERE pk IN (SELECT value FROM json_each(?))').run(JSON.stringify(done));
    return this.waiting();
  }

  /** Index the identity of host `pk` in place of what was indexed for it. */
  private index(pk: number, data: JsonValue): void {
    this.unindex(pk);
    const ids: number[] = [];
    for (const [path, kind, text] of hostTerms(data)) {
      const pathId = this.pathId(path, kind);
      if (kind !== 'x') ids.push(this.valueId(pathId, text));
    }
    if (ids.length === 0) return;
    // One statement for all of the host's values (an identity can hold hundreds), and their list
    // kept for the next time the host is indexed.
    const list = JSON.stringify(ids);
    this.store.command('INSERT OR IGNORE INTO host_term (value_id, pk) SELECT value, ? FROM json_each(?)').run(pk, list);
    this.store.command('INSERT INTO host_term_set (pk, ids) VALUES (?, ?)').run(pk, list);
  }

  private unindex(pk: number): void {
    const list = this.store.query('SELECT ids FROM host_term_set WHERE pk = ?').pluck().get(pk) as string | undefined;
    if (list === undefined) return;
    this.store.command('DELETE FROM host_term WHERE pk = ? AND value_id IN (SELECT value FROM json_each(?))').run(pk, list);
    this.store.command('DELETE FROM host_term_set WHERE pk = ?').run(pk);
  }

  private pathId(path: string, kind: PathKind): number {
    let ofKind = this.cache.pathIds.get(kind);
    if (!ofKind) {
      ofKind = new Map();
      this.cache.pathIds.set(kind, ofKind);
    }
    let id = ofKind.get(path);
    if (id === undefined) {
      id = this.store.query('SELECT id FROM host_path WHERE path = ? AND kind = ?').pluck().get(path, kind) as number | undefined;
      if (id === undefined) {
        id = Number(this.store.command('INSERT INTO host_path (path, kind) VALUES (?, ?)').run(path, kind).lastInsertRowid);
        this.cache.paths = undefined;
      }
      ofKind.set(path, id);
    }
    return id;
  }

  private valueId(pathId: number, text: string): number {
    let ofPath = this.cache.values.get(pathId);
    if (!ofPath) {
      ofPath = new Map();
      this.cache.values.set(pathId, ofPath);
    }
    let id = ofPath.get(text);
    if (id === undefined) {
      id = this.store.query('SELECT id FROM host_vocab WHERE path_id = ? AND text = ?').pluck().get(pathId, text) as number | undefined;
      if (id === undefined) {
        const folded = [...text].map(fold).join('');
        id = this.newValueId(pathId, text);
        this.store.command('INSERT INTO host_vocab (id, path_id, text, fold) VALUES (?, ?, ?, ?)').run(id, pathId, text, folded);
        this.store.command('INSERT INTO host_vocab_trigram (rowid, fold) VALUES (?, ?)').run(id, folded);
      }
      if (++this.cache.valueCount > 200_000) {
        this.cache.values.clear();
        this.cache.valueCount = 0;
      }
      ofPath.set(text, id);
    }
    return id;
  }

  /** A new value's id: the next one of its path's range for its text's kind, or else of the shared ids. */
  private newValueId(pathId: number, text: string): number {
    if (pathId < this.layout.sharedSlot) {
      const base = pathId * this.slotSize + (ASCII_TEXT.test(text) ? this.asciiBit : 0);
      const id = this.nextId(base, base + this.asciiBit);
      if (id !== undefined) return id;
    }
    const id = this.nextId(this.sharedBase, Number.MAX_SAFE_INTEGER);
    if (id === undefined) throw new Error('host search: the vocabulary has no id left');
    return id;
  }

  /** The next id after `base` and before `end` not taken yet, if any. */
  private nextId(base: number, end: number): number | undefined {
    let next = this.cache.nextIds.get(base);
    if (next === undefined) {
      const last = this.store.query('SELECT max(id) FROM host_vocab WHERE id > ? AND id < ?').pluck().get(base, end) as number | null;
      next = (last ?? base) + 1;
    }
    if (next >= end) return undefined;
    this.cache.nextIds.set(base, next + 1);
    return next;
  }

  /** Is the value of id `id` (an SQL expression) of one of these paths? Its own id says so; a shared id's row. */
  pathsOf(id: string, pathIds: readonly number[]): string {
    const own = pathIds.filter((p) => p < this.layout.sharedSlot);
    const tests: string[] = [];
    if (own.length > 0) tests.push(`(${id} >> ${this.layout.slotBits}) IN (${sqlNumberList(own)})`);
    tests.push(`(${id} >= ${this.sharedBase} AND (SELECT path_id FROM host_vocab WHERE id = ${id}) IN (${sqlNumberList(pathIds)}))`);
    return `(${tests.join(' OR ')})`;
  }

  /** Is the value of id `id` (an SQL expression) known to be ASCII from its id? */
  asciiOf(id: string): string {
    return `(${id} < ${this.sharedBase} AND (${id} & ${this.asciiBit}) != 0)`;
  }

  /**
   * The ids a path's own values take, [from, to) (both halves: ASCII and not), or undefined for a
   * path beyond the own slots; any path may also have values among the shared ids, from `sharedFrom`.
   */
  ownIds(pathId: number): { readonly from: number; readonly to: number } | undefined {
    return pathId < this.layout.sharedSlot ? { from: pathId * this.slotSize, to: (pathId + 1) * this.slotSize } : undefined;
  }

  /** The first shared id (ids of any path). */
  get sharedFrom(): number {
    return this.sharedBase;
  }

  /** The paths the index knows, with their kinds. */
  paths(): readonly PathRow[] {
    this.cache.paths ??= this.store.query('SELECT id, path, kind FROM host_path ORDER BY id').all() as PathRow[];
    return this.cache.paths;
  }

  // -------------------------------------------------------------------------------------------
  // Answering a query

  /** The query's set of hosts; run statements that use it inside `run()`. */
  condition(node: QueryNode): SearchCondition {
    const params = new Params();
    const terms: Term[] = [];
    const set = this.nodeSet(node, params, terms);
    return { set, params: params.values, terms, key: JSON.stringify(node) };
  }

  /**
   * The pks of the hosts the query matches: the index's answer for the hosts it holds, and the
   * query language's own evaluation of the hosts still waiting to be indexed (none, most of the
   * time; a few thousand just after a large import, while the background catches up).
   */
  matching(node: QueryNode, condition: SearchCondition): MatchedHosts {
    const pending = this.waiting();
    // The list is made by SQLite as one JSON text: tens of thousands of rows are not handed over one by one.
    const [count, pks] = this.run(condition, () =>
      this.store
        .queryOnce(
          `SELECT count(*), json_group_array(pk) FROM (SELECT DISTINCT pk FROM (${condition.set})${pending ? ' EXCEPT SELECT pk FROM host_search_dirty' : ''})`,
          'select host_id (host_id_qfilter)',
        )
        .raw()
        .get(condition.params),
    ) as [number, string];
    if (!pending) return { count, pks };
    const indexed = JSON.parse(pks) as number[];
    // The hosts waiting are few: they drive the join (CROSS JOIN keeps that order; with stale
    // statistics SQLite otherwise scanned every host_id row for each query).
    const waiting = this.store.query('SELECT h.pk AS pk, h.ip AS ip, h.hits AS hits, h.data AS data FROM host_search_dirty d CROSS JOIN host_id h ON h.pk = d.pk').all() as {
      pk: number;
      ip: string;
      hits: number;
      data: string;
    }[];
    for (const host of waiting) if (matchesHost(node, new QueryHost(host.ip, host.hits, host.data))) indexed.push(host.pk);
    return { count: indexed.length, pks: JSON.stringify(indexed) };
  }

  /** Run statements that use `condition` (its SQL functions read its terms meanwhile). */
  run<T>(condition: SearchCondition, fn: () => T): T {
    const before = this.active;
    this.active = condition.terms;
    try {
      return fn();
    } finally {
      this.active = before;
    }
  }

  /**
   * A node as a set of pks: AND an INTERSECT (less the sets of its NOT children), OR a UNION, NOT
   * the others. Compound operands are wrapped, as SQLite takes no parenthesised compound.
   */
  private nodeSet(node: QueryNode, params: Params, terms: Term[]): string {
    switch (node.kind) {
      case 'or':
        return node.nodes.map((n) => operand(this.nodeSet(n, params, terms))).join(' UNION ');
      case 'and': {
        const positive = node.nodes.filter((n) => n.kind !== 'not').map((n) => operand(this.nodeSet(n, params, terms)));
        const negative = node.nodes.flatMap((n) => (n.kind === 'not' ? [operand(this.nodeSet(n.node, params, terms))] : []));
        return [...(positive.length > 0 ? [positive.join(' INTERSECT ')] : [ALL_HOSTS]), ...negative].join(' EXCEPT ');
      }
      case 'not':
        return `${ALL_HOSTS} EXCEPT ${operand(this.nodeSet(node.node, params, terms))}`;
      case 'term': {
        const slot = terms.push({ field: node.field, test: node.test }) - 1;
        return this.termSet(node.field, node.test, slot, params);
      }
    }
  }

  private termSet(field: FieldScope | undefined, test: ValueTest, slot: number, params: Params): string {
    const covered = this.paths().filter((p) =>
      field === undefined ? p.kind === 's' && !p.path.endsWith('_seen') : field.within === 'host_id' || covers(field, p.path),
    );
    const unindexed = covered.filter((p) => p.kind === 'x');
    if (unindexed.length > 0) {
      const column = field && unindexed.length === covered.length ? this.columnSql(field, test, params) : undefined;
      // Timestamps inside lists are not indexed: the JS evaluator reads each identity.
      return rowsWhere(column ?? `qfilter_host(${slot}, ip, hits, data)`);
    }
    const parts: string[] = [];
    if (field === undefined || (field.within === 'entry' && covers(field, 'ip'))) parts.push(this.ipSql(test, slot, params));
    if (field !== undefined && field.within === 'entry' && covers(field, 'hits')) parts.push(this.hitsSql(test, slot, params));
    const sets = parts.filter((part) => part !== '0').map(rowsWhere);
    const indexed = covered.map((p) => p.id);
    if (indexed.length > 0) sets.push(this.valuesSet(indexed, test, slot, params));
    return sets.length === 0 ? rowsWhere('0') : sets.join(' UNION ');
  }

  /** The top-level times and the counts compared with a bound: their columns. */
  private columnSql(field: FieldScope, test: ValueTest, params: Params): string | undefined {
    if (field.within !== 'entry' || test.kind !== 'compare') return undefined;
    const op = COMPARE_SQL[test.op];
    if (field.path === 'first_seen' || field.path === 'last_seen') {
      if (test.bound.kind !== 'time') return '0';
      return `(${field.path} ${op} ${params.add(test.bound.value)})`;
    }
    if (/^[a-z0-9_.]+_count$/.test(field.path)) {
      if (test.bound.kind !== 'number') return '0';
      return `(json_extract(data, '$."${field.path}"') ${op} ${params.add(test.bound.value)})`;
    }
    return undefined;
  }

  private ipSql(test: ValueTest, slot: number, params: Params): string {
    if (test.kind === 'match') {
      const { segments, exact } = test.pattern;
      // An address is written with hex digits, dots and colons only: a pattern asking for any
      // other character cannot match one, and no address need be read.
      if (segments.some((segment) => segment.some((char) => char !== undefined && !/^[0-9a-f.:]$/.test(char)))) return '0';
      // Addresses are stored normalised, in lower case.
      const whole = segments.length === 1 ? literal(segments[0]!, false) : undefined;
      if (whole !== undefined) {
        return `(ip = ${params.add(exact ? whole : whole.toLowerCase())})`;
      }
      const head = segments.length > 1 ? literal(segments[0]!, exact) : undefined;
      if (head) {
        return `(ip GLOB ${params.add(`${globLiteral(head)}*`)} AND qfilter_scalar(${slot}, ip))`;
      }
    }
    return `qfilter_scalar(${slot}, ip)`;
  }

  private hitsSql(test: ValueTest, slot: number, params: Params): string {
    if (test.kind === 'compare') {
      if (test.bound.kind !== 'number') return '0';
      return `(hits ${COMPARE_SQL[test.op]} ${params.add(test.bound.value)})`;
    }
    const { segments } = test.pattern;
    const whole = segments.length === 1 ? literal(segments[0]!, false) : undefined;
    if (whole !== undefined) {
      if (!/^(0|[1-9]\d{0,14})$/.test(whole)) return '0';
      return `(hits = ${params.add(Number(whole))})`;
    }
    return `qfilter_scalar(${slot}, hits)`;
  }

  /** Hosts with a value of these paths that passes the test, found from the vocabulary's indexes. */
  private valuesSet(pathIds: readonly number[], test: ValueTest, slot: number, params: Params): string {
    const glob = test.kind === 'match' ? test.pattern : undefined;
    const whole = glob && glob.segments.length === 1 ? literal(glob.segments[0]!, glob.exact) : undefined;
    const head = glob && glob.segments.length > 1 ? literal(glob.segments[0]!, glob.exact) : undefined;
    const runs = glob ? trigramRuns(glob) : [];
    // An ASCII value the index's narrowing finds passes without being read when that narrowing is the whole test.
    const accept = (id: string, text: string) =>
      glob && narrowingIsTest(glob) ? `(${this.asciiOf(id)} OR qfilter_value(${slot}, ${text}))` : `qfilter_value(${slot}, ${text})`;
    if (whole !== undefined || head) {
      const narrow = whole !== undefined ? `v.fold = ${params.add(whole)}` : `v.fold GLOB ${params.add(`${globLiteral(head!)}*`)}`;
      return `SELECT t.pk AS pk FROM host_vocab v JOIN host_term t ON t.value_id = v.id WHERE ${narrow} AND ${this.pathsOf('v.id', pathIds)} AND ${accept('v.id', 'v.text')}`;
    }
    if (runs.length > 0) {
      // The trigram index gives ids: a value's row is read only when its path or its test needs it.
      const id = 'host_vocab_trigram.rowid';
      return (
        `SELECT t.pk AS pk FROM host_vocab_trigram JOIN host_term t ON t.value_id = ${id} ` +
        `WHERE host_vocab_trigram MATCH ${params.add(runs.map(ftsPhrase).join(' AND '))} AND ${this.pathsOf(id, pathIds)} ` +
        `AND ${accept(id, `(SELECT text FROM host_vocab WHERE id = ${id})`)}`
      );
    }
    return `SELECT t.pk AS pk FROM host_vocab v JOIN host_term t ON t.value_id = v.id WHERE v.path_id IN (${sqlNumberList(pathIds)}) AND qfilter_value(${slot}, v.text)`;
  }
}
