/**
 * The store (issue 9): SQL runs only through `query()` (reads) and `command()` (writes), each
 * refusing the other kind, and a statement slower than the threshold is logged with its name.
 */
import { describe, expect, test } from 'vitest';
import { openDatabase } from '../../electron/server/store/database';
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
