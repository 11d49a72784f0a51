/**
 * app.md §3 "Push": a field changed here and on the central server to different values is a
 * conflict, kept with base / mine / theirs and resolved field by field; a field changed only
 * there is taken; deleting what a colleague changed is a conflict too. And a template changed on
 * the central server reaches its children in the local mirror.
 */
import { beforeEach, describe, expect, test } from 'vitest';
import { boundSiteForFile } from '../helpers/sync';

const bound = boundSiteForFile();

const T = '/rest/appliances/vendor_probe_template/';
const P = '/rest/appliances/vendor_probe/';
let n = 0;

/** A probe on the central server, mirrored here by a sync. */
async function mirroredProbe(fields: Record<string, unknown> = {}): Promise<number> {
  n++;
  const created = await bound.remote.api.post(P, { name: `probe-${n}`, address: `10.1.0.${n}`, location: 'hall', ...fields });
  expect(created.status, created.text).toBe(201);
  expect((await bound.site.sync()).outcome).toBe('done');
  return created.json().pk;
}

async function conflicts() {
  return (await bound.site.api.get('/app/sync/conflicts')).json();
}

beforeEach(async () => {
  // Each test starts with nothing waiting.
  expect((await bound.site.api.get('/app/sync')).json().entries).toEqual([]);
});

