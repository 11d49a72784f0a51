import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startServer, type TestServer } from '../helpers/server';

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.close());

describe('rules/source (api.md §6)', () => {
  test('POST creates a source with its defaults and answers it as a detail GET does', async () => {
    const reply = await server.api.post('/rest/rules/source/', { name: 'ET Open', uri: 'https://example.com/rules.tar.gz' });
    expect(reply.status).toBe(201);
    const created = reply.json();
    expect(created).toMatchObject({ name: 'ET Open', method: 'http', datatype: 'sigs', version: 1 });
    expect(created.created_date).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{6})?Z$/);
    const detail = await server.api.get(`/rest/rules/source/${created.pk}/`);
    expect(detail.json()).toEqual(created);
  });

  test('validation answers every field error in DRF wording, in field order', async () => {
    const reply = await server.api.post('/rest/rules/source/', { method: 'ftp', comment: [1] });
    expect(reply.status).toBe(400);
    expect(reply.json()).toEqual({
      name: ['This field is required.'],
      method: ['"ftp" is not a valid choice.'],
      comment: ['Not a valid string.'],
    });
  });

  test('a unique name is refused with the model wording', async () => {
    await server.api.post('/rest/rules/source/', { name: 'dup' });
    const reply = await server.api.post('/rest/rules/source/', { name: 'dup' });
    expect(reply.status).toBe(400);
    expect(reply.json()).toEqual({ name: ['source with this name already exists.'] });
  });

  test('the comment of a write lands on its history entry, not on the object', async () => {
    const created = (await server.api.post('/rest/rules/source/', { name: 'commented', comment: 'for site 12' })).json();
    expect(created).not.toHaveProperty('comment');
    const history = (await server.api.get('/rest/rules/history/?action_type=create_source')).json();
    const entry = history.results.find((e: { ua_objects: { source: { pk: number } } }) => e.ua_objects.source.pk === created.pk);
    expect(entry).toMatchObject({ comment: 'for site 12', description: 'admin has created source commented', username: 'admin' });
  });
});
