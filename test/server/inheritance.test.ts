/** api.md §4: template inheritance, rule by rule. */
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

let counter = 0;
const unique = (prefix: string) => `${prefix}-${++counter}`;

async function template(body: Record<string, unknown>) {
  const reply = await api.post('/rest/appliances/vendor_probe_template/', { name: unique('tmpl'), ...body });
  expect(reply.status, reply.text).toBe(201);
  return reply.json();
}

async function probe(body: Record<string, unknown>) {
  const reply = await api.post('/rest/appliances/vendor_probe/', { name: unique('probe'), address: '10.0.0.1', ...body });
  expect(reply.status, reply.text).toBe(201);
  return reply.json();
}

const get = async (path: string) => (await api.get(path)).json();
const names = (items: { name: string }[]) => items.map((i) => i.name);
const pairs = (items: { name: string; detection?: boolean; active?: boolean }[]) => items.map((i) => [i.name, i.detection ?? i.active]);

describe('rule 1–2: a child takes every inheritable parameter from its template', () => {
  test('setting parent_tmpl copies the template values into the child at once', async () => {
    const t = await template({ home_net: '10.0.0.0/8', capture_threads: 8, interfaces: [{ name: 'eth0', active: true }] });
    const p = await probe({ parent_tmpl: t.pk });
    expect(p).toMatchObject({ home_net: '10.0.0.0/8', capture_threads: 8, parent_tmpl: t.pk, overriden_fields: [] });
    expect(names(p.interfaces)).toEqual(['eth0']);
    expect(p.interfaces[0].pk).not.toBe(t.interfaces[0].pk);
  });

  test('a change to the template reaches its children and, through a child template, its grandchildren', async () => {
    const root = await template({});
    const middle = await template({ parent_tmpl: root.pk });
    const leaf = await probe({ parent_tmpl: middle.pk });
    const direct = await probe({ parent_tmpl: root.pk });
    const patched = await api.patch(`/rest/appliances/vendor_probe_template/${root.pk}/`, { home_net: '172.16.0.0/12', pcap_capture: true });
    expect(patched.status).toBe(200);
    for (const path of [
      `/rest/appliances/vendor_probe_template/${middle.pk}/`,
      `/rest/appliances/vendor_probe/${leaf.pk}/`,
      `/rest/appliances/vendor_probe/${direct.pk}/`,
    ]) {
      expect(await get(path)).toMatchObject({ home_net: '172.16.0.0/12', pcap_capture: true });
    }
  });

  test('a field the child overrides is not touched by the template', async () => {
    const t = await template({});
    const p = await probe({ parent_tmpl: t.pk, overriden_fields: ['timezone'], timezone: 'Europe/Paris' });
    await api.patch(`/rest/appliances/vendor_probe_template/${t.pk}/`, { timezone: 'Asia/Tokyo', ntp_server: 'ntp.example.com' });
    expect(await get(`/rest/appliances/vendor_probe/${p.pk}/`)).toMatchObject({ timezone: 'Europe/Paris', ntp_server: 'ntp.example.com' });
  });

  test('the child updated time moves when the template change reaches it', async () => {
    const t = await template({});
    const p = await probe({ parent_tmpl: t.pk });
    await api.patch(`/rest/appliances/vendor_probe_template/${t.pk}/`, { dns_server: '10.0.0.53' });
    const after = await get(`/rest/appliances/vendor_probe/${p.pk}/`);
    expect(after.updated > p.updated).toBe(true);
  });
});

describe('rule 3: clearing parent_tmpl', () => {
  test('leaves the child with the values it has and keeps overriden_fields', async () => {
    const t = await template({ home_net: '10.9.0.0/16' });
    const p = await probe({ parent_tmpl: t.pk, overriden_fields: ['timezone'], timezone: 'UTC' });
    const cleared = (await api.patch(`/rest/appliances/vendor_probe/${p.pk}/`, { parent_tmpl: null })).json();
    expect(cleared).toMatchObject({ parent_tmpl: null, home_net: '10.9.0.0/16', overriden_fields: ['timezone'] });
    await api.patch(`/rest/appliances/vendor_probe_template/${t.pk}/`, { home_net: '10.8.0.0/16' });
    expect((await get(`/rest/appliances/vendor_probe/${p.pk}/`)).home_net).toBe('10.9.0.0/16');
  });
});

