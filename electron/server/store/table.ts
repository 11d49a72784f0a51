/**
 * SQL for one resource, derived from its declaration: the columns are the declared fields
 * (minus the computed ones), values convert by field kind, and list queries are built from a
 * parsed `ListQuery` whose identifiers all come from the declaration. Request text only ever
 * reaches SQL as bound values.
 */
import type { ListQuery, OrderTerm } from '../../../shared/api/listParams';
import { pageNumber } from '../../../shared/api/listParams';
import type { Field, JsonObject, JsonValue, Resource } from '../../../shared/resources';
import { columnsOf } from '../../../shared/resources/derived';
import { filterToSql, fromSql, toSql, type Row, type SqlValue } from './columns';
import { ReadCache, type Store } from './store';

export type { Row, SqlValue } from './columns';

export interface Page {
  readonly count: number;
  readonly page: number;
  readonly pageSize: number;
  readonly rows: readonly Row[];
}

/** An SQL identifier, quoted. */
export const quote = (identifier: string) => `"${identifier.replace(/"/g, '""')}"`;

/** A resource's scope within its shared table as an SQL condition (`"type" = 'vendor'`), from its declaration. */
export function scopeSql(resource: Resource): string {
  const scope = resource.storage.scope;
  return scope ? `${quote(scope.column)} = '${scope.value.replace(/'/g, "''")}'` : '1';
}

const MIN_TRIGRAM = 3;

export class Table {
  readonly resource: Resource;
  readonly name: string;
  /** Declared fields stored as columns, in declaration order. */
  readonly columns: readonly string[];
  private readonly selectList: string;
  private readonly scopeSql: string;
  private readonly scopeParams: SqlValue[];
  /** Objects as the API shows them (whatever form the caller keeps), by pk, until the next change. */
  readonly rendered: ReadCache<number, object>;
  private readonly scope: Resource['storage']['scope'];
  private readonly fts: string | undefined;

  constructor(
    private readonly store: Store,
    resource: Resource,
  ) {
    this.resource = resource;
    this.name = resource.storage.table;
    this.scope = resource.storage.scope;
    this.fts = resource.storage.fts;
    this.columns = columnsOf(resource);
    this.selectList = this.columns.map(quote).join(', ');
    this.scopeSql = this.scope ? `${quote(this.scope.column)} = ?` : '1';
    this.scopeParams = this.scope ? [this.scope.value] : [];
    this.rendered = store.register(new ReadCache<number, object>());
  }

  private field(name: string): Field {
    const field = this.resource.fields[name];
    if (!field) throw new Error(`${this.resource.name}: no field ${name}`);
    return field;
  }

  /** The stored fields of a row, as the API shows them. */
  toJson(row: Row): JsonObject {
    const out: JsonObject = {};
    for (const name of this.columns) out[name] = fromSql(this.field(name), row[name]);
    return out;
  }

  get(pk: number): Row | undefined {
    return this.store
      .query(`SELECT ${this.selectList} FROM ${quote(this.name)} WHERE pk = ? AND ${this.scopeSql}`)
      .get(pk, ...this.scopeParams) as Row | undefined;
  }

  exists(pk: number): boolean {
    return (
      this.store.query(`SELECT 1 FROM ${quote(this.name)} WHERE pk = ? AND ${this.scopeSql}`).get(pk, ...this.scopeParams) !==
      undefined
    );
  }

  /** The pk of the row whose `column` is `value` (unique fields), if any. */
  findBy(column: string, value: SqlValue): number | undefined {
    if (!this.columns.includes(column)) throw new Error(`${this.resource.name}: no column ${column}`);
    const row = this.store
      .query(`SELECT pk FROM ${quote(this.name)} WHERE ${quote(column)} = ? AND ${this.scopeSql}`)
      .get(value, ...this.scopeParams) as { pk: number } | undefined;
    return row?.pk;
  }

