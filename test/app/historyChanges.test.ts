/**
 * Issue 11, a history fit for an audit: each write's field changes are recorded with its history
 * entry, in the write's own transaction, and served by the app (`/app/history/<pk>/changes`)
 * without touching the API's entry shape (api.md §5); secrets are recorded as changed, never
 * with their values. `/app/history` lists the local history by a range of days and by object.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { Client } from '../helpers/http';
import { startAppServer, type TestAppServer } from '../helpers/server';

let app: TestAppServer;
const T = '/rest/appliances/vendor_probe_template/';
const P = '/rest/appliances/vendor_probe/';
const USERS = '/rest/accounts/sciriususer/';

beforeAll(async () => {
  app = await startAppServer();
});
afterAll(() => app.close());

type Entry = { pk: number; action_type: string; date: string; ua_objects: Record<string, { type?: string; pk?: number; value: unknown }> };

/** The newest local entry (of a type). */
async function newest(actionType?: string): Promise<Entry> {
  const query = actionType ? `&action_type=${actionType}` : '';
  return (await app.api.get(`/rest/rules/history/?page_size=1${query}`)).json().results[0];
}

async function changesOf(pk: number, client: Client = app.api) {
  const answer = await client.get(`/app/history/${pk}/changes`);
  expect(answer.status).toBe(200);
  return answer.json();
}

/** The raw stored row of an entry, every column as text: what an export or a disk copy would show. */
function storedRow(pk: number): string {
  const row = app.host.current().services.store.db.prepare('SELECT * FROM user_action WHERE pk = ?').get(pk);
  return JSON.stringify(row);
}

describe('field changes recorded with each write', () => {
  test('an edit records each changed field with its value before and after, and only those', async () => {
    const probe = (await app.api.post(P, { name: 'audit-1', address: '10.9.0.1', location: 'hall A', capture_threads: 2 })).json();
    await app.api.patch(`${P}${probe.pk}/`, { location: 'hall B', capture_threads: 4, descr: '', comment: 'moved' });
    const entry = await newest('edit_appliance');
    expect(await changesOf(entry.pk)).toEqual({
      pk: entry.pk,
      recorded: true,
      changes: [
        { field: 'location', from: 'hall A', to: 'hall B' },
        { field: 'capture_threads', from: 2, to: 4 },
      ],
    });
  });

  test('the API entry keeps the shape of api.md §5: the changes are not in it', async () => {
    const entry = (await app.api.get(`/rest/rules/history/${(await newest('edit_appliance')).pk}/`)).json();
    expect(Object.keys(entry)).toEqual(['pk', 'action_type', 'date', 'comment', 'user', 'username', 'client_ip', 'title', 'description', 'description_raw', 'ua_objects']);
  });

  test('a create records the fields it was given; a delete every field as it was', async () => {
    const template = (await app.api.post(T, { name: 'audit-t', ntp_server: 'ntp.lab', interfaces: [{ name: 'eth0' }, { name: 'eth1', active: false }] })).json();
    expect((await changesOf((await newest('create_template')).pk)).changes).toEqual([
      { field: 'name', to: 'audit-t' },
      { field: 'ntp_server', to: 'ntp.lab' },
      { field: 'interfaces', to: [{ name: 'eth0', active: true }, { name: 'eth1', active: false }] },
    ]);
    await app.api.delete(`${T}${template.pk}/`, { comment: 'not needed' });
    const deleted = (await changesOf((await newest('delete_template')).pk)).changes as { field: string; from: unknown; to?: unknown }[];
    expect(deleted.find((c) => c.field === 'ntp_server')).toEqual({ field: 'ntp_server', from: 'ntp.lab' });
    expect(deleted.every((c) => !('to' in c))).toBe(true);
  });

  test('deleting an interface records its owner’s interfaces before and after', async () => {
    const probe = (await app.api.post(P, { name: 'audit-if', address: '10.9.0.2', interfaces: [{ name: 'eth0' }, { name: 'eth1' }] })).json();
    const eth1 = probe.interfaces.find((i: { name: string }) => i.name === 'eth1');
    expect((await app.api.delete(`/rest/appliances/network_interface/${eth1.pk}/`)).status).toBe(204);
    expect((await changesOf((await newest('delete_network_interface')).pk)).changes).toEqual([
      { field: 'interfaces', from: [{ name: 'eth0', active: true }, { name: 'eth1', active: true }], to: [{ name: 'eth0', active: true }] },
    ]);
  });

  test('an edit that changes nothing records an empty list; a refused write records no entry at all', async () => {
    const probe = (await app.api.post(P, { name: 'audit-noop', address: '10.9.0.3' })).json();
    await app.api.patch(`${P}${probe.pk}/`, {});
    expect(await changesOf((await newest('edit_appliance')).pk)).toMatchObject({ recorded: true, changes: [] });
    const before = await newest();
    expect((await app.api.patch(`${P}${probe.pk}/`, { capture_threads: 999 })).status).toBe(400);
    expect((await newest()).pk).toBe(before.pk);
  });

  test('passwords and tokens are recorded as changed, never with their values', async () => {
    const user = (await app.api.post(USERS, { username: 'auditor', password: 'Sup3r-secret-pw', role: 'Admin' })).json();
    const created = await newest('create_user');
    expect((await changesOf(created.pk)).changes).toEqual([
      { field: 'username', to: 'auditor' },
      { field: 'role', to: 'Admin' },
      { field: 'password', secret: true },
    ]);
    await app.api.patch(`${USERS}${user.pk}/`, { password: 'An0ther-secret-pw', first_name: 'Ada' });
    const edited = await newest('edit_user');
    expect((await changesOf(edited.pk)).changes).toEqual([
      { field: 'first_name', from: '', to: 'Ada' },
      { field: 'password', secret: true },
    ]);
    const token = (await app.api.post(`${USERS}${user.pk}/token/`, {})).json().token as string;
    const regenerated = await newest('edit_user_token');
    expect((await changesOf(regenerated.pk)).changes).toEqual([{ field: 'token', secret: true }]);
    await app.api.post(`${USERS}${user.pk}/password/`, { new_password: 'Th1rd-secret-pw' });
    expect((await changesOf((await newest('edit_user_password')).pk)).changes).toEqual([{ field: 'password', secret: true }]);
    for (const pk of [created.pk, edited.pk, regenerated.pk]) {
      const row = storedRow(pk);
      for (const secret of ['Sup3r-secret-pw', 'An0ther-secret-pw', 'Th1rd-secret-pw', token]) expect(row).not.toContain(secret);
    }
  });

  test('an action that changes no field has none recorded; a Read-only user reads changes as it reads the history', async () => {
    const services = app.host.current().services;
    const pk = services.store.write(() =>
      services.history.log({ actionType: 'import_threat', user: { pk: 1, username: 'admin' }, clientIp: '127.0.0.1', comment: null, objects: { count: { value: 3 } } }),
    );
    expect(await changesOf(pk)).toEqual({ pk, recorded: false, changes: [] });
    const made = (await app.api.post(USERS, { username: 'audit-viewer', password: 'viewer-pass-1', role: 'Read-only' })).json();
    const viewer = new Client(app.url, (await app.api.post(`${USERS}${made.pk}/token/`, {})).json().token);
    expect((await changesOf(pk, viewer)).recorded).toBe(false);
    expect((await app.api.get('/app/history/999999/changes')).status).toBe(404);
  });
});