describe('rule 4: interfaces inherit like parameters', () => {
  test('a child has its own interface objects mirroring the template, replaced by name', async () => {
    const t = await template({ interfaces: [{ name: 'eth1', active: true }, { name: 'eth2', active: false }] });
    const p = await probe({ parent_tmpl: t.pk });
    const before = p.interfaces;
    await api.patch(`/rest/appliances/vendor_probe_template/${t.pk}/`, {
      interfaces: [{ name: 'eth1', active: false }, { name: 'eth3', active: true }],
    });
    const after = (await get(`/rest/appliances/vendor_probe/${p.pk}/`)).interfaces;
    expect(pairs(after)).toEqual([
      ['eth1', false],
      ['eth3', true],
    ]);
    expect(after[0].pk).toBe(before[0].pk);
    const owned = (await get(`/rest/appliances/network_interface/?probe=${p.pk}`)).results;
    expect(owned.map((i: { probe: number; template: number | null }) => [i.probe, i.template])).toEqual([
      [p.pk, null],
      [p.pk, null],
    ]);
  });

  test('deleting a template interface removes it from the children that inherit interfaces', async () => {
    const t = await template({ interfaces: [{ name: 'eth1' }, { name: 'eth2' }] });
    const child = await template({ parent_tmpl: t.pk });
    const grandchild = await probe({ parent_tmpl: child.pk });
    const eth2 = t.interfaces.find((i: { name: string }) => i.name === 'eth2');
    const reply = await api.delete(`/rest/appliances/network_interface/${eth2.pk}/`, { comment: 'drop eth2' });
    expect(reply.status).toBe(204);
    expect(names((await get(`/rest/appliances/vendor_probe/${grandchild.pk}/`)).interfaces)).toEqual(['eth1']);
  });

  test('an inherited interface cannot be deleted from the child', async () => {
    const t = await template({ interfaces: [{ name: 'eth1' }] });
    const p = await probe({ parent_tmpl: t.pk });
    const reply = await api.delete(`/rest/appliances/network_interface/${p.interfaces[0].pk}/`);
    expect(reply.status).toBe(400);
    expect(reply.json()).toEqual({ detail: `This interface is inherited from template "${t.name}"; override interfaces to delete it.` });
  });

  test('an interface of a child that overrides interfaces can be deleted', async () => {
    const t = await template({ interfaces: [{ name: 'eth1' }] });
    const p = await probe({ parent_tmpl: t.pk, overriden_fields: ['interfaces'], interfaces: [{ name: 'wan0' }] });
    expect((await api.delete(`/rest/appliances/network_interface/${p.interfaces[0].pk}/`)).status).toBe(204);
    expect((await get(`/rest/appliances/vendor_probe/${p.pk}/`)).interfaces).toEqual([]);
  });
});

describe('rule 5: the protocol exception', () => {
  test('template protocol changes do not reach a child template used by a probe, nor its children', async () => {
    const t = await template({ protocols: [{ name: 'http', detection: true }] });
    const used = await template({ parent_tmpl: t.pk });
    const grandchild = await template({ parent_tmpl: used.pk });
    await probe({ parent_tmpl: used.pk });
    const direct = await probe({ parent_tmpl: t.pk });
    await api.patch(`/rest/appliances/vendor_probe_template/${t.pk}/`, {
      home_net: '192.168.77.0/24',
      protocols: [{ name: 'http', detection: false }, { name: 'dns', detection: true }],
    });
    const usedAfter = await get(`/rest/appliances/vendor_probe_template/${used.pk}/`);
    expect(usedAfter.home_net).toBe('192.168.77.0/24');
    expect(pairs(usedAfter.protocols)).toEqual([['http', true]]);
    expect(pairs((await get(`/rest/appliances/vendor_probe_template/${grandchild.pk}/`)).protocols)).toEqual([['http', true]]);
    expect(pairs((await get(`/rest/appliances/vendor_probe/${direct.pk}/`)).protocols)).toEqual([
      ['dns', true],
      ['http', false],
    ]);
  });

  test('a child template not used by a probe follows protocol changes', async () => {
    const t = await template({ protocols: [{ name: 'smb', detection: true }] });
    const unused = await template({ parent_tmpl: t.pk });
    await api.patch(`/rest/appliances/vendor_probe_template/${t.pk}/`, { protocols: [{ name: 'smb', detection: false }] });
    expect(pairs((await get(`/rest/appliances/vendor_probe_template/${unused.pk}/`)).protocols)).toEqual([['smb', false]]);
  });

  test('GET-modify-PUT of a child template left behind by the exception is accepted', async () => {
    const t = await template({ protocols: [{ name: 'http', detection: true }] });
    const used = await template({ parent_tmpl: t.pk });
    await probe({ parent_tmpl: used.pk });
    await api.patch(`/rest/appliances/vendor_probe_template/${t.pk}/`, { protocols: [{ name: 'tls', detection: true }] });
    const current = await get(`/rest/appliances/vendor_probe_template/${used.pk}/`);
    const reply = await api.put(`/rest/appliances/vendor_probe_template/${used.pk}/`, { ...current, descr: 'edited' });
    expect(reply.status, reply.text).toBe(200);
    expect(reply.json().descr).toBe('edited');
  });
});

