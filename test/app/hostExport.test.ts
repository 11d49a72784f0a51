/**
 * The export routes on a real server (docs/report.md): the CSV read back by a real CSV parser
 * equals the API's own answer once the added `'` is taken off; the JSON parts stay within their
 * limit and re-import into a fresh workspace as the same identities; the report as HTML and PDF.
 */
import { createHash } from 'node:crypto';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { request } from '../helpers/http';
import { ADMIN_TOKEN, startAppServer, type TestAppServer } from '../helpers/server';

const at = (day: string) => ({ first_seen: `${day}T08:00:00.000000+00:00`, last_seen: `${day}T18:00:00.000000+00:00` });

/** Hosts with the values the rules are about: a formula, a quote, a comma, a newline, a bidi override, a backslash. */
const ENTRIES = [
  { ip: '10.0.0.1', hits: 3, host_id: { ...at('2024-03-01'), roles: [{ name: 'domain controller', ...at('2024-03-01') }], hostname: [{ host: 'dc1.corp', ...at('2024-03-01') }, { host: '=cmd|"/C calc"!A0', ...at('2024-03-01') }], username: [{ user: 'CORP\\alice', ...at('2024-03-01') }] } },
  { ip: '10.0.0.2', hits: 0, host_id: { ...at('2024-03-02'), hostname: [{ host: 'a,b\nc', ...at('2024-03-02') }, { host: '-1+2', ...at('2024-03-02') }], username: [{ user: '@evil\u202e', ...at('2024-03-02') }] } },
  ...Array.from({ length: 28 }, (_, i) => ({ ip: `192.0.2.${i + 1}`, hits: i, host_id: { ...at('2024-03-03'), hostname: [{ host: `h${i}.example`, ...at('2024-03-03') }] } })),
];

let server: TestAppServer;

beforeAll(async () => {
  server = await startAppServer();
  const reply = await server.api.post('/rest/appliances/host_id/import/', ENTRIES);
  if (reply.status !== 201) throw new Error(`import: ${reply.status} ${reply.text}`);
}, 60_000);

afterAll(async () => {
  await server?.close();
});

interface ApiHost {
  readonly ip: string;
  readonly hits: number;
  readonly host_id: { hostname?: { host: string }[]; username?: { user: string }[]; last_seen: string };
}

async function apiHosts(base = server): Promise<ApiHost[]> {
  const reply = await base.api.get('/rest/appliances/host_id/?page_size=1000&ordering=ip');
  return (reply.json() as { results: ApiHost[] }).results;
}

/** A value as the CSV rules write it, worked out here: control characters in the terminal's form (but backslashes), a `'` before = + - @ tab CR. */
function expectedValue(value: string): string {
  const shown = value.replace(/\n/g, '\\n').replace(/\u202e/g, '\\u{202e}');
  return /^[=+\-@\t\r]/.test(value) ? `'${shown}` : shown;
}

