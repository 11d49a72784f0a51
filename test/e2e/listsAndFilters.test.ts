/**
 * Lists and filters as a user works them (issue 11): a column header click sorts (the API's
 * `ordering`), the Filters button counts the filters on and its popover closes on Esc and on a
 * click elsewhere, *Clear filters* takes them off, an empty result says a filter is on; the host
 * list's ordering and query read as words and its dates in the user's form, exact UTC on hover.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { openApp, type Session } from './browser';

let session: Session;
let page: Page;

beforeAll(async () => {
  session = await openApp({ viewport: { width: 1366, height: 768 } });
  page = session.page;
  const { api } = session.server;
  for (const [name, address, location] of [
    ['alpha', '10.0.0.1', 'Lyon'],
    ['bravo', '10.0.0.3', 'Annecy'],
    ['charlie', '10.0.0.2', 'Grenoble'],
  ]) {
    expect((await api.post('/rest/appliances/vendor_probe/', { name, address, location })).status).toBe(201);
  }
  const hosts = [
    { ip: '10.20.1.15', hits: 3, host_id: { first_seen: '2026-03-02T07:42:10.218331+00:00', last_seen: '2026-03-19T18:03:55.902114+00:00' } },
    { ip: '10.20.1.2', hits: 9, host_id: { first_seen: '2026-03-01T07:42:10+00:00', last_seen: '2026-03-05T08:00:00+00:00' } },
  ];
  expect((await api.post('/rest/appliances/host_id/import/', hosts)).status).toBe(201);
}, 120_000);

afterAll(async () => {
  await session?.close();
});

const hashParam = (name: string) => new URLSearchParams(new URL(page.url()).hash.split('?')[1] ?? '').get(name);
const names = () => page.getByRole('grid', { name: 'Probes' }).locator('[role=row] [role=gridcell]:first-child').allTextContents();

describe('the probe list', () => {
  test('a column header click sorts by it (ascending, then descending), through the ordering parameter', async () => {
    // The list was read when the app opened, before the probes were made: read it afresh.
    await page.goto(`${session.server.url}/#/probes`);
    await page.reload();
    await expect.poll(names, { timeout: 10_000 }).toEqual(['alpha', 'bravo', 'charlie']);
    await page.getByRole('button', { name: /^Address: sort ascending/ }).click();
    await expect.poll(names, { timeout: 10_000 }).toEqual(['alpha', 'charlie', 'bravo']);
    expect(hashParam('ordering')).toBe('address');
    await page.getByRole('button', { name: /^Address, sorted ascending: sort descending/ }).click();
    await expect.poll(names, { timeout: 10_000 }).toEqual(['bravo', 'charlie', 'alpha']);
    expect(hashParam('ordering')).toBe('-address');
    // The ordering select follows, in words.
    expect(await page.getByLabel('Order by').locator('option:checked').textContent()).toBe('Address (Z to A)');
  });

  test('the Filters button counts the filters on; its popover closes on Esc and on a click elsewhere', async () => {
    await page.goto(`${session.server.url}/#/probes`);
    const button = page.getByRole('button', { name: /^Filters/ });
    expect(await button.textContent()).toBe('Filters');
    await button.click();
    expect(await button.getAttribute('aria-expanded')).toBe('true');
    await page.getByLabel('Location', { exact: true }).fill('Lyon');
    await expect.poll(names, { timeout: 10_000 }).toEqual(['alpha']);
    expect(await button.textContent()).toBe('Filters (1)');
    await page.keyboard.press('Escape');
    expect(await button.getAttribute('aria-expanded')).toBe('false');
    expect(await page.getByLabel('Location', { exact: true }).isVisible()).toBe(false);
    await expect.poll(() => page.evaluate('document.activeElement?.textContent')).toBe('Filters (1)');

    await button.click();
    await page.getByRole('combobox', { name: /^Enabled/ }).selectOption('true');
    expect(await button.textContent()).toBe('Filters (2)');
    await page.getByRole('heading', { name: 'Probes', level: 1 }).click();
    expect(await button.getAttribute('aria-expanded')).toBe('false');
  });

  test('an empty result says a filter is on, and Clear filters takes them all off (the search stays)', async () => {
    await page.goto(`${session.server.url}/#/probes?location=Paris&search=a`);
    await page.getByText('No probe matches the search and the filter that are on.').waitFor();
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await expect.poll(names, { timeout: 10_000 }).toEqual(['alpha', 'bravo', 'charlie']);
    expect(hashParam('location')).toBeNull();
    expect(hashParam('search')).toBe('a');
    expect(await page.getByRole('button', { name: 'Clear filters' }).count()).toBe(0);
  });
});

describe('the known hosts', () => {
  test('ordering and query read as words, not as the API’s field names', async () => {
    await page.goto(`${session.server.url}/#/hosts`);
    const options = await page.getByLabel('Order by').locator('option').allTextContents();
    expect(options).toContain('Learned (newest first)');
    expect(options[0]).toBe('default: Last seen (newest first)');
    expect(options.some((o) => o.includes('host_id.'))).toBe(false);
    expect(await page.getByLabel('Query', { exact: true }).count()).toBe(1);
    expect(await page.getByText('host_id_qfilter').count()).toBe(0);
  });

  test('a date is shown in the user’s form with the exact UTC value on hover', async () => {
    await page.goto(`${session.server.url}/#/hosts`);
    const cell = page.getByRole('grid', { name: 'Known hosts' }).getByRole('row').first().locator('time');
    await cell.waitFor();
    expect(await cell.textContent()).toBe('Mar 19, 2026, 6:03 PM');
    expect(await cell.getAttribute('title')).toBe('2026-03-19 18:03:55.902114 UTC');
  });

  test('the Hits header sorts the hosts; the window filters count on the Filters button', async () => {
    await page.goto(`${session.server.url}/#/hosts`);
    await page.getByRole('button', { name: /^Hits: sort ascending/ }).click();
    const first = () => page.getByRole('grid', { name: 'Known hosts' }).locator('[role=row] [role=gridcell]:first-child').first().textContent();
    await expect.poll(first, { timeout: 10_000 }).toBe('10.20.1.15');
    await page.getByRole('button', { name: /^Filters/ }).click();
    await page.getByLabel('Seen from (UTC day)').fill('2026-03-10');
    await expect.poll(() => page.getByRole('button', { name: /^Filters/ }).textContent()).toBe('Filters (1)');
  });

  test('the history sorts by a header too: the User header orders its entries by user', async () => {
    await page.goto(`${session.server.url}/#/history`);
    await page.getByRole('button', { name: /^User: sort ascending/ }).click();
    await expect.poll(() => hashParam('ordering'), { timeout: 10_000 }).toBe('username');
    await page.getByRole('button', { name: /^Date \(UTC\): sort ascending/ }).click();
    await expect.poll(() => hashParam('ordering'), { timeout: 10_000 }).toBe('date');
    const dates = () => page.getByRole('grid', { name: 'History entries' }).locator('[role=row] [role=gridcell]:first-child').allTextContents();
    await expect.poll(async () => {
      const shown = await dates();
      return shown.length > 1 && shown.every((d, i) => i === 0 || shown[i - 1]! <= d);
    }, { timeout: 10_000 }).toBe(true);
  });
});
