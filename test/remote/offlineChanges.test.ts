/**
 * app.md §3 against a real central server (the reference DRF server): offline creates, edits and
 * deletes of templates, probes and interfaces reach the remote exactly, with the local negative
 * pks re-keyed to the remote's and every reference following.
 */
import { describe, expect, test } from 'vitest';
import { boundSiteForFile } from '../helpers/sync';

const bound = boundSiteForFile();

const T = '/rest/appliances/vendor_probe_template/';
const P = '/rest/appliances/vendor_probe/';

describe('offline changes, then a sync', () => {
  test('a first sync mirrors the remote with its own pks', async () => {
    const tmpl = (await bound.remote.api.post(T, { name: 'base', interfaces: [{ name: 'eth0' }, { name: 'eth1', active: false }], ntp_server: 'ntp.a' })).json();
    const probe = (await bound.remote.api.post(P, { name: 'edge-1', address: '10.0.0.1', parent_tmpl: tmpl.pk })).json();
    const report = await bound.site.sync();
    expect(report.outcome, JSON.stringify(report)).toBe('done');
    const local = (await bound.site.api.get(`${P}${probe.pk}/`)).json();
    expect(local.name).toBe('edge-1');
    expect(local.parent_tmpl).toBe(tmpl.pk);
    expect(local.interfaces.map((i: { name: string; pk: number }) => [i.name, i.pk])).toEqual(probe.interfaces.map((i: { name: string; pk: number }) => [i.name, i.pk]));
    expect((await bound.site.api.get(`${T}${tmpl.pk}/`)).json().ntp_server).toBe('ntp.a');
  });

  test('objects created offline get negative pks, then the remote pks, with references re-keyed', async () => {
    const base = (await bound.site.api.get(`${T}?name=base`)).json().results[0];
    const child = await bound.site.api.post(T, { name: 'child', parent_tmpl: base.pk, comment: 'site template' });
    expect(child.status).toBe(201);
    expect(child.json().pk).toBeLessThan(0);
    const probe = await bound.site.api.post(P, { name: 'edge-2', address: '10.0.0.2', parent_tmpl: child.json().pk, comment: 'installed today' });
    expect(probe.status, probe.text).toBe(201);
    expect(probe.json().pk).toBeLessThan(0);

    const report = await bound.site.sync();
    expect(report.outcome, JSON.stringify(report)).toBe('done');
    expect(report.pushed).toBe(2);

    const remoteChild = (await bound.remote.api.get(`${T}?name=child`)).json().results[0];
    const remoteProbe = (await bound.remote.api.get(`${P}?name=edge-2`)).json().results[0];
    expect(remoteChild.parent_tmpl).toBe(base.pk);
    expect(remoteProbe.parent_tmpl).toBe(remoteChild.pk);
    const local = (await bound.site.api.get(`${P}?name=edge-2`)).json().results[0];
    expect(local.pk).toBe(remoteProbe.pk);
    expect(local.parent_tmpl).toBe(remoteChild.pk);
    expect((await bound.site.api.get(`${P}${probe.json().pk}/`)).status).toBe(404);
    const history = (await bound.remote.api.get('/rest/rules/history/?ordering=-pk&page_size=5')).json().results;
    expect(history.map((h: { comment: string | null }) => h.comment)).toEqual(expect.arrayContaining(['site template', 'installed today']));
  });

  test('edits and deletes made offline reach the remote; interfaces merge by name', async () => {
    const probe = (await bound.site.api.get(`${P}?name=edge-1`)).json().results[0];
    expect((await bound.site.api.patch(`${P}${probe.pk}/`, { location: 'rack 4', comment: 'moved' })).status).toBe(200);
    const base = (await bound.site.api.get(`${T}?name=base`)).json().results[0];
    const eth1 = base.interfaces.find((i: { name: string }) => i.name === 'eth1');
    expect((await bound.site.api.delete(`/rest/appliances/network_interface/${eth1.pk}/`)).status).toBe(204);
    const child = (await bound.site.api.get(`${T}?name=child`)).json().results[0];
    const edge2 = (await bound.site.api.get(`${P}?name=edge-2`)).json().results[0];
    expect((await bound.site.api.delete(`${P}${edge2.pk}/`, { comment: 'removed' })).status).toBe(204);
    expect((await bound.site.api.delete(`${T}${child.pk}/`)).status).toBe(204);

    const report = await bound.site.sync();
    expect(report.outcome, JSON.stringify(report)).toBe('done');
    expect((await bound.remote.api.get(`${P}${probe.pk}/`)).json().location).toBe('rack 4');
    expect((await bound.remote.api.get(`${T}${base.pk}/`)).json().interfaces.map((i: { name: string }) => i.name)).toEqual(['eth0']);
    expect((await bound.remote.api.get(`${P}${probe.pk}/`)).json().interfaces.map((i: { name: string }) => i.name)).toEqual(['eth0']);
    expect((await bound.remote.api.get(`${P}${edge2.pk}/`)).status).toBe(404);
    expect((await bound.remote.api.get(`${T}${child.pk}/`)).status).toBe(404);
    const outbox = (await bound.site.api.get('/app/sync')).json();
    expect(outbox.entries).toEqual([]);
  });
});
