/**
 * `POST /app/templates/:pk/preview`: what saving a template would change for the local probes and
 * templates that inherit from it, computed by the write's own rules and checks, nothing written.
 * The preview is checked against what the save then really does.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startAppServer, type TestAppServer } from '../helpers/server';

let app: TestAppServer;
const T = '/rest/appliances/vendor_probe_template/';
const P = '/rest/appliances/vendor_probe/';
let root: number;
let child: number;
const probes: Record<string, number> = {};

beforeAll(async () => {
  app = await startAppServer();
  root = (await app.api.post(T, { name: 'preview-root', capture_threads: 2, timezone: 'UTC' })).json().pk;
  child = (await app.api.post(T, { name: 'preview-child', parent_tmpl: root })).json().pk;
  for (const [name, parent, extra] of [
    ['p-a', root, {}],
    ['p-b', root, { overriden_fields: ['capture_threads'], capture_threads: 6 }],
    ['p-c', child, {}],
  ] as const) {
    probes[name] = (await app.api.post(P, { name, address: `10.1.0.${Object.keys(probes).length + 1}`, parent_tmpl: parent, ...extra })).json().pk;
  }
});
afterAll(() => app.close());

const preview = async (pk: number, body: unknown) => app.api.post(`/app/templates/${pk}/preview`, body);
const historyCount = async () => (await app.api.get('/rest/rules/history/?page_size=1')).json().count as number;

describe('template save preview', () => {
  test('lists the probes and templates whose effective values change, as the save then does, and writes nothing', async () => {
    const before = await historyCount();
    const answer = await preview(root, { capture_threads: 4, timezone: 'Europe/Paris' });
    expect(answer.status).toBe(200);
    const body = answer.json();
    expect(body.errors).toBeNull();
    expect(body.own).toEqual([
      { field: 'capture_threads', before: 2, after: 4 },
      { field: 'timezone', before: 'UTC', after: 'Europe/Paris' },
    ]);
    // p-b overrides capture_threads: only its timezone changes.
    expect(body.objects.map((o: { name: string; changes: { field: string }[] }) => [o.name, o.changes.map((c) => c.field)])).toEqual([
      ['p-a', ['capture_threads', 'timezone']],
      ['p-b', ['timezone']],
      ['p-c', ['capture_threads', 'timezone']],
      ['preview-child', ['capture_threads', 'timezone']],
    ]);
    expect(await historyCount()).toBe(before);
    expect((await app.api.get(`${P}${probes['p-a']}/`)).json().capture_threads).toBe(2);

    await app.api.patch(`${T}${root}/`, { capture_threads: 4, timezone: 'Europe/Paris' });
    for (const object of body.objects as { resource: string; pk: number; changes: { field: string; after: unknown }[] }[]) {
      const path = object.resource === 'vendor_probe' ? P : T;
      const saved = (await app.api.get(`${path}${object.pk}/`)).json();
      for (const change of object.changes) expect(saved[change.field]).toEqual(change.after);
    }
  });

  test('a save that changes nothing for others lists nothing', async () => {
    const body = (await preview(root, { descr: 'the site' })).json();
    expect(body).toEqual({ own: [{ field: 'descr', before: '', after: 'the site' }], objects: [], errors: null });
  });

  test('a save the API would refuse answers its errors, not a 400', async () => {
    const invalid = await preview(root, { capture_threads: 999 });
    expect(invalid.status).toBe(200);
    expect(Object.keys(invalid.json().errors)).toEqual(['capture_threads']);
    // The child inherits capture_threads: it may not be given another value (rule 6), nor its parent be its own child (rule 7).
    expect(Object.keys((await preview(child, { capture_threads: 9 })).json().errors)).toEqual(['capture_threads']);
    expect(Object.keys((await preview(root, { parent_tmpl: child })).json().errors)).toEqual(['parent_tmpl']);
  });

  test('an unknown template is a 404; a body that is not an object is refused', async () => {
    expect((await preview(999_999, {})).status).toBe(404);
    expect((await preview(root, [1, 2])).status).toBe(400);
  });
});
