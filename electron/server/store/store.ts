import type { Statement } from 'better-sqlite3';
import { nowMicros } from '../../../shared/api/datetime';
import type { Db } from './database';

const CACHE_LIMIT = 20_000;

/** OUTPOST_READ_CACHE=off turns every read cache off (the benchmark's cold figures). */
const CACHING = process.env.OUTPOST_READ_CACHE !== 'off';

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

/**
 * One open workspace database: cached prepared statements, write transactions, and the read
 * caches that hold only while nothing is written. Freshness is decided by SQLite itself:
 * `total_changes()` counts every row this connection changed (committed or rolled back) and
 * `data_version` moves when another connection commits, so no write can be missed.
 */
export class Store {
  private readonly statements = new Map<string, Statement>();
  private readonly caches = new Set<Cache>();
  private readonly queries = new ReadCache<string, unknown>(2000);
  private readonly dataVersion: Statement;
  private readonly totalChanges: Statement;
  private seen = { dataVersion: -1, totalChanges: -1 };
  private depth = 0;
  private readonly committed: (() => void)[] = [];
  /** In a bound workspace, the pk of each object created here (negative); else undefined. */
  localPk: (() => number) | undefined;

  constructor(readonly db: Db) {
    this.dataVersion = db.prepare('PRAGMA data_version').pluck();
    this.totalChanges = db.prepare('SELECT total_changes()').pluck();
    this.caches.add(this.queries);
    this.seen = this.changes();
  }

  private changes(): { dataVersion: number; totalChanges: number } {
    return { dataVersion: this.dataVersion.get() as number, totalChanges: this.totalChanges.get() as number };
  }

  prepare(sql: string): Statement {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
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
    let result: T;
    try {
      result = this.db.transaction(fn).immediate();
    } catch (error) {
      this.committed.length = 0;
      throw error;
    } finally {
      this.depth--;
      this.clearCaches();
      this.seen = this.changes();
    }
    for (const action of this.committed.splice(0)) action();
    return result;
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
    this.statements.clear();
    this.clearCaches();
    if (this.db.open) this.db.close();
  }
}
