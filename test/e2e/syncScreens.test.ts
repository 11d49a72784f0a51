/**
 * The Review and Connect screens (issue 25 §1–2) in Chromium against answers of the contract's
 * shapes (shared/sync/review.ts, shared/sync/connect.ts) given by hand through the browser, so
 * that what the screens do with an answer is tested apart from how the server makes it: the
 * entries, fields now → after and a long value bounded, the reach, a choice taking its
 * dependencies and the exact apply request, the outcome; the connect plan, its decisions and the
 * exact connect request, a 409 that reads the plan again. axe on both, the keyboard on the
 * Review. Against the real routes and the reference server: test/e2e/review.test.ts, connect.test.ts.
 */
import type { Page, Route } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { ConnectPlan } from '../../shared/sync/connect';
import type { ApplyResult, PlanEntry, ReviewPlan } from '../../shared/sync/review';
import { startAppServer, type TestAppServer } from '../helpers/server';
import { startBound, type BoundWorkspace } from '../helpers/sync';
import { openAppAt, RENDERER_DIR, type PageSession } from './browser';
import { axeViolations } from './layoutCheck';

const entry = (seq: number, label: string, over: Partial<PlanEntry> = {}): PlanEntry => ({
  seq,
  hash: `hash-${seq}`,
  central: `central-${seq}`,
  op: 'update',
  resource: 'vendor_probe',
  pk: seq,
  label,
  state: 'pending',
  comment: null,
  outcome: 'send',
  message: null,
  fields: [],
  reaches: [],
  needs: [],
  ...over,
});

const LONG = `${'x'.repeat(300)}END`; // 303 characters
const plan: ReviewPlan = {
  format: 'outpost-sync-plan',
  version: 1,
  workspace: 'site',
  remote: { name: 'central', url: 'https://hq.example' },
  made: '2026-03-10T12:00:00Z',
  requests: 4,
  entries: [
    entry(1, 'Lab', {
      op: 'create',
      resource: 'vendor_probe_template',
      fields: [{ field: 'capture_threads', now: null, after: 4, base: null, outcome: 'send' }],
      reaches: [{ field: 'capture_threads', probes: 37, templates: 0, objects: Array.from({ length: 37 }, (_, i) => ({ resource: 'vendor_probe' as const, pk: i + 100, name: `p${String(i).padStart(2, '0')}` })) }],
    }),
    entry(2, 'lab-edge-1', { op: 'create', needs: [1], fields: [{ field: 'location', now: null, after: 'Lab, rack 1', base: null, outcome: 'send' }] }),
    entry(3, 'lyon-edge-1', { fields: [{ field: 'descr', now: 'short', after: LONG, base: 'short', outcome: 'send' }], comment: 'longer notes' }),
    entry(4, 'paris-edge-3', { outcome: 'conflict', message: 'Changed on the central server too.', fields: [{ field: 'location', now: 'Paris, cage B', after: 'Paris, 3rd floor', base: 'Paris', outcome: 'conflict' }] }),
    entry(5, 'nantes-edge-2', { op: 'create', outcome: 'name_taken', message: 'vendor probe with this name already exists.' }),
  ],
};

const connectPlan: ConnectPlan = {
  format: 'outpost-connect-plan',
  version: 1,
  workspace: 'default',
  remote: { name: 'hq', url: 'https://hq.example' },
  made: '2026-03-10T12:00:00Z',
  central: 'central-hash-1',
  items: [
    { resource: 'vendor_probe_template', pk: 1, name: 'Branch sites', match: 'collision', centralPk: 9, differences: [{ field: 'capture_threads', mine: 4, central: 2 }], referencedBy: ['vendor_probe:3'] },
    { resource: 'vendor_probe_template', pk: 2, name: 'Lab', match: 'same', centralPk: 10, differences: [], referencedBy: [] },
    { resource: 'vendor_probe', pk: 3, name: 'lyon-edge-1', match: 'create', centralPk: null, differences: [], referencedBy: [] },
  ],
  centralCounts: { source: 0, ruleset: 1, vendor_probe_template: 3, vendor_probe: 1200, engine_probe: 0 },
  hosts: 5,
  localHistory: 7,
  localUsers: 1,
  problems: [],
};

let bound: BoundWorkspace;
let standalone: TestAppServer;
let browser: PageSession;
let page: Page;

