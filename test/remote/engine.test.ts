/**
 * The sync engine's own bookkeeping (issue 9): a problem it meets outside a sync's report (a
 * lease it cannot renew, an error it cannot record) is logged and shown by the status, never
 * swallowed. An engine that is stopping starts no sync (issue 23: the lease is free for another
 * process as soon as an exit begins).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, expect, test } from 'vitest';
import { RemoteClient } from '../../electron/remote/client';
import { SyncEngine } from '../../electron/remote/engine';
import { openDatabase } from '../../electron/server/store/database';
import { Services } from '../../electron/server/store/services';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A central server that answers every request after `delayMs` with a 503. */
async function slowRemote(delayMs: number): Promise<string> {
  const server = http.createServer((_req, res) => {
    setTimeout(() => res.writeHead(503, { 'Content-Type': 'application/json' }).end('{"detail":"down"}'), delayMs);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
}

test('a lease renewal that fails during a sync is logged and shown in the status', async () => {
  const url = await slowRemote(300);
  const services = new Services(openDatabase(':memory:'), { name: 'outpost', version: 'test', address: '127.0.0.1' });
  cleanups.push(() => services.close());
  const client = new RemoteClient({ name: 'central', url }, () => 'token', { getAttempts: 1 });
  cleanups.push(() => client.close());
  const logged: string[] = [];
  const engine = new SyncEngine(services, client, { name: 'central', url }, { leaseMs: 40, log: (line) => logged.push(line) });

  const running = engine.sync();
  // The lease is taken; from now on the database refuses to renew it or to record an error.
  const set = services.syncMeta.set.bind(services.syncMeta);
  services.syncMeta.set = (key, value) => {
    if (key === 'sync_lease' || key === 'last_error') throw new Error('disk I/O error');
    set(key, value);
  };
  const report = await running;
  services.syncMeta.set = set;

  expect(report.outcome).toBe('error');
  expect(logged.some((line) => line === 'sync of central: renewing the sync lease failed: disk I/O error')).toBe(true);
  expect(logged.some((line) => line === 'sync of central: recording the sync error failed: disk I/O error')).toBe(true);
  const status = engine.status();
  expect(status.lastError).toBe('recording the sync error failed: disk I/O error');
  expect(status.lastErrorKind).toBe('internal');
});

test('once stopping (its workspace closing), the engine starts no sync: the lease stays free and nothing is recorded', async () => {
  const url = await slowRemote(10);
  const services = new Services(openDatabase(':memory:'), { name: 'outpost', version: 'test', address: '127.0.0.1' });
  cleanups.push(() => services.close());
  const client = new RemoteClient({ name: 'central', url }, () => 'token', { getAttempts: 1 });
  cleanups.push(() => client.close());
  const engine = new SyncEngine(services, client, { name: 'central', url }, { log: () => undefined });
  const written: string[] = [];
  const set = services.syncMeta.set.bind(services.syncMeta);
  services.syncMeta.set = (key, value) => {
    written.push(key);
    set(key, value);
  };

  await engine.stop();
  const report = await engine.sync();

  expect(report).toEqual({ outcome: 'error', pushed: 0, pulled: 0, conflicts: 0, parked: 0, waiting: 0, error: { kind: 'stopped', message: 'the sync was stopped' } });
  expect(written, 'neither the lease nor an error was written').toEqual([]);
});
