import fs from 'node:fs';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { parseJsonBytes } from '../../shared/api/pythonJson';
import type { JsonValue } from '../../shared/resources';
import pkg from '../../package.json';
import { DEFAULT_WORKSPACE, defaultDataDir, prepareDataDir, readSettings, workspaceFile, writeSettings, checkWorkspaceName } from '../workspaces/dataFolder';
import type { Instance } from '../server/store/services';
import { UsageError } from './usage';

export const VERSION: string = pkg.version;

type Options = NonNullable<ParseArgsConfig['options']>;

export const COMMON_OPTIONS = {
  data: { type: 'string' },
  workspace: { type: 'string' },
} as const satisfies Options;

/** node:util parseArgs with errors turned into UsageError (message, then exit 1); `positionals` -1: any number. */
export function parseCommand<T extends Options>(args: readonly string[], options: T, positionals: number) {
  try {
    const parsed = parseArgs({ args: [...args], options, allowPositionals: true, strict: true });
    if (positionals >= 0 && parsed.positionals.length !== positionals) {
      throw new UsageError(
        positionals === 0
          ? `unexpected argument "${parsed.positionals[0]}"`
          : `expected ${positionals} argument${positionals > 1 ? 's' : ''}, got ${parsed.positionals.length}`,
      );
    }
    return parsed;
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError((error as Error).message);
  }
}

export interface WorkspaceLocation {
  readonly dataDir: string;
  readonly workspace: string;
  readonly file: string;
}

/** The data folder and workspace a command works on; remembers the workspace as the last used. */
export function locateWorkspace(values: { data?: string | undefined; workspace?: string | undefined }): WorkspaceLocation {
  const dataDir = prepareDataDir(values.data ?? defaultDataDir());
  const settings = readSettings(dataDir);
  const workspace = checkWorkspaceName(values.workspace ?? (typeof settings.lastWorkspace === 'string' ? settings.lastWorkspace : DEFAULT_WORKSPACE));
  if (settings.lastWorkspace !== workspace) writeSettings(dataDir, { ...settings, lastWorkspace: workspace });
  return { dataDir, workspace, file: workspaceFile(dataDir, workspace) };
}

export function instanceFor(host: string): Instance {
  return { name: 'outpost', version: VERSION, address: host };
}

/** A JSON file given on the command line, parsed; a clear error when it cannot be read or parsed. */
export function readJsonFile(file: string): JsonValue {
  let bytes: Buffer;
  try {
    bytes = fs.readFileSync(file);
  } catch (error) {
    throw new Error(`cannot read ${file}: ${(error as Error).message}`);
  }
  const parsed = parseJsonBytes(bytes);
  if (!parsed.ok) throw new Error(`${file} is not valid JSON: ${parsed.reason}`);
  return parsed.value;
}
