/** The sync store's reading of /app/sync answers (renderer/src/stores/syncModel.ts). */
import { describe, expect, test } from 'vitest';
import { parseEntries, parseSyncStatus, syncShown } from '../../renderer/src/stores/syncModel';

describe('sync answers (syncModel.ts)', () => {
  test('sync answers are read defensively: a standalone workspace has no sync status', () => {
    expect(parseSyncStatus(null)).toBeNull();
    const status = parseSyncStatus({ remote: { name: 'central', url: 'https://c' }, connection: 'offline', syncing: true, progress: { phase: 'pull', done: 3, total: 9, endpoint: 'threat' }, outbox: { pending: 2, parked: 0, conflicts: 1 }, lastError: 'x' });
    expect(status).toMatchObject({ connection: 'offline', syncing: true, progress: { phase: 'pull', done: 3, total: 9, endpoint: 'threat' }, outbox: { pending: 2, conflicts: 1 }, lastPull: null, problem: null });
    expect(parseSyncStatus({ remote: { name: 'gone', url: null }, problem: 'not configured', connection: 'unknown', outbox: null })?.outbox).toBeNull();
    expect(parseEntries([{ seq: 4, op: 'update', resource: 'vendor_probe', pk: 1, label: 'a', state: 'conflict', conflicts: [{ field: 'location', base: 'x', mine: 'y', theirs: 'z' }] }, { nonsense: true }])).toHaveLength(1);
  });

  test('the status bar shows the central server’s state only while the local server answers', () => {
    const status = parseSyncStatus({ remote: { name: 'central', url: 'https://c' }, connection: 'online', syncing: false, outbox: { pending: 0, parked: 0, conflicts: 0 } });
    expect(syncShown('running', undefined, status)).toBe('shown');
    expect(syncShown('failed', undefined, status)).toBe('unknown');
    expect(syncShown('restarting', undefined, status)).toBe('unknown');
    expect(syncShown('running', 'The local server did not answer.', status)).toBe('unknown');
    expect(syncShown('failed', undefined, null)).toBe('none');
  });
});
