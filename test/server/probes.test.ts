/** api.md §3: the probe resources, their fields, validation and views. */
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

describe('vendor_probe_template (§3.2)', () => {
  test('a new template has every default of §3.1 and answers in field order', async () => {
    const reply = await api.post('/rest/appliances/vendor_probe_template/', { name: unique('t') });
    expect(reply.status).toBe(201);
    const body = reply.json();
    expect(Object.keys(body)).toEqual([
      'pk', 'name', 'descr', 'parent_tmpl', 'overriden_fields', 'home_net', 'external_net', 'capture_method',
      'capture_threads', 'pcap_capture', 'log_retention_days', 'ntp_server', 'dns_server', 'timezone',
      'interfaces', 'protocols', 'created', 'updated',
    ]);
    expect(body).toMatchObject({
      descr: '', parent_tmpl: null, overriden_fields: [], home_net: '[192.168.0.0/16,10.0.0.0/8,172.16.0.0/12]',
      external_net: '!$HOME_NET', capture_method: 'af_packet', capture_threads: 2, pcap_capture: false,
      log_retention_days: 30, ntp_server: '', dns_server: '', timezone: 'UTC', interfaces: [], protocols: [],
    });
  });

  test('limits and choices are checked in DRF wording', async () => {
    const reply = await api.post('/rest/appliances/vendor_probe_template/', {
      name: 'x'.repeat(101), capture_method: 'dpdk', capture_threads: 65, log_retention_days: 0, pcap_capture: 'maybe',
      overriden_fields: ['home_net', 'colour'],
    });
    expect(reply.status).toBe(400);
    expect(reply.json()).toEqual({
      name: ['Ensure this field has no more than 100 characters.'],
      overriden_fields: { '1': ['"colour" is not a valid choice.'] },
      capture_method: ['"dpdk" is not a valid choice.'],
      capture_threads: ['Ensure this value is less than or equal to 64.'],
      pcap_capture: ['Must be a valid boolean.'],
      log_retention_days: ['Ensure this value is greater than or equal to 1.'],
    });
  });

  test('interface items are checked one by one, repeated names refused on the item', async () => {
    const bad = await api.post('/rest/appliances/vendor_probe_template/', {
      name: unique('t'), interfaces: [{ name: 'eth0' }, { active: true }, 'eth2', { name: 'x'.repeat(33), active: 'no way' }],
    });
    expect(bad.json()).toEqual({
      interfaces: [
        {},
        { name: ['This field is required.'] },
        { non_field_errors: ['Invalid data. Expected a dictionary, but got str.'] },
        { name: ['Ensure this field has no more than 32 characters.'], active: ['Must be a valid boolean.'] },
      ],
    });
    const repeated = await api.post('/rest/appliances/vendor_probe_template/', { name: unique('t'), interfaces: [{ name: 'eth0' }, { name: 'eth0' }] });
    expect(repeated.json()).toEqual({ interfaces: [{}, { name: ['This name is already used in this list.'] }] });
    const notList = await api.post('/rest/appliances/vendor_probe_template/', { name: unique('t'), interfaces: { name: 'eth0' } });
    expect(notList.json()).toEqual({ interfaces: { non_field_errors: ['Expected a list of items but got type "dict".'] } });
  });

  test('interfaces and protocols come back ordered by name with their pk; a missing flag means true', async () => {
    const body = (
      await api.post('/rest/appliances/vendor_probe_template/', {
        name: unique('t'), interfaces: [{ name: 'eth2', active: false }, { name: 'eth1' }], protocols: [{ name: 'tls' }, { name: 'dns', detection: 'off' }],
      })
    ).json();
    expect(body.interfaces.map((i: { name: string; active: boolean }) => [i.name, i.active])).toEqual([['eth1', true], ['eth2', false]]);
    expect(body.protocols.map((p: { name: string; detection: boolean }) => [p.name, p.detection])).toEqual([['dns', false], ['tls', true]]);
    expect(typeof body.interfaces[0].pk).toBe('number');
  });

  test('filters, search and ordering of §3.2', async () => {
    const tag = unique('fso');
    await api.post('/rest/appliances/vendor_probe_template/', { name: `${tag}-b`, capture_method: 'pcap', descr: 'Branch office' });
    await api.post('/rest/appliances/vendor_probe_template/', { name: `${tag}-a`, capture_method: 'netmap', pcap_capture: true });
    const byMethod = (await api.get(`/rest/appliances/vendor_probe_template/?search=${tag}&capture_method=pcap`)).json();
    expect(byMethod.results.map((t: { name: string }) => t.name)).toEqual([`${tag}-b`]);
    const bySearch = (await api.get(`/rest/appliances/vendor_probe_template/?search=BRANCH ${tag}`)).json();
    expect(bySearch.count).toBe(1);
    const ordered = (await api.get(`/rest/appliances/vendor_probe_template/?search=${tag}&ordering=-name`)).json();
    expect(ordered.results.map((t: { name: string }) => t.name)).toEqual([`${tag}-b`, `${tag}-a`]);
    const pcap = (await api.get(`/rest/appliances/vendor_probe_template/?search=${tag}&pcap_capture=True`)).json();
    expect(pcap.results.map((t: { name: string }) => t.name)).toEqual([`${tag}-a`]);
  });
});

