/**
 * The sync lease between processes (app.md §3, issue 23 §6): a sync that asks to wait (`outpost
 * sync`) waits for another live process's sync, 30 s unless told otherwise, saying whose; it
 * takes the lease as soon as that sync ends; after the wait it is refused as before. What the
 * waiting line shows of the lease's data is made harmless for a terminal.
 */
import { afterEach, beforeEach, expect, test, vi } from 'vitest';
import { LEASE_WAIT_MS, SyncBusyError, SyncLease, waitingLine, type LeaseHolder } from '../../electron/remote/lease';
import { openDatabase } from '../../electron/server/store/database';
import { Services } from '../../electron/server/store/services';

let services: Services;
beforeEach(() => {
  services = new Services(openDatabase(':memory:'), { name: 'outpost', version: 'test', address: '127.0.0.1' });
  vi.useFakeTimers({ toFake: ['setTimeout', 'setInterval', 'clearInterval', 'Date'] });
});
afterEach(() => {
  vi.useRealTimers();
  services.close();
});

/** The lease as another live process (this test's parent: vitest) leaves it while it syncs. */
function heldByAnother(label: string): number {
  const pid = process.ppid;
  services.store.write(() => {
    services.syncMeta.set('sync_lease', `${pid}:${Date.now()}`);
    services.syncMeta.set('sync_lease_holder', `${pid}:${label}`);
  });
  return pid;
}

test('by default a waiting sync waits 30 s for another live process, then is refused as before', async () => {
  const pid = heldByAnother('serve');
  const told: [LeaseHolder, number][] = [];
  const lease = new SyncLease(services.store, services.syncMeta);
  const outcome = Promise.resolve(lease.acquire({ onWaiting: (holder, ms) => told.push([holder, ms]) })).then(
    () => 'taken',
    (error: unknown) => error,
  );
  expect(told).toEqual([[{ pid, label: 'serve' }, 30_000]]);
  await vi.advanceTimersByTimeAsync(29_999);
  const settled = await Promise.race([outcome, Promise.resolve('still waiting')]);
  expect(settled).toBe('still waiting');
  await vi.advanceTimersByTimeAsync(1);
  const error = await outcome;
  expect(error).toBeInstanceOf(SyncBusyError);
  expect((error as Error).message).toBe(`another Outpost process (pid ${pid}) is syncing this workspace; try again when it is done`);
  expect(services.syncMeta.get('sync_lease')).toMatch(new RegExp(`^${pid}:`));
  expect(LEASE_WAIT_MS).toBe(30_000);
});

test('the wait ends, and the lease is taken, as soon as the other sync releases it', async () => {
  heldByAnother('sync');
  const lease = new SyncLease(services.store, services.syncMeta, { label: 'sync' });
  let taken = false;
  const acquired = Promise.resolve(lease.acquire({ ms: 10_000, onWaiting: () => undefined })).then(() => (taken = true));
  await vi.advanceTimersByTimeAsync(2_000);
  expect(taken).toBe(false);
  // The other process's sync ends: it deletes its lease.
  services.store.write(() => {
    services.syncMeta.delete('sync_lease');
    services.syncMeta.delete('sync_lease_holder');
  });
  await vi.advanceTimersByTimeAsync(250);
  await acquired;
  expect(taken).toBe(true);
  expect(services.syncMeta.get('sync_lease')).toMatch(new RegExp(`^${process.pid}:\\d+$`));
  expect(services.syncMeta.get('sync_lease_holder')).toBe(`${process.pid}:sync`);
  lease.release();
  expect(services.syncMeta.get('sync_lease')).toBeUndefined();
  expect(services.syncMeta.get('sync_lease_holder')).toBeUndefined();
});

test('without a wait, a lease another live process holds is refused at once', async () => {
  const pid = heldByAnother('app');
  const lease = new SyncLease(services.store, services.syncMeta);
  expect(() => lease.acquire()).toThrow(`another Outpost process (pid ${pid}) is syncing this workspace`);
});

test('a free lease is taken at once, with nothing to await: the sync reports its first progress before its starter is answered', () => {
  const lease = new SyncLease(services.store, services.syncMeta, { label: 'app' });
  expect(lease.acquire()).toBeUndefined();
  expect(services.syncMeta.get('sync_lease')).toMatch(new RegExp(`^${process.pid}:\\d+$`));
  lease.release();
});

test('the waiting line names the process and what it is, its control characters shown as escapes', () => {
  expect(waitingLine({ pid: 4242, label: 'serve' }, 30_000)).toBe('waiting for the sync of process 4242 (serve) to end (up to 30 s)…');
  expect(waitingLine({ pid: 4242, label: undefined }, 1_000)).toBe('waiting for the sync of process 4242 to end (up to 1 s)…');
  expect(waitingLine({ pid: 7, label: 'serve\x1b[2J\x07\u202e' }, 30_000)).toBe('waiting for the sync of process 7 (serve\\x1b[2J\\x07\\u{202e}) to end (up to 30 s)…');
});
