/**
 * Issue 8, in Chromium: a probe form left open in one tab while another tab switches workspaces.
 * Saving it must not write into the workspace now open: the page reloads on the open workspace,
 * says why, and the probe with the same pk there is untouched.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { openApp, type Session } from './browser';

let session: Session;
beforeAll(async () => {
  session = await openApp();
});
afterAll(() => session?.close());

const VENDOR = '/rest/appliances/vendor_probe/';

test('a stale tab reloads instead of saving into the workspace switched to in another tab', async () => {
  const { page, server, context } = session;
  const here = await server.api.post(VENDOR, { name: 'probe-of-default', address: '10.0.0.1' });
  expect(here.status).toBe(201);
  const pk = here.json().pk as number;
  expect((await server.api.post('/app/workspaces', { name: 'site-b' })).status).toBe(201);

  await page.goto(`${server.url}/#/probes/vendor/${pk}`);
  await page.getByRole('heading', { name: 'probe-of-default', level: 2 }).waitFor();
  await page.getByRole('form').getByLabel('Name', { exact: true }).fill('typed-in-the-old-tab');

  const other = await context.newPage();
  await other.goto(`${server.url}/#/settings`);
  await other.getByRole('button', { name: 'Open workspace site-b' }).click();
  await other.getByTestId('status-workspace').filter({ hasText: 'site-b' }).waitFor();
  const there = await server.api.post(VENDOR, { name: 'probe-of-site-b', address: '10.0.0.2' });
  expect(there.json().pk).toBe(pk);

  // The old tab saves (or its status poll notices first): either way it reloads on site-b.
  await page.getByRole('button', { name: 'Save changes' }).click().catch(() => undefined);
  await page.getByRole('status').filter({ hasText: 'The open workspace is now "site-b"' }).waitFor();
  await page.getByTestId('status-workspace').filter({ hasText: 'site-b' }).waitFor();
  expect((await server.api.get(`${VENDOR}${pk}/`)).json()).toMatchObject({ name: 'probe-of-site-b' });
  expect((await server.api.get(VENDOR, {})).json()).toMatchObject({ count: 1 });
  await other.close();
  await server.api.post('/app/workspaces/default/open', {});
  expect((await server.api.get(`${VENDOR}${pk}/`)).json()).toMatchObject({ name: 'probe-of-default' });
});