describe('vendor_probe (§3.3) and vendor_device (§3.7)', () => {
  test('address must be an IP address or a host name', async () => {
    for (const address of ['10.0.0.1', '2001:db8::1', 'probe-1.example.com']) {
      expect((await api.post('/rest/appliances/vendor_probe/', { name: unique('p'), address })).status).toBe(201);
    }
    for (const address of ['10.0.0.300', 'not an address', '-bad.example.com', '1.2.3']) {
      const reply = await api.post('/rest/appliances/vendor_probe/', { name: unique('p'), address });
      expect(reply.json()).toEqual({ address: ['Enter a valid IPv4 or IPv6 address.'] });
    }
  });

  test('name and address are required; names are unique among vendor probes only', async () => {
    expect((await api.post('/rest/appliances/vendor_probe/', {})).json()).toEqual({
      name: ['This field is required.'],
      address: ['This field is required.'],
    });
    const name = unique('shared-name');
    expect((await api.post('/rest/appliances/vendor_probe/', { name, address: '10.0.0.1' })).status).toBe(201);
    expect((await api.post('/rest/appliances/vendor_probe/', { name, address: '10.0.0.2' })).json()).toEqual({
      name: ['vendor probe with this name already exists.'],
    });
    expect((await api.post('/rest/appliances/engine_probe/', { name, address: '10.0.0.3' })).status).toBe(201);
  });

  test('each vendor probe has a vendor_device, created, renamed and deleted with it', async () => {
    const probe = (await api.post('/rest/appliances/vendor_probe/', { name: unique('dev'), address: '10.1.1.1', version: '7.1' })).json();
    const device = (await api.get(`/rest/appliances/vendor_device/${probe.vendordevice_id}/`)).json();
    expect(device).toEqual({ pk: probe.vendordevice_id, kind: 'probe', name: probe.name, address: '10.1.1.1', probe: probe.pk, version: '7.1' });
    await api.patch(`/rest/appliances/vendor_probe/${probe.pk}/`, { name: `${probe.name}-renamed` });
    expect((await api.get(`/rest/appliances/vendor_device/?probe=${probe.pk}`)).json().results[0].name).toBe(`${probe.name}-renamed`);
    expect((await api.delete(`/rest/appliances/vendor_probe/${probe.pk}/`)).status).toBe(204);
    expect((await api.get(`/rest/appliances/vendor_device/${probe.vendordevice_id}/`)).status).toBe(404);
  });

  test('vendor_device pk 1 is this Outpost instance', async () => {
    expect((await api.get('/rest/appliances/vendor_device/1/')).json()).toMatchObject({ pk: 1, kind: 'central', probe: null });
  });

  test('PUT requires the required fields; PATCH {} changes nothing; neither resets absent fields', async () => {
    const probe = (await api.post('/rest/appliances/vendor_probe/', { name: unique('put'), address: '10.2.2.2', location: 'Lyon' })).json();
    expect((await api.put(`/rest/appliances/vendor_probe/${probe.pk}/`, { descr: 'x' })).json()).toEqual({
      name: ['This field is required.'],
      address: ['This field is required.'],
    });
    const patched = (await api.patch(`/rest/appliances/vendor_probe/${probe.pk}/`, {})).json();
    expect({ ...patched, updated: probe.updated }).toEqual(probe);
    const put = (await api.put(`/rest/appliances/vendor_probe/${probe.pk}/`, { name: probe.name, address: '10.2.2.3' })).json();
    expect(put).toMatchObject({ address: '10.2.2.3', location: 'Lyon' });
    expect((await api.put('/rest/appliances/vendor_probe/99999999/', { name: 'x', address: '10.0.0.1' })).status).toBe(404);
  });
});

