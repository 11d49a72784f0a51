/**
 * The site survey's questions (issue 24), answered in Chromium by clicking, never by typing a
 * query, on a real Suricata log (../shared/samples/eve/, alaajili's: a small Windows domain)
 * split by time into two imports made as a terminal makes them (the upload route): the domain
 * controller, the host of a user, the TLS servers with their certificates, the hosts new in the
 * second import; the list following the data without Reload; printing. The expected answers are
 * worked out here from the log's lines (or, for the hosts new in an import, from the known hosts
 * before and after it), never from the screen's own answers.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { openApp, screenshot, snapshot, type Session } from './browser';
import { axeViolations } from './layoutCheck';
import { hostsOfLine } from '../helpers/eveLineHosts';
import { SAMPLES_DIR } from '../helpers/workplace';

const SAMPLE = path.join(SAMPLES_DIR, 'eve', 'alaajili-EVE-Json-Parser-eve.json');

interface EveLine {
  readonly event_type?: string;
  readonly timestamp?: string;
  readonly src_ip?: string;
  readonly dest_ip?: string;
  readonly src_port?: number;
  readonly dest_port?: number;
  readonly krb5?: { cname?: string };
  readonly tls?: { subject?: string };
  readonly app_proto?: string;
}

const rawLines = fs
  .readFileSync(SAMPLE, 'utf8')
  .split('\n')
  .filter((line) => line.trim() !== '');
const events = rawLines.map((line) => JSON.parse(line) as EveLine);

/** The side of an event on `port`, if either is. */
const sideOn = (e: EveLine, port: number) => (e.src_port === port ? e.src_ip : e.dest_port === port ? e.dest_ip : undefined);
/** The server of an event: the side on the lower port (443 against an ephemeral one). */
const server = (e: EveLine) => ((e.src_port ?? 65536) < (e.dest_port ?? 65536) ? e.src_ip : e.dest_ip);

/** Kerberos servers answer on 88: the domain controllers (docs/eve.md's roles). */
const domainControllers = new Set(events.filter((e) => e.event_type === 'krb5').map((e) => sideOn(e, 88)).filter((ip) => ip !== undefined));
/** The Kerberos clients that named the user `jessie.andrews` (its client: the side not on 88). */
const jessieHosts = new Set(events.filter((e) => e.event_type === 'krb5' && e.krb5?.cname === 'jessie.andrews').map((e) => (e.src_port === 88 ? e.dest_ip : e.src_ip)));
/** TLS servers and, per server and port, the subject of the latest event that carried one. */
const tlsSubjects = new Map<string, Map<number, { at: number; subject: string }>>();
for (const e of events) {
  if (e.event_type !== 'tls' || !e.tls?.subject) continue;
  const ip = server(e)!;
  const port = ip === e.src_ip ? e.src_port! : e.dest_port!;
  const at = Date.parse(e.timestamp!);
  const byPort = tlsSubjects.get(ip) ?? new Map<number, { at: number; subject: string }>();
  if ((byPort.get(port)?.at ?? -Infinity) <= at) byPort.set(port, { at, subject: e.tls.subject });
  tlsSubjects.set(ip, byPort);
}
/** Any host the log shows serving TLS (a certificate or not: TLS 1.3 hides it). */
const tlsServers = new Set(events.filter((e) => e.event_type === 'tls' || e.app_proto === 'tls').map(server));

/** An EVE time (`…+0100`) as epoch milliseconds. */
const timeOf = (e: EveLine) => Date.parse((e.timestamp ?? '').replace(/(\d{2})(\d{2})$/, '$1:$2'));

/** The log split by time: the lines up to its middle instant, then the others, each part in the log's order. */
function splitByTime(): { readonly texts: [string, string]; readonly newInSecond: string[] } {
  const middle = events.map(timeOf).sort((a, b) => a - b)[Math.floor(events.length / 2)]!;
  const first = events.map((e, i) => ({ e, line: rawLines[i]! })).filter(({ e }) => timeOf(e) <= middle);
  const second = events.map((e, i) => ({ e, line: rawLines[i]! })).filter(({ e }) => timeOf(e) > middle);
  // The hosts the second part brings: the addresses its lines make hosts of (docs/eve.md's rules) that the first part's did not.
  const inFirst = new Set(first.flatMap(({ e }) => hostsOfLine(e)));
  const newInSecond = [...new Set(second.flatMap(({ e }) => hostsOfLine(e)))].filter((ip) => !inFirst.has(ip)).sort();
  const text = (part: typeof first) => part.map(({ line }) => `${line}\n`).join('');
  return { texts: [text(first), text(second)], newInSecond };
}

