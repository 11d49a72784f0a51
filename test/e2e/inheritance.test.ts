/**
 * Issue 11, "inheritance you can read at a glance", in Chromium: the inherited badge names the
 * template the value really comes from (api.md §4 rule 1 followed upwards), the probe list marks
 * probes that override their template, a new template's changes are shown before they are saved,
 * and the template tree counts the probes and templates that use each template.
 */
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { openApp, type Session } from './browser';
import { TEMPLATES, VENDOR, ENGINE, probeApi } from './probeApi';


let session: Session;
let page: Page;
const { create, read } = probeApi(() => session);

beforeAll(async () => {
  session = await openApp();
  page = session.page;
  page.on('dialog', (dialog) => void (dialog.type() === 'beforeunload' ? dialog.accept() : dialog.dismiss()));
}, 120_000);

afterAll(async () => {
  await session?.close();
});

async function open(hash: string): Promise<void> {
  // Through another page, so that a form left changed by a test is left as a reload leaves it.
  await page.goto('about:blank');
  await page.goto(`${session.server.url}/${hash}`);
}

function field(label: string): Locator {
  return page.getByRole('form').getByLabel(label, { exact: true });
}

function row(label: string): Locator {
  return page.getByRole('form').locator('.field', { has: page.getByLabel(label, { exact: true }) });
}

const heading = (name: string) => page.getByRole('heading', { name, level: 2 });

