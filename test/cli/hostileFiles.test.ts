/**
 * The files a user names to a command (`outpost sync --apply F`, `outpost workspace connect
 * --decisions F`, `import-hosts F`, `import-threats F`, `import F`, `--token-file F`) are untrusted: a FIFO, a symlink to /dev/zero or a directory is refused at once (exit 1, saying
 * why), never waited on or read without end. No central server is needed: the file is read first.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { outpost } from '../helpers/syncCli';

let data: string;
beforeAll(async () => {
  data = fs.mkdtempSync(path.join(os.tmpdir(), 'outpost-hostile-files-'));
  // A remote nobody answers: the file must be refused before it would be asked anything.
  expect((await outpost(['remote', 'add', 'central', 'http://127.0.0.1:9', '--token', 'x', '--data', data])).status).toBe(0);
  expect((await outpost(['workspace', 'create', 'standalone', '--data', data])).status).toBe(0);
  expect((await outpost(['workspace', 'create', 'bound', '--remote', 'central', '--data', data])).status).toBe(0);
  fs.symlinkSync('/dev/zero', path.join(data, 'zero.json'));
  execFileSync('mkfifo', [path.join(data, 'fifo.json')]);
  fs.mkdirSync(path.join(data, 'dir.json'));
}, 60_000);
afterAll(() => fs.rmSync(data, { recursive: true, force: true }));

const files = ['zero.json', 'fifo.json', 'dir.json'];

describe('outpost sync --apply', () => {
  test.each(files)('%s is refused as no plan file, at once', async (name) => {
    const run = await outpost(['sync', '--workspace', 'bound', '--apply', path.join(data, name), '--data', data], {}, 15_000);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(`the plan file ${path.join(data, name)} is refused: it is not a regular file`);
  });
});

describe('outpost workspace connect --decisions', () => {
  test.each(files)('%s is refused as no decisions file, at once', async (name) => {
    const run = await outpost(['workspace', 'connect', 'standalone', '--remote', 'central', '--decisions', path.join(data, name), '--yes', '--data', data], {}, 15_000);
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/cannot read .*: (it is not a regular file|EISDIR)/);
  });
});

describe('the other files a command reads whole', () => {
  const commands: readonly [string, (file: string) => string[]][] = [
    ['import-hosts', (file) => ['import-hosts', file, '--workspace', 'standalone', '--data', data]],
    ['import-threats', (file) => ['import-threats', file, '--workspace', 'standalone', '--data', data]],
    ['import (a bundle)', (file) => ['import', file, '--data', data]],
    ['remote set-token --token-file', (file) => ['remote', 'set-token', 'central', '--token-file', file, '--data', data]],
  ];
  test.each(commands.flatMap(([command, args]) => ['zero.json', 'fifo.json'].map((name) => [command, name, args] as const)))('%s refuses %s at once', async (_command, name, args) => {
    const run = await outpost(args(path.join(data, name)), {}, 15_000);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(`cannot read ${path.join(data, name)}: it is not a regular file`);
  });
});
