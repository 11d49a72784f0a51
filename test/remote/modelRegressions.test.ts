/**
 * Bugs the model-based test (test/remote/model.test.ts) found, each pinned by the smallest
 * scenario that shows it: two workspaces bound to one central server (the reference DRF server).
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startReference, type ReferenceServer } from '../helpers/reference';
import { startBound, type BoundWorkspace } from '../helpers/sync';

let remote: ReferenceServer;
let a: BoundWorkspace;
let b: BoundWorkspace;

beforeAll(async () => {
  remote = await startReference();
  a = await startBound(remote, { workspace: 'a' });
  b = await startBound(remote, { workspace: 'b' });
}, 60_000);

afterAll(async () => {
  await a?.close();
  await b?.close();
  await remote?.stop();
});

const S = '/rest/rules/source/';
const RS = '/rest/rules/ruleset/';
const T = '/rest/appliances/vendor_probe_template/';
const P = '/rest/appliances/vendor_probe/';

async function syncDone(site: BoundWorkspace): Promise<void> {
  const report = await site.sync();
  expect(report.outcome, JSON.stringify(report)).toBe('done');
}

async function sameAsRemote(site: BoundWorkspace, path: string): Promise<void> {
  expect((await site.api.get(path)).json()).toEqual((await remote.api.get(path)).json());
}

describe('what a push learns about objects the workspace has not pulled yet', () => {
  test('a pushed change answered with a source not mirrored yet: the ruleset shows it after the pull', async () => {
    const ruleset = (await remote.api.post(RS, { name: 'rs-a' })).json();
    await syncDone(a);
    await syncDone(b);
    const source = (await b.api.post(S, { name: 'src-b', uri: 'http://b.example/rules' })).json();
    expect((await b.api.patch(`${RS}${ruleset.pk}/`, { sources: [source.pk] })).status).toBe(200);
    await syncDone(b);
    expect((await a.api.patch(`${RS}${ruleset.pk}/`, { descr: 'edited in a' })).status).toBe(200);
    await syncDone(a);
    const local = (await a.api.get(`${RS}${ruleset.pk}/`)).json();
    expect(local.descr).toBe('edited in a');
    expect(local.sources).toHaveLength(1);
    await sameAsRemote(a, `${RS}${ruleset.pk}/`);
  });

  test('a pushed change answered with a template not mirrored yet: the sync succeeds and the probe shows it', async () => {
    const probe = (await remote.api.post(P, { name: 'probe-a', address: '10.9.0.1' })).json();
    await syncDone(a);
    await syncDone(b);
    const template = (await b.api.post(T, { name: 'tmpl-b', ntp_server: 'ntp.b' })).json();
    expect((await b.api.patch(`${P}${probe.pk}/`, { parent_tmpl: template.pk })).status).toBe(200);
    await syncDone(b);
    expect((await a.api.patch(`${P}${probe.pk}/`, { location: 'rack 9' })).status).toBe(200);
    await syncDone(a);
    await sameAsRemote(a, `${P}${probe.pk}/`);
    expect((await a.api.get(`${P}${probe.pk}/`)).json().ntp_server).toBe('ntp.b');
  });
});

describe('a local write that changes nothing the central server keeps', () => {
  test('after a sync, the object is again exactly the central server\'s (its updated time too)', async () => {
    const probe = (await remote.api.post(P, { name: 'probe-noop', address: '10.9.0.2' })).json();
    await syncDone(a);
    expect((await a.api.patch(`${P}${probe.pk}/`, { name: 'probe-noop' })).status).toBe(200);
    await syncDone(a);
    await sameAsRemote(a, `${P}${probe.pk}/`);
  });
});

describe('giving up a local change shows the central server\'s state again, on the objects it touched too', () => {
  test('a deletion of a source in conflict, resolved "theirs": the source is back in its ruleset', async () => {
    const source = (await remote.api.post(S, { name: 'src-conflict', uri: 'http://a.example/rules' })).json();
    const ruleset = (await remote.api.post(RS, { name: 'rs-conflict', sources: [source.pk] })).json();
    await syncDone(a);
    expect((await remote.api.patch(`${S}${source.pk}/`, { datatype: 'sig' })).status).toBe(200);
    expect((await a.api.delete(`${S}${source.pk}/`)).status).toBe(204);
    expect((await a.api.get(`${RS}${ruleset.pk}/`)).json().sources).toEqual([]);
    expect((await a.sync()).outcome).toBe('conflicts');
    const [conflict] = (await a.api.get('/app/sync/conflicts')).json();
    expect(conflict.op).toBe('delete');
    expect((await a.api.post(`/app/sync/entries/${conflict.seq}/resolve`, { field: 'datatype', choice: 'theirs' })).status).toBe(200);
    await sameAsRemote(a, `${RS}${ruleset.pk}/`);
    await syncDone(a);
    await sameAsRemote(a, `${RS}${ruleset.pk}/`);
  });

  test('a refused change of a template, discarded: its children inherit the central server\'s values again', async () => {
    const template = (await remote.api.post(T, { name: 'tmpl-refused', ntp_server: 'ntp.a' })).json();
    const probe = (await remote.api.post(P, { name: 'probe-child', address: '10.9.0.3', parent_tmpl: template.pk })).json();
    await syncDone(a);
    expect((await remote.api.post(T, { name: 'tmpl-taken' })).status).toBe(201);
    expect((await a.api.patch(`${T}${template.pk}/`, { name: 'tmpl-taken', ntp_server: 'ntp.x' })).status).toBe(200);
    expect((await a.api.get(`${P}${probe.pk}/`)).json().ntp_server).toBe('ntp.x');
    expect((await a.sync()).outcome).toBe('conflicts');
    const parked = (await a.api.get('/app/sync')).json().entries.find((e: { state: string }) => e.state === 'parked');
    expect(parked.message).toContain('already exists');
    expect((await a.api.delete(`/app/sync/entries/${parked.seq}`)).status).toBe(204);
    await sameAsRemote(a, `${T}${template.pk}/`);
    await sameAsRemote(a, `${P}${probe.pk}/`);
    await syncDone(a);
    await sameAsRemote(a, `${P}${probe.pk}/`);
  });
});

describe('a local change that reached children by inheritance', () => {
  test('a grandchild the central server no longer links to the changed template shows the central server\'s values after the sync', async () => {
    const top = (await remote.api.post(T, { name: 'tmpl-top', ntp_server: 'ntp.a' })).json();
    const middle = (await remote.api.post(T, { name: 'tmpl-middle', parent_tmpl: top.pk })).json();
    const probe = (await remote.api.post(P, { name: 'probe-grandchild', address: '10.9.0.4', parent_tmpl: middle.pk })).json();
    await syncDone(a);
    expect((await remote.api.patch(`${T}${middle.pk}/`, { parent_tmpl: null })).status).toBe(200);
    expect((await a.api.patch(`${T}${top.pk}/`, { ntp_server: 'ntp.x' })).status).toBe(200);
    expect((await a.api.get(`${P}${probe.pk}/`)).json().ntp_server).toBe('ntp.x');
    await syncDone(a);
    await sameAsRemote(a, `${T}${middle.pk}/`);
    await sameAsRemote(a, `${P}${probe.pk}/`);
  });
});

describe('giving up the deletion of an interface', () => {
  test('a refused deletion of a template\'s interface, discarded: the interface is back', async () => {
    const parent = (await remote.api.post(T, { name: 'tmpl-ifaces', interfaces: [{ name: 'eth0' }] })).json();
    const child = (await remote.api.post(T, { name: 'tmpl-own-ifaces', parent_tmpl: parent.pk, overriden_fields: ['interfaces'], interfaces: [{ name: 'eth0' }] })).json();
    await syncDone(a);
    const eth0 = (await a.api.get(`${T}${child.pk}/`)).json().interfaces[0];
    expect((await a.api.delete(`/rest/appliances/network_interface/${eth0.pk}/`)).status).toBe(204);
    // Meanwhile the central server gives the interfaces back to the parent: deleting one is refused there.
    expect((await remote.api.patch(`${T}${child.pk}/`, { overriden_fields: [] })).status).toBe(200);
    expect((await a.sync()).outcome).toBe('conflicts');
    const parked = (await a.api.get('/app/sync')).json().entries.find((e: { state: string }) => e.state === 'parked');
    expect(parked.resource).toBe('network_interface');
    expect((await a.api.delete(`/app/sync/entries/${parked.seq}`)).status).toBe(204);
    await sameAsRemote(a, `${T}${child.pk}/`);
    await syncDone(a);
    await sameAsRemote(a, `${T}${child.pk}/`);
  });
});
