/**
 * The app's own sign-in screen, a first visit that logs no error, sign-out, a route the app does
 * not know, a standalone Sync screen that asks nothing of the server, and what Settings says of
 * its buttons (issue 11).
 */
import type { ConsoleMessage, Page, Response } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { request } from '../helpers/http';
import { ADMIN_TOKEN, startAppServer, type TestAppServer } from '../helpers/server';
import { launchChromium, RENDERER_DIR, USER_FORM } from './browser';
import { axeViolations, layoutProblems } from './layoutCheck';
import type { Browser } from 'playwright-core';

let server: TestAppServer;
let browser: Browser;

beforeAll(async () => {
  server = await startAppServer({ rendererDir: RENDERER_DIR });
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

/** A fresh browser (no cookies) that records every console error and every failed answer. */
async function freshPage(): Promise<{ page: Page; errors: string[]; failed: string[] }> {
  const context = await browser.newContext({ viewport: { width: 1366, height: 768 }, ...USER_FORM });
  const page = await context.newPage();
  const errors: string[] = [];
  const failed: string[] = [];
  page.on('console', (message: ConsoleMessage) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(String(error)));
  page.on('response', (response: Response) => {
    if (response.status() >= 400) failed.push(`${response.status()} ${response.url()}`);
  });
  return { page, errors, failed };
}

async function signIn(page: Page): Promise<void> {
  await page.getByLabel('API token').fill(ADMIN_TOKEN);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('navigation', { name: 'Screens' }).waitFor();
}

describe('signing in', () => {
  test('a first visit shows the app’s own sign-in screen and logs no error', async () => {
    const { page, errors, failed } = await freshPage();
    await page.goto(`${server.url}/#/templates`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    expect(await page.title()).toBe('Sign in — Outpost');
    expect(page.url()).toBe(`${server.url}/#/templates`);
    expect(errors).toEqual([]);
    expect(failed).toEqual([]);
    await page.context().close();
  });

  test('the sign-in screen is readable at 1000×700, 1366×768 and 1920×1080, and axe finds no serious violation', async () => {
    const { page } = await freshPage();
    await page.goto(`${server.url}/`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    for (const size of [
      { width: 1000, height: 700 },
      { width: 1366, height: 768 },
      { width: 1920, height: 1080 },
    ]) {
      await page.setViewportSize(size);
      expect(await layoutProblems(page)).toEqual([]);
      expect(await axeViolations(page)).toEqual([]);
    }
    await page.context().close();
  });

  test('wrong credentials are said on the form; the right token opens the screen asked for', async () => {
    const { page, failed } = await freshPage();
    await page.goto(`${server.url}/#/templates`);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').filter({ hasText: 'Give your username and password, or an API token.' }).waitFor();
    await page.getByLabel('API token').fill('f'.repeat(40));
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').filter({ hasText: 'Please enter a correct username and password, or a valid API token.' }).waitFor();
    await signIn(page);
    await page.getByRole('heading', { name: 'Templates', level: 1 }).waitFor();
    expect(failed.every((line) => line.includes('/api-auth/login/'))).toBe(true);
    await page.context().close();
  });

  test('sign out from Settings ends the session and shows the sign-in screen', async () => {
    const { page } = await freshPage();
    await page.goto(`${server.url}/#/settings`);
    await signIn(page);
    await page.getByText('Ends the session of admin in this browser.').waitFor();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    const cookies = await page.context().cookies();
    expect(cookies.find((c) => c.name === 'sessionid')).toBeUndefined();
    await page.context().close();
  });

  test('the browsable API keeps its own login page for /rest/', async () => {
    const login = await request(server.url, 'GET', '/api-auth/login/?next=/rest/', { headers: { Accept: 'text/html' } });
    expect(login.status).toBe(200);
    expect(login.text).toContain('<h1>Log in</h1>');
  });
});

describe('routes and screens', () => {
  test('an unknown route shows a not-found screen; a standalone Sync screen makes no failing request', async () => {
    const { page, errors, failed } = await freshPage();
    await page.goto(`${server.url}/#/probez/12`);
    await signIn(page);
    await page.getByRole('heading', { name: 'Page not found' }).waitFor();
    expect(await page.getByRole('main').textContent()).toContain('#/probez/12');
    const requests: string[] = [];
    page.on('request', (r) => requests.push(new URL(r.url()).pathname));
    await page.getByRole('link', { name: 'Sync' }).click();
    await page.getByRole('heading', { name: 'This workspace is standalone' }).waitFor();
    await page.waitForTimeout(300);
    expect(requests.filter((p) => p.startsWith('/app/sync'))).toEqual([]);
    expect(failed.filter((line) => !line.includes('/api-auth/login/'))).toEqual([]);
    expect(errors).toEqual([]);
    await page.context().close();
  });
});

describe('Settings', () => {
  test('Regenerate looks and asks like the destructive action it is; the token can be copied', async () => {
    const { page } = await freshPage();
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
    await page.goto(`${server.url}/#/settings`);
    await signIn(page);
    const regenerate = page.getByRole('button', { name: 'Regenerate…' });
    expect(await regenerate.getAttribute('class')).toContain('danger');
    expect(await regenerate.getAttribute('aria-describedby')).toBe('regenerate-help');
    await regenerate.click();
    const dialog = page.getByRole('dialog');
    expect(await dialog.textContent()).toContain('This cannot be undone.');
    await dialog.getByRole('button', { name: 'Cancel' }).click();

    await expect.poll(() => page.getByLabel('Token', { exact: true }).inputValue()).toMatch(/^[0-9a-f]{40}$/);
    await page.getByRole('button', { name: 'Copy' }).click();
    await page.getByText('Token copied to the clipboard.').waitFor();
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(await page.getByLabel('Token', { exact: true }).inputValue());
    await page.context().close();
  });

  test('the workspace table shows which are bound; disabled buttons say why; a failed rename keeps what was typed', async () => {
    await request(server.url, 'POST', '/app/remotes', { token: ADMIN_TOKEN, json: { name: 'central', url: 'http://127.0.0.1:9', token: 'b'.repeat(40) } });
    const created = await request(server.url, 'POST', '/app/workspaces', { token: ADMIN_TOKEN, json: { name: 'site-bound', remote: 'central' } });
    expect(created.status).toBe(201);
    const { page } = await freshPage();
    await page.goto(`${server.url}/#/settings`);
    await signIn(page);
    const table = page.getByRole('table', { name: 'Workspaces' });
    await table.getByRole('row', { name: /site-bound/ }).filter({ hasText: 'bound to “central”' }).waitFor();
    expect(await table.getByRole('row', { name: /default/ }).textContent()).toContain('standalone');

    const open = page.getByRole('button', { name: 'Open workspace default' });
    expect(await open.isDisabled()).toBe(true);
    const why = await open.getAttribute('aria-describedby');
    expect(await page.locator(`#${why}`).textContent()).toContain('cannot be opened again or deleted');

    await page.getByRole('button', { name: 'Rename workspace site-bound' }).click();
    await page.getByLabel('New name for site-bound').fill('../nope');
    await page.getByRole('button', { name: 'Save name' }).click();
    await page.getByRole('alert').filter({ hasText: 'is not a valid workspace name' }).waitFor();
    expect(await page.getByLabel('New name for site-bound').inputValue()).toBe('../nope');
    await page.context().close();
  });

  test('home networks accept only a CIDR list: a bad item is named as it is typed and Save says why it waits', async () => {
    const { page } = await freshPage();
    await page.goto(`${server.url}/#/settings`);
    await signIn(page);
    const field = page.getByLabel('Networks (CIDR)', { exact: true });
    await expect.poll(() => field.inputValue()).not.toBe('');
    const save = page.getByRole('button', { name: 'Save home networks' });
    expect(await save.isDisabled()).toBe(true);
    expect(await page.locator(`#${await save.getAttribute('aria-describedby')}`).textContent()).toBe('Nothing changed yet.');
    await field.fill('10.0.0.0/8 lab-network');
    await page.getByRole('alert').filter({ hasText: '"lab-network" is not a network in CIDR form' }).waitFor();
    expect(await page.locator(`#${await save.getAttribute('aria-describedby')}`).textContent()).toBe('Correct the list first.');
    await page.context().close();
  });

  test('an address refused by the API is explained as an address or host name', async () => {
    const { page } = await freshPage();
    await page.goto(`${server.url}/#/probes/new/engine`);
    await signIn(page);
    const form = page.getByRole('form');
    await form.getByLabel('Name', { exact: true }).fill('bad-address');
    await form.getByLabel('Address', { exact: true }).fill('not an address!');
    await page.getByRole('button', { name: 'Create engine probe' }).click();
    await page.getByText('Enter a valid IPv4 or IPv6 address, or a host name (probe-1.example.com).').waitFor();
    await page.context().close();
  });
});
