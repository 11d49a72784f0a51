/**
 * app.md §3.5: every push and pull is recorded in the local history — with true figures. A sync
 * that moved nothing writes no entry; the echo of this site's own push (the central server's
 * history entry for it, a template's children coming back with the central server's times) is
 * not counted as pulled. Against the reference server with its example seed.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { REFERENCE_DIR, startReference, type ReferenceServer } from '../helpers/reference';
import { startBound, type BoundWorkspace } from '../helpers/sync';

const T = '/rest/appliances/vendor_probe_template/';
const P = '/rest/appliances/vendor_probe/';

let remote: ReferenceServer;
let site: BoundWorkspace;

beforeAll(async () => {
  remote = await startReference({ seed: path.join(REFERENCE_DIR, 'example-seed.json') });
  site = await startBound(remote);
  const first = await site.sync();
  expect(first.pulled).toBeGreaterThan(0);
}, 60_000);
afterAll(async () => {
  await site?.close();
  await remote?.stop();
});

async function newestEntryPk(): Promise<number> {
  const [entry] = (await site.api.get('/rest/rules/history/?page_size=1')).json().results;
  return entry?.pk ?? 0;
}

/** The local history's entries after `pk`, oldest first, as `[action_type, description]`. */
async function entriesAfter(pk: number): Promise<[string, string][]> {
  const results = (await site.api.get('/rest/rules/history/?ordering=pk&page_size=100')).json().results as { pk: number; action_type: string; description: string }[];
  return results.filter((e) => e.pk > pk).map((e) => [e.action_type, e.description]);
}

/** "Sync now", as the app's button calls it, and its end. */
async function syncNow(): Promise<void> {
  expect((await site.api.post('/app/sync', {})).status).toBe(202);
  await expect.poll(async () => (await site.api.get('/app/sync')).json().status.syncing, { timeout: 20_000 }).toBe(false);
}

describe('the history of a sync', () => {
  test('a sync while nothing changed on either side counts nothing and writes no entry', async () => {
    const since = await newestEntryPk();
    const report = await site.sync();
    expect(report).toMatchObject({ outcome: 'done', pushed: 0, pulled: 0 });
    await syncNow();
    await syncNow();
    expect(await entriesAfter(since)).toEqual([]);
  });

  test('a pushed probe change is pushed 1 and pulled 0: the central server’s entry for it is not a pulled change', async () => {
    const pk = (await remote.api.get(`${P}?ordering=pk&page_size=1`)).json().results[0].pk;
    const since = await newestEntryPk();
    await site.api.patch(`${P}${pk}/`, { descr: 'changed at the site' });
    expect(await site.sync()).toMatchObject({ outcome: 'done', pushed: 1, pulled: 0 });
    expect(await entriesAfter(since)).toEqual([
      ['edit_appliance', expect.stringMatching(/^admin has edited probe /)],
      ['sync_push', 'admin has pushed 1 changes to central'],
    ]);
    // The central server's entry is mirrored all the same, for the Central server tab.
    const mirrored = (await site.api.get('/app/sync/remote-history?page_size=5')).json().results as { action_type: string }[];
    expect(mirrored.map((e) => e.action_type)).toContain('edit_appliance');
  });

  test('a pushed template change is not pulled back through its children', async () => {
    const template = (await remote.api.get(`${T}?ordering=pk&page_size=1`)).json().results[0];
    const since = await newestEntryPk();
    await site.api.patch(`${T}${template.pk}/`, { timezone: 'Europe/Paris' });
    expect(await site.sync()).toMatchObject({ outcome: 'done', pushed: 1, pulled: 0 });
    expect((await entriesAfter(since)).map(([type]) => type)).toEqual(['edit_template', 'sync_push']);
    expect(await site.sync()).toMatchObject({ pushed: 0, pulled: 0 });
  });

  test('a change made on the central server is pulled and counted once', async () => {
    const pk = (await remote.api.get(`${P}?ordering=pk&page_size=1`)).json().results[0].pk;
    await remote.api.patch(`${P}${pk}/`, { location: 'moved by a colleague' });
    const since = await newestEntryPk();
    expect(await site.sync()).toMatchObject({ outcome: 'done', pushed: 0, pulled: 1 });
    expect(await entriesAfter(since)).toEqual([['sync_pull', 'admin has pulled 1 changes from central']]);
    expect((await site.api.get(`${P}${pk}/`)).json().location).toBe('moved by a colleague');
  });
});
