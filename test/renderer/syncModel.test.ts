/** The sync store's view of /app/sync answers (renderer/src/stores/syncModel.ts). */
import { describe, expect, test } from 'vitest';
import type { SyncStatus, SyncStatusView } from '../../shared/app/sync';
import { statusView, syncShown } from '../../renderer/src/stores/syncModel';

const ONLINE: SyncStatus = {
  remote: { name: 'central', url: 'https://c' },
  connection: 'online',
  syncing: false,
  progress: null,
  lastPull: null,
  lastPush: null,
  lastSync: null,
  lastAttempt: null,
  nextAttemptAt: null,
  lastResult: null,
  lastError: null,
  lastErrorKind: null,
  outbox: { pending: 0, parked: 0, conflicts: 0 },
  pushMode: 'automatic',
  awaitingReview: 0,
};

describe('sync answers (syncModel.ts)', () => {
  test('the engine’s status is shown as the status bar’s view: a linked remote has no problem', () => {
    expect(statusView(ONLINE)).toEqual({ ...ONLINE, problem: null });
  });

  test('the status bar shows the central server’s state only while the local server answers', () => {
    const status: SyncStatusView = { ...ONLINE, problem: null };
    expect(syncShown('running', undefined, status)).toBe('shown');
    expect(syncShown('failed', undefined, status)).toBe('unknown');
    expect(syncShown('restarting', undefined, status)).toBe('unknown');
    expect(syncShown('running', 'The local server did not answer.', status)).toBe('unknown');
    expect(syncShown('failed', undefined, null)).toBe('none');
  });
});