describe('/app/history: the local history by a range of days and by object', () => {
  /** Set an entry's date (microseconds since the epoch, UTC). */
  function dated(pk: number, iso: string): void {
    const services = app.host.current().services;
    services.store.write(() => services.store.db.prepare('UPDATE user_action SET date = ? WHERE pk = ?').run(Date.parse(iso) * 1000, pk));
  }

  test('date_after and date_before take whole days (UTC), both included, in the API’s envelope and entry shape', async () => {
    const pks: number[] = [];
    for (const [i, day] of ['2026-03-01T23:59:59Z', '2026-03-02T00:00:00Z', '2026-03-03T12:00:00Z', '2026-03-04T00:00:00Z'].entries()) {
      await app.api.post('/rest/rules/source/', { name: `range-${i}` });
      const entry = await newest('create_source');
      dated(entry.pk, day);
      pks.push(entry.pk);
    }
    const page = (await app.api.get('/app/history?date_after=2026-03-02&date_before=2026-03-03&action_type=create_source')).json();
    expect(page.count).toBe(2);
    expect(page.results.map((e: Entry) => e.pk)).toEqual([pks[2], pks[1]]);
    expect(Object.keys(page.results[0])).toEqual(['pk', 'action_type', 'date', 'comment', 'user', 'username', 'client_ip', 'title', 'description', 'description_raw', 'ua_objects']);
    expect((await app.api.get('/app/history?date_after=2026-03-03&action_type=create_source')).json().count).toBeGreaterThanOrEqual(2);
    expect((await app.api.get('/app/history?date_before=2026-03-01&action_type=create_source')).json().results.map((e: Entry) => e.pk)).toEqual([pks[0]]);
  });

  test('object=<type>:<pk> lists the entries naming that object, its interfaces’ deletes included', async () => {
    const probe = (await app.api.post(P, { name: 'audit-own', address: '10.9.0.4', interfaces: [{ name: 'eth0' }, { name: 'eth9' }] })).json();
    await app.api.post(P, { name: 'audit-other', address: '10.9.0.5' });
    await app.api.patch(`${P}${probe.pk}/`, { location: 'roof' });
    const eth9 = probe.interfaces.find((i: { name: string }) => i.name === 'eth9');
    await app.api.delete(`/rest/appliances/network_interface/${eth9.pk}/`);
    const page = (await app.api.get(`/app/history?object=vendor_probe:${probe.pk}`)).json();
    expect(page.results.map((e: Entry) => e.action_type)).toEqual(['delete_network_interface', 'edit_appliance', 'create_appliance']);
  });

  test('bad values are refused with the parameter’s error, as the API refuses its own', async () => {
    const bad = await app.api.get('/app/history?date_after=yesterday&object=probe');
    expect(bad.status).toBe(400);
    expect(bad.json()).toEqual({ date_after: ['Enter a valid date (YYYY-MM-DD).'], object: ['Name one object as <type>:<pk>, e.g. vendor_probe:7.'] });
    expect((await app.api.get('/app/history?user=abc')).status).toBe(200);
    expect((await app.api.get('/app/history?page=99')).status).toBe(404);
  });
});
