/**
 * The file a bundle's import writes into (app.md §2): a new database under a temporary name beside
 * the workspaces, one the workspace list ignores, renamed to the workspace's own name only once the
 * whole import has succeeded and its connection is closed. A workspace so appears whole or not at
 * all; an import that fails removes its file, and the files of a process that died mid-import are
 * removed by the next start (leftovers.ts).
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { withFile } from '../server/store/storageErrors';
import { deadProcessFiles } from './leftovers';

/** A temporary database's name, with its pid; and SQLite's files beside it. */
const TEMPORARY = /^\.bundle-import-(\d+)-[0-9a-f]+\.part(?:-wal|-shm|-journal)?$/;
/** The database and the files SQLite may make beside it (the rollback journal while WAL is being set). */
const SQLITE_FILES = ['', '-wal', '-shm', '-journal'] as const;

/** A new name for an import's database in the workspaces folder `folder` (no file made yet). */
export function temporaryDatabase(folder: string): string {
  return path.join(folder, `.bundle-import-${process.pid}-${randomBytes(6).toString('hex')}.part`);
}

/** Remove an import's database and SQLite's files beside it, off the event loop (it may be large). */
export async function removeDatabase(file: string): Promise<void> {
  await Promise.all(SQLITE_FILES.map((suffix) => fs.promises.rm(file + suffix, { force: true })));
}

/**
 * Remove the databases of imports whose process has ended, at a start. Nothing is written where
 * there is none; one that cannot be removed (a read-only disk) is left for a later start.
 */
export function removeDeadImports(folder: string): void {
  for (const file of deadProcessFiles(folder, TEMPORARY)) {
    try {
      fs.rmSync(file, { force: true });
    } catch {
      // Not in the way of anything: the workspace list ignores it.
    }
  }
}

/**
 * Give the closed database `temporary` its workspace's name `file`, unless a file of that name
 * exists: a hard link fails then, whoever made that file meanwhile (another process's import or
 * create), where a rename would replace it. False: the name is taken, nothing changed. The
 * temporary name may stay beside it (the list ignores it) until removeDatabase.
 */
export function publishDatabase(temporary: string, file: string): boolean {
  try {
    try {
      fs.linkSync(temporary, file);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') return false;
      // A file system without hard links: the name is checked, then taken by a rename.
      if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'ENOSYS' && code !== 'EOPNOTSUPP') throw error;
      if (fs.existsSync(file)) return false;
      fs.renameSync(temporary, file);
    }
    return true;
  } catch (error) {
    throw withFile(error, file);
  }
}
