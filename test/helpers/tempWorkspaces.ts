/**
 * Temporary folders and workspaces for a test file: each made in a test is removed (a workspace
 * closed first) when that test ends, whatever its outcome.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach } from 'vitest';
import { openWorkspace, type OpenedWorkspace } from '../../electron/workspaces/openWorkspace';

export function tempWorkspaces(prefix: string): {
  /** Run at the end of the test, the last added first. */
  readonly cleanups: (() => void | Promise<void>)[];
  tempDir(): string;
  workspace(file?: string): OpenedWorkspace;
} {
  const cleanups: (() => void | Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  const tempDir = () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
    cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
    return dir;
  };
  const workspace = (file = path.join(tempDir(), 'ws.sqlite3')) => {
    const opened = openWorkspace({ file, instance: { name: 'outpost', version: 'test', address: '127.0.0.1' } });
    cleanups.push(() => opened.close());
    return opened;
  };
  return { cleanups, tempDir, workspace };
}
