import type { Statement } from 'better-sqlite3';
import { nowMicros } from '../../../shared/api/datetime';
import type { Db } from './database';

const COUNT_CACHE_LIMIT = 2000;

/**
 * One open workspace database: cached prepared statements, write transactions, and a cache of
 * list counts that is dropped whenever anything is committed (here or by another process).
 */
export class Store {
  private readonly statements = new Map<string, Statement>();
  private readonly counts = new Map<string, number>();
  private generation = 0;
  private countsGeneration = -1;
  private countsDataVersion = -1;
  private readonly dataVersion: Statement;
  private depth = 0;

  constructor(readonly db: Db) {
    this.dataVersion = db.prepare('PRAGMA data_version').pluck();
  }

  prepare(sql: string): Statement {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  /** Run `fn` in one IMMEDIATE transaction (nested calls join it); all of it commits or none. */
  write<T>(fn: () => T): T {
    if (this.depth > 0) return fn();
    this.depth++;
    try {
      return this.db.transaction(fn).immediate();
    } finally {
      this.depth--;
      this.generation++;
    }
  }

  /** A monotonic timestamp in microseconds, for created/updated/date columns. */
  now(): number {
    return nowMicros(() => performance.timeOrigin + performance.now());
  }

  /** `compute()` unless the same count was taken since the last commit. */
  cachedCount(key: string, compute: () => number): number {
    const version = this.dataVersion.get() as number;
    if (version !== this.countsDataVersion || this.generation !== this.countsGeneration) {
      this.counts.clear();
      this.countsDataVersion = version;
      this.countsGeneration = this.generation;
    }
    let count = this.counts.get(key);
    if (count === undefined) {
      count = compute();
      if (this.counts.size >= COUNT_CACHE_LIMIT) this.counts.clear();
      this.counts.set(key, count);
    }
    return count;
  }

  close(): void {
    this.statements.clear();
    if (this.db.open) this.db.close();
  }
}
