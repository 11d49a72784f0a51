/**
 * A workspace bundle's import and export as the bundle thread does them (bundleThread.ts starts
 * it; where no worker program can run, the caller's thread does). Each uses a connection of its
 * own. An import parses the file's bytes, checks every row (bundle.ts, bundleCheck.ts), then writes
 * a new database under a temporary name (bundleFiles.ts) and closes it, its WAL checkpointed: the
 * caller gives it the workspace's name. An export reads one snapshot and renders the file's JSON,
 * which crosses back as bytes (moved, not copied: a string of tens of MB takes the receiving
 * thread a third of a second to copy).
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseJsonBytes } from '../../shared/api/pythonJson';
import type { ImportedAccounts } from '../../shared/app/importedAccounts';
import { openDatabase, type OpenOptions } from '../server/store/database';
import type { Instance } from '../server/store/services';
import { StorageError, withFile } from '../server/store/storageErrors';
import { Store } from '../server/store/store';
import { BundleSyntaxError, BundleUnnamedError, bundleText, checkBundle, importBundle } from './bundle';
import { workspaceFile } from './dataFolder';
import { openForReading, openWorkspace } from './openWorkspace';

export interface ImportJob extends OpenOptions {
  readonly dataDir: string;
  /** The new database, under a temporary name beside the workspaces (bundleFiles.ts). */
  readonly temporary: string;
  /** The new workspace's name; else the one the bundle carries. */
  readonly name?: string;
  /** The charset the bytes are in (undefined: UTF-8). */
  readonly charset?: string;
  readonly instance: Instance;
  /** The data folder's local token: the new workspace's admin signs in with it, as in every workspace. */
  readonly adminToken: string;
}

export interface ExportJob extends OpenOptions {
  /** The workspace's database and its name. */
  readonly file: string;
  readonly name: string;
}

/**
 * Import the bundle in `bytes` into the new database `job.temporary`, closed when this returns.
 * `named` is told the workspace's name once it is known, before anything is checked or written,
 * and refuses it by throwing (a name taken, or not valid).
 */
export async function importWork(job: ImportJob, bytes: Uint8Array, named: (name: string) => Promise<void>): Promise<ImportedAccounts> {
  const parsed = parseJsonBytes(bytes, job.charset);
  if (!parsed.ok) throw new BundleSyntaxError(parsed.reason);
  const value = parsed.value;
  const carried = typeof value === 'object' && value !== null && !Array.isArray(value) && typeof value.name === 'string' ? value.name : undefined;
  const name = job.name ?? carried;
  if (name === undefined) throw new BundleUnnamedError();
  await named(name);
  const bundle = checkBundle(value);
  const binding = job.nativeBinding ? { nativeBinding: job.nativeBinding } : {};
  try {
    const store = new Store(openDatabase(job.temporary, binding));
    try {
      importBundle(store, bundle);
    } finally {
      store.close();
    }
    // As any workspace opened: this Outpost as vendor_device pk 1, its admin with the local token.
    openWorkspace({ file: job.temporary, instance: job.instance, adminToken: job.adminToken, ...binding }).close();
    // The last connection closed checkpoints the WAL into the database and removes it; one left
    // (the checkpoint failed) holds rows the database lacks, and the database alone is renamed.
    if ((fs.statSync(`${job.temporary}-wal`, { throwIfNoEntry: false })?.size ?? 0) > 0) {
      throw new Error(`the new workspace's database could not be completed (its WAL was not checkpointed); nothing was imported`);
    }
  } catch (error) {
    throw asWorkspaceFile(withFile(error, job.temporary), job.temporary, workspaceFile(job.dataDir, name));
  }
  return bundle.accounts;
}

/** A full or read-only disk told with the workspace's file, the one the engineer knows (the temporary database is nobody's to know). */
function asWorkspaceFile(error: unknown, temporary: string, file: string): unknown {
  const named = path.resolve(temporary);
  if (!(error instanceof StorageError) || error.file !== named) return error;
  return new StorageError(error.message.split(named).join(file), error.fault, file);
}

/** The bundle file of a workspace, as UTF-8 JSON in bytes of their own (which can be moved to another thread). */
export function exportWork(job: ExportJob): Uint8Array {
  const store = new Store(openForReading(job.file, job.nativeBinding ? { nativeBinding: job.nativeBinding } : {}));
  try {
    return new TextEncoder().encode(bundleText(store, job.name));
  } catch (error) {
    throw withFile(error, job.file);
  } finally {
    store.close();
  }
}
