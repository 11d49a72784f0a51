/**
 * Issue 8: a remote's token is bound to the origin it was given for. Changing the address to
 * another scheme, host or port drops the token (it is asked for again) and the open workspace
 * follows the new address at once; the old token never reaches the new server.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startAppServer, type TestAppServer } from '../helpers/server';

/** A server that records the Authorization header of every request and refuses them all. */
async function captureServer(): Promise<{ url: string; seen: string[]; close(): Promise<void> }> {
  const seen: string[] = [];
  const server = http.createServer((req, res) => {
    seen.push(req.headers.authorization ?? '');
    res.writeHead(403, { 'Content-Type': 'application/json' }).end('{"detail":"Invalid token."}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const TOKEN = 'secret-token-of-a-'.padEnd(40, 'x');
let app: TestAppServer;
let a: Awaited<ReturnType<typeof captureServer>>;
let b: Awaited<ReturnType<typeof captureServer>>;

beforeAll(async () => {
  [a, b] = await Promise.all([captureServer(), captureServer()]);
  app = await startAppServer();
  expect((await app.api.post('/app/remotes', { name: 'r1', url: a.url, token: TOKEN })).status).toBe(201);
  expect((await app.api.post('/app/workspaces', { name: 'site', remote: 'r1' })).status).toBe(201);
  expect((await app.api.post('/app/workspaces/site/open')).status).toBe(200);
});
afterAll(async () => {
  await app.close();
  await Promise.all([a.close(), b.close()]);
});

async function syncOnce(): Promise<void> {
  expect((await app.api.post('/app/sync', {})).status).toBe(202);
  for (let i = 0; i < 100; i++) {
    const status = (await app.api.get('/app/sync')).json().status as { state?: string; syncing?: boolean };
    if (!status.syncing && status.state !== 'syncing') return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

test('a path change keeps the token; it is still sent to the same origin', async () => {
  const changed = await app.api.patch('/app/remotes/r1', { url: `${a.url}/central` });
  expect(changed.json()).toMatchObject({ name: 'r1', url: `${a.url}/central`, hasToken: true });
  await app.api.patch('/app/remotes/r1', { url: a.url });
  await syncOnce();
  expect(a.seen).toContain(`Token ${TOKEN}`);
});

test('another port drops the token, the answer says so, and the new server never sees it', async () => {
  const changed = await app.api.patch('/app/remotes/r1', { url: b.url });
  expect(changed.status).toBe(200);
  expect(changed.json()).toMatchObject({ name: 'r1', url: b.url, hasToken: false, warning: expect.stringMatching(/token was removed/) });
  // At once: the open workspace's status names the new address, without a workspace switch.
  expect((await app.api.get('/app/status')).json().sync.remote).toMatchObject({ name: 'r1', url: b.url });
  await syncOnce();
  expect(b.seen.length).toBeGreaterThan(0);
  expect(b.seen.join('\n')).not.toContain(TOKEN);
});

test('a token given with the new address is kept and used there', async () => {
  const other = 'token-for-b'.padEnd(40, 'y');
  expect((await app.api.patch('/app/remotes/r1', { url: a.url, token: other })).json()).toMatchObject({ url: a.url, hasToken: true });
  const before = a.seen.length;
  await syncOnce();
  expect(a.seen.slice(before)).toContain(`Token ${other}`);
  expect(a.seen.slice(before).join('\n')).not.toContain(TOKEN);
});
