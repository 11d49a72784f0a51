/**
 * The data folder's rules, tested directly (issue 23 §2, §3, §6): which workspace is opened and
 * when one may be made (chooseWorkspace), what a storage fault is told as (storageErrors.ts), and
 * settings written only when they change, whole or not at all.
 */
import os from 'node:os';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { faultMessage, replaceFile, storageFault, storageProblem, type StorageFault } from '../../electron/server/store/storageErrors';
import { chooseWorkspace, updateSettings, writeSettings } from '../../electron/workspaces/dataFolder';
import { tempWorkspaces } from '../helpers/tempWorkspaces';

const { tempDir } = tempWorkspaces('outpost-datafolder-');
const WHERE = '/site/data';

describe('the workspace a command opens', () => {
  test.each([
    // [existing, last used, asked for] → opened (first start?) — from the rule in dataFolder.ts's header
    [['default', 'paris'], undefined, 'paris', { name: 'paris', firstStart: false }],
    [['default', 'paris'], 'paris', undefined, { name: 'paris', firstStart: false }],
    [['default', 'paris'], 'paris', 'default', { name: 'default', firstStart: false }],
    [['default'], undefined, undefined, { name: 'default', firstStart: false }],
    [[], undefined, undefined, { name: 'default', firstStart: true }],
    [[], undefined, 'default', { name: 'default', firstStart: true }],
  ] as const)('existing %j, last used %s, asked %s → %j', (existing, lastUsed, asked, expected) => {
    expect(chooseWorkspace(existing, lastUsed, asked, WHERE)).toEqual(expected);
  });

  test('one asked for that does not exist is refused with the list, never made', () => {
    expect(chooseWorkspace(['default', 'paris'], 'paris', 'lyon', WHERE)).toEqual({
      problem: 'there is no workspace "lyon" in /site/data (its workspaces: default, paris); to make one: outpost workspace create lyon',
    });
    expect(chooseWorkspace([], undefined, 'lyon', WHERE)).toEqual({ problem: 'there is no workspace "lyon" in /site/data (it has none yet); to make one: outpost workspace create lyon' });
  });

  test('the last used whose database is gone is an error naming the file, even when no workspace is left', () => {
    for (const existing of [['default'], []]) {
      const choice = chooseWorkspace(existing, 'lyon', undefined, WHERE);
      expect(choice).toEqual({ problem: expect.stringContaining('the database of workspace "lyon", the one used last, is missing: /site/data/workspaces/lyon.sqlite3. Restore it from a backup, or delete the workspace') });
    }
    expect(chooseWorkspace([], 'default', undefined, WHERE)).toHaveProperty('problem');
  });
});

describe('a storage fault, told with its file and what to do', () => {
  test.each([
    ['ENOSPC', 'full'],
    ['EDQUOT', 'full'],
    ['SQLITE_FULL', 'full'],
    ['SQLITE_IOERR_SHMSIZE', 'full'],
    ['EROFS', 'read-only'],
    ['SQLITE_READONLY', 'read-only'],
    ['SQLITE_READONLY_DBMOVED', 'read-only'],
    ['EACCES', 'denied'],
    ['EPERM', 'denied'],
    ['SQLITE_CANTOPEN', 'cannot-open'],
    ['SQLITE_NOTADB', 'not-a-database'],
    ['SQLITE_CORRUPT', 'damaged'],
    ['SQLITE_CORRUPT_INDEX', 'damaged'],
  ] as const)('%s is a %s fault', (code, fault) => {
    expect(storageFault(Object.assign(new Error('x'), { code }))).toBe(fault);
  });

  test.each([['ENOENT'], ['SQLITE_CONSTRAINT'], ['SQLITE_BUSY'], [undefined]])('%s is none', (code) => {
    expect(storageFault(Object.assign(new Error('x'), code === undefined ? {} : { code }))).toBeUndefined();
    expect(storageProblem(Object.assign(new Error('x'), code === undefined ? {} : { code }), '/d/f')).toBeUndefined();
  });

  const FILE = '/site/data/workspaces/lyon.sqlite3';
  test.each([
    ['full', 'the disk holding /site/data/workspaces/lyon.sqlite3 is full: free space on it'],
    ['read-only', '/site/data/workspaces/lyon.sqlite3 cannot be written: its disk is read-only. Make it writable'],
    ['denied', 'not allowed to use /site/data/workspaces/lyon.sqlite3: give this user read and write access to it and to /site/data/workspaces'],
    ['cannot-open', 'cannot open /site/data/workspaces/lyon.sqlite3: check that it exists'],
    ['not-a-database', '/site/data/workspaces/lyon.sqlite3 is not a workspace database: it is not SQLite, or was overwritten; restore it from a backup, or delete the workspace (outpost workspace delete lyon, or Delete in the app\'s Settings)'],
    ['damaged', '/site/data/workspaces/lyon.sqlite3 is damaged: restore it from a backup, or delete the workspace (outpost workspace delete lyon, or Delete in the app\'s Settings)'],
  ] as const)('%s: names the file and what to do', (fault: StorageFault, start) => {
    expect(faultMessage(fault, FILE)).toMatch(new RegExp(`^${start.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
  });

  test("SQLite's code and words are kept; Node's own message (which names no file) is not", () => {
    const sqlite = Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
    expect(storageProblem(sqlite, FILE)).toBe(`the disk holding ${FILE} is full (SQLITE_FULL: database or disk is full): free space on it (delete or move files under /site/data/workspaces or elsewhere on that disk), then try again`);
    const node = Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    expect(storageProblem(node, FILE)).toContain(`the disk holding ${FILE} is full (ENOSPC): `);
  });
});

describe('the settings file', () => {
  test('changed settings are written whole; unchanged ones write nothing', () => {
    const dir = tempDir();
    const file = path.join(dir, 'outpost.json');
    writeSettings(dir, { lastWorkspace: 'paris', localToken: 'a'.repeat(40) });
    const written = fs.statSync(file).mtimeMs;
    fs.utimesSync(file, 0, 0);
    updateSettings(dir, { lastWorkspace: 'paris', localToken: 'a'.repeat(40) });
    expect(fs.statSync(file).mtimeMs).toBe(0);
    updateSettings(dir, { lastWorkspace: undefined, window: { width: 800 } });
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toEqual({ localToken: 'a'.repeat(40), window: { width: 800 } });
    expect(written).toBeGreaterThan(0);
    expect(fs.readdirSync(dir)).toEqual(['outpost.json']);
  });
});

describe('a file written whole (replaceFile)', () => {
  test('into a folder that does not exist: the error names the file asked for and its folder, not a temporary file', () => {
    const folder = path.join(os.tmpdir(), `outpost-absent-${process.pid}`, 'deeper');
    const file = path.join(folder, 'site.outpost.json');
    expect(() => replaceFile(file, '{}')).toThrow(`cannot write ${file}: the folder ${folder} does not exist`);
  });
});
