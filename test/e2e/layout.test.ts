/**
 * Every screen readable from a 1000×700 window to a large screen (issue 11): at 1000×700,
 * 1366×768 and 1920×1080, no form field or list cell the user needs is clipped to nothing or cut
 * by its pane, a cut cell shows its full value as a tooltip, the status bar is one line
 * (test/e2e/layoutCheck.ts), and an axe-core audit finds no serious or critical violation.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { openApp, snapshot, type Session } from './browser';
import { axeViolations, inView, layoutProblems, wholeValueProblems } from './layoutCheck';

const SIZES = [
  { width: 1000, height: 700 },
  { width: 1366, height: 768 },
  { width: 1920, height: 1080 },
] as const;

let session: Session;
let page: Page;
let probe: number;
let template: number;
let edit: number;
/** Written whole (the API answers it compressed: 2001:db8:85a3::8a2e:370:7334). */
const LONG_IPV6 = '2001:0db8:85a3:0000:0000:8a2e:0370:7334';
const LONG_IPV6_SHOWN = '2001:db8:85a3::8a2e:370:7334';

const seen = (day: number) => ({ first_seen: `2026-03-0${day}T07:42:10.218331+00:00`, last_seen: `2026-03-1${day}T18:03:55.902114+00:00` });

beforeAll(async () => {
  session = await openApp();
  page = session.page;
  const { api } = session.server;
  const created = async (path: string, body: object) => {
    const reply = await api.post(path, body);
    if (reply.status !== 201) throw new Error(`${path}: ${reply.status} ${reply.text}`);
    return reply.json() as { pk: number };
  };
  template = (
    await created('/rest/appliances/vendor_probe_template/', {
      name: 'site-template-for-the-lyon-datacenter',
      home_net: '[10.0.0.0/8,172.16.0.0/12,192.168.0.0/16]',
      interfaces: [{ name: 'eth0' }, { name: 'eth1-mirror-port' }],
      protocols: [{ name: 'http' }],
    })
  ).pk;
  probe = (
    await created('/rest/appliances/vendor_probe/', {
      name: 'lyon-core-probe-with-a-rather-long-name',
      address: 'probe-1.lyon.example.com',
      location: 'Lyon datacenter, building B, room 4, rack 12',
      version: '7.0.3-rc2',
      parent_tmpl: template,
    })
  ).pk;
  await created('/rest/appliances/engine_probe/', { name: 'grenoble-engine', address: '10.9.0.2', location: 'Grenoble' });
  const hosts = [
    {
      ip: '10.20.1.15',
      hits: 3,
      host_id: {
        ...seen(2),
        hostname: [{ host: 'mail.acme-logistics.example', ...seen(2) }, { host: 'smtp.acme-logistics.example', ...seen(3) }, { host: 'backup-mx.acme-logistics.example', ...seen(4) }],
        services: [{ proto: 'tcp', port: 25, values: [{ app_proto: 'smtp', first_seen: '2026-03-02T07:42:11.004127+0000', last_seen: '2026-03-12T18:04:02.551790+0000' }] }],
      },
    },
    { ip: '2001:db8:aaaa:bbbb:cccc:dddd:eeee:1', hits: 1, host_id: { ...seen(3) } },
    {
      ip: LONG_IPV6,
      hits: 7,
      host_id: {
        ...seen(4),
        hostname: [{ host: 'intranet-portal.corp.acme-logistics.example', ...seen(4) }],
        services: [
          {
            proto: 'tcp',
            port: 443,
            values: [
              {
                app_proto: 'tls',
                first_seen: '2026-03-04T07:42:11.004127+0000',
                last_seen: '2026-03-14T18:04:02.551790+0000',
                tls: {
                  subject: 'C=FR, ST=Auvergne-Rhone-Alpes, L=Lyon, O=Acme Logistics International SAS, OU=Information Systems, CN=intranet-portal.corp.acme-logistics.example',
                  issuerdn: 'C=US, O=DigiCert Inc, OU=www.digicert.com, CN=DigiCert Global G2 TLS RSA SHA256 2020 CA1',
                  fingerprint: '8f:03:aa:41:6c:2e:90:17:d4:5b:e2:7a:c1:38:0f:66:b9:54:2d:e8',
                },
              },
            ],
          },
        ],
      },
    },
  ];
  const reply = await api.post('/rest/appliances/host_id/import/', hosts);
  if (reply.status !== 201) throw new Error(`hosts: ${reply.status} ${reply.text}`);
  // An edit whose "after" values are long: History shows them without a sideways scroll.
  const edited = await api.patch(`/rest/appliances/vendor_probe/${probe}/`, {
    location: 'Lyon datacenter, building B, room 4, rack 12, second shelf from the top, behind the patch panel of the customer-facing network',
    address: 'probe-1.lyon-datacenter.internal.acme-logistics.example.com',
  });
  if (edited.status !== 200) throw new Error(`edit: ${edited.status} ${edited.text}`);
  edit = (await api.get('/rest/rules/history/?action_type=edit_appliance')).json().results[0].pk;
}, 120_000);

