/**
 * Issue 24 §2 through the app's routes on a real server: a host file imported through the API is
 * a visit with its file's SHA-256, its history entry keeps api.md's text and carries the files
 * and the visit; `/app/hosts/visits` lists the visits newest first, paged; `/app/hosts/changes`
 * compares two points and names the parameter it cannot read.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startAppServer, type TestAppServer } from '../helpers/server';

let app: TestAppServer;
const IMPORT = '/rest/appliances/host_id/import/';

const host = (ip: string, extra: Record<string, unknown> = {}) => ({
  ip,
  host_id: { first_seen: '2026-01-01T00:00:00Z', last_seen: '2026-01-02T00:00:00Z', ...extra },
});

beforeAll(async () => {
  app = await startAppServer();
});
afterAll(() => app.close());

async function importFile(name: string, entries: unknown[]): Promise<string> {
  const bytes = Buffer.from(JSON.stringify(entries));
  const reply = await app.api.send('POST', `${IMPORT}?name=${encodeURIComponent(name)}`, { body: bytes, headers: { 'Content-Type': 'application/json' } });
  expect(reply.status).toBe(201);
  return createHash('sha256').update(bytes).digest('hex');
}

describe('a host file import is a visit', () => {
  test('recorded with its file (name, size, SHA-256 of its bytes, entries read), who, and its hosts new and updated', async () => {
    const sha = await importFile('site-a.json', [host('10.0.0.1', { roles: [{ name: 'dhcp' }] }), host('10.0.0.2')]);
    const visits = (await app.api.get('/app/hosts/visits')).json();
    expect(visits.count).toBe(1);
    const visit = visits.results[0];
    const size = Buffer.byteLength(JSON.stringify([host('10.0.0.1', { roles: [{ name: 'dhcp' }] }), host('10.0.0.2')]));
    expect(visit).toMatchObject({ kind: 'host_file', user: 'admin', hostsNew: 2, hostsUpdated: 0, files: [{ name: 'site-a.json', size, sha256: sha, from: 0, lines: 2 }] });
    expect(visit.at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/);

    const entry = (await app.api.get(`/rest/rules/history/${visit.historyPk}/`)).json();
    expect(entry.action_type).toBe('import_host_id');
    expect(entry.description).toBe('admin has imported 2 host identities');
    expect(entry.ua_objects.count.value).toBe(2);
    expect(entry.ua_objects.visit.value).toBe(visit.pk);
    expect(entry.ua_objects.files.value).toEqual([{ name: 'site-a.json', size, sha256: sha, from: 0, lines: 2 }]);
  });

  test('a second file: what it changed is compared with the first', async () => {
    await importFile('site-b.json', [host('10.0.0.1', { roles: [{ name: 'dhcp' }, { name: 'domain controller' }] }), host('10.0.0.3')]);
    const [second, first] = (await app.api.get('/app/hosts/visits')).json().results;
    expect(second).toMatchObject({ hostsNew: 1, hostsUpdated: 1 });
    const answer = await app.api.get(`/app/hosts/changes?since=${first.pk}&until=${second.pk}`);
    expect(answer.status).toBe(200);
    const comparison = answer.json();
    // 10.0.0.3 is new; 10.0.0.2, known after the first, is in no file since; 10.0.0.1 gained a role.
    expect(comparison.changes).toEqual([
      { kind: 'host_new', ip: '10.0.0.3', value: null, previous: null },
      { kind: 'host_not_seen', ip: '10.0.0.2', value: null, previous: null },
      { kind: 'role_new', ip: '10.0.0.1', value: 'domain controller', previous: null },
    ]);
    expect(comparison.totals).toMatchObject({ host_new: 1, host_not_seen: 1, role_new: 1, service_added: 0 });
    expect(comparison.truncated).toBe(false);
    expect(comparison.since.visit).toBe(first.pk);
  });

  test('a refused file leaves no visit behind', async () => {
    const before = (await app.api.get('/app/hosts/visits')).json().count;
    const reply = await app.api.post(IMPORT, [host('10.0.0.9'), { ip: 'not an address', host_id: {} }]);
    expect(reply.status).toBe(400);
    expect((await app.api.get('/app/hosts/visits')).json().count).toBe(before);
  });
});

describe('the routes', () => {
  test('visits are paged as the history is', async () => {
    const page = (await app.api.get('/app/hosts/visits?page_size=1')).json();
    expect(page.results).toHaveLength(1);
    expect(page.next).toBe('/app/hosts/visits?page=2&page_size=1');
    expect(page.previous).toBeNull();
    expect((await app.api.get('/app/hosts/visits?page=99')).status).toBe(404);
  });

  test.each([
    ['', 'since'],
    ['since=yesterday', 'since'],
    ['since=1&until=%3Cscript%3E', 'until'],
    ['since=999', 'since'],
    ['since=1&limit=-1', 'limit'],
    ['since=pull', 'since'],
  ])('a point it cannot read (%s) is a 400 naming %s', async (query, param) => {
    const answer = await app.api.get(`/app/hosts/changes?${query}`);
    expect(answer.status).toBe(400);
    expect(Object.keys(answer.json())).toEqual([param]);
  });

  test('since after until is refused, naming since', async () => {
    const answer = await app.api.get('/app/hosts/changes?since=2&until=1');
    expect(answer.status).toBe(400);
    expect(answer.json().since[0]).toMatch(/after until/);
  });

  test('a limit bounds the list, the totals stay whole', async () => {
    const answer = (await app.api.get('/app/hosts/changes?since=1970-01-01&limit=1')).json();
    expect(answer.changes).toHaveLength(1);
    expect(answer.truncated).toBe(true);
    expect(answer.totals.host_new).toBe(3);
    expect(answer.since).toEqual({ visit: null, at: '1970-01-01T00:00:00Z', label: '1970-01-01T00:00:00Z' });
  });
});
