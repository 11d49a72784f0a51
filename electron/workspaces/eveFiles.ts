/**
 * The EVE files that paths name (`outpost import-eve PATH...`): a file as given, a folder's
 * rotated logs oldest first (the highest rotation number first, then the oldest modification).
 * Whatever a folder holds that is not read is listed with its own reason, and the rest is read:
 * another name, a link to nothing or a link that loops, a FIFO, a device, a socket, a subfolder,
 * a file that cannot be read. A path given that is no regular file is an error naming what it is,
 * found without opening it (a FIFO would block the command).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { IgnoredFile } from '../../shared/eve/summary';
import { EveImportError, kindOf } from './eveContent';
import type { RunSource } from './eveRun';

/** A folder's EVE log names: `eve.json`, `eve.json.1`, `eve.json.2.gz`… */
const EVE_NAME = /\.json(?:\.(\d+))?(?:\.gz)?$/;
export const NOT_AN_EVE_NAME = 'not an EVE file name (eve.json, eve.json.1, eve.json.2.gz…)';

/** Why a path cannot be read as a file: a link to nothing, a link that loops, something else than a file; undefined for a regular file. */
function whyNotAFile(file: string): string | undefined {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') return 'a link that loops';
    if (code === 'ENOENT' && fs.lstatSync(file, { throwIfNoEntry: false })?.isSymbolicLink()) return 'a link to something that does not exist';
    if (code === 'ENOENT') return 'no such file or folder';
    if (code === 'EACCES' || code === 'EPERM') return 'not readable (permission denied)';
    return `cannot be read (${code ?? (error as Error).message})`;
  }
  if (stat.isFile()) {
    try {
      fs.accessSync(file, fs.constants.R_OK);
    } catch {
      return 'not readable (permission denied)';
    }
    return undefined;
  }
  return stat.isDirectory() ? 'a folder (folders in a folder are not read)' : `not a regular file (${kindOf(stat)})`;
}

/** The sources of paths given on the command line (folders expanded, oldest rotated file first), and the files of folders not read. */
export function fileSources(paths: readonly string[]): { sources: RunSource[]; ignored: IgnoredFile[] } {
  const files: string[] = [];
  const ignored: IgnoredFile[] = [];
  for (const given of paths) {
    const isFolder = fs.statSync(given, { throwIfNoEntry: false })?.isDirectory() === true;
    if (!isFolder) {
      const why = whyNotAFile(given);
      if (why !== undefined) throw new EveImportError(`cannot read ${given}: ${why}`);
      files.push(given);
      continue;
    }
    const rotated: { file: string; age: number; mtime: number }[] = [];
    let names: string[];
    try {
      names = fs.readdirSync(given).sort();
    } catch (error) {
      throw new EveImportError(`cannot read the folder ${given}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
    }
    for (const name of names) {
      const file = path.join(given, name);
      const match = EVE_NAME.exec(name);
      const why = whyNotAFile(file) ?? (match ? undefined : NOT_AN_EVE_NAME);
      if (why !== undefined) {
        ignored.push({ path: file, reason: why });
        continue;
      }
      rotated.push({ file, age: match![1] === undefined ? 0 : Number(match![1]), mtime: fs.statSync(file).mtimeMs });
    }
    // The higher the rotation number, the older; then the older modification first.
    rotated.sort((a, b) => b.age - a.age || a.mtime - b.mtime || a.file.localeCompare(b.file));
    if (rotated.length === 0) throw new EveImportError(`${given} holds no EVE file (eve.json, eve.json.1, eve.json.2.gz…)`);
    files.push(...rotated.map((r) => r.file));
  }
  return { sources: files.map((file) => ({ name: file, key: path.resolve(file), file, size: fs.statSync(file).size })), ignored };
}
