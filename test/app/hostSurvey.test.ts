/**
 * The site survey's host list (issue 24 §1; docs/survey.md): the list with its sources, the
 * substring search over every identity value, the facets whose chips are the API's own queries,
 * the query language's fields and values, and the version that follows every write, this
 * process's or another connection's.
 *
 * A real server on a real SQLite file, fed with two real EVE logs (../shared/samples/eve/) and a
 * host file. Expected values are worked out here from the identities read back from the API
 * (`GET /rest/appliances/host_id/`), never from the survey's own SQL.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { HostSurvey } from '../../electron/server/store/hostSurvey';
import { openWorkspace } from '../../electron/workspaces/openWorkspace';
import { checkHostEntry } from '../../shared/api/hostIdentity';
import { parseQFilter } from '../../shared/api/qfilter';
import type { JsonObject, JsonValue } from '../../shared/resources';
import { ADMIN_TOKEN, startAppServer, type TestAppServer } from '../helpers/server';
import { prng } from '../helpers/prng';
import { SAMPLES_DIR } from '../helpers/workplace';

const AD_LOG = path.join(SAMPLES_DIR, 'eve', 'alaajili-EVE-Json-Parser-eve.json');
const DOMAIN_LOG = path.join(SAMPLES_DIR, 'eve', 'Tr0llope-suricata_report_generator-eve.json');

interface Host {
  readonly ip: string;
  readonly hits: number;
  readonly host_id: JsonObject;
}

const seen = { first_seen: '2026-03-01T08:00:00.000000+00:00', last_seen: '2026-03-02T09:00:00.000000+00:00' };

/** Hosts of a host file (the central server's part): one that the AD log also saw, and hostile values. */
const HOSTILE_ROLE = 'r"o\\le* (x) AND ? :>1';
const HOST_FILE = [
  // 172.17.0.7 is the AD log's domain controller: this host file adds a central part to it.
  { ip: '172.17.0.7', hits: 2, host_id: { ...seen, hostname: [{ host: 'dc01.alwaysopen.studio', ...seen }] } },
  { ip: '203.0.113.9', hits: 0, host_id: { ...seen, roles: [{ name: HOSTILE_ROLE, ...seen }], hostname: [{ host: `=cmd|' /C calc'!A0\u0007\u202e`, ...seen }] } },
  { ip: '2001:db8::5', hits: 1, host_id: { ...seen, hostname: [{ host: 'ΣΑΣ-Straße.İstanbul.example', ...seen }], username: [{ user: 'jürgen😀', ...seen }] } },
  { ip: '203.0.113.10', hits: 5, host_id: { ...seen, roles: [{ name: 'Domain Controller', ...seen }], username: [{ user: 'svc.backup', ...seen }], hostname: [{ host: 'x'.repeat(5000), ...seen }] } },
];

let app: TestAppServer;
let hosts: Host[];

async function uploadEve(file: string): Promise<void> {
  const reply = await app.api.send('POST', `/app/hosts/import-eve?name=${path.basename(file)}`, {
    body: fs.readFileSync(file),
    headers: { 'Content-Type': 'application/octet-stream' },
  });
  expect(reply.status).toBe(200);
}

/** Every host as the API serves it. */
async function apiHosts(): Promise<Host[]> {
  const out: Host[] = [];
  for (let page = 1; ; page++) {
    const body = (await app.api.get(`/rest/appliances/host_id/?page_size=1000&page=${page}&ordering=ip`)).json();
    out.push(...(body.results as Host[]));
    if (!body.next) return out;
  }
}

async function apiCount(qfilter: string): Promise<number> {
  const reply = await app.api.get(`/rest/appliances/host_id/?host_id_qfilter=${encodeURIComponent(qfilter)}`);
  expect(reply.status, qfilter).toBe(200);
  return reply.json().count as number;
}

async function survey(route: string, params: Record<string, string> = {}) {
  const query = new URLSearchParams(params).toString();
  return app.api.get(`/app/hosts${route}${query ? `?${query}` : ''}`);
}

