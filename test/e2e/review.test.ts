/**
 * Review before push in the app (issue 25 §2), in Chromium against a workspace bound to the
 * reference server: after review nothing leaves on its own and the status bar counts what waits;
 * Sync now opens the Review, which shows each change's fields as the central server holds them
 * now → after the push and a template change's reach; choosing a change takes what it needs;
 * a change made there since the review is not overwritten, its entry stops and the plan is read
 * again; automatically, changes leave on their own. The Review passes axe. It takes the picture
 * docs/screenshots/review.png (with OUTPOST_SCREENSHOTS=1).
 * Needs the review backend (GET /app/sync/plan, POST /app/sync/apply, PUT /app/sync/push-mode).
 * The screen's words are tested in test/renderer/reviewModel.test.ts.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startReference, type ReferenceServer } from '../helpers/reference';
import { startBound, type BoundWorkspace } from '../helpers/sync';
import { openAppAt, RENDERER_DIR, screenshot, type PageSession } from './browser';
import { axeViolations } from './layoutCheck';

const T = '/rest/appliances/vendor_probe_template/';
const P = '/rest/appliances/vendor_probe/';

// Tests read API bodies loosely.
type Body = Record<string, any>;

let remote: ReferenceServer;
let site: BoundWorkspace;
let browser: PageSession;
let page: Page;
let branch: Body;
const central: Record<string, Body> = {};

async function answered(reply: Promise<{ status: number; text: string; json(): any }>, status: number): Promise<Body> {
  const answer = await reply;
  if (answer.status !== status) throw new Error(`${answer.status} ${answer.text}`);
  return answer.json();
}

beforeAll(async () => {
  remote = await startReference();
  // The app's own schedule (auto): in review mode it must not push, automatically it must.
  site = await startBound({ url: remote.url, token: remote.token }, { rendererDir: RENDERER_DIR, sync: { auto: true, pushDelayMs: 300 } });
  // The fleet on the central server: a template three probes inherit from, one overriding capture_threads.
  branch = await answered(remote.api.post(T, { name: 'Branch sites', capture_threads: 2 }), 201);
  for (const [name, extra] of [
    ['lyon-edge-1', {}],
    ['lyon-edge-2', {}],
    ['paris-edge-3', {}],
    ['nantes-edge-4', { overriden_fields: ['capture_threads'], capture_threads: 8 }],
  ] as const) {
    central[name] = await answered(remote.api.post(P, { name, address: `10.20.0.${Object.keys(central).length + 1}`, parent_tmpl: branch.pk, ...extra }), 201);
  }
  if ((await site.sync()).outcome !== 'done') throw new Error('the first sync failed');
  browser = await openAppAt(site.url, { expectedStatuses: [502] });
  page = browser.page;
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await site?.close();
  await remote?.stop();
});

const indicator = () => page.getByTestId('sync-indicator');

async function open(hash: string): Promise<void> {
  await page.goto(`${site.url}/${hash}`);
  await page.locator('main h1').first().waitFor();
}

/** The Review's entry of an object, by the words of its title. */
const entryOf = (title: RegExp) => page.getByRole('listitem').filter({ has: page.getByRole('checkbox', { name: title }) });