describe('rule 6: inherited fields are refused a different value', () => {
  test('changing an inherited field is a 400 naming the template', async () => {
    const t = await template({});
    const p = await probe({ parent_tmpl: t.pk });
    const reply = await api.patch(`/rest/appliances/vendor_probe/${p.pk}/`, { home_net: '1.2.3.0/24', capture_threads: 9 });
    expect(reply.status).toBe(400);
    const message = `This field is inherited from template "${t.name}"; add it to overriden_fields to change it.`;
    expect(reply.json()).toEqual({ home_net: [message], capture_threads: [message] });
  });

  test('the same value as the inherited one is accepted', async () => {
    const t = await template({ capture_method: 'pcap' });
    const p = await probe({ parent_tmpl: t.pk });
    expect((await api.patch(`/rest/appliances/vendor_probe/${p.pk}/`, { capture_method: 'pcap' })).status).toBe(200);
  });

  test('adding the field to overriden_fields in the same request allows the change', async () => {
    const t = await template({});
    const p = await probe({ parent_tmpl: t.pk });
    const reply = await api.patch(`/rest/appliances/vendor_probe/${p.pk}/`, { home_net: '1.2.3.0/24', overriden_fields: ['home_net'] });
    expect(reply.status).toBe(200);
    expect(reply.json()).toMatchObject({ home_net: '1.2.3.0/24', overriden_fields: ['home_net'] });
  });

  test('an inherited interface list different from the template is refused; a reordered equal one is not', async () => {
    const t = await template({ interfaces: [{ name: 'a' }, { name: 'b', active: false }] });
    const p = await probe({ parent_tmpl: t.pk });
    const same = await api.patch(`/rest/appliances/vendor_probe/${p.pk}/`, { interfaces: [{ name: 'b', active: false }, { name: 'a' }] });
    expect(same.status).toBe(200);
    const different = await api.patch(`/rest/appliances/vendor_probe/${p.pk}/`, { interfaces: [{ name: 'a' }] });
    expect(different.status).toBe(400);
    expect(Object.keys(different.json())).toEqual(['interfaces']);
  });

  test('removing a field from overriden_fields gives it back to inheritance', async () => {
    const t = await template({ timezone: 'UTC' });
    const p = await probe({ parent_tmpl: t.pk, overriden_fields: ['timezone'], timezone: 'Europe/Berlin' });
    const reply = await api.patch(`/rest/appliances/vendor_probe/${p.pk}/`, { overriden_fields: [] });
    expect(reply.json()).toMatchObject({ timezone: 'UTC', overriden_fields: [] });
  });

  test('moving to another template takes all of its non-overridden values', async () => {
    const a = await template({ home_net: '10.1.0.0/16' });
    const b = await template({ home_net: '10.2.0.0/16', interfaces: [{ name: 'b0' }] });
    const p = await probe({ parent_tmpl: a.pk });
    const moved = (await api.patch(`/rest/appliances/vendor_probe/${p.pk}/`, { parent_tmpl: b.pk })).json();
    expect(moved).toMatchObject({ parent_tmpl: b.pk, home_net: '10.2.0.0/16' });
    expect(names(moved.interfaces)).toEqual(['b0']);
  });
});

describe('rule 7: parent_tmpl must exist and must not make a cycle', () => {
  test('an unknown template is refused in DRF wording', async () => {
    const reply = await api.post('/rest/appliances/vendor_probe/', { name: unique('p'), address: '10.0.0.2', parent_tmpl: 999999 });
    expect(reply.status).toBe(400);
    expect(reply.json()).toEqual({ parent_tmpl: ['Invalid pk "999999" - object does not exist.'] });
  });

  test('a template cannot inherit from itself', async () => {
    const t = await template({});
    const reply = await api.patch(`/rest/appliances/vendor_probe_template/${t.pk}/`, { parent_tmpl: t.pk });
    expect(reply.status).toBe(400);
    expect(reply.json()).toEqual({ parent_tmpl: ['A template cannot inherit from itself or its descendants.'] });
  });

  test('a template cannot inherit from its descendants', async () => {
    const t = await template({});
    const child = await template({ parent_tmpl: t.pk });
    const grandchild = await template({ parent_tmpl: child.pk });
    const reply = await api.patch(`/rest/appliances/vendor_probe_template/${t.pk}/`, { parent_tmpl: grandchild.pk });
    expect(reply.status).toBe(400);
    expect(reply.json()).toEqual({ parent_tmpl: ['A template cannot inherit from itself or its descendants.'] });
  });
});

describe('rule 8: a template still in use cannot be deleted', () => {
  test('the refusal names every user, templates first, and nothing is deleted', async () => {
    const t = await template({});
    const childT = await template({ parent_tmpl: t.pk });
    const childP = await probe({ parent_tmpl: t.pk });
    const reply = await api.delete(`/rest/appliances/vendor_probe_template/${t.pk}/`);
    expect(reply.status).toBe(400);
    expect(reply.json()).toEqual({ detail: `Template "${t.name}" is used by: template "${childT.name}", probe "${childP.name}"` });
    expect((await api.get(`/rest/appliances/vendor_probe_template/${t.pk}/`)).status).toBe(200);
  });

  test('an unused template is deleted with its interfaces', async () => {
    const t = await template({ interfaces: [{ name: 'eth9' }] });
    expect((await api.delete(`/rest/appliances/vendor_probe_template/${t.pk}/`)).status).toBe(204);
    expect((await api.get(`/rest/appliances/network_interface/${t.interfaces[0].pk}/`)).status).toBe(404);
  });
});
