/** The Settings screen in Chromium, as a user goes through it: the token, then the workspaces. */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { request } from '../helpers/http';
import { openApp, screenshot, type Session } from './browser';

let session: Session;
beforeAll(async () => {
  session = await openApp();
});
afterAll(() => session?.close());

describe('Settings', () => {
  test('Edit Token shows the current token; Regenerate makes a new one and the old one is refused', async () => {
    const { page, server } = session;
    await page.goto(`${server.url}/#/settings`);
    const field = page.getByLabel('Token', { exact: true });
    await page.getByRole('button', { name: 'Show' }).click();
    await expect.poll(() => field.inputValue()).toBe(server.host.token);
    const before = server.host.token;
    await page.getByRole('button', { name: 'Regenerate' }).click();
    await page.getByRole('dialog').getByLabel('Comment for the history (optional)').fill('rotated after the site visit');
    await page.getByRole('button', { name: 'Regenerate token' }).click();
    await page.getByText('A new token was generated').waitFor();
    const after = await field.inputValue();
    expect(after).toMatch(/^[0-9a-f]{40}$/);
    expect(after).not.toBe(before);
    expect((await request(server.url, 'GET', '/rest/', { token: before })).status).toBe(403);
    expect((await request(server.url, 'GET', '/rest/', { token: after })).status).toBe(200);
    const history = (await request(server.url, 'GET', '/rest/rules/history/?action_type=edit_user_token', { token: after })).json();
    expect(history.results[0].comment).toBe('rotated after the site visit');
    await screenshot(page, 'settings');
  });

  test('workspaces: create, open, rename, export, import, delete', async () => {
    const { page, server } = session;
    await page.goto(`${server.url}/#/settings`);
    await page.getByLabel('New workspace').fill('site-lyon');
    await page.getByRole('button', { name: 'Create workspace' }).click();
    await page.getByText('Workspace "site-lyon" created.').waitFor();

    await page.getByRole('button', { name: 'Open workspace site-lyon' }).click();
    await page.getByTestId('status-workspace').filter({ hasText: 'site-lyon' }).waitFor();
    await page.goto(`${server.url}/#/settings`);

    await page.getByRole('button', { name: 'Rename workspace site-lyon' }).click();
    await page.getByLabel('New name for site-lyon').fill('site-lyon-2');
    await page.getByRole('button', { name: 'Save name' }).click();
    await page.getByTestId('status-workspace').filter({ hasText: 'site-lyon-2' }).waitFor();

    const downloading = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export workspace default' }).click();
    const download = await downloading;
    expect(download.suggestedFilename()).toBe('default.outpost.json');
    const file = await download.path();
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toMatchObject({ format: 'outpost-workspace', name: 'default' });

    await page.getByLabel('Import a bundle').setInputFiles(file);
    await page.getByLabel('as').fill('copy-of-default');
    await page.getByRole('button', { name: 'Import workspace' }).click();
    // The manager is told what the bundle's accounts may do: here none came but admin.
    await page.getByText('Workspace "copy-of-default" imported. No account came with it but admin, this Outpost’s own.').waitFor();
    await page.getByRole('row', { name: /copy-of-default/ }).waitFor();

    await page.getByRole('button', { name: 'Delete workspace copy-of-default' }).click();
    await page.getByRole('button', { name: 'Delete workspace', exact: true }).click();
    await page.getByText('Workspace "copy-of-default" deleted.').waitFor();
    // The list is read again after the message: its row goes once it is.
    await page.getByRole('row', { name: /copy-of-default/ }).waitFor({ state: 'detached' });
  });

  test('a bad workspace name is explained', async () => {
    const { page, server } = session;
    await page.goto(`${server.url}/#/settings`);
    await page.getByLabel('New workspace').fill('../etc');
    await page.getByRole('button', { name: 'Create workspace' }).click();
    await page.getByRole('alert').filter({ hasText: 'is not a valid workspace name' }).waitFor();
  });

  test("home networks: Suricata's HOME_NET at first; a bad item is named; a CIDR list is saved", async () => {
    const { page, server } = session;
    await page.goto(`${server.url}/#/settings`);
    const field = page.getByLabel('Networks (CIDR)', { exact: true });
    await expect.poll(() => field.inputValue()).toBe('10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16');
    await field.fill('10.0.0.0/8, corp');
    // Only a CIDR list is accepted: the bad item is named as it is typed, and Save waits for a valid list.
    await page.getByRole('alert').filter({ hasText: '"corp" is not a network in CIDR form' }).waitFor();
    expect(await page.getByRole('button', { name: 'Save home networks' }).isDisabled()).toBe(true);
    await field.fill('10.20.0.0/16 192.168.7.0/24');
    await page.getByRole('button', { name: 'Save home networks' }).click();
    await page.getByText('Home networks saved').waitFor();
    expect(await field.inputValue()).toBe('10.20.0.0/16, 192.168.7.0/24');
    expect((await request(server.url, 'GET', '/app/settings/home-nets', { token: server.host.token })).json()).toEqual({ homeNets: ['10.20.0.0/16', '192.168.7.0/24'] });
  });
});
