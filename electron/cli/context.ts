import buffer from 'node:buffer';
import { createHash } from 'node:crypto';
import os from 'node:os';
import { parseArgs } from 'node:util';
import { parseJsonBytes } from '../../shared/api/pythonJson';
import type { JsonValue } from '../../shared/resources';
import pkg from '../../package.json';
import { DEFAULT_WORKSPACE, defaultDataDir, prepareDataDir, readSettings, resolveWorkspace, workspaceNames } from '../workspaces/dataFolder';
import { createWorkspace } from '../workspaces/host';
import type { Instance } from '../server/store/services';
import { readRegularFile } from './regularFile';
import { UsageError, type CommandSpec, type OptionSpecs } from './usage';

export const VERSION: string = pkg.version;

/** The first sentence of node:util parseArgs' message, in our words where it is unclear. */
function argumentProblem(error: NodeJS.ErrnoException): string {
  const option = /'(-[^' ]+)/.exec(error.message)?.[1];
  if (error.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && option) return `unknown option "${option}"`;
  if (error.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && option) {
    // A boolean given a value "does not take an argument"; a value missing at the end is "missing",
    // and one followed by another option "ambiguous": both need a value.
    return error.message.includes('does not take an argument') ? `${option} takes no value` : `${option} needs a value`;
  }
  return error.message.split('. ')[0]!;
}

/**
 * A command's arguments parsed as its declaration says (node:util parseArgs, strict); every
 * mistake a UsageError naming the command, whose help then explains it.
 */
export function parseCommand<const O extends OptionSpecs>(args: readonly string[], spec: CommandSpec<O>) {
  let parsed;
  try {
    parsed = parseArgs({ args: [...args], options: spec.options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(argumentProblem(error as NodeJS.ErrnoException), spec.name);
  }
  const count = parsed.positionals.length;
  if (spec.positionals >= 0 && count !== spec.positionals) {
    throw new UsageError(
      spec.positionals === 0
        ? `unexpected argument "${parsed.positionals[0]}"`
        : `expected ${spec.args ?? `${spec.positionals} arguments`}, got ${count === 0 ? 'none' : `${count} argument${count > 1 ? 's' : ''}`}`,
      spec.name,
    );
  }
  return parsed;
}

export interface WorkspaceLocation {
  readonly dataDir: string;
  readonly workspace: string;
  readonly file: string;
  /** The data folder had no workspace yet: this one (`default`) is made when it is opened. */
  readonly firstStart: boolean;
}

/**
 * The data folder and workspace a command works on: the one `--workspace` names, which must exist,
 * else the last used (dataFolder.ts's chooseWorkspace). Nothing is written: a command's
 * `--workspace` does not change the default.
 */
export function locateWorkspace(values: { data?: string | undefined; workspace?: string | undefined }): WorkspaceLocation {
  const dataDir = prepareDataDir(values.data ?? defaultDataDir());
  const { name, file, firstStart } = resolveWorkspace(dataDir, values.workspace);
  return { dataDir, workspace: name, file, firstStart };
}

/** The data folder, its `default` workspace made if it has none yet (the first start, as the app's and `serve`'s). */
export function startedDataDir(data: string | undefined): string {
  const dataDir = prepareDataDir(data ?? defaultDataDir());
  if (workspaceNames(dataDir).length === 0 && readSettings(dataDir).lastWorkspace === undefined) {
    createWorkspace(dataDir, DEFAULT_WORKSPACE, { instance: instanceFor('127.0.0.1') });
  }
  return dataDir;
}

export function instanceFor(host: string): Instance {
  return { name: 'outpost', version: VERSION, address: host };
}

/**
 * A file named on the command line, whole: only a regular file (a FIFO or /dev/zero would hang
 * the command: regularFile.ts), up to what a buffer holds; a clear error when it cannot be read.
 */
export function readNamedFile(file: string, maxBytes: number = buffer.constants.MAX_LENGTH - 1): Buffer {
  try {
    return readRegularFile(file, maxBytes);
  } catch (error) {
    throw new Error(`cannot read ${file}: ${(error as Error).message}`);
  }
}

/** A JSON file given on the command line, parsed; a clear error when it cannot be read or parsed. */
export function readJsonFile(file: string): JsonValue {
  return readJsonFileBytes(file).value;
}

/** A JSON file's value and its bytes' size and SHA-256 (what a host import's visit names it by). */
export function readJsonFileBytes(file: string): { value: JsonValue; size: number; sha256: string } {
  const bytes = readNamedFile(file);
  const parsed = parseJsonBytes(bytes);
  if (!parsed.ok) throw new Error(`${file} is not valid JSON: ${parsed.reason}`);
  return { value: parsed.value, size: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') };
}

/** Who runs the outpost command, as a visit records it: `cli:<the system's user name>`. */
export function cliUser(): string {
  let name = process.env.USER ?? process.env.USERNAME ?? '';
  try {
    name = os.userInfo().username;
  } catch {
    // no entry for this uid (a container): the environment's name, if any
  }
  return `cli:${name.slice(0, 64) || 'unknown'}`;
}
