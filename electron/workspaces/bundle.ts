/**
 * A workspace as one JSON bundle file (app.md §2): every table's rows, secrets left out
 * (tokens, sessions, password hashes: imported accounts sign in once a manager sets their
 * password or token), the full-text index rebuilt on import. Import creates a new workspace;
 * it is applied whole or not at all.
 */
import type { JsonObject } from '../../shared/resources';
import type { Db } from '../server/store/database';
import { BUNDLE_TABLES, BundleRowsError, readBundleRows, writeBundleRows, type BundleRow } from '../server/store/bundleRows';
import { LATEST_VERSION } from '../server/store/migrations';

export const BUNDLE_FORMAT = 'outpost-workspace';
export const BUNDLE_VERSION = 1;

export type { BundleRow } from '../server/store/bundleRows';

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

export function exportBundle(db: Db, name: string, now: Date = new Date()): WorkspaceBundle {
  const { schema, tables } = readBundleRows(db);
  return { format: BUNDLE_FORMAT, version: BUNDLE_VERSION, schema, name, exportedAt: now.toISOString(), tables };
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
    if (!(BUNDLE_TABLES as readonly string[]).includes(table)) throw new BundleError(`the bundle has an unknown table "${table}"`);
    if (!Array.isArray(rows) || rows.some((row) => typeof row !== 'object' || row === null || Array.isArray(row))) {
      throw new BundleError(`table "${table}" of the bundle is not a list of rows`);
    }
  }
  return bundle as WorkspaceBundle;
}

/** Load a checked bundle into an empty, migrated database, in one transaction. */
export function importBundle(db: Db, bundle: WorkspaceBundle): void {
  try {
    writeBundleRows(db, bundle.tables);
  } catch (error) {
    if (error instanceof BundleRowsError) throw new BundleError(error.message);
    throw error;
  }
}
