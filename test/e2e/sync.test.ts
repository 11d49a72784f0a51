/**
 * Working against a central server in Chromium (app.md §3, §4 "Sync", "Settings: remotes",
 * "History: local and remote", the always-visible indicator), as a field engineer does: an edit
 * made offline waits, "Sync now" pushes it with a progress bar, a conflict with a colleague's
 * edit is resolved field by field, a refused create is read and discarded, the central server's
 * history is read live and, offline, from the last sync, and a remote is added in Settings for a
 * new bound workspace. The central server is the reference DRF server, reached through a link
 * the test slows down and cuts. Takes docs/screenshots/sync.png and conflicts.png (written there with OUTPOST_SCREENSHOTS=1).
 * The screens' pure helpers are tested in test/renderer/ (syncFormat, syncModel).
 */
import net from 'node:net';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startReference, type ReferenceServer } from '../helpers/reference';
import { startBound, type BoundWorkspace } from '../helpers/sync';
import { openAppAt, RENDERER_DIR, screenshot, type PageSession } from './browser';

/**
 * The field engineer's link to the central server: a TCP relay the test can slow down (each
 * answer's chunks held `delayMs`) and cut (connections refused and dropped) and bring back.
 */
interface Link {
  readonly url: string;
  delayMs: number;
  down(): void;
  up(): void;
  close(): Promise<void>;
}

