/**
 * The data folder (app.md §2, §6): mode 0700, one SQLite database per workspace under
 * `workspaces/`, settings in `outpost.json` (0600). Plain Node: the CLI and the Electron main
 * process share it. Reading it writes nothing (issue 23 §3: a full or read-only disk still reads);
 * which workspace a command opens, and when one may be created, is chooseWorkspace's rule.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { removeUnlessOpen, type OpenOptions } from '../server/store/database';
import { replaceFile, withFile } from '../server/store/storageErrors';

export const DEFAULT_WORKSPACE = 'default';
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
/** A workspace's files: its database and SQLite's WAL and shared-memory files beside it. */
export const SIDE_FILES = ['', '-wal', '-shm'] as const;

export class DataFolderError extends Error {}

/** A workspace another process has open: it is not deleted under it. */
export class WorkspaceInUseError extends DataFolderError {}

/** The platform's per-user data folder for Outpost (Electron's userData on each OS). */
export function defaultDataDir(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string {
  if (env.OUTPOST_DATA) return env.OUTPOST_DATA;
  const home = os.homedir();
  if (platform === 'win32') return path.join(env.APPDATA ?? path.join(home, 'AppData', 'Roaming'), 'Outpost');
  if (platform === 'darwin') return path.join(home, 'Library', 'Application Support', 'Outpost');
  return path.join(env.XDG_CONFIG_HOME ?? path.join(home, '.config'), 'Outpost');
}

export function checkWorkspaceName(name: string): string {
  if (!NAME.test(name) || name.endsWith('.')) {
    throw new DataFolderError(`"${name}" is not a valid workspace name: use 1 to 64 letters, digits, ".", "_" or "-", starting with a letter or digit`);
  }
  return name;
}

/**
 * The data folder as an absolute path: made (0700) when missing, else checked to be a folder that
 * can be read. Nothing is written to a folder that exists unless its mode is not 0700 (and it can
 * be changed): whether it can be written is found when something is written, and told then.
 */
export function prepareDataDir(dir: string): string {
  const absolute = path.resolve(dir);
  try {
    const stat = fs.statSync(absolute, { throwIfNoEntry: false });
    if (!stat) fs.mkdirSync(absolute, { recursive: true, mode: 0o700 });
    else if (!stat.isDirectory()) throw Object.assign(new Error('it is not a folder'), { code: 'ENOTDIR' });
    else if ((stat.mode & 0o777) !== 0o700) tighten(absolute);
    fs.accessSync(absolute, fs.constants.R_OK | fs.constants.X_OK);
    const workspaces = path.join(absolute, 'workspaces');
    if (!fs.existsSync(workspaces)) tolerateReadOnly(() => fs.mkdirSync(workspaces, { mode: 0o700 }));
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === 'ENOTDIR' ? 'it is not a folder' : (error as Error).message;
    throw new DataFolderError(`cannot use ${absolute} as the data folder: ${reason}`);
  }
  return absolute;
}

/** Make the folder this user's only; on a read-only disk it stays as it is (nothing can be written there either). */
function tighten(folder: string): void {
  tolerateReadOnly(() => fs.chmodSync(folder, 0o700));
}

/** A change of the folder that a read-only disk refuses: its data can still be read, and a write says what is wrong then. */
function tolerateReadOnly(change: () => void): void {
  try {
    change();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EROFS') throw error;
  }
}

/** The folder of a data folder's workspace databases. */
export function workspacesDir(dataDir: string): string {
  return path.join(dataDir, 'workspaces');
}

export function workspaceFile(dataDir: string, name: string): string {
  return path.join(workspacesDir(dataDir), `${checkWorkspaceName(name)}.sqlite3`);
}

/** The workspaces of a data folder: its databases named as a workspace may be (an import's temporary database is not). */
export function workspaceNames(dataDir: string): string[] {
  const dir = workspacesDir(dataDir);
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.sqlite3'))
    .map((f) => f.slice(0, -'.sqlite3'.length))
    .filter((name) => NAME.test(name))
    .sort();
}

export interface Settings {
  lastWorkspace?: string;
  [key: string]: unknown;
}

export function readSettings(dataDir: string): Settings {
  const file = path.join(dataDir, 'outpost.json');
  if (!fs.existsSync(file)) return {};
  try {
    const parsed: unknown = JSON.parse(fs.readFileSync(file, 'utf8'));
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Settings) : {};
  } catch (error) {
    throw new DataFolderError(`${file} is not valid JSON (${(error as Error).message}); fix or remove it`);
  }
}

/** Replace the settings atomically (a temporary file renamed over them; removed if that fails). */
export function writeSettings(dataDir: string, settings: Settings): void {
  replaceFile(path.join(dataDir, 'outpost.json'), JSON.stringify(settings, null, 2) + '\n');
}