/** Every address of the survey's list under these parameters, all pages. */
async function listedIps(params: Record<string, string>): Promise<string[]> {
  const out: string[] = [];
  for (let page = 1; ; page++) {
    const reply = await survey('', { ...params, page_size: '100', page: String(page) });
    expect(reply.status, JSON.stringify(params)).toBe(200);
    const body = reply.json();
    out.push(...body.results.map((r: Host) => r.ip));
    if (out.length >= body.count) return out;
  }
}

// An independent reading of the identities: every scalar (list items under their list's key),
// but the times (`*_seen`) and the `*_count` numbers, as text.
function searchableValues(value: JsonValue, key = ''): string[] {
  if (value === null) return [];
  if (Array.isArray(value)) return value.flatMap((item) => searchableValues(item, key));
  if (typeof value === 'object') return Object.entries(value).flatMap(([k, v]) => searchableValues(v, k));
  if (key.endsWith('_seen') || (typeof value === 'number' && key.endsWith('_count'))) return [];
  return [String(value)];
}

/** The addresses whose address or identity value contains `needle`, case aside: a plain scan. */
function scan(needle: string): string[] {
  const lower = [...needle].map((c) => c.toLowerCase()).join('');
  const fold = (text: string) => [...text].map((c) => c.toLowerCase()).join('');
  return hosts.filter((h) => fold(h.ip).includes(lower) || searchableValues(h.host_id).some((v) => fold(v).includes(lower))).map((h) => h.ip).sort();
}

/** The values at a dotted path of an identity (list items share their list's key; keys with dots are literal). */
function valuesAt(value: JsonValue | undefined, keys: readonly string[]): string[] {
  if (value === undefined || value === null) return [];
  if (Array.isArray(value)) return value.flatMap((item) => valuesAt(item, keys));
  if (keys.length === 0) return typeof value === 'object' ? [] : [String(value)];
  if (typeof value !== 'object') return [];
  return valuesAt((value as JsonObject)[keys[0]!], keys.slice(1));
}

/** The addresses present after each import, in the order made: what each import brought is worked out from them. */
const presentAfter: string[][] = [];

beforeAll(async () => {
  app = await startAppServer();
  await uploadEve(AD_LOG);
  presentAfter.push((await apiHosts()).map((h) => h.ip));
  await uploadEve(DOMAIN_LOG);
  presentAfter.push((await apiHosts()).map((h) => h.ip));
  expect((await app.api.post('/rest/appliances/host_id/import/', HOST_FILE)).status).toBe(201);
  hosts = await apiHosts();
  presentAfter.push(hosts.map((h) => h.ip));
}, 60_000);
afterAll(() => app.close());