describe('shared pks and the appliances view (§3.5, §3.6)', () => {
  test('both families draw pks from one sequence, never reused', async () => {
    const a = (await api.post('/rest/appliances/vendor_probe/', { name: unique('seq'), address: '10.0.0.1' })).json();
    const b = (await api.post('/rest/appliances/engine_probe/', { name: unique('seq'), address: '10.0.0.2' })).json();
    await api.delete(`/rest/appliances/engine_probe/${b.pk}/`);
    const c = (await api.post('/rest/appliances/vendor_probe/', { name: unique('seq'), address: '10.0.0.3' })).json();
    expect(b.pk).toBeGreaterThan(a.pk);
    expect(c.pk).toBeGreaterThan(b.pk);
    expect((await api.get(`/rest/appliances/engine_probe/${a.pk}/`)).status).toBe(404);
  });

  test('appliances lists both families with type, and is read-only', async () => {
    const tag = unique('app');
    const v = (await api.post('/rest/appliances/vendor_probe/', { name: `${tag}-v`, address: '10.0.0.1' })).json();
    const e = (await api.post('/rest/appliances/engine_probe/', { name: `${tag}-e`, address: '10.0.0.2', location: 'Paris' })).json();
    const list = (await api.get(`/rest/appliances/appliances/?search=${tag}&ordering=pk`)).json();
    expect(list.results.map((r: { pk: number; type: string }) => [r.pk, r.type])).toEqual([[v.pk, 'vendor'], [e.pk, 'engine']]);
    expect(Object.keys(list.results[0])).toEqual(['pk', 'type', 'name', 'descr', 'address', 'location', 'version', 'enabled', 'created', 'updated']);
    expect((await api.get(`/rest/appliances/appliances/?search=${tag}&type=engine`)).json().results[0].pk).toBe(e.pk);
    const post = await api.post('/rest/appliances/appliances/', {});
    expect(post.status).toBe(405);
    expect(post.headers.allow).toBe('GET, HEAD, OPTIONS');
  });
});

describe('engine_probe (§3.4)', () => {
  test('ruleset must name an existing ruleset; deleting the ruleset clears it', async () => {
    const ruleset = (await api.post('/rest/rules/ruleset/', { name: unique('rs') })).json();
    const bad = await api.post('/rest/appliances/engine_probe/', { name: unique('e'), address: '10.0.0.9', ruleset: 424242 });
    expect(bad.json()).toEqual({ ruleset: ['Invalid pk "424242" - object does not exist.'] });
    const probe = (await api.post('/rest/appliances/engine_probe/', { name: unique('e'), address: '10.0.0.9', ruleset: ruleset.pk })).json();
    expect(Object.keys(probe)).toEqual(['pk', 'name', 'descr', 'address', 'location', 'version', 'enabled', 'home_net', 'ruleset', 'created', 'updated']);
    expect((await api.get(`/rest/appliances/engine_probe/?ruleset=${ruleset.pk}`)).json().count).toBe(1);
    expect((await api.get('/rest/appliances/engine_probe/?ruleset=abc')).json()).toEqual({ ruleset: ['Enter a number.'] });
    await api.delete(`/rest/rules/ruleset/${ruleset.pk}/`);
    expect((await api.get(`/rest/appliances/engine_probe/${probe.pk}/`)).json().ruleset).toBeNull();
  });
});