/** Change some settings (undefined removes one); written only when one of them changes. */
export function updateSettings(dataDir: string, changes: Readonly<Record<string, unknown>>): void {
  const settings = readSettings(dataDir);
  const changed = Object.entries(changes).filter(([key, value]) => JSON.stringify(settings[key]) !== JSON.stringify(value));
  if (changed.length === 0) return;
  const next: Settings = { ...settings };
  for (const [key, value] of changed) {
    if (value === undefined) delete next[key];
    else next[key] = value;
  }
  writeSettings(dataDir, next);
}

/** Which workspace to open, and whether it is the data folder's first, to be made now. */
export type WorkspaceChoice = { readonly name: string; readonly firstStart: boolean } | { readonly problem: string };

/**
 * The workspace a command or the app opens (issue 23 §2), from the workspaces that exist, the one
 * used last (outpost.json) and the one asked for (`--workspace`). One asked for must exist: a typo
 * is refused with the list, never made. Without one, the last used; it must exist too (its
 * database gone is an error, not a fresh empty workspace under its name). Only a data folder
 * with no workspace and none used before gets its `default`, made at this first start.
 */
export function chooseWorkspace(existing: readonly string[], lastUsed: string | undefined, asked: string | undefined, where: string): WorkspaceChoice {
  const list = existing.length === 0 ? 'it has none yet' : `its workspaces: ${existing.join(', ')}`;
  const firstStart = existing.length === 0 && lastUsed === undefined;
  if (asked !== undefined) {
    if (existing.includes(asked)) return { name: asked, firstStart: false };
    if (firstStart && asked === DEFAULT_WORKSPACE) return { name: asked, firstStart: true };
    return { problem: `there is no workspace "${asked}" in ${where} (${list}); to make one: outpost workspace create ${asked}` };
  }
  const name = lastUsed ?? DEFAULT_WORKSPACE;
  if (existing.includes(name)) return { name, firstStart: false };
  if (firstStart) return { name, firstStart: true };
  if (lastUsed === undefined) return { problem: `no workspace of ${where} is chosen and there is no "${DEFAULT_WORKSPACE}" (${list}): give --workspace NAME` };
  return {
    problem:
      `the database of workspace "${lastUsed}", the one used last, is missing: ${path.join(where, 'workspaces', `${lastUsed}.sqlite3`)}. ` +
      `Restore it from a backup, or delete the workspace (outpost workspace delete ${lastUsed}); nothing was created in its place`,
  };
}

/** The workspace `asked` for (else the last used) of a data folder, checked to exist and be whole. */
export function resolveWorkspace(dataDir: string, asked?: string): { readonly name: string; readonly file: string; readonly firstStart: boolean } {
  const settings = readSettings(dataDir);
  const lastUsed = typeof settings.lastWorkspace === 'string' ? checkWorkspaceName(settings.lastWorkspace) : undefined;
  const choice = chooseWorkspace(workspaceNames(dataDir), lastUsed, asked === undefined ? undefined : checkWorkspaceName(asked), dataDir);
  if ('problem' in choice) throw new DataFolderError(choice.problem);
  const file = workspaceFile(dataDir, choice.name);
  if (!choice.firstStart) checkDatabaseFile(file, choice.name);
  return { ...choice, file };
}

/**
 * A workspace's database is there and not empty: an empty file (a copy cut short, a disk that
 * lost it) would otherwise be opened as a new database and made an empty workspace over it.
 */
export function checkDatabaseFile(file: string, name: string): void {
  let size: number | undefined;
  try {
    size = fs.statSync(file, { throwIfNoEntry: false })?.size;
  } catch (error) {
    throw withFile(error, file);
  }
  const remedy = `restore it from a backup, or delete the workspace (outpost workspace delete ${name}, or Delete in the app's Settings); nothing was created in its place`;
  if (size === undefined) throw new DataFolderError(`the database of workspace "${name}" is missing: ${file}. Restore it from a backup, or delete the workspace; nothing was created in its place`);
  if (size === 0) throw new DataFolderError(`the database of workspace "${name}", ${file}, is empty (0 bytes): ${remedy}`);
}

/** Does `file` begin as an SQLite database does? A quick look at its header, not a check of its pages. */
export function looksLikeDatabase(file: string): boolean {
  let fd: number | undefined;
  try {
    fd = fs.openSync(file, 'r');
    const head = Buffer.alloc(16);
    return fs.readSync(fd, head, 0, 16, 0) === 16 && head.toString('latin1') === 'SQLite format 3\0';
  } catch {
    return false;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/** Remove a workspace's files (its database, WAL and shared memory). */
export function removeWorkspaceFiles(dataDir: string, name: string, options: OpenOptions = {}): void {
  const file = workspaceFile(dataDir, name);
  const remove = () => {
    for (const suffix of SIDE_FILES) {
      try {
        fs.rmSync(file + suffix, { force: true });
      } catch (error) {
        throw withFile(error, file + suffix);
      }
    }
  };
  if (removeUnlessOpen(file, remove, options) === 'in-use') {
    throw new WorkspaceInUseError(`workspace "${name}" is open in another Outpost process (the app, or outpost serve): close it there first, then delete it`);
  }
}
