import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import Database from 'better-sqlite3';
import { LATEST_VERSION, MIGRATIONS } from './migrations';
import { StorageError, storageFault } from './storageErrors';

// better-sqlite3 reads this once, when its native part loads at the first connection: file: URIs
// let a database on a read-only disk be opened `immutable` (openDatabaseReadOnly). Only a name
// beginning with "file:" is read as a URI; a workspace's file is an absolute path.
process.env.SQLITE_USE_URI ??= '1';

export type Db = Database.Database;

/** The page cache of a workspace's connection, in MB (SQLite allocates it as pages are read). */
export const PAGE_CACHE_MB = 64;
/** The page size of a new workspace database (SQLite's default is 4 KB). */
export const PAGE_BYTES = 16 * 1024;

export class DatabaseTooNewError extends Error {
  constructor(file: string, found: number) {
    super(
      `${file} was written by a newer Outpost (schema ${found}; this one knows up to ${LATEST_VERSION}). ` +
        'Upgrade Outpost to open it; nothing was changed.',
    );
  }
}

export interface OpenOptions {
  /** better-sqlite3 native binding to load (the Electron build, under Electron). */
  readonly nativeBinding?: string;
}

/** How a workspace's database is opened again on another thread (its file, better-sqlite3 and its native binding). */
export interface DatabaseSource {
  readonly file: string;
  /** better-sqlite3's entry point, as an absolute path (a worker's program resolves nothing itself). */
  readonly module: string;
  readonly nativeBinding?: string;
}

const opened = new WeakMap<Db, Omit<DatabaseSource, 'module'>>();

/** Where a database opened by openDatabase can be opened again (undefined for an in-memory one). */
export function databaseSource(db: Db): DatabaseSource | undefined {
  const source = opened.get(db);
  // better-sqlite3 is found when a thread asks, not at every opening.
  return source && { ...source, module: createRequire(__filename).resolve('better-sqlite3') };
}

/** A read-only connection to a workspace's database, from another thread (which resolves better-sqlite3 itself). */
export function openReadOnly(source: DatabaseSource, pageCacheMb = 4): Db {
  const Opener = createRequire(source.module)(source.module) as typeof Database;
  const db = new Opener(source.file, { readonly: true, fileMustExist: true, ...(source.nativeBinding ? { nativeBinding: source.nativeBinding } : {}) });
  db.pragma(`cache_size = -${pageCacheMb * 1024}`);
  return db;
}

/** A database file's name as an SQLite URI (`?` and `#` are the URI's own). */
function fileUri(file: string, parameters: string): string {
  const slashed = path.resolve(file).replaceAll('\\', '/');
  return `file:${slashed.startsWith('/') ? '' : '/'}${encodeURI(slashed).replaceAll('?', '%3F').replaceAll('#', '%23')}?${parameters}`;
}

