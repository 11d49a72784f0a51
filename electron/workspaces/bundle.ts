/**
 * A workspace as one JSON bundle file (app.md §2): every table's rows, secrets left out
 * (tokens, sessions, password hashes), the full-text index rebuilt on import. Import creates a
 * new workspace from a bundle whose every row was checked first (bundleCheck.ts): it is applied
 * whole or not at all, and its accounts sign in once a manager sets their password or token.
 */
import { renderJson } from '../../shared/api/json';
import type { JsonObject } from '../../shared/resources';
import type { Store } from '../server/store/store';
import { BUNDLE_TABLES, BundleRowsError, SECRET_TABLES, bundleShapes, readBundleRows, unbundledTables, writeBundleRows, type BundleRow } from '../server/store/bundleRows';
import { LATEST_VERSION } from '../server/store/migrations';
import { checkBundleRows, type BundleCheck } from './bundleCheck';

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

/** A bundle whose every row was checked: the rows as they are stored, and what its accounts may do. */
export type CheckedBundle = Extract<BundleCheck, { ok: true }>;

export class BundleError extends Error {}

/** The file is not JSON: `reason` says where (each caller words it: the route as DRF does, the CLI with the file). */
export class BundleSyntaxError extends BundleError {
  constructor(readonly reason: string) {
    super(`the bundle is not valid JSON: ${reason}`);
  }
}

/** No name was given for the new workspace and the bundle carries none. */
export class BundleUnnamedError extends BundleError {
  constructor() {
    super('the bundle does not name its workspace; give the new workspace a name');
  }
}

/** The bundle as a plain JSON object (for an HTTP answer). */
export function bundleJson(bundle: WorkspaceBundle): JsonObject {
  const tables: JsonObject = {};
  for (const [table, rows] of Object.entries(bundle.tables)) tables[table] = [...rows];
  return { format: bundle.format, version: bundle.version, schema: bundle.schema, name: bundle.name, exportedAt: bundle.exportedAt, tables };
}

export function exportBundle(store: Store, name: string, now: Date = new Date()): WorkspaceBundle {
  const { schema, tables } = readBundleRows(store);
  return { format: BUNDLE_FORMAT, version: BUNDLE_VERSION, schema, name, exportedAt: now.toISOString(), tables };
}

/** The bundle file of a workspace: its JSON text, as the app's Export and `outpost export` write it. */
export function bundleText(store: Store, name: string, now: Date = new Date()): string {
  return renderJson(bundleJson(exportBundle(store, name, now)));
}

const isObject = (value: unknown): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Check a parsed file is a bundle this Outpost can import, every row of it (bundleCheck.ts): the
 * rows ready to load, or a clear error naming the table, the row and the reason.
 */
export function checkBundle(value: unknown): CheckedBundle {
  if (!isObject(value)) throw new BundleError('not an Outpost workspace bundle (not a JSON object)');
  const bundle = value as Partial<Record<keyof WorkspaceBundle, unknown>>;
  if (bundle.format !== BUNDLE_FORMAT) throw new BundleError(`not an Outpost workspace bundle (format is ${String(JSON.stringify(bundle.format)).slice(0, 64)})`);
  if (bundle.version !== BUNDLE_VERSION) throw new BundleError(`bundle version ${String(bundle.version).slice(0, 64)} is not supported (this Outpost reads version ${BUNDLE_VERSION})`);
  if (typeof bundle.schema !== 'number' || !Number.isInteger(bundle.schema) || bundle.schema < 1) {
    throw new BundleError(`not an Outpost workspace bundle (its schema ${String(JSON.stringify(bundle.schema)).slice(0, 64)} is not a version of Outpost's database)`);
  }
  if (bundle.schema > LATEST_VERSION) {
    throw new BundleError(`the bundle comes from a newer Outpost (schema ${String(bundle.schema).slice(0, 64)}; this one knows up to ${LATEST_VERSION})`);
  }
  if (!isObject(bundle.tables)) throw new BundleError('the bundle has no tables');
  const tables: Record<string, JsonObject[]> = {};
  for (const [table, rows] of Object.entries(bundle.tables)) {
    // Secrets are never taken from a bundle (an export has none): they are ignored, not refused.
    if (SECRET_TABLES.includes(table)) continue;
    if (!(BUNDLE_TABLES as readonly string[]).includes(table)) throw new BundleError(`the bundle has an unknown table "${table.slice(0, 64)}"`);
    if (!Array.isArray(rows) || !rows.every(isObject)) throw new BundleError(`table "${table}" of the bundle is not a list of rows`);
    // A bundle exported before its sequences were limited to its own tables may hold the outbox's: dropped.
    tables[table] = table === 'sqlite_sequence' ? rows.filter((row) => !(typeof row.name === 'string' && unbundledTables().has(row.name))) : rows;
  }
  const checked = checkBundleRows(tables, bundleShapes());
  if (!checked.ok) throw new BundleError(`the bundle is refused, nothing was imported: table "${checked.table}", row ${checked.row}: ${checked.reason}`);
  return checked;
}

/** Load a checked bundle into an empty, migrated database, in one transaction. */
export function importBundle(store: Store, bundle: CheckedBundle): void {
  try {
    writeBundleRows(store, bundle.tables);
  } catch (error) {
    if (error instanceof BundleRowsError) throw new BundleError(error.message);
    throw error;
  }
}