let session: Session;
let page: Page;
let files: string;
let split: ReturnType<typeof splitByTime>;

/** An import as a terminal or another window makes it: the log's bytes uploaded to the import route. */
async function importLog(name: string, content: string): Promise<void> {
  const reply = await session.server.api.send('POST', `/app/hosts/import-eve?name=${encodeURIComponent(name)}`, {
    body: Buffer.from(content),
    headers: { 'Content-Type': 'application/octet-stream' },
  });
  if (reply.status !== 200) throw new Error(`import ${name}: ${reply.status} ${reply.text}`);
}

async function knownAddresses(): Promise<Set<string>> {
  const page = (await session.server.api.get('/rest/appliances/host_id/?page_size=10000')).json() as { results: { ip: string }[] };
  return new Set(page.results.map((h) => h.ip));
}

const grid = () => page.getByRole('grid', { name: 'Known hosts' });
const footer = (rows: number) => page.locator('.vtable-foot').filter({ hasText: new RegExp(`^${rows.toLocaleString('en-US')} rows?`) });
/** The addresses of the rows in the page (all of them when the list is short). */
const shownAddresses = async () => (await grid().locator('[role=row] [role=gridcell]:first-child').allTextContents()).sort();
/** A fresh load of the app at `hash` (a hash change alone would keep the screen's panels open). */
async function open(hash: string): Promise<void> {
  await page.goto('about:blank');
  await page.goto(`${session.server.url}/${hash}`);
}