afterAll(async () => {
  await session?.close();
});

/** Every screen, as the user reaches it, and what says it is there. */
const SCREENS: readonly { name: string; hash: () => string; ready: (page: Page) => Promise<unknown> }[] = [
  { name: 'probes', hash: () => `#/probes/vendor/${probe}`, ready: (p) => p.getByRole('form').getByLabel('Home networks', { exact: true }).waitFor() },
  { name: 'new-probe', hash: () => '#/probes/new/vendor', ready: (p) => p.getByRole('heading', { name: 'New vendor probe' }).waitFor() },
  { name: 'templates', hash: () => `#/templates/${template}`, ready: (p) => p.getByRole('form').getByLabel('Home networks', { exact: true }).waitFor() },
  { name: 'hosts', hash: () => '#/hosts/10.20.1.15', ready: (p) => p.getByRole('heading', { name: '10.20.1.15', level: 2 }).waitFor() },
  { name: 'history', hash: () => '#/history', ready: (p) => p.getByRole('grid').getByRole('row').first().waitFor() },
  { name: 'sync', hash: () => '#/sync', ready: (p) => p.getByRole('heading', { name: 'This workspace is standalone' }).waitFor() },
  { name: 'settings', hash: () => '#/settings', ready: (p) => p.getByRole('table', { name: 'Workspaces' }).getByRole('row').nth(1).waitFor() },
  { name: 'not-found', hash: () => '#/no-such-screen', ready: (p) => p.getByRole('heading', { name: 'Page not found' }).waitFor() },
];

async function show(hash: string, ready: (page: Page) => Promise<unknown>): Promise<void> {
  await page.goto(`${session.server.url}/${hash}`);
  await ready(page);
  // The lists measure their width and fetch their rows: let them settle.
  await page.waitForFunction("!document.querySelector('[role=\"grid\"][aria-busy=\"true\"]')");
  await page.waitForTimeout(150);
}

