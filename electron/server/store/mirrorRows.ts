/**
 * Rows written as a central server shows them (the mirror): upserts by pk with the remote's
 * pks, item sets replaced by name, names set aside, objects the remote no longer has removed.
 * Identifiers come from the resource declarations only, never from remote data.
 */
import { RESOURCES, type Resource } from '../../../shared/resources';
import { referenceFields } from '../../../shared/resources/derived';
import type { SqlValue } from './columns';
import { quote, scopeSql } from './table';
import type { Store } from './store';

export interface ItemTable {
  readonly table: string;
  readonly flag: string;
  readonly owner: string;
}

export class MirrorRows {
  /** The upsert of a row by pk, by table and column list (a pull writes thousands of rows alike). */
  private readonly upserts = new Map<string, string>();

  constructor(private readonly store: Store) {}

  /** Insert or update one row by pk with exactly these columns. */
  upsert(table: string, pk: number, columns: Readonly<Record<string, SqlValue>>): void {
    const all: Record<string, SqlValue> = { ...columns, pk };
    const names = Object.keys(all);
    const key = `${table}\u0000${names.join('\u0000')}`;
    let sql = this.upserts.get(key);
    if (sql === undefined) {
      sql =
        `INSERT INTO ${quote(table)} (${names.map(quote).join(', ')}) VALUES (${names.map(() => '?').join(', ')}) ` +
        `ON CONFLICT(pk) DO UPDATE SET ${names.filter((n) => n !== 'pk').map((n) => `${quote(n)} = excluded.${quote(n)}`).join(', ')}`;
      this.upserts.set(key, sql);
    }
    this.store.command(sql).run(...names.map((n) => all[n] ?? null));
  }

  present(table: string, pk: number): boolean {
    return this.store.query(`SELECT 1 FROM ${quote(table)} WHERE pk = ?`).get(pk) !== undefined;
  }

  /** One column of one row (undefined when the row is not here). */
  value(table: string, pk: number, column: string): SqlValue | undefined {
    return this.store.query(`SELECT ${quote(column)} FROM ${quote(table)} WHERE pk = ?`).pluck().get(pk) as SqlValue | undefined;
  }

  /** The pk of the row of `resource` holding `name`, other than `except`. */
  nameHolder(resource: Resource, name: string, except?: number): number | undefined {
    return this.store
      .query(`SELECT pk FROM ${quote(resource.storage.table)} WHERE name = ? AND pk IS NOT ? AND ${scopeSql(resource)}`)
      .pluck()
      .get(name, except ?? null) as number | undefined;
  }

  rename(table: string, pk: number, name: string): void {
    this.store.command(`UPDATE ${quote(table)} SET name = ? WHERE pk = ?`).run(name, pk);
  }

  /** The items of an owner by name → pk. */
  itemPks(items: ItemTable, ownerPk: number): Map<string, number> {
    const rows = this.store.query(`SELECT name, pk FROM ${quote(items.table)} WHERE ${quote(items.owner)} = ?`).all(ownerPk) as { name: string; pk: number }[];
    return new Map(rows.map((r) => [r.name, r.pk]));
  }

  /** The items of an owner as `[name, flag]`, by name. */
  items(items: ItemTable, ownerPk: number): [string, boolean][] {
    const rows = this.store.query(`SELECT name, ${quote(items.flag)} AS flag FROM ${quote(items.table)} WHERE ${quote(items.owner)} = ? ORDER BY name`).all(ownerPk) as { name: string; flag: number }[];
    return rows.map((r) => [r.name, r.flag === 1]);
  }

  /** Replace an owner's items with these (pk null: the next one). */
  replaceItems(items: ItemTable, ownerPk: number, rows: readonly { pk: number | null; name: string; flag: boolean }[]): void {
    this.store.command(`DELETE FROM ${quote(items.table)} WHERE ${quote(items.owner)} = ?`).run(ownerPk);
    const insert = this.store.command(`INSERT INTO ${quote(items.table)} (pk, name, ${quote(items.flag)}, ${quote(items.owner)}) VALUES (?, ?, ?, ?)`);
    for (const row of rows) insert.run(row.pk, row.name, row.flag ? 1 : 0, ownerPk);
  }

  /** Keys (`keyColumn`) of the rows of `resource` that came from the central server (`where`). */
  keys(resource: Resource, keyColumn: string, where: 'all' | 'remote pks'): (number | string)[] {
    const condition = where === 'remote pks' ? `${scopeSql(resource)} AND pk > 0` : scopeSql(resource);
    return this.store.query(`SELECT ${quote(keyColumn)} FROM ${quote(resource.storage.table)} WHERE ${condition}`).pluck().all() as (number | string)[];
  }

  /**
   * Objects whose writable reference names object `pk` of `target` lose it (a template's children
   * when it goes): they stay, without the reference.
   */
  detachFrom(target: Resource, pk: number): void {
    const columns = new Set<string>();
    for (const resource of RESOURCES) {
      for (const ref of referenceFields(resource)) {
        if (ref.target.name === target.name && resource.fields[ref.field]?.kind === 'ref') columns.add(`${resource.storage.table}\u0000${ref.field}`);
      }
    }
    for (const key of columns) {
      const [table, column] = key.split('\u0000') as [string, string];
      this.store.command(`UPDATE ${quote(table)} SET ${quote(column)} = NULL WHERE ${quote(column)} = ?`).run(pk);
    }
  }

  /** Remove the row of `resource` whose `keyColumn` is `key`. */
  remove(resource: Resource, keyColumn: string, key: number | string): void {
    this.store.command(`DELETE FROM ${quote(resource.storage.table)} WHERE ${quote(keyColumn)} = ? AND ${scopeSql(resource)}`).run(key);
  }
}
