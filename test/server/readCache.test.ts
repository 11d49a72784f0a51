/**
 * The read caches (counts, pages, rendered objects, tokens) never serve data older than the
 * database: every write here, and every commit by another process, empties them.
 */
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Client } from '../helpers/http';
import { startServer, type TestServer } from '../helpers/server';

let server: TestServer;
let api: Client;
beforeAll(async () => {
  server = await startServer();
  api = server.api;
});
afterAll(() => server.close());

describe('read caches', () => {
  test('a write through the API is seen by the next read of the object, the list and its count', async () => {
    const probe = (await api.post('/rest/appliances/engine_probe/', { name: 'cache-a', address: '10.0.0.1', location: 'Cachy' })).json();
    expect((await api.get(`/rest/appliances/engine_probe/${probe.pk}/`)).json().location).toBe('Cachy');
    expect((await api.get('/rest/appliances/engine_probe/?location=Cachy')).json().count).toBe(1);
    await api.patch(`/rest/appliances/engine_probe/${probe.pk}/`, { location: 'Elsewhere' });
    expect((await api.get(`/rest/appliances/engine_probe/${probe.pk}/`)).json().location).toBe('Elsewhere');
    expect((await api.get('/rest/appliances/engine_probe/?location=Cachy')).json().count).toBe(0);
  });

  test('a commit by another process is seen at once', async () => {
    const probe = (await api.post('/rest/appliances/engine_probe/', { name: 'cache-b', address: '10.0.0.2' })).json();
    const before = (await api.get('/rest/appliances/engine_probe/?search=cache-b')).json();
    expect(before.results[0].descr).toBe('');
    const other = new Database(server.file);
    other.prepare('UPDATE appliance SET descr = ? WHERE pk = ?').run('changed elsewhere', probe.pk);
    other.prepare("INSERT INTO appliance (type, name, address, home_net, created, updated) VALUES ('engine', 'cache-b2', '10.0.0.3', '', 0, 0)").run();
    other.close();
    expect((await api.get(`/rest/appliances/engine_probe/${probe.pk}/`)).json().descr).toBe('changed elsewhere');
    expect((await api.get('/rest/appliances/engine_probe/?search=cache-b')).json().count).toBe(2);
  });

  test('a refused write leaves nothing of itself in the caches', async () => {
    const t = (await api.post('/rest/appliances/vendor_probe_template/', { name: 'cache-t' })).json();
    const p = (await api.post('/rest/appliances/vendor_probe/', { name: 'cache-p', address: '10.0.0.4', parent_tmpl: t.pk })).json();
    await api.get(`/rest/appliances/vendor_probe/${p.pk}/`);
    const refused = await api.patch(`/rest/appliances/vendor_probe/${p.pk}/`, { descr: 'new', home_net: 'not inherited' });
    expect(refused.status).toBe(400);
    expect((await api.get(`/rest/appliances/vendor_probe/${p.pk}/`)).json().descr).toBe('');
  });

  test('a regenerated token is refused at once although the old one was just used', async () => {
    const user = (await api.post('/rest/accounts/sciriususer/', { username: 'cachetoken', password: 'x', role: 'Admin' })).json();
    const old = (await api.post(`/rest/accounts/sciriususer/${user.pk}/token/`, {})).json().token;
    expect((await api.as(old).get('/rest/')).status).toBe(200);
    await api.post(`/rest/accounts/sciriususer/${user.pk}/token/`, {});
    expect((await api.as(old).get('/rest/')).status).toBe(403);
  });

  test('a template change reaches the cached objects of its children', async () => {
    const t = (await api.post('/rest/appliances/vendor_probe_template/', { name: 'cache-t2' })).json();
    const p = (await api.post('/rest/appliances/vendor_probe/', { name: 'cache-p2', address: '10.0.0.5', parent_tmpl: t.pk })).json();
    expect((await api.get(`/rest/appliances/vendor_probe/?parent_tmpl=${t.pk}`)).json().results[0].ntp_server).toBe('');
    await api.patch(`/rest/appliances/vendor_probe_template/${t.pk}/`, { ntp_server: 'ntp.example.com' });
    expect((await api.get(`/rest/appliances/vendor_probe/?parent_tmpl=${t.pk}`)).json().results[0].ntp_server).toBe('ntp.example.com');
    expect((await api.get(`/rest/appliances/vendor_probe/${p.pk}/`)).json().ntp_server).toBe('ntp.example.com');
  });
});
