/**
 * Settings → Remotes in Chromium (issue 25 §4): a remote's connection tested step by step, its
 * address edited with the origin rule said before saving (a new origin drops the token unless a
 * new one is given), and a bad pin refused beside its field.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { request } from '../helpers/http';
import { startReference, type ReferenceServer } from '../helpers/reference';
import { openApp, type Session } from './browser';

let session: Session;
let reference: ReferenceServer;

beforeAll(async () => {
  [session, reference] = await Promise.all([openApp(), startReference()]);
  const added = await request(session.server.url, 'POST', '/app/remotes', { token: session.server.host.token, json: { name: 'central', url: reference.url, token: reference.token } });
  expect(added.status).toBe(201);
}, 90_000);
afterAll(async () => {
  await reference?.stop();
  await session?.close();
});

const remoteInfo = async () =>
  ((await request(session.server.url, 'GET', '/app/remotes', { token: session.server.host.token })).json() as { name: string; url: string; hasToken: boolean; pin: string | null }[]).find(
    (r) => r.name === 'central',
  );

test('Test connection shows each step with its result and time: a working remote passes', async () => {
  const { page, server } = session;
  await page.goto(`${server.url}/#/settings`);
  await page.getByRole('button', { name: 'Test connection to central' }).click();
  await page.getByText('The connection works.').waitFor();
  const steps = page.getByRole('table', { name: 'Steps of the connection test of central' });
  const port = new URL(reference.url).port;
  await expect.poll(() => steps.getByRole('row', { name: /Reachable/ }).innerText()).toMatch(new RegExp(`passed.*127\\.0\\.0\\.1:${port} accepts connections.*\\d+ ms`, 's'));
  expect(await steps.getByRole('row', { name: /TLS certificate/ }).innerText()).toMatch(/skipped/);
  expect(await steps.getByRole('row', { name: /Token accepted/ }).innerText()).toMatch(/passed/);
  expect(await steps.getByRole('row', { name: /Central server API/ }).innerText()).toMatch(/passed/);
});

test('editing the URL to another origin says the token will be dropped before saving, and drops it', async () => {
  const { page, server } = session;
  await page.goto(`${server.url}/#/settings`);
  await page.getByRole('button', { name: 'Edit remote central' }).click();
  const form = page.getByRole('form', { name: 'Edit remote central' });
  const url = form.getByLabel('URL');
  const rule = form.getByText('The token will be dropped: the origin changes — give a new token.');
  // Only the path changes: the token stays, nothing is said.
  await url.fill(`${reference.url}/central`);
  expect(await rule.count()).toBe(0);
  await url.fill('http://127.0.0.1:9');
  await rule.waitFor();
  await form.getByRole('button', { name: 'Save remote' }).click();
  await page.getByText(/Remote “central” changed\. The address now names another server/).waitFor();
  expect(await remoteInfo()).toMatchObject({ url: 'http://127.0.0.1:9', hasToken: false });

  await page.getByRole('button', { name: 'Test connection to central' }).click();
  await page.getByText('The connection does not work: see the failed step.').waitFor();
  const steps = page.getByRole('table', { name: 'Steps of the connection test of central' });
  expect(await steps.getByRole('row', { name: /Reachable/ }).innerText()).toMatch(/failed.*127\.0\.0\.1:9/s);
  expect(await steps.getByRole('row', { name: /Token accepted/ }).innerText()).toMatch(/not tried/);
});

test('a new token given with the new origin is kept: no warning, and the test passes', async () => {
  const { page, server } = session;
  await page.goto(`${server.url}/#/settings`);
  await page.getByRole('button', { name: 'Edit remote central' }).click();
  const form = page.getByRole('form', { name: 'Edit remote central' });
  await form.getByLabel('URL').fill(reference.url);
  await form.getByLabel('New token').fill(reference.token);
  expect(await form.getByText('The token will be dropped').count()).toBe(0);
  await form.getByRole('button', { name: 'Save remote' }).click();
  await page.getByText('Remote “central” changed.').waitFor();
  expect(await remoteInfo()).toMatchObject({ url: reference.url, hasToken: true });
  await page.getByRole('button', { name: 'Test connection to central' }).click();
  await page.getByText('The connection works.').waitFor();
});

test('a pin that is not a SHA-256 is refused beside its field, nothing changed', async () => {
  const { page, server } = session;
  await page.goto(`${server.url}/#/settings`);
  await page.getByRole('button', { name: 'Edit remote central' }).click();
  const form = page.getByRole('form', { name: 'Edit remote central' });
  await form.getByLabel('Accept only the pinned certificate').check();
  await form.getByLabel('Pinned certificate SHA-256').fill('not-a-fingerprint');
  await form.getByRole('button', { name: 'Save remote' }).click();
  await form.getByText(/64 hex digits/).first().waitFor();
  expect(await form.getByLabel('Pinned certificate SHA-256').getAttribute('aria-invalid')).toBe('true');
  expect(await remoteInfo()).toMatchObject({ url: reference.url, pin: null, hasToken: true });
});
