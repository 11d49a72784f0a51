/**
 * A file of the data folder that could not be read or written, told as the engineer needs it
 * (issue 23 §3, §6): which file, what is wrong with it, what to do. A full disk, a read-only one
 * and a damaged database are ordinary at a site; "database or disk is full" or a bare
 * `ENOSPC … write` names neither the file nor the cure.
 */
import fs from 'node:fs';
import path from 'node:path';

/** What is wrong with a file: its disk is full or read-only, access is denied, it cannot be opened, or it is no sound database. */
export type StorageFault = 'full' | 'read-only' | 'denied' | 'cannot-open' | 'not-a-database' | 'damaged';

/** The Node (errno) and SQLite (extended result) codes of each fault. */
const FAULTS: readonly (readonly [StorageFault, RegExp])[] = [
  // SQLite grows the -shm file by writing to it: on a full disk that fails with SHMSIZE.
  ['full', /^(ENOSPC|EDQUOT|SQLITE_FULL|SQLITE_IOERR_SHMSIZE)$/],
  ['read-only', /^(EROFS|SQLITE_READONLY(_\w+)?)$/],
  ['denied', /^(EACCES|EPERM|SQLITE_PERM|SQLITE_AUTH)$/],
  ['cannot-open', /^SQLITE_CANTOPEN(_\w+)?$/],
  ['not-a-database', /^SQLITE_NOTADB$/],
  ['damaged', /^SQLITE_CORRUPT(_\w+)?$/],
];

/** The fault an error of Node's fs or of SQLite stands for (undefined: not a storage fault). */
export function storageFault(error: unknown): StorageFault | undefined {
  const code = (error as { code?: unknown } | null | undefined)?.code;
  if (typeof code !== 'string') return undefined;
  return FAULTS.find(([, codes]) => codes.test(code))?.[0];
}

/** What to do with a damaged workspace database: the command that deletes it named when the file is a workspace's. */
function restore(file: string): string {
  const workspace = /[\\/]workspaces[\\/]([^\\/]+)\.sqlite3$/.exec(file)?.[1];
  return `restore it from a backup, or delete the workspace${workspace === undefined ? '' : ` (outpost workspace delete ${workspace}, or Delete in the app's Settings)`}`;
}

/** The sentence for a fault of `file` (an absolute path): what is wrong and what to do. */
export function faultMessage(fault: StorageFault, file: string, detail = ''): string {
  const folder = path.dirname(file);
  const because = detail === '' ? '' : ` (${detail})`;
  switch (fault) {
    case 'full':
      return `the disk holding ${file} is full${because}: free space on it (delete or move files under ${folder} or elsewhere on that disk), then try again`;
    case 'read-only':
      return `${file} cannot be written: its disk is read-only${because}. Make it writable (remount it read-write), or use a folder on a writable disk (a data folder on a read-only disk can still be read and exported)`;
    case 'denied':
      return `not allowed to use ${file}${because}: give this user read and write access to it and to ${folder}`;
    case 'cannot-open':
      return `cannot open ${file}${because}: check that it exists and that this user may read and write it and ${folder}`;
    case 'not-a-database':
      return `${file} is not a workspace database${because}: it is not SQLite, or was overwritten; ${restore(file)}`;
    case 'damaged':
      return `${file} is damaged${because}: ${restore(file)}`;
  }
}

/** The message for an error met using `file`, when it is a storage fault (undefined otherwise). */
export function storageProblem(error: unknown, file: string): string | undefined {
  const fault = storageFault(error);
  if (fault === undefined) return undefined;
  const code = (error as { code: string }).code;
  const message = error instanceof Error ? error.message : '';
  // Node's own message repeats the path ("ENOSPC: no space left on device, write"): the code says it.
  const detail = code.startsWith('SQLITE_') ? `${code}: ${message}` : code;
  return faultMessage(fault, path.resolve(file), detail);
}

/** A storage fault, its message naming the file and what to do. */
export class StorageError extends Error {
  constructor(
    message: string,
    readonly fault: StorageFault,
    readonly file: string,
  ) {
    super(message);
  }
}

/** `error` as a StorageError naming `file` when it is a storage fault; else `error` itself. */
export function withFile(error: unknown, file: string): unknown {
  if (error instanceof StorageError) return error;
  const fault = storageFault(error);
  return fault === undefined ? error : new StorageError(storageProblem(error, file)!, fault, path.resolve(file));
}

/**
 * Replace `file` with `content` whole or not at all: written to a temporary file beside it, then
 * renamed over it. On failure the temporary file is removed and the error names `file`.
 */
export function replaceFile(file: string, content: string | Uint8Array, mode = 0o600): void {
  const temporary = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.tmp`);
  try {
    fs.writeFileSync(temporary, content, { mode });
    fs.renameSync(temporary, file);
  } catch (error) {
    try {
      fs.rmSync(temporary, { force: true });
    } catch {
      // The write's own error is the one to tell; a temporary file that cannot be removed was never made.
    }
    const told = withFile(error, file);
    if (told !== error) throw told;
    // Node's own words name the temporary file: the file asked for is the one to name.
    const code = (error as { code?: unknown }).code;
    throw new Error(
      code === 'ENOENT' ? `cannot write ${file}: the folder ${path.dirname(file)} does not exist` : `cannot write ${file}: ${typeof code === 'string' ? code : error instanceof Error ? error.message : String(error)}`,
    );
  }
}