/** Shows a column by the column picker, and closes the picker. */
async function showColumn(name: string): Promise<void> {
  const button = page.getByRole('button', { name: /^Columns \(/ });
  if ((await button.getAttribute('aria-expanded')) !== 'true') await button.click();
  await page.getByRole('group', { name: 'Columns shown' }).getByRole('checkbox', { name, exact: true }).check();
  await button.click();
}
const facetValue = (facet: string, value: RegExp): Locator => page.locator(`section[aria-labelledby="facet-${facet}"] button`).filter({ hasText: value });

beforeAll(async () => {
  files = fs.mkdtempSync(path.join(os.tmpdir(), 'outpost-survey-'));
  session = await openApp({ viewport: { width: 1366, height: 768 } });
  page = session.page;
  split = splitByTime();
  await importLog('eve-morning.json', split.texts[0]);
}, 120_000);

afterAll(async () => {
  fs.rmSync(files, { recursive: true, force: true });
  await session?.close();
});

describe('the site survey, answered by clicking', () => {
  test('the hosts new in the second import: the list follows the import made elsewhere, then its "New in this import" lists them', async () => {
    const before = await knownAddresses();
    await open('#/hosts');
    await footer(before.size).waitFor();
    // The second half imported as from a terminal: the open list follows without Reload.
    await importLog('eve-afternoon.json', split.texts[1]);
    const after = await knownAddresses();
    const added = split.newInSecond;
    expect(added.length).toBeGreaterThan(0);
    // The known hosts before and after agree with the reckoning from the lines.
    expect([...after].filter((ip) => !before.has(ip)).sort()).toEqual(added);
    await footer(after.size).waitFor({ timeout: 15_000 });

    await page.getByRole('button', { name: 'Imports' }).click();
    const imports = page.getByRole('list', { name: 'Imports' });
    const latest = imports.locator(':scope > li').filter({ hasText: 'eve-afternoon.json' });
    expect(await latest.textContent()).toContain(`${added.length} new`);
    await screenshot(page, 'hosts-imports');
    await latest.getByRole('button', { name: 'New in this import' }).click();
    await footer(added.length).waitFor();
    const shown = await shownAddresses();
    expect(shown.length).toBeGreaterThan(0);
    for (const ip of shown) expect(added).toContain(ip);
    if (added.length <= 15) expect(shown).toEqual(added);
    await page.getByRole('list', { name: 'Filters on' }).getByRole('button', { name: /Remove filter/ }).click();
    await footer(after.size).waitFor();

    // The import's History entry leads back to its hosts (the Imports panel is still open).
    await imports.locator(':scope > li').filter({ hasText: 'eve-afternoon.json' }).getByRole('link', { name: 'History entry' }).click();
    await page.getByRole('article').getByRole('link', { name: 'its new hosts' }).click();
    await footer(added.length).waitFor();
  });

  test('the domain controller: a click on the Roles facet’s "domain controller"; the chip shows its query', async () => {
    expect(domainControllers.size).toBeGreaterThan(0);
    await open('#/hosts');
    await facetValue('roles', /domain controller/).first().click();
    await footer(domainControllers.size).waitFor();
    expect(await shownAddresses()).toEqual([...domainControllers].sort());
    const chip = page.getByRole('list', { name: 'Filters on' }).getByRole('listitem');
    expect(await chip.locator('code').textContent()).toMatch(/roles\.name:.*domain controller/);
    await screenshot(page, 'hosts-facets');
    await chip.getByRole('button', { name: /Remove filter/ }).click();
    await page.getByRole('list', { name: 'Filters on' }).waitFor({ state: 'detached' });
  });

  test('the host of a user: part of the name in the search box, the Users column', async () => {
    expect(jessieHosts.size).toBeGreaterThan(0);
    await open('#/hosts');
    await page.getByRole('group', { name: 'Export' }).waitFor();
    await showColumn('Users');
    await page.getByRole('searchbox', { name: 'Search' }).fill('jessie');
    await footer(jessieHosts.size).waitFor();
    expect(await shownAddresses()).toEqual([...jessieHosts].sort());
    const headers = await page.locator('.vtable-th').allTextContents();
    const usersColumn = headers.findIndex((t) => t.startsWith('Users'));
    if (usersColumn < 0) await snapshot(page, 'survey-users');
    expect(usersColumn).toBeGreaterThan(0);
    const cell = grid().getByRole('row').first().getByRole('gridcell').nth(usersColumn);
    expect(await cell.textContent()).toContain('jessie.andrews');
  });

  test('the TLS servers with their certificates: the TLS facet, the TLS subjects column', async () => {
    expect(tlsSubjects.size).toBeGreaterThan(0);
    await page.setViewportSize({ width: 1600, height: 900 });
    await open('#/hosts');
    await showColumn('TLS subjects');
    await page.locator('section[aria-labelledby="facet-tls_server"] button').first().click();
    await page.getByRole('list', { name: 'Filters on' }).waitFor();
    await grid().getByRole('row').first().waitFor();
    await page.waitForFunction("!document.querySelector('[role=\"grid\"][aria-busy=\"true\"]')");
    const headers = await page.locator('.vtable-th').allTextContents();
    const subjectColumn = headers.findIndex((t) => t.startsWith('TLS subjects'));
    expect(subjectColumn).toBeGreaterThan(0);
    const rows = await grid().getByRole('row').all();
    const seen = new Map<string, string>();
    for (const row of rows) {
      const cells = row.getByRole('gridcell');
      seen.set((await cells.first().textContent()) ?? '', (await cells.nth(subjectColumn).getAttribute('title')) ?? '');
    }
    for (const ip of seen.keys()) expect(tlsServers.has(ip)).toBe(true);
    // Each server with a certificate in the log is listed with its latest subject per port.
    const count = Number((await page.locator('.vtable-foot').textContent())?.match(/^([\d,]+) rows?/)?.[1]?.replace(/,/g, ''));
    expect(count).toBeGreaterThanOrEqual(tlsSubjects.size);
    if (count <= rows.length) {
      for (const [ip, ports] of tlsSubjects) for (const { subject } of ports.values()) expect(seen.get(ip)).toContain(subject.slice(0, 200));
    }
    await screenshot(page, 'hosts-survey');
    await page.setViewportSize({ width: 1366, height: 768 });
  });

  test('printing the Hosts screen prints the list and the host, not the navigation, nothing clipped', async () => {
    const ip = [...domainControllers][0]!;
    await open(`#/hosts/${ip}`);
    await page.getByRole('heading', { name: ip, level: 2 }).waitFor();
    await page.emulateMedia({ media: 'print' });
    try {
      expect(await page.getByRole('navigation', { name: 'Screens' }).isVisible()).toBe(false);
      expect(await page.getByRole('contentinfo', { name: 'Status' }).isVisible()).toBe(false);
      expect(await page.locator('.print-note').textContent()).toMatch(/hosts in this list.*export the CSV/);
      // Nothing scrolls inside the page: every box holds its content.
      const clipped = await page.evaluate(`[...document.querySelectorAll('.detail-pane, .list-pane, .vtable-body, .main')].filter((e) => e.scrollHeight > e.clientHeight + 1 && getComputedStyle(e).overflowY !== 'visible').map((e) => e.className)`);
      expect(clipped).toEqual([]);
      const pdf = await page.pdf({ format: 'A4' });
      expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
    } finally {
      await page.emulateMedia({ media: null });
    }
  });

  test('the Changes view: what the second import brought, by default; each address links to its host', async () => {
    await open('#/hosts');
    await page.getByRole('button', { name: 'Changes' }).click();
    const totals = page.getByRole('table', { name: 'Changes per kind' });
    await totals.waitFor();
    const newHosts = await totals.getByRole('row').filter({ hasText: 'New hosts' }).getByRole('cell').textContent();
    // The default compares the latest import with the one before: its new hosts are those the second half brought.
    expect(Number(newHosts)).toBe(split.newInSecond.length);
    const link = page.getByRole('table', { name: 'Changes' }).getByRole('link').first();
    const ip = await link.textContent();
    await link.click();
    await page.getByRole('heading', { name: ip!, level: 2 }).waitFor();
    await screenshot(page, 'hosts-changes');
  });

  test('the query box completes a field and a value; an unknown field is named before anything is sent', async () => {
    await open('#/hosts');
    const box = page.getByLabel('Query', { exact: true });
    await box.fill('roles.na');
    await page.getByRole('option', { name: /host_id\.roles\.name/ }).waitFor();
    await box.press('Tab');
    expect(await box.inputValue()).toBe('host_id.roles.name:');
    await box.pressSequentially('doma');
    await page.getByRole('option', { name: /domain controller/ }).click();
    expect(await box.inputValue()).toBe('host_id.roles.name:"domain controller"');
    await box.press('Enter');
    await footer(domainControllers.size).waitFor();

    await box.fill('role:dc');
    const error = page.locator('#hosts-qfilter-error');
    expect(await error.textContent()).toMatch(/^No such field: host_id\.role — did you mean host_id\.roles\?/);
    await page.getByRole('button', { name: 'Apply query' }).click();
    expect(new URLSearchParams(new URL(page.url()).hash.split('?')[1]).get('host_id_qfilter')).toBe('host_id.roles.name:"domain controller"');
  });

  test('the survey’s panels and popovers have labels and roles (axe)', async () => {
    await open('#/hosts');
    await grid().getByRole('row').first().waitFor();
    await page.getByRole('button', { name: 'Imports' }).click();
    await page.getByRole('list', { name: 'Imports' }).waitFor();
    await page.getByRole('button', { name: /^Columns \(/ }).click();
    await page.getByRole('button', { name: 'Fields…' }).click();
    await page.getByRole('table', { name: 'Query fields' }).waitFor();
    await page.getByRole('button', { name: 'Export report…' }).click();
    await page.getByRole('group', { name: 'Site report options' }).waitFor();
    await page.getByLabel('Query', { exact: true }).fill('host_id.ro');
    await page.getByRole('listbox', { name: 'Completions' }).waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Imports' }).click();
    await page.getByRole('button', { name: 'Changes' }).click();
    await page.getByRole('table', { name: 'Changes per kind' }).waitFor();
    expect(await axeViolations(page)).toEqual([]);
  });

  test('Export CSV… saves the list as filtered, with the columns shown; Save as PDF the site report', async () => {
    await open('#/hosts');
    await facetValue('roles', /domain controller/).first().click();
    await footer(domainControllers.size).waitFor();
    // The columns shown: those ticked in the picker, in its order (the earlier questions added some).
    await page.getByRole('button', { name: /^Columns \(/ }).click();
    const picker = page.getByRole('group', { name: 'Columns shown' });
    const shown: string[] = [];
    for (const box of await picker.getByRole('checkbox').all()) if (await box.isChecked()) shown.push(((await box.locator('xpath=..').textContent()) ?? '').trim());
    await page.getByRole('button', { name: /^Columns \(/ }).click();
    const [csv] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export CSV…' }).click()]);
    const text = fs.readFileSync((await csv.path())!, 'utf8').replace(/^\uFEFF/, '');
    const [header, ...rows] = text.split('\r\n').filter((line) => line !== '');
    expect(header).toBe(shown.join(','));
    expect(shown).toContain('TLS subjects');
    expect(rows.map((row) => row.split(',')[0]).sort()).toEqual([...domainControllers].sort());
    expect(csv.suggestedFilename()).toMatch(/\.csv$/);

    const [pdf] = await Promise.all([page.waitForEvent('download', { timeout: 60_000 }), page.getByRole('button', { name: 'Save as PDF' }).click()]);
    expect(fs.readFileSync((await pdf.path())!).subarray(0, 5).toString()).toBe('%PDF-');
    await page.getByText(/The site report’s PDF \(.+\) is being saved\./).waitFor();
  });
});
