/** api.md §6 threats: read-only, filled by import/ (and later by the sync). */
import fs from 'node:fs';
import path from 'node:path';
import { SAMPLES_DIR } from '../helpers/workplace';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Client } from '../helpers/http';
import { addUser, startServer, type TestServer } from '../helpers/server';

const SAMPLES = SAMPLES_DIR;
const THREAT_FIELDS = [
  'pk', 'threat_id', 'name', 'description', 'additional_info', 'icon', 'criticity', 'version', 'active',
  'creation_date', 'family', 'family_class', 'links', 'user_defined', 'nb_methods',
];

let server: TestServer;
let api: Client;
let sample: Record<string, unknown>[];
beforeAll(async () => {
  server = await startServer();
  api = server.api;
  sample = JSON.parse(fs.readFileSync(path.join(SAMPLES, 'scout-appliances-threat-results.json'), 'utf8'));
  const reply = await api.post('/rest/appliances/threat/import/?comment=catalogue+2026-11', sample);
  expect(reply.status, reply.text).toBe(201);
  expect(reply.json()).toEqual({ imported: sample.length });
});
afterAll(() => server.close());

describe('import of the 639 real threats', () => {
  test('every threat is served with exactly the api.md fields, values as imported', async () => {
    const first = sample[0]!;
    const body = (await api.get(`/rest/appliances/threat/${first.pk}/`)).json();
    expect(Object.keys(body)).toEqual(THREAT_FIELDS);
    for (const field of THREAT_FIELDS) expect(body[field], field).toEqual(first[field]);
    expect((await api.get('/rest/appliances/threat/')).json().count).toBe(sample.length);
  });

  test('one history entry with the count and the ?comment=', async () => {
    const entry = (await api.get('/rest/rules/history/?action_type=import_threat')).json().results[0];
    expect(entry).toMatchObject({
      comment: 'catalogue 2026-11',
      description: `admin has imported ${sample.length} threats`,
      ua_objects: { count: { value: sample.length } },
    });
  });

  test('an import upserts by pk and keeps fields it does not give', async () => {
    const first = sample[0]!;
    await api.post('/rest/appliances/threat/import/', [{ pk: first.pk, name: 'Renamed', version: 9 }]);
    const body = (await api.get(`/rest/appliances/threat/${first.pk}/`)).json();
    expect(body).toMatchObject({ name: 'Renamed', version: 9, family: first.family, description: first.description });
  });

  test('any invalid entry: 400 with one error object per entry, nothing imported', async () => {
    const reply = await api.post('/rest/appliances/threat/import/', [{ pk: 990001, name: 'ok' }, { pk: 'x', creation_date: 'soon' }]);
    expect(reply.status).toBe(400);
    expect(reply.json()).toEqual([
      {},
      {
        pk: ['A valid integer is required.'],
        name: ['This field is required.'],
        creation_date: ['Date has wrong format. Use one of these formats instead: YYYY-MM-DD.'],
      },
    ]);
    expect((await api.get('/rest/appliances/threat/990001/')).status).toBe(404);
  });

  test('a body that is not an array is refused', async () => {
    expect((await api.post('/rest/appliances/threat/import/', { pk: 1 })).json()).toEqual({
      non_field_errors: ['Expected a list of items but got type "dict".'],
    });
  });

  test('a Read-only user may not import', async () => {
    const viewer = addUser(server, 'viewer', 'Read-only', '7'.repeat(40));
    expect((await viewer.post('/rest/appliances/threat/import/', [])).status).toBe(403);
  });
});

describe('the threat endpoint', () => {
  test('is read-only', async () => {
    const reply = await api.post('/rest/appliances/threat/', { name: 'x' });
    expect(reply.status).toBe(405);
    expect(reply.json()).toEqual({ detail: 'Method "POST" not allowed.' });
  });

  test('filters family, family_class, criticity, active; search name and description; ordering', async () => {
    const family = sample[1]!.family;
    const byFamily = (await api.get(`/rest/appliances/threat/?family=${family}&page_size=1000`)).json();
    expect(byFamily.count).toBe(sample.filter((t) => t.family === family).length);
    expect((await api.get('/rest/appliances/threat/?family=four')).json()).toEqual({ family: ['Enter a number.'] });
    const name = String(sample[5]!.name);
    const found = (await api.get(`/rest/appliances/threat/?search=${encodeURIComponent(name.toUpperCase())}`)).json();
    expect(found.results.map((t: { name: string }) => t.name)).toContain(name);
    const ordered = (await api.get('/rest/appliances/threat/?ordering=-creation_date&page_size=1000')).json().results;
    const dates = ordered.map((t: { creation_date: string | null }) => t.creation_date ?? '');
    expect(dates.filter((d: string) => d !== '')).toEqual([...dates.filter((d: string) => d !== '')].sort().reverse());
  });
});