describe('the list', () => {
  test('every host, as the API serves it, with where its evidence came from', async () => {
    const body = (await survey('', { ordering: 'ip', page_size: '1000' })).json();
    expect(body.count).toBe(hosts.length);
    expect(body.results.map((r: Host) => r.ip)).toEqual(hosts.map((h) => h.ip));
    for (const row of body.results) {
      const host = hosts.find((h) => h.ip === row.ip)!;
      expect(row.host_id).toEqual(host.host_id);
      expect(row.hits).toBe(host.hits);
      // The import that first brought it (issue 24 §2): one of the three, with when it ended.
      expect(row.learned.visit).toBeGreaterThan(0);
      expect(row.learned.at).toMatch(/^\d{4}-\d\d-\d\dT/);
    }
    const source = (ip: string) => body.results.find((r: { ip: string }) => r.ip === ip).source;
    expect(source('172.17.0.7')).toBe('both');
    expect(source('203.0.113.9')).toBe('central');
    expect(source('172.17.0.153')).toBe('local');
    expect(typeof body.version).toBe('string');
  });

  test('ordered by hits, then by address order of storage; pages follow each other', async () => {
    const expected = [...hosts].sort((a, b) => b.hits - a.hits);
    const first = (await survey('', { ordering: '-hits', page_size: '5' })).json();
    expect(first.results.map((r: Host) => r.hits)).toEqual(expected.slice(0, 5).map((h) => h.hits));
    const all = await listedIps({ ordering: '-hits' });
    expect(new Set(all).size).toBe(hosts.length);
    expect((await survey('', { page: '999' })).status).toBe(404);
  });

  test('a host_id_qfilter query narrows it exactly as the API does; a bad one is refused with the API\'s message', async () => {
    const q = 'host_id.roles.name:"domain controller" OR host_id.username.user:jessie*';
    const api = (await app.api.get(`/rest/appliances/host_id/?page_size=1000&ordering=ip&host_id_qfilter=${encodeURIComponent(q)}`)).json();
    expect((await listedIps({ q, ordering: 'ip' }))).toEqual(api.results.map((h: Host) => h.ip));
    const bad = '(roles.name:"dc';
    const apiError = (await app.api.get(`/rest/appliances/host_id/?host_id_qfilter=${encodeURIComponent(bad)}`)).json();
    const reply = await survey('', { q: bad });
    expect(reply.status).toBe(400);
    expect(reply.json()).toEqual({ q: apiError.host_id_qfilter });
  });

  test('other parameters checked: a short search, an unknown ordering, an import that is not', async () => {
    expect((await survey('', { search: 'je' })).status).toBe(400);
    expect((await survey('', { ordering: 'data' })).status).toBe(400);
    const visit = await survey('', { visit: '999' });
    expect(visit.status).toBe(400);
    expect(visit.json().detail).toMatch(/no such import/);
  });

  test('new in an import: the hosts it brought (present after it, not before); changed by it includes them; ordered by when Outpost learned of them', async () => {
    const visits = (await app.api.get('/app/hosts/visits')).json().results as { pk: number; kind: string }[];
    // Newest first: the host file, then the two EVE logs.
    const [hostFile, domain, ad] = visits.map((v) => v.pk);
    expect(visits.map((v) => v.kind)).toEqual(['host_file', 'eve', 'eve']);
    const brought = (after: number) => presentAfter[after]!.filter((ip) => after === 0 || !presentAfter[after - 1]!.includes(ip)).sort();
    expect(brought(1).length).toBeGreaterThan(0);
    for (const [pk, after] of [[ad, 0], [domain, 1], [hostFile, 2]] as const) {
      expect((await listedIps({ visit: String(pk), visit_change: 'new' })).sort()).toEqual(brought(after));
      const changed = await listedIps({ visit: String(pk), visit_change: 'changed' });
      expect(changed).toEqual(expect.arrayContaining(brought(after)));
    }
    const byLearned = (await survey('', { ordering: 'learned', page_size: '1000' })).json().results as { ip: string; learned: { visit: number } }[];
    expect(byLearned.map((r) => r.learned.visit)).toEqual([...byLearned.map((r) => r.learned.visit)].sort((a, b) => a - b));
    expect(byLearned.filter((r) => r.learned.visit === ad).map((r) => r.ip).sort()).toEqual(brought(0));
  });
});

