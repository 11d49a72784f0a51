/**
 * Every screen and every dialog passes an axe-core audit with no serious or critical violation
 * (issue 23 §6). The routes come from the app's own table (renderer/src/routes.ts, `ROUTES`, which router.ts follows), so
 * that a new screen or sub-route is audited as soon as it exists: this file must give it an
 * example (the compiler asks for one), and a workspace bound to a central server (the reference
 * server) has something on every one of them: a conflict, a refused change, the central
 * server's history. Then each dialog and panel is opened and audited while open: every
 * confirmation, the unsaved-changes question, both import panels and an EVE import's summary,
 * the Settings forms, and the sign-in screen.
 */
import path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ROUTES, type RoutePattern } from '../../renderer/src/routes';
import { startReference, type ReferenceServer } from '../helpers/reference';
import { startBound, type BoundWorkspace } from '../helpers/sync';
import { SAMPLES_DIR } from '../helpers/workplace';
import { launchChromium, openAppAt, RENDERER_DIR, USER_FORM, type PageSession } from './browser';
import { axeViolations, type AxeViolation } from './layoutCheck';

const T = '/rest/appliances/vendor_probe_template/';
const P = '/rest/appliances/vendor_probe/';

// Tests read API bodies loosely.
type Body = Record<string, any>;

let remote: ReferenceServer;
let site: BoundWorkspace;
let browser: PageSession;
let page: Page;
/** The objects the examples name. */
const known = { template: 0, unusedTemplate: 0, probe: 0, historyEntry: 0, centralEntry: 0, conflict: 0, refused: '' };

async function answered(reply: Promise<{ status: number; text: string; json(): any }>, status: number): Promise<Body> {
  const answer = await reply;
  if (answer.status !== status) throw new Error(`${answer.status} ${answer.text}`);
  return answer.json();
}

beforeAll(async () => {
  remote = await startReference();
  site = await startBound({ url: remote.url, token: remote.token }, { rendererDir: RENDERER_DIR });
  // The central server as colleagues left it: a template tree with descriptions, probes under it.
  const branch = await answered(remote.api.post(T, { name: 'Branch sites', descr: 'Sites behind a branch router', interfaces: [{ name: 'eth0' }] }), 201);
  const small = await answered(remote.api.post(T, { name: 'Small branches', descr: 'One rack, one uplink', parent_tmpl: branch.pk }), 201);
  const lyon = await answered(remote.api.post(P, { name: 'lyon-edge-1', address: '10.20.0.11', location: 'Lyon, rack 2', parent_tmpl: branch.pk }), 201);
  if ((await site.sync()).outcome !== 'done') throw new Error('the first sync failed');
  known.template = branch.pk;
  known.unusedTemplate = small.pk;
  known.probe = lyon.pk;
  // A field changed on both sides: a conflict; a create the central server refuses: a refused change.
  await answered(site.api.patch(`${P}${lyon.pk}/`, { location: 'Lyon, rack 7', comment: 'moved after the audit' }), 200);
  await answered(remote.api.patch(`${P}${lyon.pk}/`, { location: 'Lyon, cage B', comment: 'PSU swap' }), 200);
  await answered(site.api.post(P, { name: 'nantes-edge-2', address: '10.30.0.12' }), 201);
  await answered(remote.api.post(P, { name: 'nantes-edge-2', address: '10.30.0.99' }), 201);
  if ((await site.sync()).outcome !== 'conflicts') throw new Error('the second sync made no conflict');
  known.conflict = (await answered(site.api.get('/app/sync/conflicts'), 200))[0].seq;
  known.refused = 'nantes-edge-2';
  known.historyEntry = (await answered(site.api.get('/app/history'), 200)).results[0].pk;
  known.centralEntry = (await answered(site.api.get('/app/sync/remote-history'), 200)).results[0].pk;
  await answered(
    site.api.post('/rest/appliances/host_id/import/', [{ ip: '10.20.1.15', hits: 3, host_id: { first_seen: '2026-03-02T07:42:10+00:00', last_seen: '2026-03-12T18:03:55+00:00', hostname: [{ host: 'mail.acme.example', first_seen: '2026-03-02T07:42:10+00:00', last_seen: '2026-03-12T18:03:55+00:00' }] } }]),
    201,
  );
  // A workspace that is not open, for the Delete workspace confirmation.
  await answered(site.api.post('/app/workspaces', { name: 'spare' }), 201);
  browser = await openAppAt(site.url, { expectedStatuses: [502] });
  page = browser.page;
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await site?.close();
  await remote?.stop();
});