describe('conflicts', () => {
  test('a field changed on both sides is a conflict with base, mine and theirs; the rest of the change goes through', async () => {
    const pk = await mirroredProbe();
    await bound.site.api.patch(`${P}${pk}/`, { location: 'rack 1', serial: 'SN-1', comment: 'site visit' });
    await bound.remote.api.patch(`${P}${pk}/`, { location: 'rack 9' });
    const report = await bound.site.sync();
    expect(report.outcome).toBe('conflicts');
    expect(report.conflicts).toBe(1);
    expect((await bound.remote.api.get(`${P}${pk}/`)).json()).toMatchObject({ location: 'rack 9', serial: 'SN-1' });
    const [conflict] = await conflicts();
    expect(conflict).toMatchObject({ op: 'update', resource: 'vendor_probe', pk, state: 'conflict', comment: 'site visit' });
    expect(conflict.conflicts).toEqual([{ field: 'location', base: 'hall', mine: 'rack 1', theirs: 'rack 9' }]);
    // Until resolved, this workspace shows its own value.
    expect((await bound.site.api.get(`${P}${pk}/`)).json().location).toBe('rack 1');
    // The status says so, for the indicator.
    expect((await bound.site.api.get('/app/status')).json().sync.outbox).toMatchObject({ conflicts: 1 });

    // Keep mine: pushed over theirs at the next sync, with the original comment.
    const resolved = await bound.site.api.post(`/app/sync/entries/${conflict.seq}/resolve`, { field: 'location', choice: 'mine' });
    expect(resolved.status, resolved.text).toBe(200);
    expect((await bound.site.sync()).outcome).toBe('done');
    expect((await bound.remote.api.get(`${P}${pk}/`)).json().location).toBe('rack 1');
    const history = (await bound.remote.api.get('/rest/rules/history/?ordering=-pk&page_size=1')).json().results[0];
    expect(history.comment).toBe('site visit');
  });

  test('take theirs: the central value is kept and shown here, nothing is pushed for that field', async () => {
    const pk = await mirroredProbe();
    await bound.site.api.patch(`${P}${pk}/`, { descr: 'mine' });
    await bound.remote.api.patch(`${P}${pk}/`, { descr: 'theirs' });
    expect((await bound.site.sync()).outcome).toBe('conflicts');
    const [conflict] = await conflicts();
    expect((await bound.site.api.post(`/app/sync/entries/${conflict.seq}/resolve`, { field: 'descr', choice: 'theirs' })).status).toBe(200);
    expect((await bound.site.api.get(`${P}${pk}/`)).json().descr).toBe('theirs');
    expect((await bound.site.api.get('/app/sync')).json().entries).toEqual([]);
    expect((await bound.site.sync()).outcome).toBe('done');
    expect((await bound.remote.api.get(`${P}${pk}/`)).json().descr).toBe('theirs');
  });

  test('several fields in conflict are resolved one by one; the entry waits until all are', async () => {
    const pk = await mirroredProbe();
    await bound.site.api.patch(`${P}${pk}/`, { descr: 'd-mine', serial: 's-mine' });
    await bound.remote.api.patch(`${P}${pk}/`, { descr: 'd-theirs', serial: 's-theirs' });
    expect((await bound.site.sync()).outcome).toBe('conflicts');
    const [conflict] = await conflicts();
    expect(conflict.conflicts.map((c: { field: string }) => c.field).sort()).toEqual(['descr', 'serial']);
    await bound.site.api.post(`/app/sync/entries/${conflict.seq}/resolve`, { field: 'descr', choice: 'theirs' });
    expect((await conflicts())[0].conflicts.map((c: { field: string }) => c.field)).toEqual(['serial']);
    // Still waiting: a sync pushes nothing of it.
    expect((await bound.site.sync()).outcome).toBe('conflicts');
    await bound.site.api.post(`/app/sync/entries/${conflict.seq}/resolve`, { field: 'serial', choice: 'mine' });
    expect((await bound.site.sync()).outcome).toBe('done');
    expect((await bound.remote.api.get(`${P}${pk}/`)).json()).toMatchObject({ descr: 'd-theirs', serial: 's-mine' });
    expect((await bound.site.api.get(`${P}${pk}/`)).json()).toMatchObject({ descr: 'd-theirs', serial: 's-mine' });
  });

  test('a field changed only on the central server is taken, without a conflict', async () => {
    const pk = await mirroredProbe();
    await bound.site.api.patch(`${P}${pk}/`, { location: 'rack 2' });
    await bound.remote.api.patch(`${P}${pk}/`, { serial: 'SN-remote', descr: 'remote note' });
    const report = await bound.site.sync();
    expect(report.outcome).toBe('done');
    expect((await bound.remote.api.get(`${P}${pk}/`)).json()).toMatchObject({ location: 'rack 2', serial: 'SN-remote', descr: 'remote note' });
    expect((await bound.site.api.get(`${P}${pk}/`)).json()).toMatchObject({ location: 'rack 2', serial: 'SN-remote', descr: 'remote note' });
  });

  test('interfaces added on both sides merge by name', async () => {
    const pk = await mirroredProbe({ interfaces: [{ name: 'eth0' }] });
    await bound.site.api.patch(`${P}${pk}/`, { interfaces: [{ name: 'eth0' }, { name: 'eth1', active: false }] });
    await bound.remote.api.patch(`${P}${pk}/`, { interfaces: [{ name: 'eth0' }, { name: 'eth2' }] });
    expect((await bound.site.sync()).outcome).toBe('done');
    const names = (await bound.remote.api.get(`${P}${pk}/`)).json().interfaces.map((i: { name: string; active: boolean }) => `${i.name}:${i.active}`);
    expect(names).toEqual(['eth0:true', 'eth1:false', 'eth2:true']);
    const local = (await bound.site.api.get(`${P}${pk}/`)).json().interfaces;
    expect(local.map((i: { name: string; active: boolean }) => `${i.name}:${i.active}`)).toEqual(names);
    expect(local.every((i: { pk: number }) => i.pk > 0)).toBe(true);
  });

  test('deleting an object a colleague changed meanwhile is a conflict; "theirs" keeps it, "mine" deletes it', async () => {
    const pk = await mirroredProbe();
    expect((await bound.site.api.delete(`${P}${pk}/`, { comment: 'decommissioned' })).status).toBe(204);
    await bound.remote.api.patch(`${P}${pk}/`, { location: 'moved by a colleague' });
    expect((await bound.site.sync()).outcome).toBe('conflicts');
    expect((await bound.remote.api.get(`${P}${pk}/`)).status).toBe(200);
    const [conflict] = await conflicts();
    expect(conflict).toMatchObject({ op: 'delete', pk });
    expect(conflict.conflicts).toEqual([{ field: 'location', base: 'hall', mine: null, theirs: 'moved by a colleague' }]);
    await bound.site.api.post(`/app/sync/entries/${conflict.seq}/resolve`, { field: 'location', choice: 'theirs' });
    // Kept: it is back here at once, as the central server has it.
    expect((await bound.site.api.get(`${P}${pk}/`)).json().location).toBe('moved by a colleague');
    expect((await bound.site.sync()).outcome).toBe('done');

    expect((await bound.site.api.delete(`${P}${pk}/`)).status).toBe(204);
    await bound.remote.api.patch(`${P}${pk}/`, { location: 'moved again' });
    expect((await bound.site.sync()).outcome).toBe('conflicts');
    const [again] = await conflicts();
    await bound.site.api.post(`/app/sync/entries/${again.seq}/resolve`, { field: 'location', choice: 'mine' });
    expect((await bound.site.sync()).outcome).toBe('done');
    expect((await bound.remote.api.get(`${P}${pk}/`)).status).toBe(404);
    expect((await bound.site.api.get(`${P}${pk}/`)).status).toBe(404);
  });

  test('deleting an interface a colleague changed meanwhile is a conflict too; "theirs" brings it back, "mine" deletes it', async () => {
    const pk = await mirroredProbe({ interfaces: [{ name: 'eth0', active: false }, { name: 'eth1' }] });
    const eth0 = () => bound.site.api.get(`${P}${pk}/`).then((r) => r.json().interfaces.find((i: { name: string }) => i.name === 'eth0'));
    const iface = await eth0();
    expect((await bound.site.api.delete(`/rest/appliances/network_interface/${iface.pk}/`)).status).toBe(204);
    await bound.remote.api.patch(`${P}${pk}/`, { interfaces: [{ name: 'eth0', active: true }, { name: 'eth1' }] });
    expect((await bound.site.sync()).outcome).toBe('conflicts');
    const [conflict] = await conflicts();
    expect(conflict).toMatchObject({ op: 'delete', resource: 'network_interface', pk: iface.pk });
    expect(conflict.conflicts).toEqual([{ field: 'active', base: false, mine: null, theirs: true }]);
    expect((await bound.remote.api.get(`/rest/appliances/network_interface/${iface.pk}/`)).json().active).toBe(true);
    await bound.site.api.post(`/app/sync/entries/${conflict.seq}/resolve`, { field: 'active', choice: 'theirs' });
    // Kept: back here at once, as the central server has it.
    expect(await eth0()).toMatchObject({ pk: iface.pk, active: true });
    expect((await bound.site.sync()).outcome).toBe('done');

    expect((await bound.site.api.delete(`/rest/appliances/network_interface/${iface.pk}/`)).status).toBe(204);
    await bound.remote.api.patch(`${P}${pk}/`, { interfaces: [{ name: 'eth0', active: false }, { name: 'eth1' }] });
    expect((await bound.site.sync()).outcome).toBe('conflicts');
    const [again] = await conflicts();
    await bound.site.api.post(`/app/sync/entries/${again.seq}/resolve`, { field: 'active', choice: 'mine' });
    expect((await bound.site.sync()).outcome).toBe('done');
    expect((await bound.remote.api.get(`/rest/appliances/network_interface/${iface.pk}/`)).status).toBe(404);
    expect(await eth0()).toBeUndefined();
  });

  test('resolving what is not a conflict is refused with a clear message', async () => {
    const reply = await bound.site.api.post('/app/sync/entries/999999/resolve', { field: 'x', choice: 'mine' });
    expect(reply.status).toBe(404);
    expect(reply.json().detail).toMatch(/no outbox entry 999999/);
    const bad = await bound.site.api.post('/app/sync/entries/1/resolve', { field: 'x', choice: 'both' });
    expect(bad.status).toBe(400);
    expect(bad.json()).toEqual({ choice: ['"both" is not a valid choice.'] });
  });
});

