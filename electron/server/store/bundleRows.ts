/**
 * The rows a workspace bundle carries (app.md §2), read and written table by table: secrets and
 * derived tables left out, the full-text index rebuilt on load, the pk sequences kept so that no
 * pk of a deleted object is ever given again.
 */
import type { Db } from './database';

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

export type BundleRow = Record<string, string | number | null>;

export class BundleRowsError extends Error {}

function tablesOf(db: Db): string[] {
  const present = new Set(db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[]);
  return BUNDLE_TABLES.filter((t) => present.has(t));
}

/** Every bundled table's rows, read in one transaction (password hashes blanked), and the schema version. */
export function readBundleRows(db: Db): { schema: number; tables: Record<string, BundleRow[]> } {
  const tables: Record<string, BundleRow[]> = {};
  const read = db.transaction(() => {
    for (const table of tablesOf(db)) {
      const order = table === 'sqlite_sequence' ? 'name' : table === 'ruleset_source' ? 'ruleset, source' : 'rowid';
      tables[table] = (db.prepare(`SELECT * FROM "${table}" ORDER BY ${order}`).all() as BundleRow[]).map((row) => {
        const out: BundleRow = {};
        for (const [column, value] of Object.entries(row)) {
          out[column] = typeof value === 'bigint' ? Number(value) : (value as string | number | null);
        }
        // A bundle is a file that travels: no password hash leaves the workspace in it.
        if (table === 'user') out.password = '';
        return out;
      });
    }
  });
  read.deferred();
  return { schema: db.pragma('user_version', { simple: true }) as number, tables };
}

/** Load checked rows into an empty, migrated database, in one transaction (all or nothing). */
export function writeBundleRows(db: Db, tables: Readonly<Record<string, readonly BundleRow[]>>): void {
  const columnsOf = (table: string) => new Set(db.prepare(`SELECT name FROM pragma_table_info(?)`).pluck().all(table) as string[]);
  db.pragma('defer_foreign_keys = ON');
  db.transaction(() => {
    for (const table of BUNDLE_TABLES) {
      const rows = tables[table] ?? [];
      if (rows.length === 0) continue;
      const known = columnsOf(table);
      if (table === 'sqlite_sequence') {
        for (const row of rows) {
          db.prepare('DELETE FROM sqlite_sequence WHERE name = ?').run(row.name ?? null);
          db.prepare('INSERT INTO sqlite_sequence (name, seq) VALUES (?, ?)').run(row.name ?? null, row.seq ?? 0);
        }
        continue;
      }
      // Tables a new database fills itself (vendor_device pk 1, the admin) are replaced whole.
      if (table === 'vendor_device' || table === 'user') db.prepare(`DELETE FROM "${table}"`).run();
      for (const row of rows) {
        const columns = Object.keys(row).filter((c) => known.has(c));
        if (columns.length === 0) continue;
        const sql = `INSERT INTO "${table}" (${columns.map((c) => `"${c}"`).join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`;
        db.prepare(sql).run(...columns.map((c) => row[c] ?? null));
      }
    }
    db.exec("INSERT INTO appliance_search(appliance_search) VALUES ('rebuild')");
    const problems = db.prepare('PRAGMA foreign_key_check').all();
    if (problems.length > 0) throw new BundleRowsError(`the bundle's rows do not fit together (${problems.length} broken references)`);
  })();
}
