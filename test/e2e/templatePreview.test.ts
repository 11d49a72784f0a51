/**
 * Saving a template in use shows first what changes for the probes and templates that inherit
 * from it (issue 25 §2, local preview): Cancel changes nothing, Save saves; a template nothing
 * uses saves at once. The dialog passes axe. The preview's computation is tested in
 * test/shared/templatePreview.test.ts and its route in test/app/templatePreview.test.ts.
 */
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { openApp, type Session } from './browser';
import { axeViolations } from './layoutCheck';
import { TEMPLATES, VENDOR, probeApi } from './probeApi';

let session: Session;
let page: Page;
const { create, read } = probeApi(() => session);
let used: number;
let unused: number;
const PROBES = 12;

beforeAll(async () => {
  session = await openApp();
  page = session.page;
  page.on('dialog', (dialog) => void (dialog.type() === 'beforeunload' ? dialog.accept() : dialog.dismiss()));
  used = (await create(TEMPLATES, { name: 'Branch sites', capture_threads: 2 })).pk;
  unused = (await create(TEMPLATES, { name: 'Spare', capture_threads: 2 })).pk;
  for (let i = 0; i < PROBES; i += 1) {
    await create(VENDOR, { name: `edge-${String(i).padStart(2, '0')}`, address: `10.0.0.${i + 1}`, parent_tmpl: used });
  }
  // One probe keeps its own value: the preview does not list it.
  await create(VENDOR, { name: 'edge-own', address: '10.0.1.1', parent_tmpl: used, overriden_fields: ['capture_threads'], capture_threads: 6 });
}, 120_000);

afterAll(async () => {
  await session?.close();
});

function field(label: string): Locator {
  return page.getByRole('form').getByLabel(label, { exact: true });
}

async function openTemplate(pk: number): Promise<void> {
  await page.goto(`${session.server.url}/#/templates/${pk}`);
  await page.reload();
  await field('Capture threads').waitFor();
}

describe('saving a template in use', () => {
  test('the preview lists the probes that take the new value, bounded; Cancel changes nothing', async () => {
    await openTemplate(used);
    await field('Capture threads').fill('4');
    await page.getByRole('button', { name: 'Save changes' }).click();
    const dialog = page.getByRole('dialog', { name: `Saving this template changes ${PROBES} probes` });
    await dialog.waitFor();
    await dialog.getByText(`Saving changes Capture threads on ${PROBES} probes:`).waitFor();
    const lines = await dialog.getByRole('listitem').allInnerTexts();
    // Eight named (edge-00 … edge-07, by name), then the rest counted; edge-own is not there.
    expect(lines).toEqual([...Array.from({ length: 8 }, (_, i) => `edge-0${i}: 2 → 4`), `and ${PROBES - 8} more`]);
    expect(await axeViolations(page)).toEqual([]);

    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.getByText('Not saved: nothing was changed.').waitFor();
    expect((await read(`${TEMPLATES}${used}/`)).capture_threads).toBe(2);
    expect((await read(`${VENDOR}?name=edge-00`)).results[0].capture_threads).toBe(2);
    // The edit stays in the form.
    expect(await field('Capture threads').inputValue()).toBe('4');
  });

  test('Save saves, and the probes follow', async () => {
    await page.getByRole('button', { name: 'Save changes' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText('Saved. Templates and probes that inherit from it follow.').waitFor();
    expect((await read(`${TEMPLATES}${used}/`)).capture_threads).toBe(4);
    expect((await read(`${VENDOR}?name=edge-00`)).results[0].capture_threads).toBe(4);
    expect((await read(`${VENDOR}?name=edge-own`)).results[0].capture_threads).toBe(6);
  });

  test('Escape cancels as Cancel does', async () => {
    await openTemplate(used);
    await field('Capture threads').fill('3');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('dialog').waitFor();
    await page.keyboard.press('Escape');
    await page.getByText('Not saved: nothing was changed.').waitFor();
    expect((await read(`${TEMPLATES}${used}/`)).capture_threads).toBe(4);
    await page.getByRole('button', { name: 'Discard changes' }).click();
  });

  test('a template nothing uses saves at once, without a preview', async () => {
    await openTemplate(unused);
    await field('Capture threads').fill('8');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('Saved. Templates and probes that inherit from it follow.').waitFor();
    expect(await page.getByRole('dialog').count()).toBe(0);
    expect((await read(`${TEMPLATES}${unused}/`)).capture_threads).toBe(8);
  });
});