describe('inheritance at a glance', () => {
  test('the inherited badge names the template that sets the value, a grandparent too', async () => {
    const corporate = await create(TEMPLATES, { name: 'Corporate', ntp_server: 'ntp.corp.example', timezone: 'UTC' });
    const branches = await create(TEMPLATES, { name: 'Branches', parent_tmpl: corporate.pk, overriden_fields: ['timezone'], timezone: 'Europe/Paris' });
    const lyon = await create(TEMPLATES, { name: 'Lyon sites', parent_tmpl: branches.pk, overriden_fields: ['dns_server'], dns_server: '10.12.0.53' });
    const probe = await create(VENDOR, { name: 'lyon-src-01', address: '10.12.0.2', parent_tmpl: lyon.pk });
    await open(`#/probes/vendor/${probe.pk}`);
    await heading('lyon-src-01').waitFor();
    const source = (label: string) => row(label).locator('.inherit-source');
    await expect.poll(() => source('NTP server').textContent()).toBe('from Corporate');
    expect(await source('Timezone').textContent()).toBe('from Branches');
    expect(await source('DNS server').textContent()).toBe('from Lyon sites');
    expect(await field('NTP server').inputValue()).toBe('ntp.corp.example');
    expect(await field('Timezone').inputValue()).toBe('Europe/Paris');

    // A template's own form names its ancestors the same way.
    await open(`#/templates/${lyon.pk}`);
    await heading('Lyon sites').waitFor();
    await expect.poll(() => source('NTP server').textContent()).toBe('from Corporate');
    expect(await source('Timezone').textContent()).toBe('from Branches');
    expect(await row('DNS server').locator('.inherit-source').count()).toBe(0);
  });

  test('the probe list marks the probes that override something of their template', async () => {
    const shops = await create(TEMPLATES, { name: 'Marker shops', timezone: 'UTC' });
    await create(VENDOR, { name: 'mark-list-own', address: '10.13.0.1', parent_tmpl: shops.pk, overriden_fields: ['timezone', 'ntp_server'], timezone: 'Asia/Tokyo', ntp_server: 'ntp.jp.example' });
    await create(VENDOR, { name: 'mark-list-follows', address: '10.13.0.2', parent_tmpl: shops.pk });
    await create(ENGINE, { name: 'mark-list-engine', address: '10.13.0.3' });
    await open('#/probes?search=mark-list');
    const grid = page.getByRole('grid', { name: 'Probes' });
    const marker = grid.getByRole('row').filter({ hasText: 'mark-list-own' }).locator('.override-marker');
    await marker.waitFor();
    expect(await marker.textContent()).toBe('✎ 2');
    expect(await marker.getAttribute('aria-label')).toBe('Overrides NTP server, Timezone');
    await grid.getByRole('row').filter({ hasText: 'mark-list-follows' }).waitFor();
    expect(await grid.locator('.override-marker').count()).toBe(1);
  });

  test("changing a probe's template shows the values that will change before it is saved", async () => {
    const small = await create(TEMPLATES, { name: 'Small sites', capture_threads: 2, timezone: 'UTC', interfaces: [{ name: 'eth0' }] });
    const large = await create(TEMPLATES, { name: 'Large sites', capture_threads: 8, timezone: 'Europe/Paris', interfaces: [{ name: 'eth0' }, { name: 'eth1', active: false }] });
    const probe = await create(VENDOR, { name: 'move-01', address: '10.14.0.1', parent_tmpl: small.pk, overriden_fields: ['timezone'], timezone: 'Asia/Tokyo' });
    await open(`#/probes/vendor/${probe.pk}`);
    await heading('move-01').waitFor();
    await field('Template').selectOption({ label: 'Large sites' });
    const preview = page.getByRole('status', { name: 'Values the new template changes' });
    await preview.getByText('Saving with Large sites changes 2 inherited values:').waitFor();
    const lines = await preview.getByRole('listitem').allTextContents();
    expect(lines).toEqual(['Capture threads: 2 → 8', 'Interfaces: eth0 → eth0, eth1 (off)']);
    // The overridden timezone stays the probe's own; the values that change are marked.
    expect(await field('Timezone').inputValue()).toBe('Asia/Tokyo');
    expect(await row('Capture threads').getAttribute('data-changed')).toBe('true');
    expect(await row('Timezone').getAttribute('data-changed')).toBe(null);
    expect((await read(`${VENDOR}${probe.pk}/`)).capture_threads).toBe(2);

    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('status').filter({ hasText: /^Saved\.$/ }).waitFor();
    const moved = await read(`${VENDOR}${probe.pk}/`);
    expect(moved.parent_tmpl).toBe(large.pk);
    expect(moved.capture_threads).toBe(8);
    expect(moved.timezone).toBe('Asia/Tokyo');
    await preview.waitFor({ state: 'detached' });
  });

  test('the template tree counts the probes and the templates that use each template', async () => {
    const stations = await create(TEMPLATES, { name: 'Stations' });
    await create(TEMPLATES, { name: 'Stations east', parent_tmpl: stations.pk });
    const west = await create(TEMPLATES, { name: 'Stations west', parent_tmpl: stations.pk });
    for (let i = 1; i <= 3; i++) await create(VENDOR, { name: `station-${i}`, address: `10.15.0.${i}`, parent_tmpl: stations.pk });
    await create(VENDOR, { name: 'station-w1', address: '10.15.1.1', parent_tmpl: west.pk });
    await open('#/templates?search=stations');
    const item = (name: string) => page.getByRole('treeitem', { name, exact: true });
    // The badge as drawn (CSS, from data-usage), which is also the item's accessible description.
    const badge = (name: string) => item(name).locator(':scope > .tree-row > .tree-count');
    const usage = (name: string) => badge(name).getAttribute('data-usage');
    await expect.poll(() => usage('Stations')).toBe('2 templates · 3 probes');
    await expect.poll(() => usage('Stations west')).toBe('1 probe');
    // A screen reader reads the same as the item's description.
    expect(await page.locator(`#${await item('Stations').getAttribute('aria-describedby')}`).textContent()).toBe('2 templates · 3 probes');
    expect(await badge('Stations east').count()).toBe(0);
    // A search that hides a child does not change what is counted.
    await page.getByRole('searchbox', { name: 'Search' }).fill('west');
    await page.waitForURL(/search=west/);
    await expect.poll(() => item('Stations east').count()).toBe(0);
    expect(await usage('Stations')).toBe('2 templates · 3 probes');
  });
});