describe('the search box: a substring of every identity value and the address', () => {
  test('`jessie` finds the host of jessie.andrews, `controller` the domain controllers (both spellings), any case', async () => {
    expect(scan('jessie')).toContain('172.17.0.153');
    expect((await listedIps({ search: 'jessie' })).sort()).toEqual(scan('jessie'));
    expect((await listedIps({ search: 'JESSIE' })).sort()).toEqual(scan('jessie'));
    const controllers = hosts.filter((h) => valuesAt(h.host_id, ['roles', 'name']).some((r) => r.toLowerCase() === 'domain controller')).map((h) => h.ip);
    expect(controllers).toContain('203.0.113.10');
    expect((await listedIps({ search: 'controller' })).sort()).toEqual(scan('controller'));
    for (const ip of controllers) expect(scan('controller')).toContain(ip);
  });

  test('a part of a JA3 hash finds its hosts; a part of an address its hosts', async () => {
    const withJa3 = hosts.find((h) => valuesAt(h.host_id, ['tls.ja3', 'hash']).length > 0)!;
    const part = valuesAt(withJa3.host_id, ['tls.ja3', 'hash'])[0]!.slice(7, 19);
    expect((await listedIps({ search: part })).sort()).toEqual(scan(part));
    expect(scan(part)).toContain(withJa3.ip);
    expect((await listedIps({ search: '17.0.15' })).sort()).toEqual(scan('17.0.15'));
  });

  test('letters beyond ASCII fold as the query language folds them; an IPv6 address is found by its part', async () => {
    for (const needle of ['σας-straße', 'ΣΑΣ', 'STRASSE', 'jürgen😀', 'Ürgen', 'İstanbul', 'db8::']) {
      expect((await listedIps({ search: needle })).sort(), needle).toEqual(scan(needle));
    }
    expect(scan('ΣΑΣ')).toEqual(['2001:db8::5']);
    expect(scan('db8::')).toEqual(['2001:db8::5']);
  });

  test('with a query, the search narrows it further', async () => {
    const q = 'host_id.in_home_net:true';
    const inHome = new Set(hosts.filter((h) => h.host_id.in_home_net === true).map((h) => h.ip));
    expect((await listedIps({ q, search: 'desktop' })).sort()).toEqual(scan('desktop').filter((ip) => inHome.has(ip)));
  });

  test('randomly drawn substrings of real values (and a few that are in none) give exactly the plain scan\'s hosts', async () => {
    const random = prng(24);
    const values = hosts.flatMap((h) => [h.ip, ...searchableValues(h.host_id)]).filter((v) => [...v].length >= 3 && v.length < 200);
    for (let n = 0; n < 60; n++) {
      let needle: string;
      if (n % 10 === 9) needle = `${'zq'}${Math.floor(random() * 1000)}`;
      else {
        const value = values[Math.floor(random() * values.length)]!;
        const length = 3 + Math.floor(random() * Math.min(10, value.length - 2));
        const start = Math.floor(random() * (value.length - length + 1));
        needle = value.slice(start, start + length);
        if (random() < 0.3) needle = needle.toUpperCase();
      }
      if (needle.trim().length < 3 || needle !== needle.trim()) continue;
      expect((await listedIps({ search: needle })).sort(), needle).toEqual(scan(needle));
    }
  }, 60_000);
});

describe('facets', () => {
  test('each bucket\'s query, sent to the API, selects exactly that bucket\'s hosts', async () => {
    const filters: Record<string, string>[] = [{}, { q: 'host_id.in_home_net:true' }, { search: 'alwaysopen' }];
    for (const params of filters) {
      const body = (await survey('/facets', params)).json();
      expect(body.count).toBe((await listedIps(params)).length);
      const narrowed = new Set(await listedIps(params));
      for (const facet of body.facets) {
        for (const bucket of facet.buckets) {
          expect(parseQFilter(bucket.qfilter)).toBeDefined();
          if ('search' in params) {
            // The API has no substring search: the bucket's hosts are those of its query that the search keeps.
            const api = (await app.api.get(`/rest/appliances/host_id/?page_size=1000&host_id_qfilter=${encodeURIComponent(bucket.qfilter)}`)).json();
            expect(api.results.filter((h: Host) => narrowed.has(h.ip)).length, bucket.qfilter).toBe(bucket.count);
          } else {
            const q = params.q !== undefined ? `(${params.q}) AND ${bucket.qfilter}` : bucket.qfilter;
            expect(await apiCount(q), q).toBe(bucket.count);
          }
        }
      }
    }
  }, 60_000);

  test('the counts of roles, services, networks and the rest, worked out from the identities', async () => {
    const body = (await survey('/facets')).json();
    if (process.env.SHOW) console.log(JSON.stringify(body, null, 1));
    const facet = (id: string) => body.facets.find((f: { id: string }) => f.id === id);
    const tally = (keys: readonly string[]) => {
      const counts = new Map<string, number>();
      for (const h of hosts) for (const v of new Set(valuesAt(h.host_id, keys).map((x) => x.toLowerCase()))) counts.set(v, (counts.get(v) ?? 0) + 1);
      return counts;
    };
    const bucketsOf = (id: string) => new Map(facet(id).buckets.map((b: { value: string; count: number }) => [b.value.toLowerCase(), b.count]));
    expect(bucketsOf('roles')).toEqual(tally(['roles', 'name']));
    expect(bucketsOf('networks')).toEqual(tally(['net_info', 'agg']));
    expect(bucketsOf('in_home_net')).toEqual(tally(['in_home_net']));
    const ports = tally(['services', 'port']);
    const shown = [...ports.entries()].sort((a, b) => b[1] - a[1]).slice(0, facet('services').buckets.length);
    expect(facet('services').buckets.map((b: { count: number }) => b.count)).toEqual(shown.map(([, n]) => n));
    expect(facet('services').more).toBe(ports.size - facet('services').buckets.length);
    expect(facet('has_users').buckets[0].count).toBe(hosts.filter((h) => valuesAt(h.host_id, ['username', 'user']).length > 0).length);
    expect(facet('tls_server').buckets[0].count).toBe(hosts.filter((h) => valuesAt(h.host_id, ['services', 'values', 'app_proto']).includes('tls')).length);
    // A port reads with its protocols.
    expect(facet('services').buckets.find((b: { value: string }) => b.value === '443')?.label).toMatch(/^443\/tcp /);
    // The domain controllers: the AD log's, and the host file's "Domain Controller" (one value, case aside).
    expect(facet('roles').buckets.find((b: { value: string }) => b.value.toLowerCase() === 'domain controller')?.qfilter).toBe('host_id.roles.name:"domain controller"');
  });

  test('a hostile value\'s bucket query is that value quoted, and selects its host', async () => {
    const body = (await survey('/facets')).json();
    const roles = body.facets.find((f: { id: string }) => f.id === 'roles');
    const hostile = roles.buckets.find((b: { value: string }) => b.value === HOSTILE_ROLE);
    expect(hostile.qfilter).toBe('host_id.roles.name:"r\\"o\\\\le* (x) AND ? :>1"');
    expect(await apiCount(hostile.qfilter)).toBe(1);
  });
});

