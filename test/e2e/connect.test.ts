/**
 * Connecting a standalone workspace from the app (issue 25 §1), in Chromium against the reference
 * server: the Sync screen of a standalone workspace offers it; the remote is chosen (Settings →
 * Remotes when there is none); the plan lists what is created there, what is the same there and
 * the collisions with their differences, each decided; Cancel changes nothing; a central server
 * that changed since the plan has the plan read again; Connect binds the workspace, after review
 * by default. The plan passes axe; it takes the picture docs/screenshots/connect.png. Needs the connect backend (POST /app/workspaces/:name/connect/plan
 * and /connect). The screen's words are tested in test/renderer/connectModel.test.ts.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startReference, type ReferenceServer } from '../helpers/reference';
import { startAppServer, type TestAppServer } from '../helpers/server';
import { openAppAt, RENDERER_DIR, screenshot, type PageSession } from './browser';
import { axeViolations } from './layoutCheck';

const T = '/rest/appliances/vendor_probe_template/';
const P = '/rest/appliances/vendor_probe/';

// Tests read API bodies loosely.
type Body = Record<string, any>;

let remote: ReferenceServer;
let site: TestAppServer;
let browser: PageSession;
let page: Page;

async function answered(reply: Promise<{ status: number; text: string; json(): any }>, status: number): Promise<Body> {
  const answer = await reply;
  if (answer.status !== status) throw new Error(`${answer.status} ${answer.text}`);
  return answer.json();
}

beforeAll(async () => {
  remote = await startReference();
  site = await startAppServer({ rendererDir: RENDERER_DIR });
  // The central server: "Branch sites" (capture_threads 2) and "Lab" as the site has it.
  await answered(remote.api.post(T, { name: 'Branch sites', capture_threads: 2 }), 201);
  await answered(remote.api.post(T, { name: 'Lab', capture_threads: 2 }), 201);
  await answered(remote.api.post(P, { name: 'hq-edge-1', address: '10.1.0.1' }), 201);
  // The site, built standalone: a colliding "Branch sites" (4 threads), the same "Lab", a new probe.
  const branch = await answered(site.api.post(T, { name: 'Branch sites', capture_threads: 4 }), 201);
  await answered(site.api.post(T, { name: 'Lab', capture_threads: 2 }), 201);
  await answered(site.api.post(P, { name: 'lyon-edge-1', address: '10.20.0.1', parent_tmpl: branch.pk }), 201);
  // A bench probe the engineer does not want on the central server: left out at the connect.
  await answered(site.api.post(P, { name: 'bench-scratch', address: '10.20.0.99' }), 201);
  browser = await openAppAt(site.url, { expectedStatuses: [502] });
  page = browser.page;
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await site?.close();
  await remote?.stop();
});

async function open(hash: string): Promise<void> {
  await page.goto(`${site.url}/${hash}`);
  await page.locator('main h1').first().waitFor();
}

const mode = async () => (await answered(site.api.get('/app/status'), 200)).mode as string;

async function readPlan(): Promise<void> {
  await open('#/sync');
  await page.getByRole('link', { name: 'Connect to a central server…' }).click();
  await page.getByRole('button', { name: 'Read the plan' }).click();
  await page.getByRole('heading', { name: /Same name, different values/ }).waitFor();
}

describe('connecting a standalone workspace', () => {
  test('without a remote, the screen sends the engineer to Settings → Remotes', async () => {
    await open('#/sync/connect');
    await page.getByText('No central server is set up yet').waitFor();
    expect(await page.getByRole('main').getByRole('link', { name: 'Settings → Remotes' }).getAttribute('href')).toBe('#/settings');
    await answered(site.api.post('/app/remotes', { name: 'hq', url: remote.url, token: remote.token }), 201);
  });

  test('the plan: created there, the same there, collisions with mine vs central; Cancel changes nothing', async () => {
    await readPlan();
    // Listed by kind and name (a workspace may hold more than these, e.g. a seeded ruleset).
    await page.getByRole('heading', { name: /^Created on the central server \(\d+\)$/ }).waitFor();
    await page.getByRole('listitem').filter({ hasText: /vendor probe\s+lyon-edge-1/ }).waitFor();
    await page.getByRole('heading', { name: /^Already there, the same \(\d+\)$/ }).waitFor();
    await page.getByRole('listitem').filter({ hasText: /template\s+Lab$/ }).waitFor();
    const collision = page.getByRole('group', { name: /Branch sites/ });
    expect(await collision.getByRole('row', { name: /Capture threads/ }).innerText()).toMatch(/Capture threads\s+4\s+2/);
    // The default keeps everything: the central object, my values queued for review.
    expect(await collision.getByRole('radio', { name: 'Use the central object, queue my differing values for review' }).isChecked()).toBe(true);
    expect(await page.getByRole('radio', { name: /After review/ }).isChecked()).toBe(true);
    await page.getByText(/objects? of the central server will be pulled/).waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await screenshot(page, 'connect');

    await page.getByRole('link', { name: 'Cancel' }).click();
    await page.getByRole('heading', { name: 'This workspace is standalone' }).waitFor();
    expect(await mode()).toBe('standalone');
    expect((await answered(remote.api.get(`${P}?name=lyon-edge-1`), 200)).count).toBe(0);
  });

  test('a rename needs a free name', async () => {
    await readPlan();
    const collision = page.getByRole('group', { name: /Branch sites/ });
    await collision.getByRole('radio', { name: 'Rename mine' }).check();
    await collision.getByLabel('New name for mine').fill('Lab');
    await collision.getByText('“Lab” is already a name of this kind').waitFor();
    expect(await page.getByRole('button', { name: /Connect to/ }).isDisabled()).toBe(true);
    await collision.getByLabel('New name for mine').fill('Branch sites (Lyon)');
    expect(await page.getByRole('button', { name: /Connect to/ }).isDisabled()).toBe(false);
  });

  test('a central server that changed since the plan: the plan is read again, nothing connected', async () => {
    await answered(remote.api.post(P, { name: 'hq-edge-2', address: '10.1.0.2' }), 201);
    await page.getByRole('button', { name: /Connect to/ }).click();
    await page.getByText(/The central server changed since the plan/).waitFor();
    await page.getByRole('heading', { name: /Same name, different values/ }).waitFor();
    expect(await mode()).toBe('standalone');
  });

  test('Connect binds the workspace, after review: the local work awaits review', async () => {
    const collision = page.getByRole('group', { name: /Branch sites/ });
    await collision.getByRole('radio', { name: 'Rename mine' }).check();
    await collision.getByLabel('New name for mine').fill('Branch sites (Lyon)');
    await page.getByRole('checkbox', { name: 'Leave out bench-scratch' }).check();
    await page.getByRole('button', { name: /Connect to/ }).click();
    await page.getByRole('heading', { name: 'Sync', exact: true }).waitFor();
    await expect.poll(mode).toBe('bound');
    await page.getByTestId('sync-indicator').getByText(/changes? awaiting review/).waitFor();
    // After review: nothing of mine left on its own.
    expect((await answered(remote.api.get(`${P}?name=lyon-edge-1`), 200)).count).toBe(0);
    expect(await page.getByRole('radio', { name: /After review/ }).isChecked()).toBe(true);
    // Left out: not in the workspace, nothing of it waits to be sent.
    expect((await answered(site.api.get(`${P}?name=bench-scratch`), 200)).count).toBe(0);
    const waiting = (await answered(site.api.get('/app/sync'), 200)).entries as Body[];
    expect(waiting.map((e) => e.label)).not.toContain('bench-scratch');
    expect(waiting.map((e) => e.label)).toContain('lyon-edge-1');
  });
});
