/**
 * The site report (docs/report.md): its content worked out by hand from hosts built here, and the
 * file, filled with hostile values, opened in real Chromium with JavaScript on: no script runs, no
 * request leaves, the stylesheet applies under the CSP with no violation, every value is text.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Browser } from 'playwright-core';
import type { HostComparison, HostRow, Visit } from '../../shared/app/hostSurvey';
import { renderSiteReport, REPORT_CSP } from '../../shared/report/siteHtml';
import { SiteReportBuilder, type ReportInputs } from '../../shared/report/siteModel';
import { launchChromium } from '../e2e/browser';

const t = (day: string) => ({ first_seen: `${day}T08:00:00.000000+00:00`, last_seen: `${day}T18:00:00.000000+00:00` });

function host(ip: string, identity: Record<string, unknown>, source: HostRow['source'] = 'local'): HostRow {
  return { ip, hits: 1, host_id: identity as HostRow['host_id'], source, learned: { visit: null, at: null } };
}

function tlsService(port: number, subject: string, fingerprint: string) {
  return { port, proto: 'tcp', values: [{ app_proto: 'tls', ...t('2024-03-01'), tls: { subject, issuerdn: 'CN=Corp CA', fingerprint } }] };
}

const SCRIPT = '<script>window.__ran = (window.__ran || 0) + 1</script>';
const ATTR = '"><svg onload="window.__ran=(window.__ran||0)+1"><img src="http://127.0.0.1:9/x" onerror="window.__ran=1">';
const STYLE_END = '</style><script>window.__ran=1</script>';
const BIDI = 'admin\u202egnp.exe\u0007';
const LONG = 'L'.repeat(100_000);

const HOSTS: HostRow[] = [
  host('10.0.0.1', { ...t('2024-03-01'), in_home_net: true, net_info: [{ agg: '10.0.0.0/8', ...t('2024-03-01') }], roles: [{ name: 'domain controller', ...t('2024-03-01') }], username: [{ user: 'CORP\\alice', ...t('2024-03-01') }], services: [{ port: 445, proto: 'tcp', values: [{ app_proto: 'smb', ...t('2024-03-01') }] }, tlsService(636, 'CN=dc1.corp', 'aa:bb')] }),
  host('10.0.0.2', { ...t('2024-03-02'), in_home_net: true, net_info: [{ agg: '10.0.0.0/8', ...t('2024-03-02') }], roles: [{ name: SCRIPT, ...t('2024-03-02') }], username: [{ user: ATTR, ...t('2024-03-02') }], services: [tlsService(443, STYLE_END, 'cc:dd')] }, 'both'),
  host('203.0.113.9', { ...t('2024-03-04'), in_home_net: false, net_info: [{ agg: 'internet', ...t('2024-03-04') }], roles: [{ name: LONG, ...t('2024-03-04') }], username: [{ user: BIDI, ...t('2024-03-04') }], services: [tlsService(443, 'CN=dc1.corp', 'aa:bb'), { port: 445, proto: 'tcp', values: [] }] }, 'central'),
];

const VISITS: Visit[] = [
  { pk: 1, kind: 'eve', at: '2024-03-05T10:00:00.000000+00:00', user: 'cli:eng', files: [{ name: `eve-${SCRIPT}.json`, size: 2048, sha256: 'ab'.repeat(32), from: 0, lines: 12 }], hostsNew: 3, hostsUpdated: 0, historyPk: 4 },
];

const CHANGES: HostComparison = {
  since: { visit: 1, at: '2024-03-05T10:00:00.000000+00:00', label: `import 1 (${ATTR})` },
  until: { visit: null, at: null, label: 'now' },
  totals: { host_new: 1, host_not_seen: 0, service_added: 2, service_gone: 0, role_new: 0, user_new: 0, hostname_new: 0, tls_changed: 1 },
  changes: [
    { kind: 'host_new', ip: '203.0.113.9', value: null, previous: null },
    { kind: 'tls_changed', ip: '10.0.0.2', value: STYLE_END, previous: 'CN=old' },
  ],
  truncated: false,
};

function inputs(over: Partial<ReportInputs> = {}): ReportInputs {
  return { workspace: `lyon ${SCRIPT}`, version: '9.9.9', madeAt: '2024-03-06T12:00:00.000Z', homeNets: ['10.0.0.0/8'], visits: VISITS, changes: CHANGES, users: true, filter: {}, ...over };
}

function built(over: Partial<ReportInputs> = {}, limits?: ConstructorParameters<typeof SiteReportBuilder>[1]) {
  const builder = new SiteReportBuilder(inputs(over), limits);
  for (const h of HOSTS) builder.add(h);
  return builder.report();
}

describe('the content, worked out by hand from the three hosts above', () => {
  const report = built();
  test('counts, period and sources', () => {
    expect(report.hosts).toBe(3);
    expect(report.inHomeNet).toBe(2);
    expect(report.withUsers).toBe(3);
    expect(report.tlsServers).toBe(3);
    expect(report.bySource).toEqual({ local: 1, central: 1, both: 1 });
    expect(report.period).toEqual({ from: '2024-03-01T08:00:00.000000+00:00', to: '2024-03-04T18:00:00.000000+00:00' });
  });
  test('hosts per network, roles, services by port and protocol, certificates with their hosts', () => {
    expect(report.networks.groups.map((g) => [g.key, g.count, g.hosts])).toEqual([['10.0.0.0/8', 2, ['10.0.0.1', '10.0.0.2']], ['internet', 1, ['203.0.113.9']]]);
    expect(report.roles.groups.map((g) => [g.key, g.hosts])).toEqual([[SCRIPT, ['10.0.0.2']], [LONG, ['203.0.113.9']], ['domain controller', ['10.0.0.1']]]);
    expect(report.services.groups.map((g) => [g.key, g.count])).toEqual([['443/tcp', 2], ['445/tcp', 2], ['636/tcp', 1]]);
    expect(report.certificates.groups.map((g) => [g.key.split('\u0000'), g.hosts])).toEqual([[['CN=dc1.corp', 'aa:bb'], ['10.0.0.1', '203.0.113.9']], [[STYLE_END, 'cc:dd'], ['10.0.0.2']]]);
    expect(report.firstSeen).toEqual([{ day: '2024-03-01', count: 1 }, { day: '2024-03-02', count: 1 }, { day: '2024-03-04', count: 1 }]);
  });
  test('users only when asked', () => {
    expect(report.users?.rows).toEqual([{ ip: '10.0.0.1', users: ['CORP\\alice'] }, { ip: '10.0.0.2', users: [ATTR] }, { ip: '203.0.113.9', users: [BIDI] }]);
    expect(built({ users: false }).users).toBeNull();
    expect(renderSiteReport(built({ users: false }))).not.toContain('alice');
  });
  test('beyond a limit a section gives counts and says how to get the full list', () => {
    const small = built({}, { groups: 1, hostsPerGroup: 1, rows: 1, sampleBudget: 100 });
    expect(small.networks).toMatchObject({ total: 2, groups: [{ key: '10.0.0.0/8', count: 2, hosts: ['10.0.0.1'] }] });
    const html = renderSiteReport(small);
    expect(html).toContain('The 1 largest of 2 networks are shown');
    expect(html).toContain('(1 of 2 listed; all: <code>outpost hosts export --format csv --q &#39;host_id.net_info.agg:&#34;10.0.0.0/8&#34;&#39; --out hosts.csv</code>)');
    expect(html).toContain('1 of 3 hosts with users are listed');
  });
});

describe('the file, opened in Chromium with JavaScript on', () => {
  let browser: Browser;
  let dir: string;
  beforeAll(async () => {
    browser = await launchChromium();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'outpost-report-'));
  });
  afterAll(async () => {
    await browser?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('runs nothing, asks for nothing, keeps its style under its CSP, and shows every hostile value as text', async () => {
    const html = renderSiteReport(built());
    expect(html).not.toMatch(/<script/i);
    expect(html).toContain(`<meta http-equiv="Content-Security-Policy" content="${REPORT_CSP}">`);
    const file = path.join(dir, 'site.html');
    fs.writeFileSync(file, html);
    const context = await browser.newContext({ javaScriptEnabled: true });
    const page = await context.newPage();
    const requests: string[] = [];
    const console: string[] = [];
    page.on('request', (request) => requests.push(request.url()));
    page.on('console', (message) => console.push(message.text()));
    await page.goto(`file://${file}`, { waitUntil: 'load' });
    expect(await page.evaluate<number | undefined>('window.__ran')).toBeUndefined();
    expect(requests).toEqual([`file://${file}`]);
    expect(console.filter((text) => /Content Security Policy|Refused/i.test(text))).toEqual([]);
    // The inline stylesheet applied (its hash is the CSP's): the headings have their rule.
    expect(await page.evaluate<string>("getComputedStyle(document.querySelector('h2')).borderBottomStyle")).toBe('solid');
    // No element made of a value: the page's only SVGs are the charts, no img, no script.
    expect(await page.$$eval('script, img, iframe, object, embed', (els) => els.length)).toBe(0);
    expect(await page.$$eval('svg', (els) => els.every((el) => el.classList.contains('chart')))).toBe(true);
    const text = await page.evaluate<string>('document.body.innerText');
    expect(text).toContain(SCRIPT);
    expect(text).toContain(ATTR);
    expect(text).toContain(STYLE_END);
    expect(text).toContain('CORP\\alice');
    // Bidi and control characters visible, the 100 KB value cut with what was left out said.
    expect(text).toContain('admin\\u{202e}gnp.exe\\x07');
    expect(text).not.toContain('\u202e');
    expect(text).toContain(`${'L'.repeat(256)}… (${100_000 - 256} more characters)`);
    expect(text).not.toContain('L'.repeat(257));
    // Charts' labels are text too.
    expect(await page.$$eval('svg text', (els) => els.map((el) => el.textContent).join('\n'))).toContain('10.0.0.0/8');
    // The page says what it must: version, sources with SHA-256, home networks, time zone, changes.
    expect(text).toContain('Outpost 9.9.9');
    expect(text).toContain(`SHA-256 ${'ab'.repeat(32)}`);
    expect(text).toContain('10.0.0.0/8');
    expect(text).toContain('UTC');
    expect(text).toContain(`What changed since import 1 (${ATTR})`);
    await context.close();
  }, 60_000);

  test('prints to PDF with nothing clipped: no element wider than the A4 page', async () => {
    const context = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 794, height: 1123 } });
    const page = await context.newPage();
    await page.setContent(renderSiteReport(built()));
    await page.emulateMedia({ media: 'print' });
    const widths = await page.evaluate<{ doc: number; view: number }>('({ doc: document.documentElement.scrollWidth, view: document.documentElement.clientWidth })');
    expect(widths.doc).toBeLessThanOrEqual(widths.view);
    await context.close();
  }, 60_000);
});
