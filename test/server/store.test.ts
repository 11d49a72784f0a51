/**
 * The store (issue 9): SQL runs only through `query()` (reads) and `command()` (writes), each
 * refusing the other kind, and a statement slower than the threshold is logged with its name.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, test } from 'vitest';
import { openDatabase, PAGE_BYTES } from '../../electron/server/store/database';
import { Store, statementName, type SlowStatementLog } from '../../electron/server/store/store';

function storeWith(slow?: SlowStatementLog): Store {
  return new Store(openDatabase(':memory:'), slow);
}

describe('statements', () => {
  test('query() reads and refuses a statement that writes; command() writes and refuses one that reads', () => {
    const store = storeWith();
    expect(() => store.command('SELECT 1')).toThrow('command() is for statements that write: SELECT 1');
    expect(() => store.query("DELETE FROM sync_meta WHERE key = 'x'")).toThrow('query() is for statements that read');
    store.write(() => store.command('INSERT INTO sync_meta (key, value) VALUES (?, ?)').run('k', 'v'));
    expect(store.query('SELECT value FROM sync_meta WHERE key = ?').pluck().get('k')).toBe('v');
    store.close();
  });

  test('a statement is named by its verb and first table', () => {
    expect(statementName("SELECT pk FROM appliance WHERE type = 'vendor'")).toBe('select appliance');
    expect(statementName('INSERT INTO outbox (op) VALUES (?)')).toBe('insert outbox');
    expect(statementName('UPDATE "vendor_probe_template" SET name = ?')).toBe('update vendor_probe_template');
    expect(statementName('PRAGMA data_version')).toBe('pragma');
  });

  test('a statement slower than the threshold is reported with its name, its time and its SQL', () => {
    const reports: { name: string; ms: number; sql: string }[] = [];
    const store = storeWith({ thresholdMs: 0, report: (name, ms, sql) => reports.push({ name, ms, sql }) });
    store.query('SELECT count(*) FROM appliance').pluck().get();
    expect(reports).toEqual([{ name: 'select appliance', ms: expect.any(Number), sql: 'SELECT count(*) FROM appliance' }]);
    store.close();
  });

  test('statements under the threshold are not reported', () => {
    const reports: string[] = [];
    const store = storeWith({ thresholdMs: 60_000, report: (name) => reports.push(name) });
    for (let i = 0; i < 100; i++) store.query('SELECT count(*) FROM appliance').pluck().get();
    expect(reports).toEqual([]);
    store.close();
  });
});

describe('the database file', () => {
  const folder = () => fs.mkdtempSync(path.join(os.tmpdir(), 'outpost-pages-'));

  test('a new workspace database has pages of 16 KB, in WAL mode', () => {
    const file = path.join(folder(), 'new.sqlite3');
    const db = openDatabase(file);
    expect(PAGE_BYTES).toBe(16 * 1024);
    expect(db.pragma('page_size', { simple: true })).toBe(PAGE_BYTES);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    db.close();
    expect(new Database(file, { readonly: true }).pragma('page_size', { simple: true })).toBe(PAGE_BYTES);
  });

  test('a database made before with 4 KB pages keeps them, and its rows, when it is opened and migrated', () => {
    const file = path.join(folder(), 'old.sqlite3');
    const old = new Database(file);
    old.pragma('journal_mode = WAL');
    old.exec("CREATE TABLE kept (v TEXT); INSERT INTO kept VALUES ('still here')");
    expect(old.pragma('page_size', { simple: true })).toBe(4096);
    old.close();
    const db = openDatabase(file);
    expect(db.pragma('page_size', { simple: true })).toBe(4096);
    expect(db.prepare('SELECT v FROM kept').pluck().get()).toBe('still here');
    expect(db.prepare("SELECT count(*) FROM sqlite_schema WHERE name = 'host_id'").pluck().get()).toBe(1);
    db.close();
  });
});