  /** Insert the given declared values plus raw `extra` columns; returns the new pk. */
  insert(values: Record<string, JsonValue>, extra: Record<string, SqlValue> = {}): number {
    const names: string[] = [];
    const params: SqlValue[] = [];
    for (const [name, value] of Object.entries(values)) {
      if (!this.columns.includes(name)) continue;
      names.push(name);
      params.push(toSql(this.field(name), value));
    }
    if (this.scope && !(this.scope.column in extra)) extra = { ...extra, [this.scope.column]: this.scope.value };
    if (this.store.localPk && !('pk' in values) && !('pk' in extra)) extra = { ...extra, pk: this.store.localPk() };
    for (const [name, value] of Object.entries(extra)) {
      names.push(name);
      params.push(value);
    }
    const sql = `INSERT INTO ${quote(this.name)} (${names.map(quote).join(', ')}) VALUES (${names.map(() => '?').join(', ')})`;
    return Number(this.store.command(sql).run(...params).lastInsertRowid);
  }

  /** Set the given declared values plus raw `extra` columns on one row. */
  update(pk: number, values: Record<string, JsonValue>, extra: Record<string, SqlValue> = {}): void {
    const sets: string[] = [];
    const params: SqlValue[] = [];
    for (const [name, value] of Object.entries(values)) {
      if (!this.columns.includes(name) || name === 'pk') continue;
      sets.push(`${quote(name)} = ?`);
      params.push(toSql(this.field(name), value));
    }
    for (const [name, value] of Object.entries(extra)) {
      sets.push(`${quote(name)} = ?`);
      params.push(value);
    }
    if (sets.length === 0) return;
    this.store.command(`UPDATE ${quote(this.name)} SET ${sets.join(', ')} WHERE pk = ?`).run(...params, pk);
  }

  delete(pk: number): void {
    this.store.command(`DELETE FROM ${quote(this.name)} WHERE pk = ?`).run(pk);
  }

  private orderSql(ordering: readonly OrderTerm[]): string {
    const terms = ordering.map((term) => {
      return `${quote(term.field)} ${term.descending ? 'DESC' : 'ASC'}`;
    });
    if (!ordering.some((term) => term.field === 'pk')) terms.push('pk ASC');
    return terms.join(', ');
  }