describe('the query language: fields and values', () => {
  test('every field with its kind and an example that uses a value the workspace holds', async () => {
    const { fields } = (await survey('/fields')).json();
    const byName = new Map(fields.map((f: { field: string }) => [f.field, f]));
    expect(byName.get('ip')).toMatchObject({ kind: 'text' });
    expect(byName.get('hits')).toMatchObject({ kind: 'number' });
    expect(byName.get('host_id.roles.name')).toMatchObject({ kind: 'text' });
    expect(byName.get('host_id.services.port')).toMatchObject({ kind: 'number' });
    expect(byName.get('host_id.in_home_net')).toMatchObject({ kind: 'boolean' });
    expect(byName.get('host_id.last_seen')).toMatchObject({ kind: 'time' });
    expect(byName.get('host_id.username_count')).toMatchObject({ kind: 'number' });
    for (const field of fields) {
      if (field.kind === 'text' || field.kind === 'boolean' || field.field.startsWith('host_id.services.port')) {
        expect(await apiCount(field.example), field.example).toBeGreaterThan(0);
      } else expect(parseQFilter(field.example), field.example).toBeDefined();
    }
    const roles = new Set(hosts.flatMap((h) => valuesAt(h.host_id, ['roles', 'name'])));
    expect(byName.get('host_id.roles.name')).toMatchObject({ values: roles.size });
  }, 60_000);

  test('values of a field starting with what is typed, then containing it, most hosts first, each with its hosts', async () => {
    const users = (await survey('/values', { field: 'host_id.username.user', prefix: 'JES' })).json();
    const expected = hosts.filter((h) => valuesAt(h.host_id, ['username', 'user']).includes('jessie.andrews')).length;
    expect(users.values[0]).toEqual({ value: 'jessie.andrews', count: expected });
    const contained = (await survey('/values', { field: 'host_id.roles.name', prefix: 'control' })).json();
    expect(contained.values.map((v: { value: string }) => v.value.toLowerCase())).toContain('domain controller');
    const all = (await survey('/values', { field: 'roles.name', prefix: '' })).json().values;
    const counts = all.map((v: { count: number }) => v.count);
    expect(counts).toEqual([...counts].sort((a, b) => b - a));
    // A value too long to complete is left out; nothing else is hidden.
    const names = (await survey('/values', { field: 'host_id.hostname.host', prefix: 'xxx' })).json().values;
    expect(names).toEqual([]);
    expect((await survey('/values', { field: '' })).status).toBe(400);
    // Addresses complete from their start.
    const ips = (await survey('/values', { field: 'ip', prefix: '172.17.0.1' })).json().values.map((v: { value: string }) => v.value);
    expect(ips).toEqual(hosts.map((h) => h.ip).filter((ip) => ip.startsWith('172.17.0.1')).sort().slice(0, 20));
  });
});