describe('network_interface (§3.8)', () => {
  test('GET and DELETE only; PUT is 405 with its Allow header', async () => {
    const t = (await api.post('/rest/appliances/vendor_probe_template/', { name: unique('t'), interfaces: [{ name: 'eth0' }] })).json();
    const iface = (await api.get(`/rest/appliances/network_interface/${t.interfaces[0].pk}/`)).json();
    expect(iface).toEqual({ pk: t.interfaces[0].pk, name: 'eth0', active: true, probe: null, template: t.pk });
    const put = await api.put(`/rest/appliances/network_interface/${iface.pk}/`, {});
    expect(put.status).toBe(405);
    expect(put.headers.allow).toBe('GET, DELETE, HEAD, OPTIONS');
    expect(put.json()).toEqual({ detail: 'Method "PUT" not allowed.' });
  });

  test('deleting an interface writes history naming interface and owner; the interface pk disappears once deleted', async () => {
    const t = (await api.post('/rest/appliances/vendor_probe_template/', { name: unique('t'), interfaces: [{ name: 'eth7' }] })).json();
    await api.delete(`/rest/appliances/network_interface/${t.interfaces[0].pk}/`, { comment: 'unused port' });
    const entry = (await api.get('/rest/rules/history/?action_type=delete_network_interface')).json().results[0];
    expect(entry).toMatchObject({
      comment: 'unused port',
      description: `admin has deleted interface eth7 of ${t.name}`,
      ua_objects: { interface: { type: 'network_interface', value: 'eth7' }, owner: { type: 'vendor_probe_template', pk: t.pk, value: t.name } },
    });
    expect(entry.ua_objects.interface).not.toHaveProperty('pk');
  });
});

describe('history of probe writes (§5)', () => {
  test('one entry per write, linked to the probe; none for a refused write', async () => {
    const before = (await api.get('/rest/rules/history/')).json().count;
    const probe = (await api.post('/rest/appliances/engine_probe/', { name: unique('h'), address: '10.0.0.1', comment: 'new site' })).json();
    await api.patch(`/rest/appliances/engine_probe/${probe.pk}/`, { location: 'x'.repeat(300) });
    await api.patch(`/rest/appliances/engine_probe/${probe.pk}/`, { location: 'Nantes', comment: 'moved' });
    await api.delete(`/rest/appliances/engine_probe/${probe.pk}/`, { comment: 'decommissioned' });
    const entries = (await api.get('/rest/rules/history/?ordering=pk&page_size=1000')).json();
    expect(entries.count).toBe(before + 3);
    const mine = entries.results.slice(-3);
    expect(mine.map((e: { action_type: string; comment: string }) => [e.action_type, e.comment])).toEqual([
      ['create_appliance', 'new site'],
      ['edit_appliance', 'moved'],
      ['delete_appliance', 'decommissioned'],
    ]);
    expect(mine[0].ua_objects).toEqual({ appliance: { type: 'engine_probe', value: probe.name } });
    expect(mine[0].description).toBe(`admin has created probe ${probe.name}`);
  });

  test('a bad comment refuses the whole write', async () => {
    const name = unique('nocomment');
    const reply = await api.post('/rest/appliances/vendor_probe/', { name, address: '10.0.0.1', comment: { text: 'x' } });
    expect(reply.json()).toEqual({ comment: ['Not a valid string.'] });
    expect((await api.get(`/rest/appliances/vendor_probe/?name=${name}`)).json().count).toBe(0);
  });
});