beforeAll(async () => {
  // Bound to a server that never answers: only the routes given by hand are read.
  bound = await startBound({ url: 'http://127.0.0.1:9', token: 'a'.repeat(40) }, { rendererDir: RENDERER_DIR });
  standalone = await startAppServer({ rendererDir: RENDERER_DIR });
  browser = await openAppAt(bound.url, { expectedStatuses: [502] });
  page = browser.page;
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await bound?.close();
  await standalone?.close();
});

const json = (route: Route, body: unknown, status = 200) => route.fulfill({ status, contentType: 'application/json', body: JSON.stringify(body) });

describe('the Review', () => {
  const applied: unknown[] = [];
  let plans = 0;

  beforeAll(async () => {
    await page.route('**/app/sync/plan', (route) => {
      plans += 1;
      return json(route, plan);
    });
    await page.route('**/app/sync/apply', (route) => {
      applied.push(route.request().postDataJSON());
      const result: ApplyResult = { applied: [1, 2], stopped: [{ seq: 3, reason: 'changed_there', message: 'Changed on the central server since the review: review again.' }] };
      return json(route, { ...result, status: {} });
    });
  });

  test('lists each change: fields now → after, a long value bounded, the reach, conflicts and refusals with their message', async () => {
    await page.goto(`${bound.url}/#/sync/review`);
    await page.getByTestId('review-summary').filter({ hasText: '5 changes to review: 3 to send, 1 in conflict, 1 with a name taken there.' }).waitFor();
    const lab = page.getByRole('listitem').filter({ has: page.getByRole('checkbox', { name: 'Create template Lab' }) });
    expect(await lab.getByRole('row', { name: /Capture threads/ }).innerText()).toMatch(/Capture threads\s+\(none\)\s+4/);
    await lab.getByText('changes Capture threads on 37 probes: p00, p01, p02, p03, p04, p05, p06, p07 and 29 more').waitFor();
    // The long value: its first 256 characters, then Show all.
    const lyon = page.getByRole('listitem').filter({ has: page.getByRole('checkbox', { name: /lyon-edge-1/ }) });
    expect(await lyon.getByText(/xEND/).count()).toBe(0);
    await lyon.getByRole('button', { name: /Show all 303 characters/ }).click();
    await lyon.getByText(/xEND/).waitFor();
    // A conflict and a refusal cannot be chosen, and say why.
    expect(await page.getByRole('checkbox', { name: /paris-edge-3/ }).isDisabled()).toBe(true);
    await page.getByText('Changed on the central server too.').waitFor();
    expect(await page.getByRole('checkbox', { name: /nantes-edge-2/ }).isDisabled()).toBe(true);
    await page.getByText('vendor probe with this name already exists.').waitFor();
    expect(await axeViolations(page)).toEqual([]);
  });

  test('choosing by the keyboard takes what the change needs, says so, and Send chosen names exactly those entries', async () => {
    await page.getByRole('checkbox', { name: /lab-edge-1/ }).focus();
    await page.keyboard.press('Space');
    await page.getByText('Also chosen, as lab-edge-1 needs them: Lab.').waitFor();
    expect(await page.getByRole('checkbox', { name: 'Create template Lab' }).isChecked()).toBe(true);
    const before = plans;
    await page.getByRole('button', { name: 'Send chosen (2)' }).click();
    await page.getByTestId('review-outcome').filter({ hasText: 'Sent 2 changes. 1 change stopped: review again.' }).waitFor();
    expect(applied.at(-1)).toEqual({ entries: [{ seq: 1, hash: 'hash-1', central: 'central-1' }, { seq: 2, hash: 'hash-2', central: 'central-2' }] });
    expect(await page.getByTestId('review-outcome').innerText()).toContain('lyon-edge-1: Changed on the central server since the review: review again.');
    // The plan is read again after applying.
    await expect.poll(() => plans).toBeGreaterThan(before);
  });

  test('Send all sends every entry that can go', async () => {
    await page.getByRole('button', { name: 'Send all (3)' }).click();
    await expect.poll(() => applied.length).toBe(2);
    expect((applied[1] as { entries: { seq: number }[] }).entries.map((e) => e.seq)).toEqual([1, 2, 3]);
  });

  test('a plan that cannot be made says what to try', async () => {
    await page.unroute('**/app/sync/plan');
    await page.route('**/app/sync/plan', (route) => json(route, { detail: 'The central server did not answer.', kind: 'network' }, 502));
    await page.getByRole('button', { name: 'Review again' }).click();
    const alert = page.getByRole('alert').filter({ hasText: 'The review could not be made' });
    await alert.waitFor();
    expect(await alert.innerText()).toContain('Check this computer’s network and VPN');
  });
});