describe('the version follows the data', () => {
  test('a host file imported here moves it; reading does not', async () => {
    const before = (await survey('/version')).json().version;
    expect((await survey('/version')).json().version).toBe(before);
    await survey('/facets');
    expect((await survey('/version')).json().version).toBe(before);
    expect((await app.api.post('/rest/appliances/host_id/import/', [{ ip: '198.51.100.1', host_id: { ...seen } }])).status).toBe(201);
    const after = (await survey('/version')).json().version;
    expect(after).not.toBe(before);
    expect((await survey('', { search: '198.51.100' })).json().version).toBe(after);
  });

  test('a write by another connection to the same file (a terminal\'s import) moves it, and the list shows the host at once', async () => {
    const before = (await survey('/version')).json().version;
    const file = path.join(app.dir, 'workspaces', 'default.sqlite3');
    expect(fs.existsSync(file)).toBe(true);
    const other = openWorkspace({ file, instance: { name: 'terminal', version: 'test', address: '127.0.0.1' }, adminToken: ADMIN_TOKEN });
    try {
      const checked = checkHostEntry({ ip: '198.51.100.77', hits: 1, host_id: { ...seen, hostname: [{ host: 'written-elsewhere.example', ...seen }] } });
      if (!checked.ok) throw new Error('bad entry');
      other.services.store.write(() => other.services.hosts.save(checked.entry));
    } finally {
      other.close();
    }
    // Not indexed yet by this server (it learns of the write at its next request): read from the identity, exactly.
    expect(app.host.current().services.hosts.indexWaiting()).toBe(true);
    expect(await listedIps({ search: 'written-else' })).toEqual(['198.51.100.77']);
    expect((await survey('/version')).json().version).not.toBe(before);
    const facets = (await survey('/facets', { search: 'written-else' })).json();
    expect(facets.count).toBe(1);
  });
});

describe('pages of large sets', () => {
  test('found along the order\'s index (a bitset, or SQLite\'s list) they are the pages the sorted set gives', async () => {
    const file = path.join(app.dir, 'workspaces', 'default.sqlite3');
    const other = openWorkspace({ file, instance: { name: 'pages', version: 'test', address: '127.0.0.1' }, adminToken: ADMIN_TOKEN });
    try {
      const { store, hosts: repository } = other.services;
      // Each way on the same filters: the set sorted (never walked), walked with SQLite's list, walked
      // with a bitset (made last: the connection's survey_member function is the last survey's).
      const search = { searchKeptValues: 1000, searchKeepFrom: 1000, searchKeptPks: 4_000_000 };
      const sorted = new HostSurvey(store, repository, { ...search, walkOrderAbove: Infinity, denseSetRatio: 1 });
      const listed = new HostSurvey(store, repository, { ...search, walkOrderAbove: 5, denseSetRatio: 0 });
      const dense = new HostSurvey(store, repository, { ...search, walkOrderAbove: 5, denseSetRatio: 1e9 });
      const filters = [{ q: parseQFilter('host_id.in_home_net:false')! }, { search: 'alwaysopen' }, { search: '443' }, { q: parseQFilter('hits:>0')! }];
      for (const filter of filters) {
        for (const order of [{ key: 'last_seen', descending: true }, { key: 'hits', descending: false }, { key: 'ip', descending: true }] as const) {
          const pages = (survey: HostSurvey) => [1, 2, 3].map((page) => survey.list(filter, order, page, 7)?.rows.map((r) => r.ip) ?? []);
          const expected = pages(sorted);
          expect(expected[0]!.length).toBeGreaterThan(0);
          expect(pages(listed), JSON.stringify([filter, order])).toEqual(expected);
          expect(pages(dense), JSON.stringify([filter, order])).toEqual(expected);
        }
      }
    } finally {
      other.close();
    }
  });
});

