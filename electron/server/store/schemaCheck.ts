/**
 * The live schema (after migrations) against the resource declarations: every stored field has
 * its column, of the type its kind is stored in; every column of a resource's table is a field
 * of a resource kept there, its scope column or a declared internal column; item, join and
 * full-text tables have the columns the declarations name. A field added to a declaration but
 * not to a migration (or the other way round) is reported here.
 */
import type { Resource } from '../../../shared/resources';
import { columnsOf } from '../../../shared/resources/derived';
import { COLUMN_TYPE } from './columns';
import type { Store } from './store';

interface ColumnInfo {
  readonly name: string;
  readonly type: string;
}

function columnsIn(store: Store, table: string): Map<string, string> | undefined {
  const rows = store.query('SELECT name, type FROM pragma_table_info(?)', 'schema columns').all(table) as ColumnInfo[];
  return rows.length === 0 ? undefined : new Map(rows.map((r) => [r.name, r.type.toUpperCase()]));
}

/** One line per mismatch; empty when the schema and the declarations agree. */
export function schemaProblems(store: Store, resources: readonly Resource[]): string[] {
  const problems: string[] = [];
  const tables = new Map<string, Resource[]>();
  for (const resource of resources) tables.set(resource.storage.table, [...(tables.get(resource.storage.table) ?? []), resource]);

  for (const resource of resources) {
    const { table, scope, fts, itemOwner } = resource.storage;
    const live = columnsIn(store, table);
    if (!live) {
      problems.push(`${resource.name}: table ${table} does not exist`);
      continue;
    }
    for (const name of columnsOf(resource)) {
      const type = live.get(name);
      const field = resource.fields[name]!;
      if (type === undefined) problems.push(`${resource.name}.${name}: no column ${table}.${name}`);
      else if (type !== COLUMN_TYPE[field.kind]) problems.push(`${resource.name}.${name}: ${table}.${name} is ${type}, a ${field.kind} field is stored as ${COLUMN_TYPE[field.kind]}`);
    }
    if (scope && !live.has(scope.column)) problems.push(`${resource.name}: no scope column ${table}.${scope.column}`);
    if (fts) {
      const indexed = columnsIn(store, fts);
      if (!indexed) problems.push(`${resource.name}: full-text table ${fts} does not exist`);
      else for (const name of resource.search) if (!indexed.has(name)) problems.push(`${resource.name}: ${fts} does not index ${name}`);
    }
    for (const [name, field] of Object.entries(resource.fields)) {
      if (field.kind === 'items') {
        const items = columnsIn(store, field.table);
        const wanted = ['pk', 'name', field.flag, itemOwner ?? '(no itemOwner declared)'];
        for (const column of wanted) if (!items?.has(column)) problems.push(`${resource.name}.${name}: no column ${field.table}.${column}`);
      }
      if (field.kind === 'refList') {
        const join = columnsIn(store, field.through.table);
        for (const column of [field.through.owner, field.through.target]) if (!join?.has(column)) problems.push(`${resource.name}.${name}: no column ${field.through.table}.${column}`);
      }
    }
  }

  for (const [table, owners] of tables) {
    const live = columnsIn(store, table);
    if (!live) continue;
    const known = new Set<string>();
    for (const resource of owners) {
      for (const name of columnsOf(resource)) known.add(name);
      if (resource.storage.scope) known.add(resource.storage.scope.column);
      for (const name of resource.storage.internal ?? []) known.add(name);
    }
    for (const column of live.keys()) {
      if (!known.has(column)) problems.push(`${table}.${column}: no resource declares this column (a field, a scope or an internal column)`);
    }
  }
  return problems;
}
