/**
 * app.md §3.4: `/remote/rest/…` forwards to the central server's `/rest/…` with the remote token,
 * streams the answer, rewrites `next`/`previous` to the local origin, and refreshes the mirror
 * from GET answers. It is for local users only: it lends the remote token, never shows it.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { request } from '../helpers/http';
import { startReference, type ReferenceServer } from '../helpers/reference';
import { startBound, type BoundWorkspace } from '../helpers/sync';
import { startAppServer, type TestAppServer } from '../helpers/server';

let remote: ReferenceServer;
let site: BoundWorkspace;

beforeAll(async () => {
  remote = await startReference();
  site = await startBound(remote);
  for (let i = 0; i < 5; i++) await remote.api.post('/rest/rules/source/', { name: `src-${i}`, uri: `https://rules.example/${i}.tar.gz` });
}, 60_000);

afterAll(async () => {
  await site?.close();
  await remote?.stop();
});

describe('the proxy to the central server', () => {
  test('a GET is answered by the central server, with its status and JSON', async () => {
    const reply = await site.api.get('/remote/rest/rules/source/?ordering=name');
    expect(reply.status).toBe(200);
    expect(reply.headers['content-type']).toMatch(/application\/json/);
    expect(reply.json().results.map((s: { name: string }) => s.name)).toEqual(['src-0', 'src-1', 'src-2', 'src-3', 'src-4']);
  });

  test('next and previous lead back through the proxy on the local origin', async () => {
    const first = (await site.api.get('/remote/rest/rules/source/?ordering=name&page_size=2')).json();
    expect(first.next).toBe(`${site.url}/remote/rest/rules/source/?ordering=name&page=2&page_size=2`);
    const second = await request(site.url, 'GET', new URL(first.next).pathname + new URL(first.next).search, { token: site.api.token });
    expect(second.json().previous).toBe(`${site.url}/remote/rest/rules/source/?ordering=name&page_size=2`);
    expect(second.json().results.map((s: { name: string }) => s.name)).toEqual(['src-2', 'src-3']);
  });

  test('errors of the central server come back as they are', async () => {
    const missing = await site.api.get('/remote/rest/rules/source/987654/');
    expect(missing.status).toBe(404);
    expect(missing.json()).toEqual({ detail: 'Not found.' });
    const invalid = await site.api.post('/remote/rest/rules/source/', { name: '' });
    expect(invalid.status).toBe(400);
    expect(invalid.json().name).toEqual(['This field may not be blank.']);
  });

  test('writes go to the central server with the remote token, and the created object is there', async () => {
    const created = await site.api.post('/remote/rest/rules/source/', { name: 'via-proxy', uri: 'https://rules.example/p.tar.gz', comment: 'through Outpost' });
    expect(created.status).toBe(201);
    expect((await remote.api.get(`/rest/rules/source/${created.json().pk}/`)).json().name).toBe('via-proxy');
  });

  test('a GET through the proxy refreshes the mirror', async () => {
    const made = (await remote.api.post('/rest/rules/source/', { name: 'fresh-one', uri: 'https://rules.example/f.tar.gz' })).json();
    expect((await site.api.get(`/rest/rules/source/${made.pk}/`)).status).toBe(404);
    expect((await site.api.get(`/remote/rest/rules/source/${made.pk}/`)).status).toBe(200);
    expect((await site.api.get(`/rest/rules/source/${made.pk}/`)).json().name).toBe('fresh-one');
    // Nothing was queued by it: the mirror is the central server's state, not a local change.
    expect((await site.api.get('/app/sync')).json().entries).toEqual([]);
  });

  test('only local users may use it: no token, a wrong token → 403; the remote token never appears', async () => {
    const anonymous = await request(site.url, 'GET', '/remote/rest/rules/source/');
    expect(anonymous.status).toBe(403);
    expect(anonymous.json()).toEqual({ detail: 'Authentication credentials were not provided.' });
    const wrong = await request(site.url, 'GET', '/remote/rest/rules/source/', { token: 'f'.repeat(40) });
    expect(wrong.status).toBe(403);
    const root = await site.api.get('/remote/rest/');
    expect(root.text).not.toContain(remote.token);
    expect(JSON.stringify(root.headers)).not.toContain(remote.token);
  });

  test('an unreachable central server is a 502 with the reason', async () => {
    const offline = await startReference();
    const bound = await startBound(offline);
    await offline.stop();
    const reply = await bound.api.get('/remote/rest/rules/source/');
    expect(reply.status).toBe(502);
    expect(reply.json().detail).toMatch(/^Bad gateway: the central server .* cannot be reached/);
    await bound.close();
  });

  test('a standalone workspace has nothing to proxy to', async () => {
    const standalone: TestAppServer = await startAppServer();
    const reply = await standalone.api.get('/remote/rest/');
    expect(reply.status).toBe(404);
    expect(reply.json().detail).toMatch(/not bound to a central server/);
    await standalone.close();
  });
});