describe('every screen at 1000×700, 1366×768 and 1920×1080', () => {
  for (const size of SIZES) {
    for (const screen of SCREENS) {
      test(`${screen.name} at ${size.width}×${size.height}: nothing the user needs is clipped, and axe finds no serious violation`, async () => {
        await page.setViewportSize(size);
        await show(screen.hash(), screen.ready);
        await snapshot(page, `layout-${screen.name}-${size.width}`);
        expect(await layoutProblems(page)).toEqual([]);
        expect(await axeViolations(page)).toEqual([]);
      });
    }
  }

  test('the checks see what they look for: a squeezed field, a cut cell without tooltip, an image without text', async () => {
    await page.setViewportSize(SIZES[2]);
    await show('#/no-such-screen', SCREENS[SCREENS.length - 1]!.ready);
    await page.locator('main').evaluate((main) => {
      // Styles through the CSSOM: the page's CSP refuses style attributes in markup.
      const document = main.ownerDocument;
      const input = Object.assign(document.createElement('input'), { id: 'squeezed' });
      input.style.width = '20px';
      const box = document.createElement('div');
      box.style.width = '60px';
      const cell = Object.assign(document.createElement('div'), { textContent: 'a value far too long for its cell' });
      cell.setAttribute('role', 'gridcell');
      Object.assign(cell.style, { overflow: 'hidden', whiteSpace: 'nowrap' });
      box.append(cell);
      const image = Object.assign(document.createElement('img'), { src: 'data:,', id: 'no-alt' });
      main.append(input, box, image);
    });
    const problems = await layoutProblems(page);
    expect(problems.some((p) => p.includes('#squeezed') && p.includes('px wide'))).toBe(true);
    expect(problems.some((p) => p.includes('a value far too long') && p.includes('no tooltip'))).toBe(true);
    expect((await axeViolations(page)).map((v) => v.id)).toContain('image-alt');
  });

  test('at 1000×700 the detail pane goes under the list, and an inherited value keeps the width to be read whole', async () => {
    await page.setViewportSize(SIZES[0]);
    await show(`#/probes/vendor/${probe}`, SCREENS[0]!.ready);
    const list = await page.getByRole('grid', { name: 'Probes' }).boundingBox();
    const homeNet = page.getByRole('form').getByLabel('Home networks', { exact: true });
    const field = await homeNet.boundingBox();
    expect(field!.y).toBeGreaterThan(list!.y + list!.height);
    // The value is shown whole: the field is wider than its text.
    expect(await homeNet.evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true);
  });

  test('at 1366×768 the inherited home networks are shown whole beside the list', async () => {
    await page.setViewportSize(SIZES[1]);
    await show(`#/probes/vendor/${probe}`, SCREENS[0]!.ready);
    const homeNet = page.getByRole('form').getByLabel('Home networks', { exact: true });
    expect(await homeNet.evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true);
    const list = await page.getByRole('grid', { name: 'Probes' }).boundingBox();
    expect((await homeNet.boundingBox())!.x).toBeGreaterThan(list!.x + list!.width);
  });

  test('a narrow list leaves out its low-priority columns and names them; a cut cell has its full value as tooltip', async () => {
    await page.setViewportSize(SIZES[0]);
    await show(`#/probes/vendor/${probe}`, SCREENS[0]!.ready);
    await page.setViewportSize({ width: 1000, height: 700 });
    const grid = page.getByRole('grid', { name: 'Probes' });
    const cell = grid.getByRole('gridcell').filter({ hasText: 'lyon-core-probe' });
    expect(await cell.getAttribute('title')).toBe('lyon-core-probe-with-a-rather-long-name');
    // The detail pane beside the list at 1366 leaves the list narrow: Version goes first.
    await page.setViewportSize(SIZES[1]);
    await page.waitForTimeout(100);
    expect(await page.locator('.vtable-th').allTextContents()).not.toContain('Version');
    await page.getByText('not shown at this width: Version').waitFor();
    await page.setViewportSize(SIZES[2]);
    await page.waitForTimeout(100);
    expect((await page.locator('.vtable-th').allTextContents()).map((t) => t.replace(/[▲▼]/g, '').trim())).toContain('Version');
  });

  test('the keyboard’s row shows its cut cells whole under it while the list has focus', async () => {
    await page.setViewportSize(SIZES[1]);
    await show('#/probes', (p) => p.getByRole('grid', { name: 'Probes' }).getByRole('row').first().waitFor());
    const grid = page.getByRole('grid', { name: 'Probes' });
    await grid.focus();
    await page.keyboard.press('Home');
    await page.keyboard.press('ArrowDown');
    const peek = page.getByRole('tooltip');
    await peek.waitFor();
    expect(await peek.textContent()).toContain('lyon-core-probe-with-a-rather-long-name');
    expect(await grid.getAttribute('aria-describedby')).toBe(await peek.getAttribute('id'));
  });

  for (const size of SIZES.slice(0, 2)) {
    test(`at ${size.width}×${size.height} the host list, a host and a History entry need no sideways scroll, and no address or time is cut`, async () => {
      await page.setViewportSize(size);
      // A fresh page: nothing left of another test's screen (a hash change keeps the document).
      await page.goto('about:blank');
      await show('#/hosts', (p) => p.getByRole('grid', { name: 'Known hosts' }).getByRole('gridcell', { name: LONG_IPV6_SHOWN }).waitFor());
      expect(await wholeValueProblems(page)).toEqual([]);
      await show(`#/hosts/${LONG_IPV6_SHOWN}`, (p) => p.getByRole('heading', { name: LONG_IPV6_SHOWN, level: 2 }).waitFor());
      expect(await wholeValueProblems(page)).toEqual([]);
      expect(await layoutProblems(page)).toEqual([]);
      // The TLS values are not squeezed: the details column keeps room for a line of words.
      const details = await page.locator('.service-details').first().boundingBox();
      expect(details!.width).toBeGreaterThan(200);
      await show(`#/history/${edit}`, (p) => p.getByRole('article').waitFor());
      await page.getByRole('article').getByText('behind the patch panel', { exact: false }).first().waitFor();
      expect(await wholeValueProblems(page)).toEqual([]);
      expect(await layoutProblems(page)).toEqual([]);
    });

    test(`at ${size.width}×${size.height} a host picked in the list and the import panel open where they are seen`, async () => {
      await page.setViewportSize(size);
      await page.goto('about:blank');
      await show('#/hosts', (p) => p.getByRole('grid', { name: 'Known hosts' }).getByRole('row').first().waitFor());
      await page.getByRole('grid', { name: 'Known hosts' }).getByRole('gridcell', { name: '10.20.1.15' }).click();
      await page.getByRole('heading', { name: '10.20.1.15', level: 2 }).waitFor();
      await page.waitForTimeout(100);
      if (!(await inView(page, '.detail-pane'))) await snapshot(page, `layout-detail-not-seen-${size.width}`);
      expect(await inView(page, '.detail-pane')).toBe(true);
      await page.getByRole('button', { name: 'Import EVE log…' }).click();
      await page.getByLabel('EVE log', { exact: true }).waitFor({ state: 'attached' });
      await page.waitForTimeout(100);
      expect(await inView(page, '.detail-pane')).toBe(true);
      expect(await inView(page, '.host-import, .eve-import, .detail-pane > :first-child')).toBe(true);
      await page.getByRole('button', { name: 'Import EVE log…' }).click();
    });
  }
});
