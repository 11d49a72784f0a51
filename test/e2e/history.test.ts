/**
 * A history fit for an audit (issue 11), in Chromium, on a workspace bound to the reference
 * central server: an edit's field changes read in its entry, the history narrowed to a range of
 * days picked in the calendar inputs, a probe's and a template's page linking to their history,
 * and a probe whose change waits in conflict saying so on its own page, with the way to resolve
 * it. The screens' pure helpers are tested in test/renderer/ (historyFormat, syncFormat).
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startReference, type ReferenceServer } from '../helpers/reference';
import { startBound, type BoundWorkspace } from '../helpers/sync';
import { openAppAt, RENDERER_DIR, screenshot, type PageSession } from './browser';

const T = '/rest/appliances/vendor_probe_template/';
const P = '/rest/appliances/vendor_probe/';

// Tests read API bodies loosely.
type Body = Record<string, any>;

let remote: ReferenceServer;
let site: BoundWorkspace;
let browser: PageSession;
let page: Page;
let template: Body;
const probes: Record<string, Body> = {};

async function expectStatus(status: number, reply: Promise<{ status: number; text: string; json(): any }>): Promise<Body> {
  const answer = await reply;
  if (answer.status !== status) throw new Error(`${answer.status} ${answer.text}`);
  return answer.json();
}

beforeAll(async () => {
  remote = await startReference();
  site = await startBound(remote, { rendererDir: RENDERER_DIR });
  template = await expectStatus(201, remote.api.post(T, { name: 'Alpine sites', ntp_server: 'ntp.alps.example' }));
  probes.edge1 = await expectStatus(201, remote.api.post(P, { name: 'grenoble-edge-1', address: '10.50.0.1', location: 'Grenoble, rack 1', capture_threads: 2 }));
  probes.edge2 = await expectStatus(201, remote.api.post(P, { name: 'grenoble-edge-2', address: '10.50.0.2', location: 'Grenoble, rack 2', parent_tmpl: template.pk }));
  const first = await site.sync();
  if (first.outcome !== 'done') throw new Error(`first sync: ${JSON.stringify(first)}`);
  browser = await openAppAt(site.url);
  page = browser.page;
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await site?.close();
  await remote?.stop();
});

async function open(hash: string): Promise<void> {
  await page.goto('about:blank');
  await page.goto(`${site.url}/${hash}`);
}

const grid = () => page.getByRole('grid', { name: 'History entries' });
const entry = () => page.getByRole('article');
const listCount = (text: string) => page.locator('.vtable-foot').filter({ hasText: text }).waitFor();
const hashParam = (name: string) => new URLSearchParams(new URL(page.url()).hash.split('?')[1] ?? '').get(name);

describe('the history of a workspace, for an audit', () => {
  test('an edit’s entry shows each field it changed, before and after, under a title in the app’s words', async () => {
    await expectStatus(200, site.api.patch(`${P}${probes.edge1!.pk}/`, { location: 'Grenoble, rack 3', capture_threads: 4, comment: 'moved for the new uplink' }));
    await open('#/history');
    await grid().getByText('moved for the new uplink').waitFor();
    // Rows open by their date cell: other cells may hold links to the objects.
    await grid().getByRole('row').filter({ hasText: 'moved for the new uplink' }).getByRole('gridcell').first().click();
    await entry().getByRole('heading', { name: 'Probe edited' }).waitFor();
    const changes = entry().getByRole('table', { name: 'Changes' });
    await changes.waitFor();
    expect(await changes.getByRole('row', { name: /^Location/ }).getByRole('cell').allInnerTexts()).toEqual(['Grenoble, rack 1', 'Grenoble, rack 3']);
    expect(await changes.getByRole('row', { name: /^Capture threads/i }).getByRole('cell').allInnerTexts()).toEqual(['2', '4']);
    // Only what changed: two fields.
    expect(await changes.locator('tbody tr').count()).toBe(2);
    await screenshot(page, 'history-changes');
  });

  test('the history narrows to a range of days picked in the calendar inputs, both days included', async () => {
    const services = site.host.current().services;
    const days = ['2026-03-01T23:59:59Z', '2026-03-02T08:30:00Z', '2026-03-03T17:45:00Z', '2026-03-04T00:00:00Z'];
    for (const [i, day] of days.entries()) {
      await expectStatus(201, site.api.post('/rest/rules/source/', { name: `march-feed-${i}`, comment: `feed of ${day.slice(0, 10)}` }));
      const [made] = (await site.api.get('/rest/rules/history/?action_type=create_source&page_size=1')).json().results;
      services.store.write(() => services.store.db.prepare('UPDATE user_action SET date = ? WHERE pk = ?').run(Date.parse(day) * 1000, made.pk));
    }
    await open('#/history');
    await grid().getByRole('row').first().waitFor();
    await page.getByLabel('From (UTC day)').fill('2026-03-02');
    await page.waitForURL(/date_after=2026-03-02/);
    await page.getByLabel('To (UTC day, included)').fill('2026-03-03');
    await page.waitForURL(/date_before=2026-03-03/);
    await listCount('2 rows');
    const rows = await grid().getByRole('row').allTextContents();
    expect(rows[0]).toContain('march-feed-2');
    expect(rows[1]).toContain('march-feed-1');

    // An entry's "only this day" narrows to its own day.
    await grid().getByRole('row').filter({ hasText: 'march-feed-1' }).getByRole('gridcell').first().click();
    await entry().getByRole('button', { name: 'only this day' }).click();
    await listCount('1 row');
    expect([hashParam('date_after'), hashParam('date_before')]).toEqual(['2026-03-02', '2026-03-02']);
    expect(await page.getByLabel('To (UTC day, included)').inputValue()).toBe('2026-03-02');
  });

  test('a probe’s page and a template’s page link to their own history', async () => {
    const pk = probes.edge1!.pk;
    await open(`#/probes/vendor/${pk}`);
    await page.getByRole('heading', { name: 'grenoble-edge-1' }).waitFor();
    await page.locator('.detail-head').getByRole('link', { name: 'history', exact: true }).click();
    await page.waitForURL(/#\/history\?/);
    expect(hashParam('object')).toBe(`vendor_probe:${pk}`);
    await page.getByTestId('history-object-filter').filter({ hasText: `Only vendor probe ${pk}` }).waitFor();
    await listCount('1 row');
    expect(await grid().getByRole('row').first().textContent()).toContain('moved for the new uplink');

    await open(`#/templates/${template.pk}`);
    await page.getByRole('heading', { name: 'Alpine sites' }).waitFor();
    const link = page.locator('.detail-head').getByRole('link', { name: 'history', exact: true });
    expect(await link.getAttribute('href')).toBe(`#/history?object=vendor_probe_template%3A${template.pk}`);
  });

  test('a probe whose change waits in conflict says so on its own page and links to the resolution', async () => {
    const pk = probes.edge2!.pk;
    await expectStatus(200, site.api.patch(`${P}${pk}/`, { location: 'Grenoble, cage A', comment: 'moved to the cage' }));
    await expectStatus(200, remote.api.patch(`${P}${pk}/`, { location: 'Grenoble, basement', comment: 'colleague moved it' }));
    const report = await site.sync();
    expect(report.outcome, JSON.stringify(report)).toBe('conflicts');

    await open(`#/probes/vendor/${pk}`);
    const notice = page.getByTestId('conflict-notice');
    await notice.waitFor();
    expect(await notice.textContent()).toContain('A change of this vendor probe is in conflict with the central server (Location)');
    await screenshot(page, 'probe-conflict');
    const resolve = notice.getByRole('link', { name: 'Resolve the conflict' });
    const [waiting] = (await site.api.get('/app/sync')).json().entries.filter((e: Body) => e.state === 'conflict');
    expect(await resolve.getAttribute('href')).toBe(`#/sync/conflicts/${waiting.seq}`);
    await resolve.click();
    await page.getByRole('table', { name: 'Conflicting fields of grenoble-edge-2' }).waitFor();

    // A probe with nothing in conflict says nothing.
    await open(`#/probes/vendor/${probes.edge1!.pk}`);
    await page.getByRole('heading', { name: 'grenoble-edge-1' }).waitFor();
    await page.locator('.detail-head').getByRole('link', { name: 'history', exact: true }).waitFor();
    expect(await page.getByTestId('conflict-notice').count()).toBe(0);
  });
});