/** Can this process write into `folder` (a read-only disk, a folder of another user: no)? */
export function folderWritable(folder: string): boolean {
  try {
    fs.accessSync(folder, fs.constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/** The side files (-wal, -shm) `file` has now. */
export function sideFilesOf(file: string): ReadonlySet<string> {
  return new Set(['-wal', '-shm'].filter((suffix) => fs.existsSync(file + suffix)));
}

/**
 * The side files a failed open made on a full disk: an empty -wal, a -shm smaller than its first
 * 32 KB (one that works is never smaller; one another process made meanwhile is left alone).
 */
export function removeFailedSideFiles(file: string, before: ReadonlySet<string>): void {
  const size = (suffix: string) => fs.statSync(file + suffix, { throwIfNoEntry: false })?.size;
  if (!before.has('-wal') && size('-wal') === 0) fs.rmSync(`${file}-wal`, { force: true });
  const shm = size('-shm');
  if (!before.has('-shm') && shm !== undefined && shm < 32_768) fs.rmSync(`${file}-shm`, { force: true });
}

/**
 * Open an existing workspace database to read it only, writing nothing (issue 23 §3: reading
 * and export work on a read-only data folder). Where SQLite cannot make the -shm file WAL
 * needs (a read-only disk), it is opened `immutable`, unless its -wal holds changes not yet in
 * the database: immutable would not see them. A database that needs migrating is refused (that
 * writes); so is one from a newer Outpost.
 */
export function openDatabaseReadOnly(file: string, options: OpenOptions = {}): Db {
  const binding = options.nativeBinding ? { nativeBinding: options.nativeBinding } : {};
  const first = (db: Db): Db => {
    try {
      // SQLite opens the file at the first statement: a problem shows here, not in the constructor.
      db.pragma('user_version', { simple: true });
      return db;
    } catch (error) {
      db.close();
      throw error;
    }
  };
  let db: Db;
  const before = sideFilesOf(file);
  try {
    db = first(new Database(file, { readonly: true, fileMustExist: true, ...binding }));
  } catch (error) {
    // No -shm can be made: the disk is read-only, or full (SQLite needs 32 KB for it).
    const full = storageFault(error) === 'full';
    const code = (error as { code?: unknown }).code;
    const readOnlyDisk = typeof code === 'string' && code.startsWith('SQLITE_CANTOPEN') && !folderWritable(path.dirname(file));
    if ((!full && !readOnlyDisk) || !fs.existsSync(file)) throw error;
    if (full) removeFailedSideFiles(file, before);
    const wal = fs.statSync(`${file}-wal`, { throwIfNoEntry: false });
    if (wal && wal.size > 0) {
      throw new StorageError(
        full
          ? `${file}-wal holds changes not yet written into ${file}, and its disk is full: free space on it (delete or move files under ${path.dirname(file)} or elsewhere on that disk), then it can be read`
          : `${file}-wal holds changes not yet written into ${file}, and its disk is read-only: make it writable once (remount it read-write) and open the workspace, then it can be read read-only`,
        full ? 'full' : 'read-only',
        file,
      );
    }
    db = first(new Database(fileUri(file, 'immutable=1'), { readonly: true, ...binding }));
  }
  try {
    db.pragma('foreign_keys = ON');
    db.pragma('busy_timeout = 5000');
    db.pragma(`cache_size = -${PAGE_CACHE_MB * 1024}`);
    db.function('contains_folded', { deterministic: true }, containsFolded);
    const current = db.pragma('user_version', { simple: true }) as number;
    if (current > LATEST_VERSION) throw new DatabaseTooNewError(file, current);
    if (current < LATEST_VERSION) {
      throw new StorageError(`${file} was written by an older Outpost and must be upgraded, which writes to it: open it once where its disk is writable`, 'read-only', file);
    }
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

/** Case-insensitive containment, Unicode-aware (SQLite's LIKE folds ASCII only). */
function containsFolded(haystack: unknown, needle: unknown): number {
  if (typeof haystack !== 'string' || typeof needle !== 'string') return 0;
  return haystack.toLowerCase().includes(needle.toLowerCase()) ? 1 : 0;
}

/** Apply every pending migration in one transaction; refuse a database newer than this code. */
export function migrate(db: Db, file: string): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > LATEST_VERSION) throw new DatabaseTooNewError(file, current);
  const pending = MIGRATIONS.filter((m) => m.version > current);
  if (pending.length === 0) return;
  db.transaction(() => {
    for (const migration of pending) {
      db.exec(migration.sql);
      migration.run?.(db);
    }
    db.pragma(`user_version = ${LATEST_VERSION}`);
  }).immediate();
}

/**
 * Open (creating if needed, mode 0600) a workspace database: WAL, foreign keys on, migrated.
 * `:memory:` opens a private in-memory database (tests).
 */
export function openDatabase(file: string, options: OpenOptions = {}): Db {
  if (file !== ':memory:') {
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    fs.closeSync(fs.openSync(file, 'a', 0o600));
  }
  const db = new Database(file, options.nativeBinding ? { nativeBinding: options.nativeBinding } : {});
  try {
    // Set before the file's first page is written (a database made before keeps its own size):
    // a large write such as an EVE import writes a quarter of the pages, each in one frame of the
    // WAL and again at the checkpoint, than at SQLite's default of 4 KB (docs/eve.md).
    db.pragma(`page_size = ${PAGE_BYTES}`);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    db.pragma('busy_timeout = 5000');
    // 64 MB of pages kept (the default is 2 MB): a host_id_qfilter over a large site reads its
    // indexes at random (with 32 MB, `*corp*` over a million hosts took twice as long).
    db.pragma(`cache_size = -${PAGE_CACHE_MB * 1024}`);
    db.function('contains_folded', { deterministic: true }, containsFolded);
    migrate(db, file);
    if (file !== ':memory:') opened.set(db, { file: path.resolve(file), ...(options.nativeBinding ? { nativeBinding: options.nativeBinding } : {}) });
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

/**
 * Run `remove` (a workspace's files deleted) only while no other connection has `file` open, and
 * none can open it meanwhile: an exclusive lock is held across it. In WAL mode every open
 * connection, idle or not, keeps that lock from being taken, so a workspace that the app or
 * `outpost serve` has open is never deleted under it (its acknowledged writes would go nowhere).
 * A file that is no sound database (empty, damaged) has no one to protect: it is removed.
 */
export function removeUnlessOpen(file: string, remove: () => void, options: OpenOptions = {}): 'removed' | 'in-use' {
  if ((fs.statSync(file, { throwIfNoEntry: false })?.size ?? 0) === 0) {
    remove();
    return 'removed';
  }
  let db: Db;
  try {
    db = new Database(file, { fileMustExist: true, timeout: 0, ...(options.nativeBinding ? { nativeBinding: options.nativeBinding } : {}) });
  } catch {
    remove();
    return 'removed';
  }
  try {
    db.pragma('locking_mode = EXCLUSIVE');
    db.exec('BEGIN EXCLUSIVE');
  } catch (error) {
    db.close();
    if ((error as { code?: unknown }).code === 'SQLITE_BUSY') return 'in-use';
    remove();
    return 'removed';
  }
  try {
    remove();
  } finally {
    db.close();
  }
  // Closing may leave a side file of the connection behind: the files are gone whole.
  remove();
  return 'removed';
}
