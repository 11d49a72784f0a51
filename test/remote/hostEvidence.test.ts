/**
 * Local EVE evidence in a bound workspace, against a real central server (the reference DRF
 * server, issue 10): the API serves one identity per address, the central server's and the
 * local evidence read together; a pull never erases local evidence, never deletes an address
 * only the local import knows, and writes no host the central server did not change; nothing of
 * the local evidence is pushed.
 */
import path from 'node:path';
import { expect, test } from 'vitest';
import { fileSources, importEve } from '../../electron/workspaces/eveImport';
import { boundSiteForFile } from '../helpers/sync';
import { SAMPLES_DIR } from '../helpers/workplace';

const SAMPLE = path.join(SAMPLES_DIR, 'eve', 'Tr0llope-suricata_report_generator-eve.json');
const H = '/rest/appliances/host_id/';

const bound = boundSiteForFile();

const seen = { first_seen: '2022-01-01T00:00:00.000000+00:00', last_seen: '2022-01-02T00:00:00.000000+00:00' };

test('the central server\'s identity and the local evidence are served together, and survive pulls', async () => {
  const imported = await bound.remote.api.post(`${H}import/`, [
    { ip: '172.16.0.153', hits: 2, host_id: { ...seen, hostname: [{ host: 'desktop-armani.fashionkings.com', ...seen }] } },
    { ip: '10.99.0.1', hits: 0, host_id: { ...seen } },
  ]);
  expect(imported.status, imported.text).toBe(201);
  expect((await bound.site.sync()).outcome).toBe('done');

  const { sources } = fileSources([SAMPLE]);
  await importEve(bound.site.host.current().services, { sources });
  const host = (await bound.site.api.get(`${H}172.16.0.153`)).json();
  expect(host.host_id.first_seen).toBe(seen.first_seen);
  expect(host.host_id.hostname.map((h: { host: string }) => h.host).sort()).toEqual(['DESKTOP-ARMANI', 'desktop-armani.fashionkings.com']);
  expect(host.host_id.username.map((u: { user: string }) => u.user)).toEqual(['giorgio.armani']);
  const localOnly = (await bound.site.api.get(`${H}67.205.184.237`)).json();
  expect(localOnly.host_id.hostname.map((h: { host: string }) => h.host)).toContain('vgiragdoffy.com');

  // A pull of hosts the central server did not change writes none of them.
  const rows = () => bound.site.host.current().services.store.db.prepare('SELECT ip, data FROM host_id ORDER BY ip').all();
  const before = rows();
  const again = await bound.site.sync();
  expect(again.outcome).toBe('done');
  expect(again.pulled).toBe(0);
  expect(rows()).toEqual(before);

  // The central server changes one of its hosts: its part is written again, the local evidence stays.
  const dropped = await bound.remote.api.post(`${H}import/`, [{ ip: '172.16.0.153', hits: 5, host_id: { ...seen } }]);
  expect(dropped.status).toBe(201);
  expect((await bound.site.sync()).outcome).toBe('done');
  const after = (await bound.site.api.get(`${H}172.16.0.153`)).json();
  // hits: the larger of the central server's count and the local one (docs/eve.md).
  const localHits = bound.site.host.current().services.store.db.prepare("SELECT hits FROM host_local WHERE ip = '172.16.0.153'").pluck().get() as number;
  expect(localHits).toBeGreaterThan(5);
  expect(after.hits).toBe(localHits);
  expect(bound.site.host.current().services.store.db.prepare("SELECT central_hits FROM host_id WHERE ip = '172.16.0.153'").pluck().get()).toBe(5);
  expect(after.host_id.username.map((u: { user: string }) => u.user)).toEqual(['giorgio.armani']);
  expect((await bound.site.api.get(`${H}67.205.184.237`)).json().host_id.hostname.map((h: { host: string }) => h.host)).toContain('vgiragdoffy.com');

  // Nothing local is pushed: the central server knows only its own hosts.
  expect((await bound.remote.api.get(`${H}67.205.184.237`)).json()).toEqual({ ip: '67.205.184.237', hits: 0 });
  expect(bound.site.session().engine.status().outbox).toEqual({ pending: 0, parked: 0, conflicts: 0 });
});