describe('what a search keeps', () => {
  test('values kept from one search to the next, or read each time, or all at once: the same hosts as the plain scan', async () => {
    const file = path.join(app.dir, 'workspaces', 'default.sqlite3');
    const other = openWorkspace({ file, instance: { name: 'kept', version: 'test', address: '127.0.0.1' }, adminToken: ADMIN_TOKEN });
    try {
      const { store, hosts: repository } = other.services;
      const pages = { walkOrderAbove: 2000, denseSetRatio: 20 };
      const ways = [
        new HostSurvey(store, repository, { ...pages, searchKeptValues: 1000, searchKeepFrom: 1, searchKeptPks: 1e9 }),
        new HostSurvey(store, repository, { ...pages, searchKeptValues: 1000, searchKeepFrom: 1, searchKeptPks: 3 }),
        new HostSurvey(store, repository, { ...pages, searchKeptValues: 0, searchKeepFrom: 1, searchKeptPks: 1e9 }),
      ];
      const pkToIp = new Map(store.query('SELECT pk, ip FROM host_id').raw().all().map((r) => r as [number, string]));
      // The hosts written by the tests above are in the scan too.
      hosts = await apiHosts();
      expect(hosts.length).toBe(pkToIp.size);
      // Each twice: the second time, what the first kept.
      for (const needle of ['alwaysopen', 'mozilla', '443', 'tls', 'microsoft', 'ntlm', '172.17', 'alwaysopen', 'mozilla', 'tls']) {
        for (const way of ways) {
          const set = way.hostSet({ search: needle })!;
          expect((JSON.parse(set.pks) as number[]).map((pk) => pkToIp.get(pk)!).sort(), needle).toEqual(scan(needle));
        }
      }
    } finally {
      other.close();
    }
  });
});

describe('hosts waiting for the search index', () => {
  test('searches and counts are the same while every host waits for the index as once it is caught up', async () => {
    const needles = ['jessie', 'controller', 'alwaysopen', '172.17', 'giorgio', 'CRYPTOAPI'];
    const facetsIndexed = (await survey('/facets')).json();
    const outside = 'host_id.in_home_net:false';
    const facetsOutside = (await survey('/facets', { q: outside })).json();
    const { services } = app.host.current();
    // Every host marked as waiting, and read at once (synchronously: the background has no turn).
    const all = await apiHosts();
    services.store.write(() => services.store.command('INSERT OR IGNORE INTO host_search_dirty (pk) SELECT pk FROM host_id').run());
    expect(services.hosts.pendingIndex()).toBe(all.length);
    const ipOf = new Map(services.store.query('SELECT pk, ip FROM host_id').raw().all().map((r) => [(r as [number, string])[0], (r as [number, string])[1]]));
    hosts = all;
    for (const needle of needles) {
      const set = services.hostSurvey.hostSet({ search: needle })!;
      const found = (JSON.parse(set.pks) as number[]).map((pk) => ipOf.get(pk)!).sort();
      expect(found, needle).toEqual(scan(needle));
    }
    const roles = services.hostSurvey.valueCounts(undefined, 'roles.name');
    const indexedRoles = facetsIndexed.facets.find((f: { id: string }) => f.id === 'roles').buckets;
    expect(new Map(roles.map((r) => [r.text.toLowerCase(), r.count]))).toEqual(new Map(indexedRoles.map((b: { value: string; count: number }) => [b.value.toLowerCase(), b.count])));
    const ports = services.hostSurvey.valueCounts(services.hostSurvey.hostSet({ q: parseQFilter(outside)! }), 'services.port').slice(0, 12);
    expect(ports.map((p) => [p.text, p.count])).toEqual(facetsOutside.facets.find((f: { id: string }) => f.id === 'services').buckets.map((b: { value: string; count: number }) => [b.value, b.count]));
    expect(services.hostSurvey.hostsWithAny(services.hostSurvey.hostSet({ q: parseQFilter(outside)! }), 'username.user')).toBe(facetsOutside.facets.find((f: { id: string }) => f.id === 'has_users').buckets[0]?.count ?? 0);
    expect(services.hostSurvey.hostsWithAny(undefined, 'username.user')).toBe(facetsIndexed.facets.find((f: { id: string }) => f.id === 'has_users').buckets[0].count);
  });
});
