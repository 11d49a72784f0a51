/** api.md §5: the user-action history. */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Client } from '../helpers/http';
import { addUser, startServer, type TestServer } from '../helpers/server';

let server: TestServer;
let api: Client;
beforeAll(async () => {
  server = await startServer();
  api = server.api;
});
afterAll(() => server.close());

type Entry = { pk: number; action_type: string; date: string; comment: string | null; username: string; ua_objects: Record<string, { type?: string; pk?: number; value: unknown }> };
const entries = async (query = ''): Promise<Entry[]> => (await api.get(`/rest/rules/history/?page_size=1000${query}`)).json().results;

describe('entries', () => {
  test('every field of §5, with the rendered description and ua_objects', async () => {
    const template = (await api.post('/rest/appliances/vendor_probe_template/', { name: 'hist-t', comment: 'base for Lyon' })).json();
    const [entry] = await entries('&action_type=create_template');
    expect(Object.keys(entry!)).toEqual([
      'pk', 'action_type', 'date', 'comment', 'user', 'username', 'client_ip', 'title', 'description', 'description_raw', 'ua_objects',
    ]);
    expect(entry).toMatchObject({
      action_type: 'create_template',
      comment: 'base for Lyon',
      username: 'admin',
      client_ip: '127.0.0.1',
      title: 'Create Template',
      description: 'admin has created template hist-t',
      description_raw: '{user} has created template {template}',
      ua_objects: { template: { type: 'vendor_probe_template', pk: template.pk, value: 'hist-t' } },
    });
    expect(entry!.date).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{6})?Z$/);
  });

  test('once the object is deleted its entries lose the pk but keep the value', async () => {
    const source = (await api.post('/rest/rules/source/', { name: 'gone-soon' })).json();
    await api.delete(`/rest/rules/source/${source.pk}/`, { comment: 'obsolete' });
    const mine = (await entries('&ordering=pk')).filter((e) => e.ua_objects.source?.value === 'gone-soon');
    expect(mine.map((e) => [e.action_type, e.ua_objects.source])).toEqual([
      ['create_source', { type: 'source', value: 'gone-soon' }],
      ['delete_source', { type: 'source', value: 'gone-soon' }],
    ]);
    expect(mine[1]!.comment).toBe('obsolete');
  });

  test('a failed write creates no entry; a comment without a write creates none either', async () => {
    const before = (await entries()).length;
    await api.post('/rest/rules/source/', { name: '', comment: 'will fail' });
    await api.get('/rest/rules/source/?comment=x');
    expect((await entries()).length).toBe(before);
  });

  test('the history is read-only', async () => {
    expect((await api.post('/rest/rules/history/', {})).status).toBe(405);
    const [entry] = await entries();
    expect((await api.delete(`/rest/rules/history/${entry!.pk}/`)).status).toBe(405);
  });
});

describe('list parameters of the history', () => {
  test('filters username, action_type; default ordering -pk', async () => {
    const tech = addUser(server, 'tech', 'Admin', '5'.repeat(40));
    await tech.post('/rest/rules/source/', { name: 'by-tech' });
    await api.post('/rest/rules/source/', { name: 'by-admin' });
    const techEntries = await entries('&username=tech');
    expect(techEntries.map((e) => e.ua_objects.source?.value)).toEqual(['by-tech']);
    const all = await entries();
    expect(all.map((e) => e.pk)).toEqual([...all.map((e) => e.pk)].sort((a, b) => b - a));
    expect((await entries('&action_type=create_source')).every((e) => e.action_type === 'create_source')).toBe(true);
  });

  test('-date is always the last ordering term', async () => {
    const byType = await entries('&ordering=action_type');
    const keys = byType.map((e) => [e.action_type, e.date] as const);
    const sorted = [...keys].sort((a, b) => (a[0] !== b[0] ? (a[0] < b[0] ? -1 : 1) : a[1] > b[1] ? -1 : a[1] < b[1] ? 1 : 0));
    expect(keys).toEqual(sorted);
  });

  test('a date filter that is not a date is a 400', async () => {
    expect((await api.get('/rest/rules/history/?date=yesterday')).json()).toEqual({ date: ['Enter a valid date/time.'] });
  });

  test('get_action_type_list gives every action type with its title', async () => {
    const body = (await api.get('/rest/rules/history/get_action_type_list/')).json();
    expect(body.action_type_list).toMatchObject({
      create_appliance: 'Create Appliance',
      edit_template: 'Edit Template',
      delete_network_interface: 'Delete Network Interface',
      edit_user_token: 'Edit User Token',
      import_host_id: 'Import Host Identities',
      sync_push: 'Sync Push',
      sync_pull: 'Sync Pull',
    });
  });
});
