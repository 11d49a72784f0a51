/**
 * A small disk of its own for a test: a tmpfs mounted on a temporary folder, to fill or to make
 * read-only for real (root ignores file modes, so a chmod proves nothing). Needs mount rights
 * (root in a container that allows it, as CI runs); `tmpfsAvailable` says whether this machine
 * has them, found once. Every disk made is unmounted when the test ends, whatever its outcome.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach } from 'vitest';

function run(command: string, args: readonly string[]): boolean {
  return spawnSync(command, args, { stdio: 'ignore', timeout: 10_000 }).status === 0;
}

function tryMount(): boolean {
  if (process.platform !== 'linux' || process.getuid?.() !== 0) return false;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'outpost-tmpfs-probe-'));
  try {
    if (!run('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', dir])) return false;
    run('umount', [dir]);
    return true;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export const tmpfsAvailable: boolean = tryMount();

export interface Disk {
  readonly dir: string;
  /** Fill it to the last byte (a file `filler` holding what was free); returns that file. */
  fill(): string;
  readOnly(): void;
  writable(): void;
}

const mounted: string[] = [];
afterEach(() => {
  for (const dir of mounted.splice(0).reverse()) {
    // A process still holding a file there (a server being stopped) would keep a plain unmount from ending: detach it.
    if (!run('umount', [dir])) run('umount', ['-l', dir]);
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

/** A tmpfs of `megabytes`, mounted until the end of the test. */
export function tmpfsDisk(megabytes: number): Disk {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'outpost-tmpfs-'));
  if (!run('mount', ['-t', 'tmpfs', '-o', `size=${megabytes}m,mode=0700`, 'tmpfs', dir])) {
    fs.rmSync(dir, { recursive: true, force: true });
    throw new Error(`cannot mount a tmpfs on ${dir}`);
  }
  mounted.push(dir);
  return {
    dir,
    fill: () => {
      const filler = path.join(dir, 'filler');
      const fd = fs.openSync(filler, 'a');
      try {
        for (const size of [1 << 20, 4096, 1]) {
          const chunk = Buffer.alloc(size, 1);
          try {
            for (;;) fs.writeSync(fd, chunk);
          } catch (error) {
            if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
          }
        }
      } finally {
        fs.closeSync(fd);
      }
      return filler;
    },
    readOnly: () => {
      if (!run('mount', ['-o', 'remount,ro', dir])) throw new Error(`cannot make ${dir} read-only`);
    },
    writable: () => {
      if (!run('mount', ['-o', 'remount,rw', dir])) throw new Error(`cannot make ${dir} writable`);
    },
  };
}
