/**
 * A workspace as one JSON bundle file (app.md §2): every table's rows, secrets left out
 * (tokens, sessions, password hashes: imported accounts sign in once a manager sets their
 * password or token), the full-text index rebuilt on import. Import creates a new workspace;
 * it is applied whole or not at all.
 */
import type { JsonObject } from '../../shared/resources';
import type { Db } from '../server/store/database';
import { LATEST_VERSION } from '../server/store/migrations';

export const BUNDLE_FORMAT = 'outpost-workspace';
export const BUNDLE_VERSION = 1;

/** Tables in an order that satisfies their foreign keys; secrets and derived tables are not exported. */
const TABLES = [
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

export interface WorkspaceBundle {
  readonly format: typeof BUNDLE_FORMAT;
  readonly version: number;
  readonly schema: number;
  readonly name: string;
  readonly exportedAt: string;
  readonly tables: Readonly<Record<string, readonly BundleRow[]>>;
}

export class BundleError extends Error {}

/** The bundle as a plain JSON object (for an HTTP answer). */
export function bundleJson(bundle: WorkspaceBundle): JsonObject {
  const tables: JsonObject = {};
  for (const [table, rows] of Object.entries(bundle.tables)) tables[table] = [...rows];
  return { format: bundle.format, version: bundle.version, schema: bundle.schema, name: bundle.name, exportedAt: bundle.exportedAt, tables };
}

function tablesOf(db: Db): string[] {
  const present = new Set(
    (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[]),
  );
  return TABLES.filter((t) => present.has(t));
}

export function exportBundle(db: Db, name: string, now: Date = new Date()): WorkspaceBundle {
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
  return {
    format: BUNDLE_FORMAT,
    version: BUNDLE_VERSION,
    schema: db.pragma('user_version', { simple: true }) as number,
    name,
    exportedAt: now.toISOString(),
    tables,
  };
}

/** Check a parsed file is a bundle this Outpost can import; a clear error otherwise. */
export function checkBundle(value: unknown): WorkspaceBundle {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new BundleError('not an Outpost workspace bundle (not a JSON object)');
  const bundle = value as Partial<WorkspaceBundle>;
  if (bundle.format !== BUNDLE_FORMAT) throw new BundleError(`not an Outpost workspace bundle (format is ${JSON.stringify(bundle.format)})`);
  if (bundle.version !== BUNDLE_VERSION) throw new BundleError(`bundle version ${String(bundle.version)} is not supported (this Outpost reads version ${BUNDLE_VERSION})`);
  if (typeof bundle.schema !== 'number' || bundle.schema > LATEST_VERSION) {
    throw new BundleError(`the bundle comes from a newer Outpost (schema ${String(bundle.schema)}; this one knows up to ${LATEST_VERSION})`);
  }
  if (typeof bundle.tables !== 'object' || bundle.tables === null) throw new BundleError('the bundle has no tables');
  for (const [table, rows] of Object.entries(bundle.tables)) {
    if (!(TABLES as readonly string[]).includes(table)) throw new BundleError(`the bundle has an unknown table "${table}"`);
    if (!Array.isArray(rows) || rows.some((row) => typeof row !== 'object' || row === null || Array.isArray(row))) {
      throw new BundleError(`table "${table}" of the bundle is not a list of rows`);
    }
  }
  return bundle as WorkspaceBundle;
}

/** Load a checked bundle into an empty, migrated database, in one transaction. */
export function importBundle(db: Db, bundle: WorkspaceBundle): void {
  const columnsOf = (table: string) => new Set((db.prepare(`SELECT name FROM pragma_table_info(?)`).pluck().all(table) as string[]));
  db.pragma('defer_foreign_keys = ON');
  db.transaction(() => {
    for (const table of TABLES) {
      const rows = bundle.tables[table] ?? [];
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
    if (problems.length > 0) throw new BundleError(`the bundle's rows do not fit together (${problems.length} broken references)`);
  })();
}
