/**
 * Host lookup and History screens (app.md §4), as a new user works them in Chromium: importing
 * a host-identity file, looking addresses up, searching the known hosts with a host_id_qfilter,
 * and reading the history of writes made through the API. The screens' pure helpers are tested
 * in test/renderer/ (hostsFormat, historyFormat).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { windowParam } from '../../renderer/src/screens/hostsFormat';
import { openApp, screenshot, type Session } from './browser';
import { SAMPLES_DIR } from '../helpers/workplace';

const at = (day: number, time: string) => `2026-03-${String(day).padStart(2, '0')}T${time}+00:00`;
const eve = (day: number, time: string) => `2026-03-${String(day).padStart(2, '0')}T${time}+0000`;
const seen = (first: number, last: number) => ({ first_seen: at(first, '07:42:10.218331'), last_seen: at(last, '18:03:55.902114') });
const served = (first: number, last: number) => ({ first_seen: eve(first, '07:42:11.004127'), last_seen: eve(last, '18:04:02.551790') });

/** A site survey's worth of hosts, in the API's own shape. */
function surveyHosts() {
  return [
    {
      ip: '10.20.1.15',
      hits: 3,
      host_id: {
        ...seen(2, 19),
        hostname: [
          { host: 'mail.acme-logistics.example', ...seen(2, 19) },
          { host: 'smtp.acme-logistics.example', ...seen(4, 17) },
        ],
        username: [{ user: 'svc-backup', ...seen(3, 18) }],
        client_service: [
          { name: 'dns', ...seen(2, 19) },
          { name: 'ntp', ...seen(2, 19) },
        ],
        'http.user_agent': [{ agent: 'Debian APT-HTTP/1.3 (2.6.1)', ...seen(5, 12) }],
        'tls.ja3': [{ hash: '473cd7cb9faa642487833865d516e578', agent: ['Debian APT-HTTP/1.3 (2.6.1)'], ...seen(5, 12) }],
        'tls.ja4': [{ hash: 't13d1516h2_8daaf6152771_02713d6af862', agent: ['Debian APT-HTTP/1.3 (2.6.1)'], ...seen(5, 12) }],
        'ssh.client': [{ software_version: 'OpenSSH_9.2p1', ...seen(6, 6) }],
        services: [
          { proto: 'tcp', port: 25, values: [{ app_proto: 'smtp', ...served(2, 19) }] },
          {
            proto: 'tcp',
            port: 443,
            values: [
              {
                app_proto: 'tls',
                ...served(2, 19),
                tls: { subject: 'CN=mail.acme-logistics.example', issuerdn: "C=US, O=Let's Encrypt, CN=R11", fingerprint: '3c:91:0e:5b:7a:12:f4:aa:09:c2:6d:18:44:e0:b7:5f:93:21:ac:60' },
              },
            ],
          },
          { proto: 'tcp', port: 80, values: [{ app_proto: 'http', ...served(2, 19), http: { server: 'nginx/1.22.1' } }] },
          { proto: 'tcp', port: 22, values: [{ app_proto: 'ssh', ...served(3, 15), ssh: { server: { software_version: 'OpenSSH_9.2p1 Debian-2+deb12u3' } } }] },
        ],
      },
    },
    {
      ip: '10.20.1.2',
      hits: 0,
      host_id: {
        ...seen(2, 19),
        hostname: [{ host: 'dc01.acme.local', ...seen(2, 19) }],
        username: [
          { user: 'administrator', ...seen(2, 11) },
          { user: 'j.martin', ...seen(4, 19) },
        ],
        roles: [
          { name: 'domain controller', ...seen(2, 19) },
          { name: 'dhcp', ...seen(2, 19) },
        ],
        services: [
          { proto: 'udp', port: 53, values: [{ app_proto: 'dns', ...served(2, 19) }] },
          { proto: 'tcp', port: 88, values: [{ app_proto: 'krb5', ...served(2, 19) }] },
          { proto: 'tcp', port: 389, values: [{ app_proto: 'ldap', ...served(2, 19) }] },
        ],
      },
    },
    {
      ip: '10.20.4.31',
      hits: 0,
      host_id: {
        ...seen(9, 19),
        hostname: [{ host: 'prn-2f-east.acme.local', ...seen(9, 19) }],
        roles: [{ name: 'printer', ...seen(9, 19) }],
        services: [{ proto: 'tcp', port: 631, values: [{ app_proto: 'http', ...served(9, 19), http: { server: 'CUPS/2.4 IPP/2.1' } }] }],
      },
    },
    {
      ip: '10.20.7.88',
      hits: 12,
      host_id: {
        ...seen(10, 19),
        hostname: [{ host: 'laptop-jmartin.acme.local', ...seen(10, 19) }],
        username: [{ user: 'j.martin', ...seen(10, 19) }],
        client_service: ['dns', 'http', 'tls', 'smb'].map((name) => ({ name, ...seen(10, 19) })),
        'http.user_agent': [{ agent: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/134.0.0.0 Safari/537.36', ...seen(10, 19) }],
        'tls.ja4': [{ hash: 't13d1517h2_8daaf6152771_b1ff8ab2d16f', agent: ['Chrome/134'], ...seen(10, 19) }],
      },
    },
    {
      ip: '192.168.50.10',
      hits: 1,
      host_id: {
        ...seen(2, 18),
        hostname: [{ host: 'proxy.acme.local', ...seen(2, 18) }],
        roles: [{ name: 'http proxy', ...seen(2, 18) }],
        services: [{ proto: 'tcp', port: 3128, values: [{ app_proto: 'http', ...served(2, 18), http: { server: 'squid/5.7' } }] }],
      },
    },
    {
      ip: '203.0.113.45',
      hits: 0,
      host_id: {
        ...seen(12, 16),
        hostname: [{ host: 'cdn-edge.example.net', ...seen(12, 16) }],
        services: [{ proto: 'tcp', port: 443, values: [{ app_proto: 'tls', ...served(12, 16), tls: { subject: 'CN=*.example.net', issuerdn: 'C=US, O=DigiCert Inc, CN=DigiCert TLS RSA SHA256 2020 CA1', fingerprint: '8f:03:aa:41:6c:2e:90:17:d4:5b:e2:7a:c1:38:0f:66:b9:54:2d:e8' } }] }],
      },
    },
  ];
}

describe('host lookup and history in the browser', () => {
  let session: Session;
  let page: Page;
  let files: string;

  beforeAll(async () => {
    session = await openApp();
    page = session.page;
    files = fs.mkdtempSync(path.join(os.tmpdir(), 'outpost-hosts-'));
  });

  afterAll(async () => {
    fs.rmSync(files, { recursive: true, force: true });
    await session?.close();
  });

  const writeFile = (name: string, content: unknown) => {
    const file = path.join(files, name);
    fs.writeFileSync(file, JSON.stringify(content, null, 2));
    return file;
  };
  /** A fresh load of the app at `hash` (a hash-only change would keep the page's state). */
  const open = async (hash: string) => {
    await page.goto('about:blank');
    await page.goto(`${session.server.url}/${hash}`);
  };
  const hashParam = (name: string) => new URLSearchParams(new URL(page.url()).hash.split('?')[1] ?? '').get(name);
  const knownHostRows = () => page.getByRole('grid', { name: 'Known hosts' }).getByRole('row');
  const listCount = (text: string) => page.locator('.vtable-foot').filter({ hasText: text }).waitFor();

  test('a host identity file imported through the UI shows its progress to the end, then the count', async () => {
    const hosts = surveyHosts();
    await open('#/hosts');
    await page.getByRole('button', { name: 'Import hosts file…' }).click();
    await page.getByLabel('Host identity file (JSON)').setInputFiles(writeFile('survey.json', hosts));
    await page.getByLabel('Comment (optional)').fill('hosts seen during the Lyon site survey');
    await page.getByRole('button', { name: 'Import file' }).click();

    await page.getByText(`Imported ${hosts.length} host identities.`).waitFor();
    const progress = page.getByRole('progressbar', { name: 'Import progress' });
    expect(await progress.getAttribute('value')).toBe('100');
    await listCount(`${hosts.length} rows`);

    const logged = (await session.server.api.get('/rest/rules/history/?action_type=import_host_id')).json();
    expect(logged.results[0].comment).toBe('hosts seen during the Lyon site survey');
    expect(logged.results[0].description).toBe(`admin has imported ${hosts.length} host identities`);
  });

  test('a file with invalid entries is refused whole, its first entries in error listed with their messages', async () => {
    const [good] = surveyHosts();
    const bad = [good, { ip: '10.20.300.1', host_id: { first_seen: at(2, '10:00:00'), last_seen: at(3, '10:00:00') } }, { ip: '10.20.9.9', host_id: { last_seen: at(3, '10:00:00'), hostname: ['nas'] } }];
    const refused = (await session.server.api.post('/rest/appliances/host_id/import/', bad)).json();
    await open('#/hosts');
    await page.getByRole('button', { name: 'Import hosts file…' }).click();
    await page.getByLabel('Host identity file (JSON)').setInputFiles(writeFile('broken.json', bad));
    await page.getByRole('button', { name: 'Import file' }).click();

    const alert = page.getByRole('alert').filter({ hasText: 'nothing was imported' });
    await alert.waitFor();
    expect(await alert.textContent()).toContain('2 of 3 entries are invalid; nothing was imported.');
    const listed = page.getByRole('list', { name: 'Entries in error' });
    expect(await listed.getByText('Entry 2').count()).toBe(1);
    expect(await listed.textContent()).toContain(`ip: ${refused[1].ip[0]}`);
    expect(await listed.textContent()).toContain(`host_id.first_seen: ${refused[2].host_id.first_seen[0]}`);
    expect(await listed.textContent()).toContain(`host_id.hostname[0]: ${refused[2].host_id.hostname['0'][0]}`);
    expect((await session.server.api.get('/rest/appliances/host_id/')).json().count).toBe(surveyHosts().length);
  });

  test('looking an address up shows its identity: hostnames, services with their details, users, agents', async () => {
    await open('#/hosts');
    await page.getByLabel('IP address').fill('10.20.1.15');
    await page.getByRole('button', { name: 'Look up' }).click();
    await page.getByRole('heading', { name: '10.20.1.15', level: 2 }).waitFor();
    expect(page.url()).toContain('#/hosts/10.20.1.15');

    const hostnames = page.getByRole('table', { name: /Hostnames/ });
    expect(await hostnames.getByRole('row').allTextContents()).toEqual([
      'HostnameFirst seenLast seen',
      'mail.acme-logistics.exampleMar 2, 2026, 7:42 AMMar 19, 2026, 6:03 PM',
      'smtp.acme-logistics.exampleMar 4, 2026, 7:42 AMMar 17, 2026, 6:03 PM',
    ]);
    // The user's form, and the exact UTC value on hover.
    expect(await hostnames.locator('time').first().getAttribute('title')).toBe('2026-03-02 07:42:10.218331 UTC');
    const services = page.getByRole('table', { name: /Services/ });
    const rows = await services.getByRole('row').allTextContents();
    expect(rows).toHaveLength(5);
    expect(rows[1]).toContain('tcp/25smtp');
    expect(rows[2]).toContain('tcp/443tls');
    expect(rows[2]).toContain('TLS subjectCN=mail.acme-logistics.example');
    expect(rows[3]).toContain('HTTP servernginx/1.22.1');
    expect(rows[4]).toContain('SSH serverOpenSSH_9.2p1 Debian-2+deb12u3');
    expect(await page.getByRole('table', { name: /Usernames/ }).textContent()).toContain('svc-backup');
    expect(await page.getByRole('table', { name: /TLS JA4 fingerprints/ }).textContent()).toContain('t13d1516h2_8daaf6152771_02713d6af862');
    expect(await page.getByRole('table', { name: /Networks/ }).textContent()).toContain('10.0.0.0/8');
    expect(await page.getByText('Nothing known of its roles.').count()).toBe(1);

    await page.reload();
    await page.getByRole('table', { name: /Hostnames/ }).waitFor();
    expect(await page.getByLabel('IP address').inputValue()).toBe('10.20.1.15');
    await screenshot(page, 'hosts');
  });

  test('a bad address explains itself; a valid one nothing is known of says so', async () => {
    await open('#/hosts');
    const box = page.getByLabel('IP address');
    await box.fill('10.20.1');
    await page.getByRole('button', { name: 'Look up' }).click();
    const error = page.getByText('“10.20.1” is not an IPv4 or IPv6 address');
    await error.waitFor();
    expect(await box.getAttribute('aria-invalid')).toBe('true');
    expect(page.url()).toMatch(/#\/hosts$/);

    await box.fill('192.0.2.77');
    await box.press('Enter');
    await page.getByText('Nothing known of this address in this workspace').waitFor();
    expect((await session.server.api.get('/rest/appliances/host_id/192.0.2.77')).json()).toEqual({ ip: '192.0.2.77', hits: 0 });

    await box.fill('2001:DB8:0::1');
    await box.press('Enter');
    await page.getByRole('heading', { name: '2001:db8::1', level: 2 }).waitFor();
    await page.getByText('Nothing known of this address in this workspace').waitFor();
  });

  test('an import can be cancelled while it runs, and then nothing is imported', async () => {
    // The server's answer is held back, so that the import is still running when cancelled.
    const release: (() => void)[] = [];
    const importCall = /\/rest\/appliances\/host_id\/import\//;
    await page.route(importCall, (route) => new Promise<void>((resolve) => release.push(() => void route.abort().catch(() => undefined).finally(resolve))));
    try {
      await open('#/hosts');
      await page.getByRole('button', { name: 'Import hosts file…' }).click();
      const extra = surveyHosts().map((host, i) => ({ ...host, ip: `10.30.0.${i + 1}` }));
      await page.getByLabel('Host identity file (JSON)').setInputFiles(writeFile('extra.json', extra));
      await page.getByRole('button', { name: 'Import file' }).click();
      await page.getByRole('button', { name: 'Cancel import' }).click();
      await page.getByText(/cancelled/i).waitFor();
      expect(await page.getByRole('button', { name: 'Cancel import' }).count()).toBe(0);
      expect(await page.getByRole('button', { name: 'Import file' }).isEnabled()).toBe(true);
    } finally {
      release.forEach((go) => go());
      await page.unroute(importCall);
    }
    expect((await session.server.api.get('/rest/appliances/host_id/')).json().count).toBe(surveyHosts().length);
  });

  test('the server’s hunt link lands on the host view; a standalone workspace explains why there is no central view', async () => {
    await page.goto(`${session.server.url}/rules/hunt?session=temporary&page=HOSTS_LIST&ip=10.20.1.2`);
    await page.getByRole('heading', { name: '10.20.1.2', level: 2 }).waitFor();
    expect(await page.getByRole('table', { name: /Roles/ }).textContent()).toContain('domain controller');
    const central = page.getByRole('button', { name: 'Open on central server' });
    expect(await central.isDisabled()).toBe(true);
    expect(await page.locator(`#${await central.getAttribute('aria-describedby')}`).textContent()).toContain('standalone');
  });

  test('the known hosts are searched and ordered, and filtered by host_id_qfilter, all kept in the URL', async () => {
    await open('#/hosts');
    await listCount('6 rows');
    await page.getByRole('searchbox', { name: 'Search' }).fill('acme.local');
    await listCount('4 rows');
    await page.getByLabel('Order by').selectOption('hits');
    await page.waitForURL(/ordering=hits/);
    expect(hashParam('search')).toBe('acme.local');
    await page.reload();
    await listCount('4 rows');
    expect(await knownHostRows().first().textContent()).toMatch(/^10\.20\.1\.2dc01\.acme\.local/);

    // The seen-in window: last seen on or after its first day, first seen on or before its last.
    await open('#/hosts');
    await listCount('6 rows');
    await page.getByRole('button', { name: 'Filters' }).click();
    await page.getByLabel('Seen from (UTC day)').fill('2026-03-19');
    await listCount('4 rows');
    await page.getByLabel('Seen until (UTC day)').fill('2026-03-02');
    await listCount('2 rows');
    expect(hashParam('start_date')).toBe(windowParam('2026-03-19', 'start'));
    expect(hashParam('end_date')).toBe(windowParam('2026-03-02', 'end'));
    expect((await knownHostRows().locator('[role=gridcell]:first-child').allTextContents()).sort()).toEqual(['10.20.1.15', '10.20.1.2']);

    await open('#/hosts');
    await listCount('6 rows');
    const query = page.getByLabel('Query', { exact: true });
    await query.fill('host_id.services.port:443 AND NOT host_id.net_info.agg:internet');
    await page.getByRole('button', { name: 'Apply query' }).click();
    await listCount('1 row');
    expect(await knownHostRows().first().textContent()).toContain('mail.acme-logistics.example');
    expect(hashParam('host_id_qfilter')).toBe('host_id.services.port:443 AND NOT host_id.net_info.agg:internet');

    const broken = 'host_id.services.port:(443 OR 80';
    const expected = (await session.server.api.get(`/rest/appliances/host_id/?host_id_qfilter=${encodeURIComponent(broken)}`)).json();
    await query.fill(broken);
    await query.press('Enter');
    const message = page.locator('#hosts-qfilter-error');
    await message.waitFor();
    expect(await message.textContent()).toBe(expected.host_id_qfilter[0]);
    expect(await query.getAttribute('aria-invalid')).toBe('true');
    expect(await query.getAttribute('aria-describedby')).toBe('hosts-qfilter-error');
    // The list says why it shows nothing without repeating the message shown beside the query.
    const notice = page.locator('.hosts-screen .list-pane .notice.error');
    expect(await notice.textContent()).toBe('Nothing to show until the filter above is corrected.');

    await page.getByRole('button', { name: 'Clear query' }).click();
    await listCount('6 rows');
    expect(await message.count()).toBe(0);
  });

  test('the history filters by action type and shows the comments of writes made through the API', async () => {
    const { api } = session.server;
    const template = (await api.post('/rest/appliances/vendor_probe_template/', { name: 'site-default', comment: 'baseline for the Lyon site' })).json();
    const edge = (await api.post('/rest/appliances/vendor_probe/', { name: 'lyon-edge-01', address: '10.20.0.5', parent_tmpl: template.pk, comment: 'installed in rack B2' })).json();
    const spare = (await api.post('/rest/appliances/vendor_probe/', { name: 'lyon-spare', address: '10.20.0.6', comment: 'spare unit on the shelf' })).json();
    expect((await api.patch(`/rest/appliances/vendor_probe/${edge.pk}/`, { location: 'Lyon, rack B2', comment: 'moved after the cabling works' })).status).toBe(200);
    expect((await api.patch(`/rest/appliances/vendor_probe/${spare.pk}/`, { enabled: false, comment: 'kept as a cold spare' })).status).toBe(200);
    expect((await api.delete(`/rest/appliances/vendor_probe/${spare.pk}/`, { comment: 'returned to the vendor' })).status).toBe(204);

    await open('#/history');
    const grid = page.getByRole('grid', { name: 'History entries' });
    const entry = page.getByRole('article');
    await grid.getByText('returned to the vendor').waitFor();
    // Rows open by their date cell: other cells may hold links to the objects.
    await grid.getByRole('row').filter({ hasText: 'moved after the cabling works' }).getByRole('gridcell').first().click();
    await entry.getByRole('heading', { name: 'Probe edited' }).waitFor();
    await screenshot(page, 'history');

    await page.getByLabel('Action', { exact: true }).selectOption({ label: 'Probe edited' });
    await page.waitForURL(/action_type=edit_appliance/);
    await listCount('2 rows');
    const rows = await grid.getByRole('row').allTextContents();
    expect(rows[0]).toContain('admin has edited probe lyon-spare');
    expect(rows[0]).toContain('kept as a cold spare');
    expect(rows[1]).toContain('admin has edited probe lyon-edge-01');
    expect(rows[1]).toContain('moved after the cabling works');

    // The probe that still exists is a link to its screen; the deleted one is not.
    expect(await grid.getByRole('link', { name: 'lyon-edge-01' }).first().getAttribute('href')).toBe(`#/probes/vendor/${edge.pk}`);
    expect(await grid.getByRole('link', { name: 'lyon-spare' }).count()).toBe(0);

    await page.reload();
    await listCount('2 rows');
    expect(await page.getByLabel('Action', { exact: true }).inputValue()).toBe('edit_appliance');

    expect(await entry.textContent()).toContain('moved after the cabling works');
    expect(await entry.getByRole('table', { name: 'Linked objects' }).textContent()).toContain(`exists (pk ${edge.pk})`);

    await page.getByLabel('Action', { exact: true }).selectOption({ label: 'Probe deleted' });
    await listCount('1 row');
    await grid.getByRole('row').first().getByRole('gridcell').first().click();
    await entry.getByRole('heading', { name: 'Probe deleted' }).waitFor();
    expect(await entry.textContent()).toContain('returned to the vendor');
    expect(await entry.getByRole('table', { name: 'Linked objects' }).textContent()).toContain('deleted since');
  });

  test('a history filter the server refuses shows its message next to the filter', async () => {
    await open('#/history?date_after=2026-02-30');
    const expected = (await session.server.api.get('/app/history?date_after=2026-02-30')).json();
    const message = page.locator('#history-date-after-error');
    await message.waitFor();
    expect(await message.textContent()).toBe(expected.date_after[0]);
    expect(await page.getByLabel('From (UTC day)').getAttribute('aria-invalid')).toBe('true');

    await page.getByRole('button', { name: 'Clear filters' }).click();
    await page.getByRole('grid', { name: 'History entries' }).getByRole('row').first().waitFor();
    expect(await message.count()).toBe(0);
  });
  test('an EVE log imported through the UI: its progress, its summary, its hosts; again: nothing new; a cancelled one leaves nothing', async () => {
    const sample = path.join(SAMPLES_DIR, 'eve', 'Tr0llope-suricata_report_generator-eve.json');
    const before = (await session.server.api.get('/rest/appliances/host_id/')).json().count;
    await open('#/hosts');
    await page.getByRole('button', { name: 'Import EVE log…' }).click();
    await page.getByLabel('EVE log', { exact: true }).setInputFiles(sample);
    await page.getByRole('button', { name: 'Import log' }).click();
    const summary = page.locator('.eve-summary');
    await summary.waitFor();
    const added = (await session.server.api.get('/rest/appliances/host_id/')).json().count - before;
    expect(added).toBeGreaterThan(0);
    expect(await summary.textContent()).toContain(`${added} new hosts, 0 updated, from`);
    await page.getByLabel('IP address').fill('172.16.0.153');
    await page.getByRole('button', { name: 'Look up' }).click();
    await page.getByRole('heading', { name: '172.16.0.153', level: 2 }).waitFor();
    await page.getByText('giorgio.armani').first().waitFor();

    await page.getByLabel('EVE log', { exact: true }).setInputFiles(sample);
    await page.getByRole('button', { name: 'Import log' }).click();
    // Every line of the sample was read the first time (its lines counted here, apart from the app).
    const sampleLines = fs.readFileSync(sample, 'utf8').split('\n').filter((line) => line !== '').length;
    await page.getByText(`Nothing new: this log was imported before, up to its last line (${sampleLines.toLocaleString('en-US')} lines already imported).`).waitFor();

    // Held back on its way, the upload is still running when cancelled.
    const release: (() => void)[] = [];
    const importCall = /\/app\/hosts\/import-eve\?/;
    await page.route(importCall, (route) => new Promise<void>((resolve) => release.push(() => void route.abort().catch(() => undefined).finally(resolve))));
    try {
      const other = writeFile('other-eve.json', []);
      fs.writeFileSync(other, fs.readFileSync(path.join(SAMPLES_DIR, 'eve', 'alaajili-EVE-Json-Parser-eve.json')));
      await page.getByLabel('EVE log', { exact: true }).setInputFiles(other);
      await page.getByRole('button', { name: 'Import log' }).click();
      // The server has not received it yet: the panel says so, with the bytes the browser sent.
      await page.getByText(/^Receiving the log: \d+% \(.+ of .+\)$/).waitFor();
      await page.getByRole('button', { name: 'Cancel import' }).click();
      await page.getByText('Import cancelled; nothing was imported.').waitFor();
    } finally {
      release.forEach((go) => go());
      await page.unroute(importCall);
    }
    expect((await session.server.api.get('/rest/appliances/host_id/')).json().count).toBe(before + added);
  });
});
