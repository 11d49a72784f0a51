/**
 * The rows a workspace bundle carries (app.md §2), read and written table by table: secrets and
 * derived tables left out, the full-text index rebuilt on load, the pk sequences kept so that no
 * pk of a deleted object is ever given again. What the rows may hold is checked before they come
 * here (electron/workspaces/bundleCheck.ts), against the shape of each table read from the schema.
 */
import { openDatabase } from './database';
import type { SqlValue } from './columns';
import { Store } from './store';
import { quote } from './table';

/** Tables in an order that satisfies their foreign keys; secrets and derived tables are not exported. */
export const BUNDLE_TABLES = [
  'user',
  'source',
  'ruleset',
  'ruleset_source',
  'vendor_probe_template',
  'appliance',
  'network_interface',
  'protocol',
  'vendor_device',
  'user_action',
  'threat',
  'host_id',
  // Last: the pk sequences, so that no pk of a deleted object is ever given again.
  'sqlite_sequence',
] as const;

export type BundleTable = (typeof BUNDLE_TABLES)[number];

/** Tables of secrets a bundle never carries (an export leaves them out); a file that has them has them ignored. */
export const SECRET_TABLES: readonly string[] = ['token', 'session'];

export type BundleRow = Record<string, string | number | null>;

/** A row checked and ready to insert: its columns' values as stored. */
export type CheckedRow = Readonly<Record<string, SqlValue>>;

export interface ColumnShape {
  readonly name: string;
  /** NOT NULL */
  readonly notNull: boolean;
  /** The column has a DEFAULT (an absent value takes it). */
  readonly hasDefault: boolean;
}

/** One table as the schema declares it: its columns, and whether its pks come from a sequence (AUTOINCREMENT). */
export interface TableShape {
  readonly columns: readonly ColumnShape[];
  readonly autoincrement: boolean;
}

export type BundleShapes = Readonly<Record<BundleTable, TableShape>>;

export class BundleRowsError extends Error {}

let shapes: BundleShapes | undefined;

/** The shape of every bundled table in this Outpost's schema (read once from a new, migrated in-memory database). */
let unbundled: ReadonlySet<string> | undefined;

/** The tables of the database that no bundle carries (the outbox, the sync's own): a pk sequence of one is not the bundle's to set. */
export function unbundledTables(): ReadonlySet<string> {
  if (!unbundled) bundleShapes();
  return unbundled!;
}

export function bundleShapes(): BundleShapes {
  if (shapes) return shapes;
  const store = new Store(openDatabase(':memory:'));
  try {
    const out: Partial<Record<BundleTable, TableShape>> = {};
    for (const table of BUNDLE_TABLES) {
      const columns = store.query('SELECT name, "notnull", dflt_value FROM pragma_table_info(?)').all(table) as { name: string; notnull: number; dflt_value: string | null }[];
      const sql = (store.query("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?").pluck().get(table) as string | undefined) ?? '';
      out[table] = {
        columns: columns.map((c) => ({ name: c.name, notNull: c.notnull === 1, hasDefault: c.dflt_value !== null })),
        autoincrement: /\bAUTOINCREMENT\b/i.test(sql),
      };
    }
    shapes = out as BundleShapes;
    const all = store.query("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[];
    unbundled = new Set(all.filter((table) => !(BUNDLE_TABLES as readonly string[]).includes(table)));
    return shapes;
  } finally {
    store.close();
  }
}

/** Every bundled table's rows, read from one snapshot (password hashes blanked), and the schema version. */
export function readBundleRows(store: Store): { schema: number; tables: Record<string, BundleRow[]> } {
  const tables: Record<string, BundleRow[]> = {};
  const schema = store.read(() => {
    const present = new Set(store.query("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[]);
    for (const table of BUNDLE_TABLES.filter((t) => present.has(t))) {
      const order = table === 'sqlite_sequence' ? 'name' : table === 'ruleset_source' ? 'ruleset, source' : 'rowid';
      const rows = store.query(`SELECT * FROM ${quote(table)} ORDER BY ${order}`).all() as Record<string, SqlValue>[];
      // The sequences of the tables a bundle carries only (the EVE import's tables and a bound workspace's outbox have theirs).
      const carried = table === 'sqlite_sequence' ? rows.filter((row) => (BUNDLE_TABLES as readonly unknown[]).includes(row.name)) : rows;
      tables[table] = carried.map((row) => {
        const out: BundleRow = {};
        for (const [column, value] of Object.entries(row)) {
          out[column] = typeof value === 'bigint' ? Number(value) : (value as string | number | null);
        }
        // A bundle is a file that travels: no password hash leaves the workspace in it.
        if (table === 'user') out.password = '';
        // Nor the imports and pulls (visits, store/visits.ts): the one a host was learned by is not carried either.
        if (table === 'host_id') delete out.learned;
        return out;
      });
    }
    return store.query('PRAGMA user_version').pluck().get() as number;
  });
  return { schema, tables };
}

/** Load checked rows into an empty, migrated database, in one transaction (all or nothing). */
export function writeBundleRows(store: Store, tables: Readonly<Partial<Record<BundleTable, readonly CheckedRow[]>>>): void {
  try {
    store.write(() => {
      store.deferForeignKeys();
      for (const table of BUNDLE_TABLES) {
        const rows = tables[table] ?? [];
        if (rows.length === 0) continue;
        if (table === 'sqlite_sequence') {
          for (const row of rows) {
            store.command('DELETE FROM sqlite_sequence WHERE name = ?').run(row.name ?? null);
            store.command('INSERT INTO sqlite_sequence (name, seq) VALUES (?, ?)').run(row.name ?? null, row.seq ?? 0);
          }
          continue;
        }
        // Tables a new database fills itself (vendor_device pk 1, the admin) are replaced whole.
        if (table === 'vendor_device' || table === 'user') store.command(`DELETE FROM ${quote(table)}`).run();
        for (const row of rows) {
          const columns = Object.keys(row);
          if (columns.length === 0) continue;
          const sql = `INSERT INTO ${quote(table)} (${columns.map(quote).join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`;
          store.command(sql, `insert ${table}`).run(...columns.map((c) => row[c] ?? null));
        }
      }
      store.command("INSERT INTO appliance_search(appliance_search) VALUES ('rebuild')").run();
      const problems = store.foreignKeyProblems();
      if (problems.length > 0) throw new BundleRowsError(`the bundle's rows do not fit together (${problems.length} broken references)`);
    });
  } catch (error) {
    // The rows were checked one by one before; should two still clash, the bundle is refused all the same.
    if (error instanceof Error && 'code' in error && String(error.code).startsWith('SQLITE_CONSTRAINT')) {
      throw new BundleRowsError(`the bundle's rows do not fit together (${error.message})`);
    }
    throw error;
  }
}
