import type { RunResult, Statement } from 'better-sqlite3';
import { nowMicros } from '../../../shared/api/datetime';
import type { Db } from './database';
import { withFile } from './storageErrors';

const CACHE_LIMIT = 20_000;

/** OUTPOST_READ_CACHE=off turns every read cache off (the benchmark's cold figures). */
export const CACHING = process.env.OUTPOST_READ_CACHE !== 'off';

/** Something holding values read from the database, valid until the database changes. */
export interface Cache {
  clear(): void;
}

/**
 * A map cache registered with its Store: bounded, and emptied whenever anything is written to
 * the database (by this connection or another process).
 */
export class ReadCache<K, V> implements Cache {
  private readonly entries = new Map<K, V>();

  constructor(private readonly limit = CACHE_LIMIT) {}

  get(key: K): V | undefined {
    return this.entries.get(key);
  }

  set(key: K, value: V): void {
    if (!CACHING) return;
    if (this.entries.size >= this.limit) this.entries.clear();
    this.entries.set(key, value);
  }

  clear(): void {
    this.entries.clear();
  }
}

/** A statement that reads (SELECT, PRAGMA): rows out, nothing changed. */
export interface ReadStatement {
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
  iterate(...params: unknown[]): IterableIterator<unknown>;
  /** Each row as its first column's value. */
  pluck(): ReadStatement;
  /** Each row as an array of its values. */
  raw(): ReadStatement;
}

/** A statement that writes (INSERT, UPDATE, DELETE): no rows out. */
export interface WriteStatement {
  run(...params: unknown[]): RunResult;
}

/** Statements slower than `thresholdMs` are reported with their name (the verb and table, unless given). */
export interface SlowStatementLog {
  readonly thresholdMs: number;
  report(name: string, ms: number, sql: string): void;
}

const DEFAULT_SLOW_LOG: SlowStatementLog = {
  thresholdMs: 250,
  report: (name, ms, sql) => process.stderr.write(`outpost: slow statement ${name}: ${ms.toFixed(0)} ms (${sql.replace(/\s+/g, ' ').slice(0, 200)})\n`),
};

/** `select appliance`, `update outbox`, `with vendor_probe_template`: the verb and first table of a statement. */
export function statementName(sql: string): string {
  const verb = /^\s*(\w+)/.exec(sql)?.[1]?.toLowerCase() ?? 'sql';
  const table = /\b(?:from|into|update|table)\s+"?(\w+)/i.exec(sql)?.[1] ?? '';
  return table ? `${verb} ${table}` : verb;
}

class Timed {
  constructor(
    protected readonly statement: Statement,
    protected readonly name: string,
    protected readonly slow: SlowStatementLog,
  ) {}

  /** Report the statement if it took longer than the threshold (the hot path: no closure, one clock read each side). */
  protected done(start: number): void {
    const ms = performance.now() - start;
    if (ms >= this.slow.thresholdMs) this.slow.report(this.name, ms, this.statement.source);
  }
}

class TimedRead extends Timed implements ReadStatement {
  get(...params: unknown[]): unknown {
    const start = performance.now();
    const out = this.statement.get(...params);
    this.done(start);
    return out;
  }

  all(...params: unknown[]): unknown[] {
    const start = performance.now();
    const out = this.statement.all(...params);
    this.done(start);
    return out;
  }

  iterate(...params: unknown[]): IterableIterator<unknown> {
    const start = performance.now();
    const out = this.statement.iterate(...params);
    this.done(start);
    return out;
  }

  pluck(): ReadStatement {
    this.statement.pluck();
    return this;
  }

  raw(): ReadStatement {
    this.statement.raw();
    return this;
  }
}

class TimedWrite extends Timed implements WriteStatement {
  run(...params: unknown[]): RunResult {
    const start = performance.now();
    const out = this.statement.run(...params);
    this.done(start);
    return out;
  }
}

/**
 * One open workspace database: cached prepared statements, write transactions, and the read
 * caches that hold only while nothing is written. Freshness is decided by SQLite itself:
 * `total_changes()` counts every row this connection changed (committed or rolled back) and
 * `data_version` moves when another connection commits, so no write can be missed.
 */