  /** WHERE clause and parameters for a list query's filters and search. */
  where(query: Pick<ListQuery, 'filters' | 'search'>, extra: { sql: string; params: SqlValue[] }[] = []): { sql: string; params: SqlValue[] } {
    const clauses = [this.scopeSql];
    const params: SqlValue[] = [...this.scopeParams];
    for (const filter of query.filters) {
      clauses.push(`${quote(filter.field)} = ?`);
      params.push(filterToSql(this.field(filter.field), filter.value));
    }
    const searchFields = this.resource.search;
    const indexed: string[] = [];
    for (const term of query.search) {
      if (this.fts && [...term].length >= MIN_TRIGRAM) {
        indexed.push(`({${searchFields.join(' ')}} : "${term.replace(/"/g, '""')}")`);
      } else if (/^[\x20-\x7e]*$/.test(term)) {
        // SQLite's LIKE folds ASCII letters only, which is all an ASCII term needs; it runs in C.
        clauses.push(`(${searchFields.map((f) => `${quote(f)} LIKE ? ESCAPE '\\'`).join(' OR ')})`);
        const pattern = `%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
        for (let i = 0; i < searchFields.length; i++) params.push(pattern);
      } else {
        clauses.push(`(${searchFields.map((f) => `contains_folded(${quote(f)}, ?)`).join(' OR ')})`);
        for (let i = 0; i < searchFields.length; i++) params.push(term);
      }
    }
    if (indexed.length > 0) {
      clauses.push(`pk IN (SELECT rowid FROM ${quote(this.fts!)} WHERE ${quote(this.fts!)} MATCH ?)`);
      params.push(indexed.join(' AND '));
    }
    for (const clause of extra) {
      clauses.push(clause.sql);
      params.push(...clause.params);
    }
    return { sql: clauses.join(' AND '), params };
  }

  /** One page of a list: count, then the rows of the requested page (undefined past the end). */
  list(query: ListQuery, extra: { sql: string; params: SqlValue[] }[] = []): Page | undefined {
    const found = this.pkPage(query, extra);
    if (!found) return undefined;
    const { count, page, pageSize, pks } = found;
    const rows = this.rows(pks);
    return { count, page, pageSize, rows: pks.map((pk) => rows.get(pk)!).filter(Boolean) };
  }

  /**
   * The pks of one page: count (cached until the next change), then the page's pks alone, so
   * that sorting touches index entries rather than whole rows (undefined past the end).
   */
  pkPage(query: ListQuery, extra: { sql: string; params: SqlValue[] }[] = []): PkPage | undefined {
    const { sql, params } = this.where(query, extra);
    const from = `FROM ${quote(this.name)} WHERE ${sql}`;
    if (query.search.length > 0 && this.fts) {
      // A full-text match costs more than listing its rows: evaluate it once, for the count
      // and every page of the same search.
      const allSql = `SELECT pk ${from} ORDER BY ${this.orderSql(query.ordering)}`;
      const all = this.store.cachedQuery(`${allSql}\u0000${JSON.stringify(params)}`, () => this.store.query(allSql).pluck().all(...params) as number[]);
      const page = pageNumber(query.page, all.length, query.pageSize);
      if (page === undefined) return undefined;
      return { count: all.length, page, pageSize: query.pageSize, pks: all.slice((page - 1) * query.pageSize, page * query.pageSize) };
    }
    const countSql = `SELECT count(*) ${from}`;
    const count = this.store.cachedCount(countSql + '\u0000' + JSON.stringify(params), () =>
      Number(this.store.query(countSql).pluck().get(...params)),
    );
    const page = pageNumber(query.page, count, query.pageSize);
    if (page === undefined) return undefined;
    const pageSql = `SELECT pk ${from} ORDER BY ${this.orderSql(query.ordering)} LIMIT ? OFFSET ?`;
    const pageParams = [...params, query.pageSize, (page - 1) * query.pageSize];
    const pks =
      count === 0
        ? []
        : this.store.cachedQuery(`${pageSql}\u0000${JSON.stringify(pageParams)}`, () => this.store.query(pageSql).pluck().all(...pageParams) as number[]);
    return { count, page, pageSize: query.pageSize, pks };
  }

  /** Rows by pk (those that exist in this resource's scope). */
  rows(pks: readonly number[]): Map<number, Row> {
    const out = new Map<number, Row>();
    if (pks.length === 0) return out;
    const statement = this.store.query(
      `SELECT ${this.selectList} FROM ${quote(this.name)} WHERE pk IN (SELECT value FROM json_each(?)) AND ${this.scopeSql}`,
    );
    for (const row of statement.all(JSON.stringify(pks), ...this.scopeParams) as Row[]) out.set(Number(row.pk), row);
    return out;
  }

  /** Raw rows (values in `columns` order) by pk, for the JSON writer. */
  rawRows(pks: readonly number[]): Map<number, SqlValue[]> {
    const out = new Map<number, SqlValue[]>();
    if (pks.length === 0) return out;
    const statement = this.store
      .query(`SELECT ${this.selectList} FROM ${quote(this.name)} WHERE pk IN (SELECT value FROM json_each(?)) AND ${this.scopeSql} /* raw */`)
      .raw();
    const pkColumn = this.columns.indexOf('pk');
    for (const row of statement.all(JSON.stringify(pks), ...this.scopeParams) as SqlValue[][]) out.set(Number(row[pkColumn]), row);
    return out;
  }
}

export interface PkPage {
  readonly count: number;
  readonly page: number;
  readonly pageSize: number;
  readonly pks: readonly number[];
}