/** A hash that shows each route of the app's table, with what it names existing. */
const EXAMPLES: Readonly<Record<RoutePattern, () => string>> = {
  '/probes': () => '#/probes',
  '/probes/new/:family': () => '#/probes/new/engine',
  '/probes/:family/:pk': () => `#/probes/vendor/${known.probe}`,
  '/templates': () => '#/templates',
  '/templates/new': () => `#/templates/new?parent=${known.template}`,
  '/templates/:pk': () => `#/templates/${known.template}`,
  '/hosts': () => '#/hosts',
  '/hosts/:ip': () => '#/hosts/10.20.1.15',
  '/history': () => '#/history',
  '/history/central': () => '#/history/central',
  '/history/central/:pk': () => `#/history/central/${known.centralEntry}`,
  '/history/:pk': () => `#/history/${known.historyEntry}`,
  '/sync': () => '#/sync',
  '/sync/conflicts': () => '#/sync/conflicts',
  '/sync/conflicts/:seq': () => `#/sync/conflicts/${known.conflict}`,
  // The Review reads the plan from the reference server; the connect screen of a bound workspace says it is bound.
  '/sync/review': () => '#/sync/review',
  '/sync/connect': () => '#/sync/connect',
  '/settings': () => '#/settings',
};

/** Shown, its data read and its lists settled. */
async function settled(p: Page): Promise<void> {
  await p.locator('main h1').first().waitFor();
  await expect.poll(() => p.locator('[aria-busy="true"], main .loading').count()).toBe(0);
  await p.waitForTimeout(250);
}

async function show(hash: string): Promise<void> {
  await page.goto(`${site.url}/${hash}`);
  await settled(page);
}

/** The audit, its findings named by what was on screen. */
async function audit(where: string): Promise<string[]> {
  const found: AxeViolation[] = await axeViolations(page);
  return found.map((v) => `${where}: ${v.id} (${v.impact}) ${v.help} at ${v.targets.join(' ')}`);
}

/** A dialog opened, audited while open, then closed with its own Cancel. */
async function auditDialog(where: string, open: () => Promise<void>, dialog: () => Locator, cancel = 'Cancel'): Promise<string[]> {
  await open();
  await dialog().waitFor();
  await page.waitForTimeout(150);
  const found = await audit(where);
  await dialog().getByRole('button', { name: cancel }).click();
  await dialog().waitFor({ state: 'hidden' });
  return found;
}