describe('connecting a standalone workspace', () => {
  const requests: unknown[] = [];
  let plans = 0;

  beforeAll(async () => {
    await page.goto(`${standalone.url}/`);
    await page.route('**/app/workspaces/default/connect/plan', (route) => {
      plans += 1;
      return json(route, connectPlan);
    });
    await page.route('**/app/workspaces/default/connect', (route) => {
      requests.push(route.request().postDataJSON());
      return json(route, { detail: 'The central server changed since the plan.' }, 409);
    });
  });

  test('the remote is chosen (Settings → Remotes when there is none), then the plan with its collisions decided', async () => {
    const { signIn } = await import('./browser');
    await signIn(page, standalone.url);
    await page.goto(`${standalone.url}/#/sync`);
    await page.getByRole('link', { name: 'Connect to a central server…' }).click();
    await page.getByRole('main').getByRole('link', { name: 'Settings → Remotes' }).waitFor();
    const added = await standalone.api.post('/app/remotes', { name: 'hq', url: 'https://hq.example', token: 'b'.repeat(40) });
    expect(added.status).toBe(201);
    await page.reload();
    await page.getByRole('button', { name: 'Read the plan' }).click();
    await page.getByRole('heading', { name: 'Created on the central server (1)' }).waitFor();
    await page.getByRole('heading', { name: 'Already there, the same (1)' }).waitFor();
    const collision = page.getByRole('group', { name: /Branch sites/ });
    expect(await collision.getByRole('row', { name: /Capture threads/ }).innerText()).toMatch(/Capture threads\s+4\s+2/);
    expect(await collision.getByRole('radio', { name: 'Use the central object, queue my differing values for review' }).isChecked()).toBe(true);
    expect(await page.getByRole('radio', { name: /After review/ }).isChecked()).toBe(true);
    await page.getByText('1,204 objects of the central server will be pulled (1 ruleset, 3 templates, 1,200 vendor probes).').waitFor();
    expect(await axeViolations(page)).toEqual([]);
  });

  test('Connect sends the plan’s central hash with the decisions; a 409 reads the plan again', async () => {
    const collision = page.getByRole('group', { name: /Branch sites/ });
    await collision.getByRole('radio', { name: 'Rename mine' }).check();
    await collision.getByLabel('New name for mine').fill('Lab');
    await collision.getByText('“Lab” is already a name of this kind, here or on the central server.').waitFor();
    expect(await page.getByRole('button', { name: /Connect to/ }).isDisabled()).toBe(true);
    await collision.getByLabel('New name for mine').fill('Branch sites (Lyon)');
    await page.getByRole('radio', { name: /Automatically/ }).check();
    const before = plans;
    await page.getByRole('button', { name: 'Connect to “hq”' }).click();
    await page.getByText(/The central server changed since the plan/).first().waitFor();
    expect(requests).toEqual([{ remote: 'hq', central: 'central-hash-1', decisions: { 'vendor_probe_template:1': { use: 'rename', name: 'Branch sites (Lyon)' } }, pushMode: 'automatic' }]);
    await expect.poll(() => plans).toBe(before + 1);
    expect((await standalone.api.get('/app/status')).json().mode).toBe('standalone');
  });

  test('Cancel leaves the workspace as it was', async () => {
    await page.getByRole('link', { name: 'Cancel' }).click();
    await page.getByRole('heading', { name: 'This workspace is standalone' }).waitFor();
    expect(requests).toHaveLength(1);
  });
});

describe('a new bound workspace is asked how it sends', () => {
  test('once a central server is chosen: after review by default, and the choice goes with the create', async () => {
    const bodies: unknown[] = [];
    page.on('request', (request) => {
      if (request.method() === 'POST' && new URL(request.url()).pathname === '/app/workspaces') bodies.push(request.postDataJSON());
    });
    await page.goto(`${standalone.url}/#/settings`);
    await page.getByLabel('New workspace').fill('lyon');
    expect(await page.getByRole('radio', { name: /After review/ }).count()).toBe(0);
    await page.getByLabel('Central server', { exact: true }).selectOption('hq');
    expect(await page.getByRole('radio', { name: /After review/ }).isChecked()).toBe(true);
    await page.getByRole('radio', { name: /Automatically/ }).check();
    expect(await axeViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Create workspace' }).click();
    await page.getByText('Workspace "lyon" created').waitFor();
    expect(bodies).toEqual([{ name: 'lyon', remote: 'hq', pushMode: 'automatic' }]);
  });
});
