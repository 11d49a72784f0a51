/**
 * Files a process names with its pid while it works on them (an upload being received, a
 * workspace being imported) and removes when it is done: those whose process has ended (killed
 * mid-way, the machine stopped) are leftovers, found here and removed by whoever comes next.
 */
import fs from 'node:fs';
import path from 'node:path';
import { processRuns } from '../server/store/evidence';

/**
 * The files of `folder` whose names `pattern` matches, its first group being the pid of the process
 * that made them, where that process is not this one and runs no more.
 */
export function deadProcessFiles(folder: string, pattern: RegExp): string[] {
  let names: string[];
  try {
    names = fs.readdirSync(folder);
  } catch {
    return [];
  }
  return names
    .filter((name) => {
      const pid = Number(pattern.exec(name)?.[1]);
      return pid > 0 && pid !== process.pid && !processRuns(pid);
    })
    .map((name) => path.join(folder, name));
}
