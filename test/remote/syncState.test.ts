/**
 * The sync state told as it is (issue 25 §3), against central servers that do not work: one
 * nobody listens for, one refusing the token (401, 403), one failing (503), one that never
 * answers. "Online" needs an answer, "last push" an accepted change, "Being sent" a request in
 * flight; an automatic session says when it tries again. A working reference server shows the
 * other side: an empty outbox pushes nothing, so "last push" stays empty after an online sync.
 */
import http from 'node:http';
import type net from 'node:net';
import { afterAll, describe, expect, test } from 'vitest';
import type { EntryView, SyncStatus } from '../../shared/app/sync';
import { BACKOFF_FIRST_MS } from '../../shared/sync/schedule';
import { startReference } from '../helpers/reference';
import { startBound, type BoundWorkspace } from '../helpers/sync';
import { freePort } from '../helpers/syncCli';

const T = '/rest/appliances/vendor_probe_template/';
const opened: { close(): Promise<void> }[] = [];

afterAll(async () => {
  for (const thing of opened.reverse()) await thing.close().catch(() => undefined);
});

/** A central server answering every request with `status` (and a DRF-like detail), or never (`null`). */
async function fakeCentral(status: number | null): Promise<{ url: string; requests: number; cut(): void }> {
  const sockets = new Set<net.Socket>();
  const state = { requests: 0 };
  const server = http.createServer((request, response) => {
    state.requests++;
    if (status === null) return; // the answer never comes
    response.writeHead(status, { 'Content-Type': 'application/json' });
    response.end(JSON.stringify({ detail: status === 401 ? 'Invalid token.' : status === 403 ? 'Forbidden.' : 'Service unavailable.' }));
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const cut = () => {
    for (const socket of sockets) socket.destroy();
  };
  opened.push({ close: () => new Promise((resolve) => (cut(), server.close(() => resolve()))) });
  return {
    url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    get requests() {
      return state.requests;
    },
    cut,
  };
}

async function bind(url: string, sync: Parameters<typeof startBound>[1] = {}): Promise<BoundWorkspace> {
  const site = await startBound({ url, token: 'a'.repeat(40) }, sync);
  opened.push(site);
  return site;
}

async function state(site: BoundWorkspace): Promise<{ status: SyncStatus; entries: EntryView[] }> {
  return (await site.api.get('/app/sync')).json();
}

async function until<T>(what: string, read: () => Promise<T | undefined>, ms = 15_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A bound workspace with one template created here, waiting in the outbox. */
async function withQueuedCreate(url: string): Promise<BoundWorkspace> {
  const site = await bind(url);
  expect((await site.api.post(T, { name: 'queued-tmpl', comment: 'made at the site' })).status).toBe(201);
  return site;
}

describe('before the first attempt', () => {
  test('the connection is unknown: no "online", no attempt, no push', async () => {
    const site = await withQueuedCreate(`http://127.0.0.1:${await freePort()}`);
    const { status, entries } = await state(site);
    expect(status).toMatchObject({ connection: 'unknown', syncing: false, lastAttempt: null, lastPush: null, lastResult: null, nextAttemptAt: null });
    expect(entries.map((e) => e.state)).toEqual(['pending']);
  });
});

describe('a central server nobody answers for', () => {
  test('offline after the attempt, no "last push", the create not "being sent", the error and what to try', async () => {
    const site = await withQueuedCreate(`http://127.0.0.1:${await freePort()}`);
    const report = await site.sync();
    expect(report).toMatchObject({ outcome: 'error', pushed: 0, error: { kind: 'network' } });
    const { status, entries } = await state(site);
    expect(status.connection).toBe('offline');
    expect(status.lastPush).toBeNull();
    expect(status.lastAttempt).not.toBeNull();
    expect(status.lastResult).toMatchObject({ outcome: 'error', pushed: 0, error: { kind: 'network' } });
    // Its request was tried and no answer came: unconfirmed, looked up before it is sent again.
    expect(entries.map((e) => e.state)).toEqual(['unconfirmed']);
    // /app/status's indicator says the same as /app/sync.
    const summary = (await site.api.get('/app/status')).json().sync;
    expect(summary).toMatchObject({ connection: 'offline', lastPush: null, problem: null });
  });

  test('an automatic session plans its next attempt by the backoff, in the future', async () => {
    const site = await bind(`http://127.0.0.1:${await freePort()}`, { sync: { auto: true, client: { backoff: () => 20, connectTimeoutMs: 2_000 } } });
    const status = await until('the first automatic attempt to end', async () => {
      const { status } = await state(site);
      return status.lastResult !== null && !status.syncing ? status : undefined;
    });
    expect(status.connection).toBe('offline');
    const next = Date.parse(status.nextAttemptAt!);
    const finished = Date.parse(status.lastResult!.finished);
    // nextSyncDelay: the first backoff, ±20 % (schedule.ts), counted from the attempt's end.
    expect(next).toBeGreaterThan(Date.now() - 50);
    expect(next - finished).toBeGreaterThanOrEqual(BACKOFF_FIRST_MS * 0.8 - 50);
    expect(next - finished).toBeLessThanOrEqual(BACKOFF_FIRST_MS * 1.2 + 50);
  });
});

describe('a central server refusing the token', () => {
  for (const code of [401, 403]) {
    test(`${code}: token refused, no "last push", nothing planned until the token changes`, async () => {
      const central = await fakeCentral(code);
      const site = await withQueuedCreate(central.url);
      const report = await site.sync();
      expect(report).toMatchObject({ outcome: 'error', pushed: 0, error: { kind: 'auth' } });
      const { status, entries } = await state(site);
      expect(status).toMatchObject({ connection: 'auth_failed', lastPush: null, nextAttemptAt: null, lastErrorKind: 'auth' });
      expect(entries.every((e) => e.state !== 'sending')).toBe(true);
    });
  }

  test('an automatic session stops trying: no next attempt', async () => {
    const central = await fakeCentral(401);
    const site = await bind(central.url, { sync: { auto: true } });
    const status = await until('the first automatic attempt to end', async () => {
      const { status } = await state(site);
      return status.lastResult !== null && !status.syncing ? status : undefined;
    });
    expect(status).toMatchObject({ connection: 'auth_failed', nextAttemptAt: null });
  });
});

describe('a central server failing (503)', () => {
  test('offline, no "last push", the create unconfirmed, a next attempt in the future', async () => {
    const central = await fakeCentral(503);
    const site = await bind(central.url, { sync: { auto: true, client: { backoff: () => 20 } } });
    expect((await site.api.post(T, { name: 'queued-tmpl' })).status).toBe(201);
    const status = await until('an attempt that met the queued create', async () => {
      const { status } = await state(site);
      return status.lastResult?.error?.message.includes('to a create') && !status.syncing ? status : undefined;
    });
    expect(status).toMatchObject({ connection: 'offline', lastPush: null, lastErrorKind: 'network' });
    expect(Date.parse(status.nextAttemptAt!)).toBeGreaterThan(Date.now() - 50);
    expect((await state(site)).entries.map((e) => e.state)).toEqual(['unconfirmed']);
  });
});

describe('a central server that never answers', () => {
  test('"being sent" while the request is in flight, unconfirmed once it failed', async () => {
    const central = await fakeCentral(null);
    const site = await withQueuedCreate(central.url);
    const running = site.sync();
    await until('the create in flight', async () => (central.requests > 0 ? true : undefined));
    const during = await state(site);
    expect(during.status).toMatchObject({ syncing: true, connection: 'unknown', nextAttemptAt: null });
    expect(during.entries.map((e) => e.state)).toEqual(['sending']);
    central.cut();
    expect((await running).outcome).toBe('error');
    expect((await state(site)).entries.map((e) => e.state)).toEqual(['unconfirmed']);
  });
});

describe('a working central server', () => {
  test('online after an answer; "last push" only once it accepted a change', async () => {
    const reference = await startReference();
    opened.push({ close: () => reference.stop() });
    const site = await startBound(reference);
    opened.push(site);
    expect((await site.sync()).outcome).toBe('done');
    const first = (await state(site)).status;
    expect(first).toMatchObject({ connection: 'online', lastPush: null, lastResult: { outcome: 'done', pushed: 0 } });
    expect(first.lastSync).not.toBeNull();

    expect((await site.api.post(T, { name: 'sent-tmpl' })).status).toBe(201);
    expect((await site.sync()).pushed).toBe(1);
    const second = (await state(site)).status;
    expect(second.lastPush).not.toBeNull();
    expect(second.lastResult).toMatchObject({ outcome: 'done', pushed: 1 });
  }, 60_000);
});
