/**
 * Issue 11, "edits are never lost silently", in Chromium: every way out of a changed form asks
 * first (a row click, a sidebar link, any route change, Esc, a screen's Reload, a reload of the
 * page) and none asks without changes; changed fields are marked; Ctrl+S saves; Save and its
 * feedback stay in view below a long form; a stale "Nothing to save" goes; deleting asks, says
 * what happened, and a template in use is not offered for deletion.
 */
import type { Dialog, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { openApp, type Session } from './browser';
import { TEMPLATES, VENDOR, probeApi } from './probeApi';


let session: Session;
let page: Page;
const { create, read } = probeApi(() => session);
/** The browser's own questions (beforeunload) asked since the last look, answered by `answer`. */
let asked: string[] = [];
let answer: 'accept' | 'dismiss' = 'accept';

beforeAll(async () => {
  session = await openApp();
  page = session.page;
  page.on('dialog', (dialog: Dialog) => {
    asked.push(dialog.type());
    void (answer === 'accept' ? dialog.accept() : dialog.dismiss());
  });
}, 120_000);

afterAll(async () => {
  await session?.close();
});

/** Open a route afresh (each test starts from a page with nothing changed). */
async function open(hash: string): Promise<void> {
  answer = 'accept';
  // Through another page, so that a form left changed by a test is left as a reload leaves it.
  await page.goto('about:blank');
  await page.goto(`${session.server.url}/${hash}`);
  asked = [];
}

function field(label: string): Locator {
  return page.getByRole('form').getByLabel(label, { exact: true });
}

/** The field's row in the form (label, input, inheritance controls). */
function row(label: string): Locator {
  return page.getByRole('form').locator('.field', { has: page.getByLabel(label, { exact: true }) });
}

const question = () => page.getByRole('dialog', { name: 'Leave without saving?' });
const grid = () => page.getByRole('grid', { name: 'Probes' });
const heading = (name: string) => page.getByRole('heading', { name, level: 2 });

describe('leaving a changed form asks first', () => {
  test('a row click with changes asks; Stay keeps the edits, Discard opens the row and saves nothing', async () => {
    const a = await create(VENDOR, { name: 'ask-row-a', address: '10.1.0.1', location: 'Lyon' });
    await create(VENDOR, { name: 'ask-row-b', address: '10.1.0.2' });
    await open(`#/probes/vendor/${a.pk}?search=ask-row`);
    await heading('ask-row-a').waitFor();
    await field('Location').fill('Lyon, rack 9');

    await grid().getByRole('row').filter({ hasText: 'ask-row-b' }).click();
    await question().waitFor();
    expect(await question().textContent()).toContain('Your changes to ask-row-a are not saved: Location.');
    expect(page.url()).toContain(`#/probes/vendor/${a.pk}`);
    // Stay is where the keyboard is: Enter keeps editing.
    await expect.poll(() => question().getByRole('button', { name: 'Stay and keep editing' }).evaluate((b) => b === b.ownerDocument.activeElement)).toBe(true);
    await page.keyboard.press('Enter');
    await question().waitFor({ state: 'hidden' });
    expect(await field('Location').inputValue()).toBe('Lyon, rack 9');
    expect(page.url()).toContain(`#/probes/vendor/${a.pk}`);

    await grid().getByRole('row').filter({ hasText: 'ask-row-b' }).click();
    await question().getByRole('button', { name: 'Discard changes' }).click();
    await heading('ask-row-b').waitFor();
    expect(page.url()).toMatch(/#\/probes\/vendor\/\d+\?search=ask-row$/);
    expect((await read(`${VENDOR}${a.pk}/`)).location).toBe('Lyon');
  });

  test('a sidebar link, the back button and Escape with changes ask; Escape on the question stays', async () => {
    const probe = await create(VENDOR, { name: 'ask-link', address: '10.1.1.1', version: '7.1' });
    await open(`#/probes/vendor/${probe.pk}`);
    await heading('ask-link').waitFor();
    await field('Version').fill('7.2');

    await page.getByRole('navigation', { name: 'Screens' }).getByRole('link', { name: 'Templates' }).click();
    await question().waitFor();
    await page.keyboard.press('Escape');
    await question().waitFor({ state: 'hidden' });
    expect(page.url()).toContain(`#/probes/vendor/${probe.pk}`);
    expect(await field('Version').inputValue()).toBe('7.2');

    // Any other change of the address (back, forward, typed) is held the same way.
    await page.evaluate("window.location.hash = '#/history'");
    await question().waitFor();
    await question().getByRole('button', { name: 'Stay and keep editing' }).click();
    expect(page.url()).toContain(`#/probes/vendor/${probe.pk}`);
    await heading('ask-link').waitFor();

    // Escape in the form discards, asking first.
    await field('Version').press('Escape');
    await question().getByRole('button', { name: 'Discard changes' }).click();
    await expect.poll(() => field('Version').inputValue()).toBe('7.1');
    expect(page.url()).toContain(`#/probes/vendor/${probe.pk}`);

    await field('Version').fill('7.3');
    await page.getByRole('navigation', { name: 'Screens' }).getByRole('link', { name: 'Templates' }).click();
    await question().getByRole('button', { name: 'Discard changes' }).click();
    await page.getByRole('heading', { name: 'Templates', level: 1 }).waitFor();
    expect((await read(`${VENDOR}${probe.pk}/`)).version).toBe('7.1');
  });

  test("a screen's Reload with changes asks before it drops them", async () => {
    const probe = await create(VENDOR, { name: 'ask-reload-button', address: '10.1.2.1' });
    await open(`#/probes/vendor/${probe.pk}`);
    await heading('ask-reload-button').waitFor();
    await field('Serial').fill('SN-1');
    await page.getByRole('region', { name: 'ask-reload-button' }).getByRole('button', { name: 'Reload' }).click();
    await question().getByRole('button', { name: 'Stay and keep editing' }).click();
    expect(await field('Serial').inputValue()).toBe('SN-1');
  });

  test("a reload of the page with changes asks the browser's question; dismissed, the edits stay", async () => {
    const probe = await create(VENDOR, { name: 'ask-reload', address: '10.1.3.1' });
    await open(`#/probes/vendor/${probe.pk}`);
    await heading('ask-reload').waitFor();
    await field('Location').fill('Nantes');
    answer = 'dismiss';
    await page.evaluate('window.location.reload()');
    await expect.poll(() => asked).toEqual(['beforeunload']);
    expect(await field('Location').inputValue()).toBe('Nantes');

    answer = 'accept';
    await page.reload();
    await heading('ask-reload').waitFor();
    expect(await field('Location').inputValue()).toBe('');
  });

  test('without changes nothing asks: a row click, a sidebar link, a reload', async () => {
    const a = await create(VENDOR, { name: 'calm-a', address: '10.1.4.1' });
    await create(VENDOR, { name: 'calm-b', address: '10.1.4.2' });
    await open(`#/probes/vendor/${a.pk}?search=calm-`);
    await heading('calm-a').waitFor();
    // A change undone is no change.
    await field('Location').fill('x');
    await field('Location').fill('');
    await grid().getByRole('row').filter({ hasText: 'calm-b' }).click();
    await heading('calm-b').waitFor();
    await page.reload();
    await heading('calm-b').waitFor();
    await page.getByRole('navigation', { name: 'Screens' }).getByRole('link', { name: 'History' }).click();
    await page.getByRole('heading', { name: 'History', level: 1 }).waitFor();
    expect(asked).toEqual([]);
    expect(await question().isVisible()).toBe(false);
  });

  test('a new probe with something typed asks before Cancel drops it, and not once it is created', async () => {
    await open('#/probes/new/vendor');
    await field('Name').fill('ask-new');
    await page.getByRole('button', { name: 'Cancel' }).click();
    await question().getByText('Your changes to the new vendor probe are not saved: Name.').waitFor();
    await question().getByRole('button', { name: 'Stay and keep editing' }).click();
    await field('Address').fill('10.1.5.1');
    await page.getByRole('button', { name: 'Create vendor probe' }).click();
    await heading('ask-new').waitFor();
    expect(await question().isVisible()).toBe(false);
  });
});

describe('changes are visible and saved from the keyboard', () => {
  test('changed fields are marked until they are saved (Ctrl+S) or discarded', async () => {
    const retail = await create(TEMPLATES, { name: 'Mark retail', timezone: 'Europe/Paris' });
    const probe = await create(VENDOR, { name: 'mark-01', address: '10.2.0.1', parent_tmpl: retail.pk });
    await open(`#/probes/vendor/${probe.pk}`);
    await heading('mark-01').waitFor();
    expect(await page.getByRole('form').locator('.field[data-changed]').count()).toBe(0);

    await field('Location').fill('Lille');
    await page.getByRole('button', { name: 'Override Timezone' }).click();
    expect(await row('Location').getAttribute('data-changed')).toBe('true');
    // Overriding is a change even before the value is: the probe stops following its template.
    expect(await row('Timezone').getAttribute('data-changed')).toBe('true');
    expect(await row('Address').getAttribute('data-changed')).toBe(null);
    await page.getByText('2 fields changed, not saved').waitFor();

    await page.getByRole('button', { name: 'Discard changes' }).click();
    expect(await page.getByRole('form').locator('.field[data-changed]').count()).toBe(0);
    expect(await field('Location').inputValue()).toBe('');

    await field('Location').fill('Lille');
    await page.keyboard.press('Control+s');
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    await expect.poll(async () => (await read(`${VENDOR}${probe.pk}/`)).location).toBe('Lille');
    await expect.poll(() => page.getByRole('form').locator('.field[data-changed]').count()).toBe(0);
    // Saved: leaving asks nothing.
    await page.getByRole('navigation', { name: 'Screens' }).getByRole('link', { name: 'Templates' }).click();
    await page.getByRole('heading', { name: 'Templates', level: 1 }).waitFor();
  });

  test('"Nothing to save" goes as soon as a field changes, and "Saved." as soon as another does', async () => {
    const probe = await create(VENDOR, { name: 'stale-01', address: '10.2.1.1' });
    await open(`#/probes/vendor/${probe.pk}`);
    await heading('stale-01').waitFor();
    await page.getByRole('button', { name: 'Save changes' }).click();
    const nothing = page.getByText('Nothing to save: no field was changed.');
    await nothing.waitFor();
    await field('Location').fill('Brest');
    await nothing.waitFor({ state: 'detached' });
    await page.getByRole('button', { name: 'Save changes' }).click();
    const saved = page.getByRole('status').filter({ hasText: /^Saved\.$/ });
    await saved.waitFor();
    await field('Location').fill('Brest port');
    await saved.waitFor({ state: 'detached' });
  });

  test('Save and its feedback stay in view at the bottom of a long form (1000×700)', async () => {
    await page.setViewportSize({ width: 1000, height: 700 });
    try {
      const base = await create(TEMPLATES, {
        name: 'Long form',
        interfaces: Array.from({ length: 8 }, (_, i) => ({ name: `eth${i}` })),
        protocols: ['dns', 'http', 'smb', 'tls', 'ssh', 'smtp', 'ftp', 'rdp'].map((name) => ({ name })),
      });
      const probe = await create(VENDOR, { name: 'long-01', address: '10.2.2.1', parent_tmpl: base.pk });
      await open(`#/probes/vendor/${probe.pk}`);
      await heading('long-01').waitFor();
      const save = page.getByRole('button', { name: 'Save changes' });
      const inView = async (locator: Locator) => {
        const box = await locator.boundingBox();
        return box !== null && box.y >= 0 && box.y + box.height <= 700;
      };
      // The form is longer than the pane: its last field is out of view, Save is not.
      expect(await inView(field('Comment for the history (optional)'))).toBe(false);
      expect(await inView(save)).toBe(true);
      await field('Location').fill('Rennes');
      await save.click();
      const saved = page.getByRole('status').filter({ hasText: /^Saved\.$/ });
      await saved.waitFor();
      expect(await inView(saved)).toBe(true);
      // Scrolled to the end, the bar is still there and covers nothing for good.
      await field('Comment for the history (optional)').scrollIntoViewIfNeeded();
      expect(await inView(save)).toBe(true);
      expect(await inView(field('Comment for the history (optional)'))).toBe(true);
    } finally {
      await page.setViewportSize({ width: 1360, height: 860 });
    }
  });
});

describe('deleting', () => {
  test('a probe is deleted after a confirmation, and the screen says what happened', async () => {
    const probe = await create(VENDOR, { name: 'gone-01', address: '10.3.0.1' });
    await open(`#/probes/vendor/${probe.pk}`);
    await heading('gone-01').waitFor();
    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete gone-01?' });
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });
    expect((await session.server.api.get(`${VENDOR}${probe.pk}/`)).status).toBe(200);

    // Even with changes typed, deleting asks once (the changes go with the probe).
    await field('Location').fill('nowhere');
    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    await dialog.getByRole('button', { name: 'Delete probe' }).click();
    await page.getByRole('status').filter({ hasText: 'Deleted the vendor probe gone-01.' }).waitFor();
    expect(await question().isVisible()).toBe(false);
    expect((await session.server.api.get(`${VENDOR}${probe.pk}/`)).status).toBe(404);
  });

  test('a template in use is not offered for deletion: it says what uses it and leads there', async () => {
    const used = await create(TEMPLATES, { name: 'Kiosks' });
    await create(TEMPLATES, { name: 'Kiosks north', parent_tmpl: used.pk });
    for (let i = 1; i <= 3; i++) await create(VENDOR, { name: `kiosk-${i}`, address: `10.3.1.${i}`, parent_tmpl: used.pk });
    await open(`#/templates/${used.pk}`);
    await heading('Kiosks').waitFor();
    const remove = page.getByRole('button', { name: 'Delete', exact: true });
    const note = page.getByText(/^In use by/);
    await note.waitFor();
    expect(await note.textContent()).toBe('In use by 1 template and 3 probes: it can be deleted once they use another template.');
    expect(await remove.isDisabled()).toBe(true);
    expect(await remove.getAttribute('aria-describedby')).toBe('template-in-use');

    await note.getByRole('button', { name: '1 template and 3 probes' }).click();
    const users = page.getByRole('grid', { name: 'Probes using Kiosks' });
    await expect.poll(() => users.evaluate((element) => element === element.ownerDocument.activeElement)).toBe(true);
    expect(await users.getAttribute('aria-rowcount')).toBe('3');
    await page.keyboard.press('Enter');
    await heading('kiosk-1').waitFor();
  });

  test('a template nothing uses is deleted after a confirmation, and the screen says so', async () => {
    const lone = await create(TEMPLATES, { name: 'Lonely template' });
    await open(`#/templates/${lone.pk}`);
    await heading('Lonely template').waitFor();
    await page.getByText('No template or probe uses this template: it can be deleted.').waitFor();
    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    await page.getByRole('dialog', { name: 'Delete the template Lonely template?' }).getByRole('button', { name: 'Delete template' }).click();
    await page.getByRole('status').filter({ hasText: 'Deleted the template Lonely template.' }).waitFor();
    expect((await session.server.api.get(`${TEMPLATES}${lone.pk}/`)).status).toBe(404);
  });
});