describe('CSV', () => {
  test('an attachment in UTF-8 with a BOM, which csv-parse reads back as the API answers, the added quote aside', async () => {
    const reply = await request(server.url, 'GET', '/app/hosts/export/csv?columns=hostnames,users,hits,last_seen&ordering=ip', { token: ADMIN_TOKEN });
    expect(reply.status).toBe(200);
    expect(reply.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(reply.headers['content-disposition']).toMatch(/^attachment; filename="hosts-default\.csv"/);
    expect(reply.text.startsWith('\ufeff')).toBe(true);
    const records = parse(reply.text, { bom: true }) as string[][];
    expect(records[0]).toEqual(['Address', 'Host names', 'Users', 'Hits', 'Last seen']);
    const hosts = await apiHosts();
    const expected = hosts.map((h) => [
      h.ip,
      (h.host_id.hostname ?? []).map((x) => expectedValue(x.host)).join('\n'),
      (h.host_id.username ?? []).map((x) => expectedValue(x.user)).join('\n'),
      String(h.hits),
      h.host_id.last_seen,
    ]);
    // The list's order by address is the API's `ordering=ip` (both sort the text).
    expect(records.slice(1)).toEqual(expected);
    expect(records).toHaveLength(ENTRIES.length + 1);
  });

  test('q filters as host_id_qfilter does; a bad query, column or ordering is a 400 before anything is sent', async () => {
    const reply = await request(server.url, 'GET', `/app/hosts/export/csv?columns=roles&q=${encodeURIComponent('host_id.roles.name:"domain controller"')}`, { token: ADMIN_TOKEN });
    expect((parse(reply.text, { bom: true }) as string[][]).slice(1)).toEqual([['10.0.0.1', 'domain controller']]);
    for (const query of ['q=(((', 'columns=ip,nonsense', 'ordering=color', 'delimiter=tab', 'search=ab']) {
      const bad = await request(server.url, 'GET', `/app/hosts/export/csv?${query}`, { token: ADMIN_TOKEN });
      expect(bad.status, query).toBe(400);
    }
  });

  test('search finds a substring of any value', async () => {
    const reply = await request(server.url, 'GET', '/app/hosts/export/csv?columns=ip&search=ALICE', { token: ADMIN_TOKEN });
    expect((parse(reply.text, { bom: true }) as string[][]).slice(1)).toEqual([['10.0.0.1']]);
  });

  test('under any filter of the list (query, search, import), the CSV holds the rows the survey list shows, with the same source and learned', async () => {
    const visit = (await server.api.get('/app/hosts/visits')).json().results[0].pk as number;
    const filters: Record<string, string>[] = [{}, { q: 'hits:>5' }, { search: 'example' }, { visit: String(visit), visit_change: 'new' }];
    for (const filter of filters) {
      // -last_seen: most of these hosts share their last seen, and the ties come in the list's order too.
      const query = new URLSearchParams({ ...filter, ordering: '-last_seen' }).toString();
      const listed = (await server.api.get(`/app/hosts?${query}&page_size=1000`)).json().results as { ip: string; source: string; learned: { at: string | null } }[];
      const reply = await request(server.url, 'GET', `/app/hosts/export/csv?${query}&columns=source,learned`, { token: ADMIN_TOKEN });
      expect(reply.status, reply.text).toBe(200);
      const records = (parse(reply.text, { bom: true }) as string[][]).slice(1);
      expect(listed.length).toBeGreaterThan(0);
      expect(records).toEqual(listed.map((row) => [row.ip, row.source, row.learned.at ?? '']));
    }
    expect((await request(server.url, 'GET', '/app/hosts/export/csv?visit=999', { token: ADMIN_TOKEN })).status).toBe(400);
  });

  test('semicolons for a spreadsheet in French', async () => {
    const reply = await request(server.url, 'GET', '/app/hosts/export/csv?columns=hostnames&delimiter=semicolon&q=ip:10.0.0.2', { token: ADMIN_TOKEN });
    expect(parse(reply.text, { bom: true, delimiter: ';' })).toEqual([['Address', 'Host names'], ['10.0.0.2', "a,b\\nc\n'-1+2"]]);
  });
});

describe('JSON parts', () => {
  test('each part within the limit, in the API shape, and all of them re-import into a fresh workspace as the same identities', async () => {
    const limit = 1500;
    const listing = (await server.api.get(`/app/hosts/export/json?limit=${limit}`)).json() as { count: number; limit: number; parts: { url: string; bytes: number; hosts: number }[] };
    expect(listing.count).toBe(ENTRIES.length);
    expect(listing.parts.length).toBeGreaterThan(2);
    expect(listing.parts.reduce((sum, p) => sum + p.hosts, 0)).toBe(ENTRIES.length);
    const copy = await startAppServer();
    try {
      for (const part of listing.parts) {
        const reply = await request(server.url, 'GET', part.url, { token: ADMIN_TOKEN });
        expect(reply.status).toBe(200);
        expect(reply.headers['content-disposition']).toMatch(/^attachment; filename="hosts-default-part-\d+\.json"/);
        const bytes = Buffer.byteLength(reply.text);
        expect(bytes).toBe(part.bytes);
        expect(bytes).toBeLessThanOrEqual(limit);
        const entries = JSON.parse(reply.text) as unknown[];
        expect(entries).toHaveLength(part.hosts);
        const imported = await copy.api.post('/rest/appliances/host_id/import/', entries);
        expect(imported.status).toBe(201);
      }
      expect(await apiHosts(copy)).toEqual(await apiHosts());
    } finally {
      await copy.close();
    }
  }, 60_000);

  test('the parts follow the filter; no host gives one empty part', async () => {
    const some = (await server.api.get(`/app/hosts/export/json?q=${encodeURIComponent('ip:10.0.0.1')}`)).json() as { count: number; parts: { url: string }[] };
    expect(some.count).toBe(1);
    const text = (await request(server.url, 'GET', some.parts[0]!.url, { token: ADMIN_TOKEN })).text;
    expect((JSON.parse(text) as { ip: string }[]).map((e) => e.ip)).toEqual(['10.0.0.1']);
    const none = (await server.api.get(`/app/hosts/export/json?q=${encodeURIComponent('ip:10.9.9.9')}`)).json() as { count: number; parts: { url: string; hosts: number }[] };
    expect(none).toMatchObject({ count: 0, parts: [{ hosts: 0 }] });
    expect((await request(server.url, 'GET', none.parts[0]!.url, { token: ADMIN_TOKEN })).text).toBe('[]\n');
  });
});

describe('the report', () => {
  test('HTML: an attachment with its CSP; users only with users=1', async () => {
    const plain = await request(server.url, 'GET', '/app/hosts/report', { token: ADMIN_TOKEN });
    expect(plain.status).toBe(200);
    expect(plain.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(plain.headers['content-disposition']).toMatch(/^attachment; filename="site-report-default\.html"/);
    expect(plain.text).toContain(`<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'sha256-`);
    expect(plain.text).not.toContain('alice');
    const users = await request(server.url, 'GET', '/app/hosts/report?users=1', { token: ADMIN_TOKEN });
    expect(users.text).toContain('CORP\\alice');
  });

  test('PDF by the system Chromium', async () => {
    const reply = await request(server.url, 'GET', '/app/hosts/report/pdf', { token: ADMIN_TOKEN });
    expect(reply.status).toBe(200);
    expect(reply.headers['content-type']).toBe('application/pdf');
    expect(reply.text.startsWith('%PDF-')).toBe(true);
  }, 60_000);

  test('its sources are the recorded imports with their SHA-256, and since=IMPORT adds what changed after it', async () => {
    const site = await startAppServer();
    try {
      const first = JSON.stringify([ENTRIES[0]]);
      const second = JSON.stringify([{ ip: '10.9.9.9', hits: 1, host_id: { ...at('2024-03-04'), roles: [{ name: 'printer', ...at('2024-03-04') }] } }]);
      for (const [name, body] of [['first.json', first], ['second.json', second]] as const) {
        const reply = await request(site.url, 'POST', `/rest/appliances/host_id/import/?name=${name}`, { token: ADMIN_TOKEN, body, headers: { 'Content-Type': 'application/json' } });
        expect(reply.status, reply.text).toBe(201);
      }
      const visits = (await site.api.get('/app/hosts/visits')).json().results as { pk: number; files: { name: string }[] }[];
      const firstPk = visits.find((v) => v.files[0]?.name === 'first.json')!.pk;
      const report = await request(site.url, 'GET', `/app/hosts/report?since=${firstPk}`, { token: ADMIN_TOKEN });
      expect(report.status, report.text).toBe(200);
      // The SHA-256 of each file as sent, worked out here.
      for (const body of [first, second]) expect(report.text).toContain(createHash('sha256').update(body).digest('hex'));
      const from = report.text.indexOf('id="changes"');
      const changes = report.text.slice(from, report.text.indexOf('</section>', from));
      // The second file brought 10.9.9.9; 10.0.0.1, of the first, was not in it.
      expect(changes).toContain('<td>New hosts</td><td class="mono">10.9.9.9</td>');
      expect(changes).toContain('<td>Hosts not seen since</td><td class="mono">10.0.0.1</td>');
      expect((await request(site.url, 'GET', '/app/hosts/report?since=999', { token: ADMIN_TOKEN })).json()).toEqual({ since: ['since: there is no import or pull 999.'] });
    } finally {
      await site.close();
    }
  });

  test('needs a signed-in caller', async () => {
    expect((await request(server.url, 'GET', '/app/hosts/report', { token: null })).status).toBe(403);
    expect((await request(server.url, 'GET', '/app/hosts/export/csv', { token: null })).status).toBe(403);
  });
});
