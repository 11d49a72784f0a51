import { afterAll, beforeAll, test } from 'vitest';
import { openApp, snapshot, type Session } from './browser';
import type { Page } from 'playwright-core';

let session: Session; let page: Page;
const row = (ip: string, i: number) => ({ ip, hits: i, source: 'local', learned: { visit: 1, at: '2026-03-02T10:00:00Z' }, host_id: { first_seen: '2026-03-02T07:42:10.218331+00:00', last_seen: '2026-03-19T18:03:55.902114+00:00', hostname: [{ host: `host-${i}.acme.local` }], roles: i % 5 === 0 ? [{ name: 'domain controller' }] : [], services: [{ proto: 'tcp', port: 443, values: [{ app_proto: 'tls', tls: { subject: `CN=very-long-subject-name-${i}.example.com, O=Acme Logistics International, C=FR` } }] }] } });
beforeAll(async () => {
  session = await openApp({ viewport: { width: 1366, height: 768 } });
  page = session.page;
  let version = 1;
  await page.route(/\/app\/hosts(\?|\/|$)/, async (route) => {
    const url = new URL(route.request().url());
    const p = url.pathname;
    const json = (body: unknown) => route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify(body) });
    if (p === '/app/hosts') { const n = 250; const pg = Number(url.searchParams.get('page') ?? 1); const size = Number(url.searchParams.get('page_size') ?? 100);
      const all = Array.from({ length: n }, (_, i) => row(i === 3 ? '2001:db8:85a3::8a2e:370:7334' : `10.20.${Math.floor(i / 250)}.${i % 250}`, i));
      return json({ count: n, results: all.slice((pg - 1) * size, pg * size), version: String(version) }); }
    if (p === '/app/hosts/facets') return json({ count: 250, version: '1', facets: [{ id: 'roles', label: 'Roles', more: 0, buckets: [{ value: 'domain controller', label: 'domain controller', count: 50, qfilter: 'host_id.roles.name:"domain controller"' }] }, { id: 'services', label: 'Services', more: 12, buckets: [{ value: '443', label: '443/tcp tls', count: 250, qfilter: 'host_id.services.port:443' }] }] });
    if (p === '/app/hosts/version') return json({ version: String(version) });
    if (p === '/app/hosts/fields') return json({ fields: [{ field: 'host_id.roles.name', kind: 'text', example: 'host_id.roles.name:"domain controller"', values: 3 }, { field: 'ip', kind: 'text', example: 'ip:10.0.0.1', values: 3 }] });
    if (p === '/app/hosts/values') return json({ field: 'x', values: [{ value: 'domain controller', count: 50 }, { value: 'dhcp', count: 3 }] });
    if (p === '/app/hosts/visits') return json({ count: 1, results: [{ pk: 1, kind: 'eve', at: '2026-03-02T10:00:00Z', user: 'admin', files: [{ name: 'eve.json', size: 3069131, sha256: '29a13467c071b751cbbc036065507aa827fe1d7b513abcf4400e453e7162b89f', from: 0, lines: 4192 }], hostsNew: 130, hostsUpdated: 16, historyPk: 3 }] });
    if (p === '/app/hosts/changes') return json({ since: { visit: 1, at: null, label: 'Import 1' }, until: { visit: null, at: null, label: 'now' }, totals: { host_new: 2, host_not_seen: 0, service_added: 1, service_gone: 0, role_new: 0, user_new: 0, hostname_new: 0, tls_changed: 1 }, changes: [{ kind: 'host_new', ip: '10.0.0.1', value: null, previous: null }, { kind: 'tls_changed', ip: '10.0.0.2', value: 'CN=new', previous: 'CN=old' }], truncated: false });
    return route.continue();
  });
}, 60000);
afterAll(async () => { await session.close(); });
test('look', async () => {
  await page.setViewportSize({ width: 1000, height: 700 });
  await page.goto(`${session.server.url}/#/hosts/10.20.0.5`);
  await page.locator('.vtable-foot').filter({ hasText: '250 rows' }).waitFor();
  await page.getByRole('button', { name: 'Import EVE log…' }).click();
  await page.waitForTimeout(500);
  await snapshot(page, 'g-1000-import', '/tmp/shots');
  await page.getByRole('button', { name: 'Fields…' }).click();
  await page.waitForTimeout(300);
  await page.setViewportSize({ width: 1366, height: 768 });
  await page.getByRole('button', { name: 'Import EVE log…' }).click();
  await page.waitForTimeout(300);
  await snapshot(page, 'h-fields', '/tmp/shots');
  await page.emulateMedia({ media: 'print' });
  await snapshot(page, 'i-print', '/tmp/shots');
  await page.pdf({ path: '/tmp/shots/print.pdf', format: 'A4' });
});
