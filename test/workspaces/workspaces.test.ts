/** app.md §2: workspaces of a data folder, through the app's endpoints (`/app/`). */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { request } from '../helpers/http';
import { ADMIN_TOKEN, startAppServer, type TestAppServer } from '../helpers/server';

let server: TestAppServer;
beforeAll(async () => {
  server = await startAppServer();
});
afterAll(() => server.close());

const names = async () => (await server.api.get('/app/workspaces')).json().workspaces.map((w: { name: string }) => w.name);

describe('workspaces', () => {
  test('the first start has the default workspace, current, with its status', async () => {
    const status = (await server.api.get('/app/status')).json();
    expect(status).toMatchObject({ workspace: 'default', mode: 'standalone', user: { username: 'admin' } });
    expect(await names()).toEqual(['default']);
  });

  test('create, switch, and every workspace answers the same local token', async () => {
    expect((await server.api.post('/app/workspaces', { name: 'site-lyon' })).status).toBe(201);
    await server.api.post('/rest/rules/source/', { name: 'only-in-default' });
    const switched = await server.api.post('/app/workspaces/site-lyon/open');
    expect(switched.json()).toMatchObject({ workspace: 'site-lyon' });
    expect((await server.api.get('/rest/rules/source/')).json().count).toBe(0);
    await server.api.post('/app/workspaces/default/open');
    expect((await server.api.get('/rest/rules/source/')).json().count).toBe(1);
  });

  test('names are checked; duplicates and unknown workspaces are refused clearly', async () => {
    expect((await server.api.post('/app/workspaces', { name: '../evil' })).status).toBe(400);
    expect((await server.api.post('/app/workspaces', {})).json()).toEqual({ name: ['This field is required.'] });
    await server.api.post('/app/workspaces', { name: 'twice' });
    const again = await server.api.post('/app/workspaces', { name: 'twice' });
    expect(again.status).toBe(409);
    expect(again.json().detail).toMatch(/exists already/);
    expect((await server.api.post('/app/workspaces/nowhere/open')).status).toBe(404);
  });

  test('rename, including the current one; delete refuses the current one', async () => {
    await server.api.post('/app/workspaces', { name: 'old-name' });
    expect((await server.api.patch('/app/workspaces/old-name', { name: 'new-name' })).status).toBe(200);
    expect(await names()).toContain('new-name');
    await server.api.post('/app/workspaces/new-name/open');
    await server.api.patch('/app/workspaces/new-name', { name: 'renamed-current' });
    expect((await server.api.get('/app/status')).json().workspace).toBe('renamed-current');
    const refused = await server.api.delete('/app/workspaces/renamed-current');
    expect(refused.status).toBe(409);
    await server.api.post('/app/workspaces/default/open');
    expect((await server.api.delete('/app/workspaces/renamed-current')).status).toBe(204);
    expect(await names()).not.toContain('renamed-current');
  });

  test('export to a bundle and import it as a new workspace: the same objects, pks and history', async () => {
    const t = (await server.api.post('/rest/appliances/vendor_probe_template/', { name: 'exp-t', interfaces: [{ name: 'eth0' }] })).json();
    const p = (await server.api.post('/rest/appliances/vendor_probe/', { name: 'exp-p', address: '10.0.0.1', parent_tmpl: t.pk, comment: 'export me' })).json();
    const bundle = await server.api.get('/app/workspaces/default/export');
    expect(bundle.headers['content-disposition']).toBe('attachment; filename="default.outpost.json"');
    expect(bundle.json()).toMatchObject({ format: 'outpost-workspace', version: 1, name: 'default' });
    expect(bundle.text).not.toContain(ADMIN_TOKEN);
    const imported = await server.api.post('/app/workspaces/import?name=copy', undefined, { body: bundle.text, headers: { 'Content-Type': 'application/json' } });
    expect(imported.status, imported.text).toBe(201);
    await server.api.post('/app/workspaces/copy/open');
    expect((await server.api.get(`/rest/appliances/vendor_probe/${p.pk}/`)).json()).toMatchObject({ name: 'exp-p', parent_tmpl: t.pk });
    expect((await server.api.get('/rest/appliances/vendor_probe/?search=exp-p')).json().count).toBe(1);
    const history = (await server.api.get('/rest/rules/history/?action_type=create_appliance')).json().results;
    expect(history[0].comment).toBe('export me');
    // pks are not reused after the import either
    const next = (await server.api.post('/rest/appliances/engine_probe/', { name: 'after-import', address: '10.0.0.2' })).json();
    expect(next.pk).toBeGreaterThan(p.pk);
    await server.api.post('/app/workspaces/default/open');
  });

  test('a file that is not a bundle is refused and no workspace is left behind', async () => {
    const reply = await server.api.post('/app/workspaces/import?name=broken', { format: 'something-else' });
    expect(reply.status).toBe(400);
    expect(reply.json().detail).toMatch(/not an Outpost workspace bundle/);
    expect(await names()).not.toContain('broken');
  });

  test("regenerating the admin's token makes it the local token of every workspace", async () => {
    const own = await startAppServer();
    try {
      const admin = (await own.api.get('/rest/accounts/sciriususer/current_user/')).json();
      const fresh = (await own.api.post(`/rest/accounts/sciriususer/${admin.pk}/token/`, {})).json().token;
      expect(own.host.token).toBe(fresh);
      expect((await own.api.get('/app/status')).status).toBe(403);
      const renewed = own.api.as(fresh);
      await renewed.post('/app/workspaces', { name: 'after-rotation' });
      expect((await renewed.post('/app/workspaces/after-rotation/open')).json().workspace).toBe('after-rotation');
      expect((await renewed.get('/rest/')).status).toBe(200);
    } finally {
      await own.close();
    }
  });

  test('a workspace bound to a central server says which, in the list and in the status', async () => {
    const added = await server.api.post('/app/remotes', { name: 'hq', url: 'http://127.0.0.1:9', token: 'e'.repeat(40) });
    expect(added.status, added.text).toBe(201);
    expect((await server.api.post('/app/workspaces', { name: 'bound-one', remote: 'hq' })).json()).toEqual({ name: 'bound-one', remote: 'hq' });
    const listed = (await server.api.get('/app/workspaces')).json().workspaces;
    expect(listed.find((w: { name: string }) => w.name === 'bound-one').remote).toBe('hq');
    expect(listed.find((w: { name: string }) => w.name === 'default').remote).toBeNull();
    const unknown = await server.api.post('/app/workspaces', { name: 'bound-two', remote: 'nowhere' });
    expect(unknown.status).toBe(404);
    expect(unknown.json().detail).toMatch(/no remote "nowhere"/);
    const opened = (await server.api.post('/app/workspaces/bound-one/open')).json();
    expect(opened).toMatchObject({ workspace: 'bound-one', mode: 'bound', sync: { remote: { name: 'hq', url: 'http://127.0.0.1:9' } } });
    await server.api.post('/app/workspaces/default/open');
  });

  test.each([
    ['empty (0 bytes)', (file: string) => fs.writeFileSync(file, ''), 'is empty (0 bytes): restore it from a backup, or delete the workspace'],
    ['not a database', (file: string) => fs.writeFileSync(file, 'x'.repeat(64 * 1024)), 'is not a workspace database (SQLITE_NOTADB'],
  ])('a workspace whose database is %s is refused on open and export naming the file (409); the current one stays', async (_what, damage, said) => {
    const name = `broken-${said.length}`;
    expect((await server.api.post('/app/workspaces', { name })).status).toBe(201);
    const file = path.join(server.dir, 'workspaces', `${name}.sqlite3`);
    damage(file);
    const before = fs.readFileSync(file);
    for (const reply of [await server.api.post(`/app/workspaces/${name}/open`), await server.api.get(`/app/workspaces/${name}/export`)]) {
      expect(reply.status).toBe(409);
      expect(reply.json().detail).toContain(file);
      expect(reply.json().detail).toContain(said);
    }
    expect(fs.readFileSync(file).equals(before)).toBe(true);
    expect((await server.api.get('/app/status')).json().workspace).toBe('default');
    expect((await server.api.delete(`/app/workspaces/${name}`)).status).toBe(204);
  });

  test('a refused central server setting is reported on its field; tokens are never shown', async () => {
    const bad = async (body: Record<string, unknown>) => (await server.api.post('/app/remotes', { name: 'r', url: 'https://c.example', token: 't0k', ...body })).json();
    expect(await bad({ url: 'ftp://c.example' })).toEqual({ url: ['A central server is reached over https, not ftp:.'] });
    expect(await bad({ url: 'http://c.example' })).toEqual({ url: ['A plain http:// central server is accepted on a loopback address only; use https://.'] });
    expect(await bad({ name: '../r' })).toEqual({ name: ['"../r" is not a valid remote name: 1 to 64 letters, digits, ".", "_" or "-".'] });
    expect(await bad({ token: 'with space' })).toEqual({ token: ['The token must be 1 to 128 printable characters without spaces.'] });
    expect(await bad({ pin: 'abc' })).toEqual({ pin: ['The pinned certificate is given by its SHA-256 fingerprint: 64 hex digits (colons allowed).'] });
    expect(await bad({ pin: 'ab'.repeat(32), insecure: true })).toEqual({ pin: ['Either turn certificate verification off or pin the certificate, not both.'] });
    expect(await bad({ token: undefined })).toEqual({ token: ['This field is required.'] });
    const listed = await server.api.get('/app/remotes');
    expect(listed.text).not.toContain('t0k');
  });

  test('a standalone workspace has no central server link', async () => {
    expect((await server.api.get('/app/central-link?ip=10.0.0.1')).json()).toEqual({ url: null });
  });

  test('the app endpoints need the token, and a manager for changes', async () => {
    expect((await request(server.url, 'GET', '/app/status')).status).toBe(403);
    expect((await request(server.url, 'GET', '/app/status', { token: 'f'.repeat(40) })).json()).toEqual({ detail: 'Invalid token.' });
  });
});