async function openLink(target: string): Promise<Link> {
  const { hostname, port } = new URL(target);
  const sockets = new Set<net.Socket>();
  let up = true;
  const track = (socket: net.Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  };
  const server = net.createServer((client) => {
    track(client);
    if (!up) return void client.destroy();
    const upstream = net.connect(Number(port), hostname);
    track(upstream);
    let queue = Promise.resolve();
    client.on('data', (chunk) => upstream.write(chunk));
    upstream.on('data', (chunk) => {
      const delay = link.delayMs;
      queue = queue.then(() => (delay > 0 ? new Promise((resolve) => setTimeout(resolve, delay)) : undefined)).then(() => void (client.destroyed || client.write(chunk)));
    });
    upstream.on('end', () => void queue.then(() => client.end()));
    client.on('end', () => upstream.end());
    for (const [a, b] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      a.on('error', () => b.destroy());
      a.on('close', () => void queue.then(() => b.destroy()));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as net.AddressInfo;
  const link: Link = {
    url: `http://127.0.0.1:${address.port}`,
    delayMs: 0,
    down() {
      up = false;
      for (const socket of sockets) socket.destroy();
    },
    up() {
      up = true;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
  return link;
}

const T = '/rest/appliances/vendor_probe_template/';
const P = '/rest/appliances/vendor_probe/';
const E = '/rest/appliances/engine_probe/';

// Tests read API bodies loosely.
type Body = Record<string, any>;

let remote: ReferenceServer;
let link: Link;
let site: BoundWorkspace;
let browser: PageSession;
let page: Page;
const probes: Record<string, Body> = {};

async function created(reply: Promise<{ status: number; text: string; json(): any }>): Promise<Body> {
  const answer = await reply;
  if (answer.status !== 201) throw new Error(`${answer.status} ${answer.text}`);
  return answer.json();
}

async function ok(reply: Promise<{ status: number; text: string; json(): any }>): Promise<Body> {
  const answer = await reply;
  if (answer.status !== 200) throw new Error(`${answer.status} ${answer.text}`);
  return answer.json();
}

beforeAll(async () => {
  remote = await startReference();
  link = await openLink(remote.url);
  site = await startBound({ url: link.url, token: remote.token }, { rendererDir: RENDERER_DIR });
  // The central server as colleagues left it: a template, probes of both families.
  const branch = await created(
    remote.api.post(T, { name: 'Branch sites', descr: 'Sites behind a branch router', interfaces: [{ name: 'eth0' }, { name: 'eth1' }], ntp_server: 'ntp1.acme.example', comment: 'baseline' }),
  );
  const own = [{ name: 'eth0', active: true }, { name: 'eth1', active: true }];
  probes.lyon1 = await created(remote.api.post(P, { name: 'lyon-edge-1', address: '10.20.0.11', location: 'Lyon, rack 2', descr: 'Edge router, ground floor', interfaces: own }));
  probes.lyon2 = await created(remote.api.post(P, { name: 'lyon-edge-2', address: '10.20.0.12', location: 'Lyon, rack 2', parent_tmpl: branch.pk }));
  probes.paris3 = await created(remote.api.post(P, { name: 'paris-edge-3', address: '10.40.0.13', location: 'Paris, 3rd floor', parent_tmpl: branch.pk }));
  probes.nantes = await created(remote.api.post(E, { name: 'nantes-ids-1', address: '10.30.0.5', location: 'Nantes, DC hall A' }));
  const first = await site.sync();
  if (first.outcome !== 'done') throw new Error(`first sync: ${JSON.stringify(first)}`);
  browser = await openAppAt(site.url, { expectedStatuses: [502] });
  page = browser.page;
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await site?.close();
  await link?.close();
  await remote?.stop();
});

const indicator = () => page.getByTestId('sync-indicator');

/** A control of the form shown in the detail pane, by its label. */
function field(label: string): Locator {
  return page.getByRole('form').getByLabel(label, { exact: true });
}

async function open(hash: string): Promise<void> {
  await page.goto(`${site.url}/${hash}`);
}

/** Click "Sync now" on the Sync screen and wait until the sync has ended. */
async function syncNow(): Promise<void> {
  const started = page.waitForResponse((r) => r.url().endsWith('/app/sync') && r.request().method() === 'POST');
  await page.getByRole('button', { name: 'Sync now' }).click();
  expect((await started).status()).toBe(202);
  await page.getByRole('button', { name: 'Sync now' }).waitFor();
}

describe('the status bar and the Sync screen', () => {
  test('the status bar says the central server is online, then counts a change made while offline', async () => {
    await open('#/probes');
    await page.getByRole('navigation', { name: 'Screens' }).getByRole('link', { name: 'Sync', exact: true }).waitFor();
    await indicator().getByText('Online').waitFor();
    await indicator().getByText('No changes waiting').waitFor();

    link.down();
    await open(`#/probes/vendor/${probes.lyon2!.pk}`);
    await field('Location').fill('Lyon, rack 4');
    await field('Comment for the history (optional)').fill('swapped racks with the switch');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    // The indicator follows on its own (no reload).
    await indicator().getByText('1 change waiting').waitFor();

    await indicator().getByRole('link', { name: '1 change waiting' }).click();
    await page.getByRole('heading', { name: 'Sync', level: 1 }).waitFor();
    const outbox = page.getByRole('table', { name: 'Changes waiting' });
    const row = outbox.getByRole('row', { name: /lyon-edge-2/ });
    await expect.poll(() => row.innerText()).toMatch(/Change\s+vendor probe lyon-edge-2\s+Location\s+Waiting\s+swapped racks with the switch\s+just now/);
    expect(await row.getByRole('link', { name: 'lyon-edge-2' }).getAttribute('href')).toBe(`#/probes/vendor/${probes.lyon2!.pk}`);

    await syncNow();
    await page.getByTestId('sync-connection').getByText('Offline').waitFor();
    await page.getByText(/could not be reached at the last attempt/).waitFor();
    await indicator().getByText('Offline').waitFor();
    expect(await page.locator('.sync-last-error').innerText()).not.toBe('');
    expect((await ok(remote.api.get(`${P}${probes.lyon2!.pk}/`))).location).toBe('Lyon, rack 2');
  });

  test('Sync now pushes the waiting change, with a progress bar while it runs', async () => {
    link.up();
    link.delayMs = 120;
    try {
      await page.getByRole('button', { name: 'Sync now' }).click();
      const bar = page.getByRole('progressbar', { name: 'Sync progress' });
      await bar.waitFor();
      expect(await bar.getAttribute('aria-valuetext')).toMatch(/^(Pushing changes|Pulling [a-z ]+)/);
      await indicator().getByText('Syncing…').waitFor();
      // A pull phase with its counts shows before the end.
      await expect
        .poll(async () => (await bar.count()) === 0 || /^Pulling [a-z ]+: \d+ of \d+$/.test((await bar.getAttribute('aria-valuetext')) ?? ''), { timeout: 20_000 })
        .toBe(true);
      await bar.waitFor({ state: 'detached', timeout: 30_000 });
    } finally {
      link.delayMs = 0;
    }
    await page.getByTestId('sync-connection').getByText('Online').waitFor();
    await page.getByText('Nothing waits: every change made here has reached the central server.').waitFor();
    await indicator().getByText('No changes waiting').waitFor();
    expect((await ok(remote.api.get(`${P}${probes.lyon2!.pk}/`))).location).toBe('Lyon, rack 4');
    const history = (await ok(remote.api.get('/rest/rules/history/?ordering=-pk&page_size=5'))).results;
    expect(history.map((h: Body) => h.comment)).toContain('swapped racks with the switch');
  });

  test('a field changed here and on the central server is a conflict, resolved field by field', async () => {
    const pk = probes.lyon1!.pk;
    await ok(
      site.api.patch(`${P}${pk}/`, {
        location: 'Lyon, rack 7',
        descr: '',
        interfaces: [
          { name: 'eth0', active: true },
          { name: 'eth1', active: false },
        ],
        comment: 'moved after the audit',
      }),
    );
    await ok(remote.api.patch(`${P}${pk}/`, { location: 'Lyon, cage B', descr: 'Edge router, replaced PSU', interfaces: [{ name: 'eth0', active: true }], comment: 'PSU swap' }));
    await open('#/probes');
    // A sync in the background (as the app's timer runs one): the indicator learns of the conflict by itself.
    const report = await site.sync();
    expect(report.outcome, JSON.stringify(report)).toBe('conflicts');
    await indicator().getByRole('link', { name: '1 conflict' }).click();
    await page.getByRole('heading', { name: 'Sync: conflicts' }).waitFor();

    const table = page.getByRole('table', { name: 'Conflicting fields of lyon-edge-1' });
    const location = table.getByRole('row', { name: /^Location/ });
    const description = table.getByRole('row', { name: /^Description/ });
    const interfaces = table.getByRole('row', { name: /^Interfaces/ });
    expect((await location.getByRole('cell').allInnerTexts()).slice(0, 3)).toEqual(['Lyon, rack 2', 'Lyon, rack 7', 'Lyon, cage B']);
    expect((await description.getByRole('cell').allInnerTexts()).slice(0, 3)).toEqual(['Edge router, ground floor', '(empty)', 'Edge router, replaced PSU']);
    expect((await interfaces.getByRole('cell').allInnerTexts()).slice(0, 3)).toEqual(['eth0 (active)\neth1 (active)', 'eth0 (active)\neth1 (inactive)', 'eth0 (active)\neth1 (removed)']);
    await page.getByText('with the comment').waitFor();
    await indicator().getByText('Syncing…').waitFor({ state: 'detached' });
    await screenshot(page, 'conflicts');

    // By keyboard: once a field is decided, the focus moves on to the next field's choices.
    await location.getByRole('button', { name: 'Keep mine' }).focus();
    await page.keyboard.press('Enter');
    await location.waitFor({ state: 'detached' });
    await expect.poll(() => page.evaluate<string | null>("document.activeElement?.getAttribute('aria-label') ?? null")).toBe('Keep mine for Description');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await description.waitFor({ state: 'detached' });
    await interfaces.getByRole('button', { name: 'Keep mine' }).click();
    await page.getByText('No conflicts wait.').waitFor();
    await indicator().getByText('1 change waiting').waitFor();

    await syncNow();
    await indicator().getByText('No changes waiting').waitFor();
    const there = await ok(remote.api.get(`${P}${pk}/`));
    const here = await ok(site.api.get(`${P}${pk}/`));
    for (const probe of [there, here]) {
      expect(probe.location).toBe('Lyon, rack 7');
      expect(probe.descr).toBe('Edge router, replaced PSU');
      expect(probe.interfaces.map((i: Body) => [i.name, i.active])).toEqual([
        ['eth0', true],
        ['eth1', false],
      ]);
    }
    const history = (await ok(remote.api.get('/rest/rules/history/?ordering=-pk&page_size=3'))).results;
    expect(history.map((h: Body) => h.comment)).toContain('moved after the audit');
  });

  test('deleting what a colleague changed meanwhile asks: delete anyway, or keep it', async () => {
    const pk = probes.paris3!.pk;
    expect((await site.api.delete(`${P}${pk}/`, { comment: 'decommissioned' })).status).toBe(204);
    await ok(remote.api.patch(`${P}${pk}/`, { location: 'Paris, 4th floor' }));
    expect((await site.sync()).outcome).toBe('conflicts');
    await open('#/sync');
    await page.getByRole('link', { name: 'Resolve conflicts' }).click();
    await page.getByText('You deleted this; it was changed on the central server meanwhile.').waitFor();
    const changes = page.getByRole('table', { name: 'Changes to paris-edge-3 on the central server' });
    expect((await changes.getByRole('row', { name: /^Location/ }).getByRole('cell').allInnerTexts())).toEqual(['Paris, 3rd floor', 'Paris, 4th floor']);
    await page.getByRole('button', { name: 'Keep it' }).click();
    await page.getByText('No conflicts wait.').waitFor();
    const kept = await ok(site.api.get(`${P}${pk}/`));
    expect(kept.location).toBe('Paris, 4th floor');
    expect((await remote.api.get(`${P}${pk}/`)).status).toBe(200);
  });

  test('a change the central server refuses shows its message, waits with the others, and can be discarded', async () => {
    const mine = await created(site.api.post(P, { name: 'nantes-edge-2', address: '10.30.0.12', location: 'Nantes, DC hall B', comment: 'installed on site' }));
    expect(mine.pk).toBeLessThan(0);
    await created(remote.api.post(P, { name: 'nantes-edge-2', address: '10.30.0.99', comment: 'staged at the warehouse' }));
    expect((await site.sync()).outcome).toBe('conflicts');
    // Two more changes made after that sync: they wait for the next one.
    await ok(site.api.patch(`${E}${probes.nantes!.pk}/`, { location: 'Nantes, DC hall B', comment: 'moved with nantes-edge-2' }));
    await ok(site.api.patch(`${P}${probes.lyon2!.pk}/`, { version: '7.0.3', comment: 'upgraded on site' }));

    await open('#/sync');
    const refused = page.getByRole('listitem', { name: 'Refused: create nantes-edge-2' });
    await refused.getByText('vendor probe with this name already exists.').waitFor();
    await refused.getByText('The central server answered:').waitFor();
    const outbox = page.getByRole('table', { name: 'Changes waiting' });
    await expect.poll(() => outbox.getByRole('row').count()).toBe(4);
    await indicator().getByText('2 changes waiting').waitFor();
    await indicator().getByText('1 refused change').waitFor();
    await screenshot(page, 'sync');

    // Retried as it is, it is refused again, with the same words.
    await refused.getByRole('button', { name: 'Retry nantes-edge-2' }).click();
    await refused.waitFor({ state: 'detached' });
    await expect.poll(() => outbox.getByRole('row', { name: /^Create vendor probe nantes-edge-2/ }).innerText()).toMatch(/Waiting/);
    expect((await site.sync()).outcome).toBe('conflicts');
    await refused.getByText('vendor probe with this name already exists.').waitFor();

    await refused.getByRole('button', { name: 'Discard nantes-edge-2' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByText('The object made here is removed').waitFor();
    await dialog.getByRole('button', { name: 'Discard the change' }).click();
    await refused.waitFor({ state: 'detached' });
    expect((await site.api.get(`${P}${mine.pk}/`)).status).toBe(404);

    await syncNow();
    await indicator().getByText('No changes waiting').waitFor();
    // The colleague's probe of that name is the one this workspace now has.
    const [theirs] = (await ok(site.api.get(`${P}?name=nantes-edge-2`))).results;
    expect(theirs.address).toBe('10.30.0.99');
    expect((await ok(remote.api.get(`${E}${probes.nantes!.pk}/`))).location).toBe('Nantes, DC hall B');
  });
});

describe('the central server’s history', () => {
  test('is read live through the proxy with the pushed comments, and offline from the copy of the last sync', async () => {
    await open('#/history');
    await page.getByRole('navigation', { name: 'Whose history' }).getByRole('link', { name: 'Central server' }).click();
    const grid = page.getByRole('grid', { name: 'Central server history entries' });
    await grid.getByText('moved after the audit').waitFor();
    await grid.getByText('swapped racks with the switch').waitFor();
    await grid.getByText('staged at the warehouse').first().waitFor();
    // Filters go to the central server as they are.
    await page.getByLabel('Username').fill('nobody-at-all');
    await page.getByText('No history entry of the central server matches.').waitFor();
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await grid.getByText('moved after the audit').waitFor();
    await grid.getByText('moved after the audit').click();
    await page.locator('.detail-pane').getByText('moved after the audit').waitFor();
    expect(page.url()).toMatch(/#\/history\/central\/\d+/);

    link.down();
    try {
      await page.getByRole('button', { name: 'Reload' }).click();
      await page.getByRole('note').filter({ hasText: 'Offline: showing the copy from the last sync' }).waitFor();
      await grid.getByText('swapped racks with the switch').waitFor();
    } finally {
      link.up();
    }
    await page.getByRole('button', { name: 'Reload' }).click();
    await page.getByRole('note').waitFor({ state: 'detached' });
    await page.getByLabel('Username').waitFor();
  });
});

describe('when the central server refuses the token or seems to have lost its objects', () => {
  test('a refused token is said in the status bar and on the Sync screen until it is replaced in Settings', async () => {
    await open('#/settings');
    await page.getByRole('button', { name: 'Replace the token of central' }).click();
    await page.getByLabel('New token for central').fill('e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5');
    await page.getByRole('button', { name: 'Save token' }).click();
    await page.getByText('The token of “central” was replaced.').waitFor();
    await open('#/sync');
    await syncNow();
    await page.getByTestId('sync-connection').getByText('Token refused').waitFor();
    await indicator().getByText('Token refused').waitFor();
    await page.getByText('“central” refused the token.').waitFor();

    await page.getByRole('link', { name: 'Settings → Remotes' }).click();
    await page.getByRole('button', { name: 'Replace the token of central' }).click();
    await page.getByLabel('New token for central').fill(remote.token);
    await page.getByRole('button', { name: 'Save token' }).click();
    await page.getByText('The token of “central” was replaced.').waitFor();
    await indicator().getByText('Not yet reached').waitFor();
    await open('#/sync');
    await syncNow();
    await page.getByTestId('sync-connection').getByText('Online').waitFor();
    await indicator().getByText('Online').waitFor();
  });

  test('a pull that would delete nearly all of an endpoint stops, and a sync allowing it is asked for explicitly', async () => {
    const sensors: Body[] = [];
    for (let i = 1; i <= 10; i++) sensors.push(await created(remote.api.post(E, { name: `lab-sensor-${String(i).padStart(2, '0')}`, address: `10.99.0.${i}` })));
    const mirrored = await site.sync();
    expect(mirrored.error, JSON.stringify(mirrored)).toBeUndefined();
    for (const sensor of sensors) expect((await remote.api.delete(`${E}${sensor.pk}/`)).status).toBe(204);

    await open('#/sync');
    await syncNow();
    await page.locator('.sync-last-error').filter({ hasText: 'would delete 10 of the 11 local engine_probe objects' }).waitFor();
    expect((await ok(site.api.get(`${E}?page_size=100`))).count).toBe(11);
    await page.getByRole('button', { name: 'Sync allowing mass delete' }).click();
    const dialog = page.getByRole('dialog', { name: 'Sync allowing mass delete?' });
    await dialog.getByRole('button', { name: 'Sync and delete them here' }).click();
    await page.getByRole('button', { name: 'Sync allowing mass delete' }).waitFor({ state: 'detached' });
    await page.getByText('Last error').locator('xpath=following-sibling::dd[1]').filter({ hasText: 'none' }).waitFor();
    const left = (await ok(site.api.get(`${E}?page_size=100`))).results.map((p: Body) => p.name);
    expect(left).toEqual(['nantes-ids-1']);
  });
});

describe('Settings → Remotes', () => {
  test('remotes are listed, added (refusals next to their field), their token replaced, removed; a new workspace is bound to one', async () => {
    await open('#/settings');
    const remotes = page.getByRole('table', { name: 'Remotes' });
    const central = remotes.getByRole('row', { name: /^central/ });
    await central.waitFor();
    expect(await central.getByRole('cell').allInnerTexts()).toEqual([link.url, 'plain http (no TLS)', 'set', expect.stringContaining('Replace the token')]);

    await page.getByLabel('Remote name').fill('lab');
    await page.getByLabel('URL', { exact: true }).fill('ftp://lab.acme.example');
    await page.getByLabel('Remote token').fill('c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3');
    await page.getByRole('button', { name: 'Add remote' }).click();
    await page.locator('#remote-url-error').filter({ hasText: 'A central server is reached over https, not ftp:' }).waitFor();
    expect(await page.getByLabel('URL', { exact: true }).getAttribute('aria-invalid')).toBe('true');

    await page.getByLabel('URL', { exact: true }).fill('https://lab.acme.example:8443');
    await page.getByLabel("Don't verify the certificate").check();
    await page.getByRole('button', { name: 'Add remote' }).click();
    await page.getByText('Remote “lab” added.').waitFor();
    expect(await remotes.getByRole('row', { name: /^lab/ }).getByRole('cell').nth(1).innerText()).toBe('not verified');
    expect(await page.getByLabel('Remote token').inputValue()).toBe('');

    await page.getByLabel('Remote name').fill('hq');
    await page.getByLabel('URL', { exact: true }).fill(remote.url);
    await page.getByLabel('Remote token').fill(remote.token);
    await page.getByRole('button', { name: 'Add remote' }).click();
    await page.getByText('Remote “hq” added. Note: Plain http:// (loopback only)').waitFor();

    await page.getByRole('button', { name: 'Replace the token of lab' }).click();
    await page.getByLabel('New token for lab').fill('d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4');
    await page.getByRole('button', { name: 'Save token' }).click();
    await page.getByText('The token of “lab” was replaced.').waitFor();

    await page.getByRole('button', { name: 'Remove remote lab' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Remove remote' }).click();
    await page.getByText('Remote “lab” removed.').waitFor();
    expect(await remotes.getByRole('row', { name: /^lab/ }).count()).toBe(0);

    await page.getByLabel('New workspace').fill('site-paris');
    await page.getByLabel('Central server').selectOption('hq');
    await page.getByRole('button', { name: 'Create workspace' }).click();
    await page.getByText('Workspace "site-paris" created, bound to the central server "hq".').waitFor();
    await page.getByRole('button', { name: 'Open workspace site-paris' }).click();
    await page.getByTestId('status-workspace').filter({ hasText: 'site-paris' }).waitFor();
    await indicator().getByText('Not yet reached').waitFor();

    await open('#/sync');
    await page.getByText('No sync has reached “hq” yet from this workspace.').waitFor();
    await syncNow();
    await page.getByTestId('sync-connection').getByText('Online').waitFor();
    await open('#/probes');
    await page.getByRole('grid').getByText('lyon-edge-1').waitFor();
  });

  test('a standalone workspace’s Sync screen says how to get a bound one', async () => {
    await open('#/settings');
    await page.getByLabel('New workspace').fill('bench');
    await page.getByRole('button', { name: 'Create workspace' }).click();
    await page.getByText('Workspace "bench" created.').waitFor();
    await page.getByRole('button', { name: 'Open workspace bench' }).click();
    await page.getByTestId('status-workspace').filter({ hasText: 'bench' }).waitFor();
    expect(await indicator().count()).toBe(0);
    await open('#/sync');
    await page.getByRole('heading', { name: 'This workspace is standalone' }).waitFor();
    await page.getByRole('main').getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('heading', { name: 'Remotes' }).waitFor();
    // Back to the bound workspace, for whatever runs after.
    await page.getByRole('button', { name: 'Open workspace site', exact: true }).click();
    await page.getByTestId('status-workspace').filter({ hasText: /^site$/ }).waitFor();
  });
});