export class Store {
  private readonly reads = new Map<string, TimedRead>();
  private readonly writes = new Map<string, TimedWrite>();
  private readonly caches = new Set<Cache>();
  private readonly queries = new ReadCache<string, unknown>(2000);
  private readonly dataVersion: Statement;
  private readonly totalChanges: Statement;
  private seen = { dataVersion: -1, totalChanges: -1 };
  private depth = 0;
  /** Counts the outermost writes begun: which transaction a statement runs in. */
  private writesBegun = 0;
  private readonly committed: (() => void)[] = [];
  private readonly commitListeners: (() => void)[] = [];
  /** In a bound workspace, the pk of each object created here (negative); else undefined. */
  localPk: (() => number) | undefined;
  /**
   * Run first inside each outermost transaction; it may refuse the write by throwing (a
   * standalone workspace another process connected to a central server: openWorkspace.ts).
   */
  beforeWrite: (() => void) | undefined;

  constructor(
    /** The connection itself: for migrations and for tests that look at rows directly; code goes through query() and command(). */
    readonly db: Db,
    private readonly slow: SlowStatementLog = DEFAULT_SLOW_LOG,
  ) {
    this.dataVersion = db.prepare('PRAGMA data_version').pluck();
    this.totalChanges = db.prepare('SELECT total_changes()').pluck();
    this.caches.add(this.queries);
    this.seen = this.changes();
  }

  private changes(): { dataVersion: number; totalChanges: number } {
    return { dataVersion: this.dataVersion.get() as number, totalChanges: this.totalChanges.get() as number };
  }

  /** A reading statement, prepared once and timed (its name is its verb and table unless given). */
  query(sql: string, name?: string): ReadStatement {
    let statement = this.reads.get(sql);
    if (!statement) {
      const prepared = this.db.prepare(sql);
      if (!prepared.reader) throw new Error(`query() is for statements that read: ${sql}`);
      statement = new TimedRead(prepared, name ?? statementName(sql), this.slow);
      this.reads.set(sql, statement);
    }
    return statement;
  }

  /**
   * A reading statement built for one request (a host_id_qfilter's translation): prepared and
   * timed like the others, but not kept, so that client-chosen shapes cannot grow the cache.
   */
  queryOnce(sql: string, name: string): ReadStatement {
    const prepared = this.db.prepare(sql);
    if (!prepared.reader) throw new Error(`queryOnce() is for statements that read: ${sql}`);
    return new TimedRead(prepared, name, this.slow);
  }

  /** Set the connection's page cache to `megabytes` (an import bounds its memory); the size it had. */
  pageCache(megabytes: number): number {
    const before = this.db.pragma('cache_size', { simple: true }) as number;
    this.db.pragma(`cache_size = -${Math.round(megabytes * 1024)}`);
    return before < 0 ? -before / 1024 : (before * (this.db.pragma('page_size', { simple: true }) as number)) / 1024 / 1024;
  }

  /** A function of this code that SQL statements can call (evaluated row by row, synchronously). */
  defineFunction(name: string, fn: (...args: never[]) => unknown): void {
    this.db.function(name, { deterministic: false, varargs: false }, fn as (...args: unknown[]) => unknown);
  }

  /** A writing statement, prepared once and timed. */
  command(sql: string, name?: string): WriteStatement {
    let statement = this.writes.get(sql);
    if (!statement) {
      const prepared = this.db.prepare(sql);
      if (prepared.reader) throw new Error(`command() is for statements that write: ${sql}`);
      statement = new TimedWrite(prepared, name ?? statementName(sql), this.slow);
      this.writes.set(sql, statement);
    }
    return statement;
  }

  /** A writing statement built for one use (an import's own staging tables): timed like the others, not kept. */
  commandOnce(sql: string, name: string): WriteStatement {
    const prepared = this.db.prepare(sql);
    if (prepared.reader) throw new Error(`commandOnce() is for statements that write: ${sql}`);
    return new TimedWrite(prepared, name, this.slow);
  }

  /** Statements that change the schema (an import's staging tables made and dropped), inside a write. */
  exec(sql: string): void {
    if (this.depth === 0) throw new Error('exec() runs inside a write');
    this.db.exec(sql);
  }

  /**
   * The items `read` yields, all read in one read transaction (one snapshot), however long the
   * caller takes between them; the transaction ends when the caller stops or is done.
   */
  *inSnapshot<T>(read: () => Iterable<T>): Generator<T> {
    this.db.exec('BEGIN');
    try {
      yield* read();
    } finally {
      this.db.exec('COMMIT');
    }
  }

  /** Inside a write: check foreign keys at its commit, not statement by statement. */
  deferForeignKeys(): void {
    this.db.pragma('defer_foreign_keys = ON');
  }

  /** Rows that break a foreign key (empty when the database is sound). */
  foreignKeyProblems(): unknown[] {
    return this.db.pragma('foreign_key_check') as unknown[];
  }