describe('the web UI files', () => {
  let dir: string;
  let app: TestAppServer;
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'outpost-renderer-'));
    fs.mkdirSync(path.join(dir, 'assets'));
    fs.writeFileSync(path.join(dir, 'index.html'), '<!doctype html><title>Outpost</title>');
    fs.writeFileSync(path.join(dir, 'assets', 'index-abc.js'), 'console.log(1)');
    fs.writeFileSync(path.join(path.dirname(dir), 'secret.txt'), 'secret');
    app = await startAppServer({ rendererDir: dir });
  });
  afterAll(async () => {
    await app.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('/ is the app, with a strict Content-Security-Policy', async () => {
    const reply = await request(app.url, 'GET', '/');
    expect(reply.status).toBe(200);
    expect(reply.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(reply.headers['content-security-policy']).toContain("default-src 'self'");
    expect(reply.headers['content-security-policy']).toContain("frame-ancestors 'none'");
  });

  test('hashed assets are cached; nothing outside the build folder is served', async () => {
    expect((await request(app.url, 'GET', '/assets/index-abc.js')).headers['cache-control']).toContain('immutable');
    for (const p of ['/../secret.txt', '/%2e%2e/secret.txt', '/assets/../../secret.txt']) {
      expect((await request(app.url, 'GET', p)).text).not.toContain('secret');
    }
  });

  test('the web link opens the app on the host view', async () => {
    const reply = await request(app.url, 'GET', '/rules/hunt?session=temporary&page=HOSTS_LIST&ip=10.7.5.101');
    expect(reply.status).toBe(302);
    expect(reply.headers.location).toBe('/#/hosts/10.7.5.101');
  });

  test('the API is still answered next to the files', async () => {
    expect((await app.api.get('/rest/')).status).toBe(200);
  });
});