describe('after review', () => {
  test('the mode is chosen on the Sync screen; then nothing leaves on its own and the status bar counts what awaits review', async () => {
    await open('#/sync');
    await page.getByRole('radio', { name: /Automatically/ }).waitFor();
    expect(await page.getByRole('radio', { name: /Automatically/ }).isChecked()).toBe(true);
    await page.getByRole('radio', { name: /After review/ }).check();
    await expect.poll(async () => (await answered(site.api.get('/app/sync'), 200)).status.pushMode).toBe('review');

    await answered(site.api.patch(`${T}${branch.pk}/`, { capture_threads: 4, comment: 'more cores at the sites' }), 200);
    await answered(site.api.patch(`${P}${central['lyon-edge-1']!.pk}/`, { location: 'Lyon, rack 7' }), 200);
    await indicator().getByRole('link', { name: '2 changes awaiting review' }).waitFor();
    // An automatic push would have gone after two seconds: nothing went.
    await page.waitForTimeout(3000);
    expect((await answered(remote.api.get(`${T}${branch.pk}/`), 200)).capture_threads).toBe(2);
  });

  test('Sync now opens the Review: each field now → after, and what the template change reaches there', async () => {
    await open('#/sync');
    await page.getByRole('button', { name: 'Sync now' }).click();
    await page.getByRole('heading', { name: 'Review before sending' }).waitFor();
    await page.getByTestId('review-summary').filter({ hasText: '2 changes to review: 2 to send.' }).waitFor();
    const template = entryOf(/Branch sites/);
    expect(await template.getByRole('row', { name: /Capture threads/ }).innerText()).toMatch(/Capture threads\s+2\s+4/);
    // lyon-edge-1, lyon-edge-2, paris-edge-3 take it; nantes-edge-4 overrides it.
    await template.getByText('changes Capture threads on 3 probes: lyon-edge-1, lyon-edge-2, paris-edge-3').waitFor();
    expect(await entryOf(/lyon-edge-1/).getByRole('row', { name: /Location/ }).innerText()).toMatch(/Location\s+\(empty\)\s+Lyon, rack 7/);
    expect(await axeViolations(page)).toEqual([]);
    await screenshot(page, 'review');
  });

  test('a change made on the central server since the review is not overwritten: its entry stops, the plan is read again', async () => {
    await answered(remote.api.patch(`${P}${central['lyon-edge-1']!.pk}/`, { location: 'Lyon, cage B', comment: 'a colleague' }), 200);
    await page.getByRole('button', { name: /Send all/ }).click();
    const outcome = page.getByTestId('review-outcome');
    await outcome.waitFor();
    expect(await outcome.innerText()).toMatch(/Sent 1 change\. 1 change stopped: review again\.[\s\S]*lyon-edge-1/);
    expect((await answered(remote.api.get(`${P}${central['lyon-edge-1']!.pk}/`), 200)).location).toBe('Lyon, cage B');
    expect((await answered(remote.api.get(`${T}${branch.pk}/`), 200)).capture_threads).toBe(4);
    // Read again: the stopped change is there, now in conflict with the colleague's value.
    await entryOf(/lyon-edge-1/).getByText('Conflict: changed there too').waitFor();
  });

  test('choosing a change chooses what it needs, and says so; Send chosen sends only those', async () => {
    const lab = await answered(site.api.post(T, { name: 'Lab', capture_threads: 3 }), 201);
    await answered(site.api.post(P, { name: 'lab-edge-1', address: '10.99.0.1', parent_tmpl: lab.pk }), 201);
    await answered(site.api.post(P, { name: 'lab-edge-2', address: '10.99.0.2' }), 201);
    await page.getByRole('button', { name: 'Review again' }).click();
    await page.getByRole('checkbox', { name: /lab-edge-1/ }).check();
    await page.getByText('Also chosen, as lab-edge-1 needs them: Lab.').waitFor();
    expect(await page.getByRole('checkbox', { name: /Create template Lab/ }).isChecked()).toBe(true);
    expect(await page.getByRole('checkbox', { name: /lab-edge-2/ }).isChecked()).toBe(false);
    await page.getByRole('button', { name: 'Send chosen (2)' }).click();
    await page.getByTestId('review-outcome').filter({ hasText: 'Sent 2 changes.' }).waitFor();
    const names = async (path: string) => (await answered(remote.api.get(`${path}?page_size=100`), 200)).results.map((o: Body) => o.name);
    expect(await names(T)).toContain('Lab');
    expect(await names(P)).toContain('lab-edge-1');
    expect(await names(P)).not.toContain('lab-edge-2');
    await page.getByRole('checkbox', { name: /lab-edge-2/ }).waitFor();
  });

  test('the keyboard reaches every choice and Send', async () => {
    await page.getByRole('button', { name: 'Review again' }).focus();
    const reached: string[] = [];
    for (let i = 0; i < 12; i += 1) {
      await page.keyboard.press('Tab');
      reached.push(await page.evaluate<string>("(e => e instanceof HTMLInputElement ? e.type : e?.textContent ?? '')(document.activeElement)"));
    }
    expect(reached.some((r) => r.startsWith('Send all'))).toBe(true);
    expect(reached).toContain('checkbox');
  });

  test('automatically, the waiting changes leave on their own', async () => {
    await open('#/sync');
    await page.getByRole('radio', { name: /Automatically/ }).check();
    await expect.poll(async () => (await answered(remote.api.get(`${P}?name=lab-edge-2`), 200)).count, { timeout: 20_000 }).toBe(1);
    await indicator().getByText(/change.? waiting|No changes waiting/).first().waitFor();
  });
});