describe('pulls', () => {
  test("a template changed on the central server reaches its children in the local mirror", async () => {
    const tmpl = (await bound.remote.api.post(T, { name: 'tmpl-pull', ntp_server: 'ntp.old', interfaces: [{ name: 'eth0' }] })).json();
    const child = (await bound.remote.api.post(P, { name: 'child-pull', address: '10.2.0.1', parent_tmpl: tmpl.pk })).json();
    expect((await bound.site.sync()).outcome).toBe('done');
    expect((await bound.site.api.get(`${P}${child.pk}/`)).json().ntp_server).toBe('ntp.old');
    await bound.remote.api.patch(`${T}${tmpl.pk}/`, { ntp_server: 'ntp.new', interfaces: [{ name: 'eth0' }, { name: 'eth5' }] });
    const report = await bound.site.sync();
    expect(report.outcome).toBe('done');
    expect(report.pulled).toBeGreaterThanOrEqual(2);
    const local = (await bound.site.api.get(`${P}${child.pk}/`)).json();
    expect(local.ntp_server).toBe('ntp.new');
    expect(local.interfaces.map((i: { name: string }) => i.name)).toEqual(['eth0', 'eth5']);
  });

  test('objects deleted on the central server are removed here', async () => {
    const pk = await mirroredProbe();
    await bound.remote.api.delete(`${P}${pk}/`);
    expect((await bound.site.sync()).outcome).toBe('done');
    expect((await bound.site.api.get(`${P}${pk}/`)).status).toBe(404);
  });

  test('a local edit of an object deleted on the central server is kept as a refused change with the reason', async () => {
    const pk = await mirroredProbe();
    await bound.site.api.patch(`${P}${pk}/`, { descr: 'edited offline' });
    await bound.remote.api.delete(`${P}${pk}/`);
    const report = await bound.site.sync();
    expect(report.outcome).toBe('conflicts');
    const entries = (await bound.site.api.get('/app/sync')).json().entries;
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ state: 'parked', pk, fields: { descr: 'edited offline' } });
    expect(entries[0].message).toMatch(/deleted on the central server/);
    expect((await bound.site.api.delete(`/app/sync/entries/${entries[0].seq}`)).status).toBe(204);
  });

  test('a name taken on the central server by a colleague: the local object is set aside as "(local)" and its create refused with the remote message', async () => {
    const made = await bound.site.api.post(T, { name: 'shared-name' });
    expect(made.status).toBe(201);
    expect((await bound.remote.api.post(T, { name: 'shared-name', descr: 'the colleague’s' })).status).toBe(201);
    const report = await bound.site.sync();
    expect(report.outcome).toBe('conflicts');
    expect(report.parked).toBe(1);
    const names = (await bound.site.api.get(`${T}?search=shared-name`)).json().results.map((t: { name: string }) => t.name).sort();
    expect(names).toEqual(['shared-name', 'shared-name (local)']);
    const [entry] = (await bound.site.api.get('/app/sync')).json().entries;
    expect(entry).toMatchObject({ op: 'create', state: 'parked' });
    expect(entry.message).toMatch(/vendor probe template with this name already exists/);
    // Renaming it is the fix: the create goes again with the new name.
    await bound.site.api.patch(`${T}${made.json().pk}/`, { name: 'shared-name-site' });
    expect((await bound.site.sync()).outcome).toBe('done');
    expect((await bound.remote.api.get(`${T}?name=shared-name-site`)).json().count).toBe(1);
    expect((await bound.remote.api.get(`${T}?name=shared-name`)).json().results[0].descr).toBe('the colleague’s');
  });
});

describe('history', () => {
  test('every push and pull that moved something is recorded locally as sync_push and sync_pull', async () => {
    const pk = await mirroredProbe();
    const other = await mirroredProbe();
    await bound.site.api.patch(`${P}${pk}/`, { descr: 'for the history' });
    await bound.remote.api.patch(`${P}${other}/`, { location: 'changed on the central server' });
    await bound.site.api.post('/app/sync', {});
    await expect.poll(async () => (await bound.site.api.get('/app/sync')).json().status.syncing, { timeout: 20_000 }).toBe(false);
    const local = (await bound.site.api.get('/rest/rules/history/?ordering=-pk&page_size=2')).json().results;
    expect(local.map((h: { description: string }) => h.description)).toEqual(['admin has pulled 1 changes from central', 'admin has pushed 1 changes to central']);
  });
});