  /** Is the database still open? */
  get open(): boolean {
    return this.db.open;
  }

  /** A cache emptied with the others whenever the database changes. */
  register<C extends Cache>(cache: C): C {
    this.caches.add(cache);
    return cache;
  }

  private clearCaches(): void {
    for (const cache of this.caches) cache.clear();
  }

  /** Empty the caches if anything was written since they were filled (here or elsewhere). */
  checkFreshness(): void {
    if (this.depth > 0) return;
    const now = this.changes();
    if (now.dataVersion !== this.seen.dataVersion || now.totalChanges !== this.seen.totalChanges) {
      this.seen = now;
      this.clearCaches();
    }
  }

  /** Run `fn` in one IMMEDIATE transaction (nested calls join it); all of it commits or none. */
  write<T>(fn: () => T): T {
    if (this.depth > 0) return fn();
    this.depth++;
    this.writesBegun++;
    let result: T;
    try {
      result = this.db
        .transaction(() => {
          this.beforeWrite?.();
          return fn();
        })
        .immediate();
    } catch (error) {
      this.committed.length = 0;
      // A full or read-only disk, a damaged file: told with the database's name (storageErrors.ts).
      throw withFile(error, this.db.name);
    } finally {
      this.writeEnded();
    }
    this.tellCommitted();
    return result;
  }

  /** The write under way (a number of its own), or undefined outside a write: something done once per transaction is keyed by it. */
  currentWrite(): number | undefined {
    return this.depth > 0 ? this.writesBegun : undefined;
  }

  /** A write has ended, committed or not: the caches go, and what the database holds now is noted. */
  private writeEnded(): void {
    this.depth--;
    this.clearCaches();
    this.seen = this.changes();
  }

  /** A write has committed: what waited for it runs, and the commit listeners are told. */
  private tellCommitted(): void {
    for (const action of this.committed.splice(0)) action();
    for (const listener of this.commitListeners) listener();
  }

  /** Run `fn` in one DEFERRED transaction: its reads see one snapshot, and no write lock is taken (an export beside the open workspace). */
  read<T>(fn: () => T): T {
    if (this.depth > 0) return fn();
    return this.db.transaction(fn).deferred();
  }

  /**
   * Run `fn` in one IMMEDIATE transaction held across its awaits (nested writes join it): only for
   * a connection nothing else uses meanwhile (an EVE import's own, on its own thread, waiting for
   * the rows its helper thread makes).
   */
  async writeAsync<T>(fn: () => Promise<T>): Promise<T> {
    if (this.depth > 0) throw new Error('writeAsync() cannot join another write');
    this.depth++;
    this.writesBegun++;
    let result: T;
    try {
      this.db.exec('BEGIN IMMEDIATE');
      result = await fn();
      this.db.exec('COMMIT');
    } catch (error) {
      if (this.db.inTransaction) this.db.exec('ROLLBACK');
      this.committed.length = 0;
      throw withFile(error, this.db.name);
    } finally {
      this.writeEnded();
    }
    this.tellCommitted();
    return result;
  }

  /** Another connection wrote (an import on its own thread): the caches go, and the commit listeners are told. */
  changedElsewhere(): void {
    this.clearCaches();
    this.seen = this.changes();
    for (const listener of this.commitListeners) listener();
  }

  /** Call `listener` after every write that commits (the host search index catching up). */
  onCommit(listener: () => void): void {
    this.commitListeners.push(listener);
  }

  /** Run `action` once the current write has committed (at once outside a write; never after a rollback). */
  afterCommit(action: () => void): void {
    if (this.depth > 0) this.committed.push(action);
    else action();
  }

  /** A monotonic timestamp in microseconds, for created/updated/date columns. */
  now(): number {
    return nowMicros(() => performance.timeOrigin + performance.now());
  }

  /**
   * The result of a read query, computed once until the next change (the router checks
   * freshness once per request). `key` must name the query and its parameters completely.
   */
  cachedQuery<T extends NonNullable<unknown>>(key: string, compute: () => T): T {
    let result = this.queries.get(key) as T | undefined;
    if (result === undefined) {
      result = compute();
      this.queries.set(key, result);
    }
    return result;
  }

  cachedCount(key: string, compute: () => number): number {
    return this.cachedQuery(`count\u0000${key}`, compute);
  }

  close(): void {
    this.reads.clear();
    this.writes.clear();
    this.clearCaches();
    if (this.db.open) this.db.close();
  }
}