describe('axe finds no serious or critical violation', () => {
  test('every route of the app’s table has an example here, and only those', () => {
    expect(Object.keys(EXAMPLES).sort()).toEqual([...ROUTES].sort());
  });

  test('on every route of the app (renderer/src/routes.ts), in a workspace bound to a central server', async () => {
    const found: string[] = [];
    for (const pattern of ROUTES) {
      await show(EXAMPLES[pattern]());
      found.push(...(await audit(pattern)));
    }
    await show('#/no-such-screen');
    found.push(...(await audit('not found')));
    expect(found).toEqual([]);
  });

  test('in every confirmation and in the unsaved-changes question', async () => {
    const found: string[] = [];
    await show(EXAMPLES['/probes/:family/:pk']());
    found.push(
      ...(await auditDialog(
        'delete a probe',
        () => page.getByRole('button', { name: 'Delete', exact: true }).click(),
        () => page.getByRole('dialog', { name: 'Delete lyon-edge-1?' }),
      )),
    );
    await page.getByRole('form').getByLabel('Location', { exact: true }).fill('Lyon, rack 9');
    found.push(
      ...(await auditDialog(
        'unsaved changes',
        () => page.getByRole('navigation', { name: 'Screens' }).getByRole('link', { name: 'Templates' }).click(),
        () => page.getByRole('dialog', { name: 'Leave without saving?' }),
        'Stay and keep editing',
      )),
    );
    await page.getByRole('navigation', { name: 'Screens' }).getByRole('link', { name: 'Templates' }).click();
    await page.getByRole('dialog', { name: 'Leave without saving?' }).getByRole('button', { name: 'Discard changes' }).click();

    await show(`#/templates/${known.unusedTemplate}`);
    found.push(
      ...(await auditDialog(
        'delete a template',
        () => page.getByRole('button', { name: /^Delete/ }).first().click(),
        () => page.getByRole('dialog', { name: 'Delete the template Small branches?' }),
      )),
    );

    await show(EXAMPLES['/sync']());
    found.push(
      ...(await auditDialog(
        'discard a refused change',
        () => page.getByRole('button', { name: `Discard ${known.refused}` }).click(),
        () => page.getByRole('dialog'),
      )),
    );

    await show(EXAMPLES['/settings']());
    found.push(
      ...(await auditDialog(
        'regenerate the token',
        () => page.getByRole('button', { name: 'Regenerate…' }).click(),
        () => page.getByRole('dialog', { name: 'Regenerate the token?' }),
      )),
    );
    found.push(
      ...(await auditDialog(
        'delete a workspace',
        () => page.getByRole('button', { name: 'Delete workspace spare' }).click(),
        () => page.getByRole('dialog', { name: 'Delete workspace "spare"?' }),
      )),
    );
    found.push(
      ...(await auditDialog(
        'remove a remote',
        () => page.getByRole('button', { name: 'Remove remote central' }).click(),
        () => page.getByRole('dialog'),
      )),
    );
    expect(found).toEqual([]);
  });

  test('in the import panels, an EVE import’s summary, and the Settings forms', async () => {
    const found: string[] = [];
    await show(EXAMPLES['/hosts']());
    await page.getByRole('button', { name: 'Import hosts file…' }).click();
    await page.getByLabel('Host identity file (JSON)').waitFor();
    found.push(...(await audit('hosts import panel')));
    await page.getByRole('button', { name: 'Import EVE log…' }).click();
    await page.getByLabel('EVE log', { exact: true }).waitFor();
    found.push(...(await audit('EVE import panel')));
    await page.getByLabel('EVE log', { exact: true }).setInputFiles(path.join(SAMPLES_DIR, 'eve', 'Tr0llope-suricata_report_generator-eve.json'));
    await page.getByRole('button', { name: 'Import log' }).click();
    await page.locator('.eve-summary').waitFor({ timeout: 60_000 });
    found.push(...(await audit('EVE import summary')));

    await show(EXAMPLES['/settings']());
    await page.getByRole('button', { name: 'Rename workspace site' }).click();
    await page.getByLabel('New name for site').waitFor();
    found.push(...(await audit('rename a workspace')));
    await page.getByRole('button', { name: 'Cancel' }).click();
    await page.getByRole('button', { name: 'Replace the token of central' }).click();
    await page.getByRole('button', { name: 'Save token' }).waitFor();
    found.push(...(await audit('replace a remote’s token')));
    await page.getByRole('button', { name: 'Cancel' }).click();
    await page.getByRole('button', { name: 'Edit remote central' }).click();
    await page.getByRole('button', { name: 'Save remote' }).waitFor();
    found.push(...(await audit('edit a remote')));
    await page.getByRole('button', { name: 'Test connection to central' }).click();
    await page.getByText(/^The connection (works|does not work)/).waitFor({ timeout: 60_000 });
    found.push(...(await audit('a remote’s connection test')));
    expect(found).toEqual([]);
  });

  test('on the sign-in screen, and with its error shown', async () => {
    const other = await launchChromium();
    try {
      const context = await other.newContext({ viewport: { width: 1366, height: 768 }, ...USER_FORM });
      const signIn = await context.newPage();
      await signIn.goto(`${site.url}/`);
      await signIn.getByLabel('API token').fill('0'.repeat(40));
      const before = await axeViolations(signIn);
      await signIn.getByRole('button', { name: 'Sign in' }).click();
      await signIn.getByRole('alert').waitFor();
      expect([...before, ...(await axeViolations(signIn))]).toEqual([]);
    } finally {
      await other.close();
    }
  });
});
