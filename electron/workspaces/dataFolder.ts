/**
 * The data folder (app.md §2, §6): mode 0700, one SQLite database per workspace under
 * `workspaces/`, settings in `outpost.json` (0600). Plain Node: the CLI and the Electron main
 * process share it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const DEFAULT_WORKSPACE = 'default';
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export class DataFolderError extends Error {}

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

/** Create the folder (0700) if needed and check that it can be written; a clear error otherwise. */
export function prepareDataDir(dir: string): string {
  const absolute = path.resolve(dir);
  try {
    fs.mkdirSync(path.join(absolute, 'workspaces'), { recursive: true, mode: 0o700 });
    fs.chmodSync(absolute, 0o700);
    fs.accessSync(absolute, fs.constants.W_OK | fs.constants.R_OK);
    fs.accessSync(path.join(absolute, 'workspaces'), fs.constants.W_OK | fs.constants.R_OK);
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === 'ENOTDIR' ? 'it is not a folder' : (error as Error).message;
    throw new DataFolderError(`cannot use ${absolute} as the data folder: ${reason}`);
  }
  return absolute;
}

export function workspaceFile(dataDir: string, name: string): string {
  return path.join(dataDir, 'workspaces', `${checkWorkspaceName(name)}.sqlite3`);
}

export function workspaceNames(dataDir: string): string[] {
  const dir = path.join(dataDir, 'workspaces');
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

/** Replace the settings atomically (write a temporary file, then rename). */
export function writeSettings(dataDir: string, settings: Settings): void {
  const file = path.join(dataDir, 'outpost.json');
  const temporary = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, JSON.stringify(settings, null, 2) + '\n', { mode: 0o600 });
  fs.renameSync(temporary, file);
}
