/** api.md §7 host identity (detail, list, host_id_qfilter, import) and §8 the /rules/hunt web link, over HTTP. */
import fs from 'node:fs';
import path from 'node:path';
import { SAMPLES_DIR } from '../helpers/workplace';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { request, type Client, type Reply } from '../helpers/http';
import { startReference, type ReferenceServer } from '../helpers/reference';
import { addUser, startServer, type TestServer } from '../helpers/server';

const HOSTS = '/rest/appliances/host_id';
const SAMPLES = SAMPLES_DIR;
const sample = (name: string) => JSON.parse(fs.readFileSync(path.join(SAMPLES, name), 'utf8'));
/**
 * A sample with every time turned into the same instant in UTC, in api.md's forms (`+00:00`, and
 * `+0000` inside services): worked out here with Date, apart from the server's code.
 */
function inUtc<T>(value: T, form: '+00:00' | '+0000' = '+00:00'): T {
  if (typeof value === 'string') {
    const m = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d{1,6}))?(Z|[+-]\d\d:?\d\d)$/.exec(value);
    if (!m) return value;
    const [, seconds, micros = '', zone] = m;
    const offset = zone === 'Z' ? 'Z' : `${zone!.slice(0, 3)}:${zone!.slice(-2)}`;
    const utc = new Date(Date.parse(`${seconds}${offset}`)).toISOString().slice(0, 19);
    return `${utc}.${micros.padEnd(6, '0')}${form}` as T;
  }
  if (Array.isArray(value)) return value.map((item) => inUtc(item, form)) as T;
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, k === 'services' ? (v as unknown[]).map((service) => inUtc(service, '+0000')) : inUtc(v, form)])) as T;
  }
  return value;
}

const DAY = 86_400;
/** 2023-07-11T00:00:00Z */
const T0 = 1_689_033_600;

function iso(epochSeconds: number, form: '+00:00' | '+0000' = '+00:00'): string {
  return new Date(epochSeconds * 1000).toISOString().replace('.000Z', `.000000${form}`);
}

interface HostSpec {
  readonly ip: string;
  readonly hits?: number;
  /** Days after T0. */
  readonly first?: number;
  readonly last?: number;
  readonly hostnames?: readonly string[];
  readonly ports?: readonly number[];
  readonly extra?: Record<string, unknown>;
}

/** An import entry in the §7 shape. */
function entry(spec: HostSpec): Record<string, unknown> {
  const first = T0 + (spec.first ?? 0) * DAY;
  const last = T0 + (spec.last ?? spec.first ?? 0) * DAY;
  const seen = { first_seen: iso(first), last_seen: iso(last) };
  return {
    ip: spec.ip,
    ...(spec.hits === undefined ? {} : { hits: spec.hits }),
    host_id: {
      ...seen,
      hostname: (spec.hostnames ?? []).map((host) => ({ host, ...seen })),
      services: (spec.ports ?? []).map((port) => ({
        proto: 'tcp',
        port,
        values: [{ app_proto: port === 443 ? 'tls' : 'http', first_seen: iso(first, '+0000'), last_seen: iso(last, '+0000') }],
      })),
      ...(spec.extra ?? {}),
    },
  };
}

async function importHosts(api: Client, specs: readonly HostSpec[], query = ''): Promise<Reply> {
  return api.post(`${HOSTS}/import/${query}`, specs.map(entry));
}

type Listed = { count: number; next: string | null; previous: string | null; results: { ip: string; hits: number; host_id: Record<string, unknown> }[] };

async function listed(api: Client, query: string): Promise<Listed> {
  const reply = await api.get(`${HOSTS}/${query}`);
  expect(reply.status, reply.text).toBe(200);
  return reply.json();
}

const ips = (page: Listed) => page.results.map((h) => h.ip);

let server: TestServer;
beforeEach(async () => {
  server = await startServer();
});
afterEach(() => server.close());

describe('GET host_id/<ip>', () => {
  test('a known address answers ip, hits and the full host_id shape, with or without the trailing slash', async () => {
    expect((await importHosts(server.api, [{ ip: '217.116.0.227', hits: 12, hostnames: ['mx.example.com'], ports: [25] }])).status).toBe(201);
    const bare = await server.api.get(`${HOSTS}/217.116.0.227`);
    expect(bare.status).toBe(200);
    const body = bare.json();
    expect(body.ip).toBe('217.116.0.227');
    expect(body.hits).toBe(12);
    expect(body.host_id).toMatchObject({
      first_seen: iso(T0),
      in_home_net: false,
      net_info: [{ agg: 'internet', first_seen: iso(T0), last_seen: iso(T0) }],
      net_info_count: 1,
      hostname: [{ host: 'mx.example.com' }],
      hostname_count: 1,
      services_count: 1,
      'tls.ja3': [],
      'tls.ja3_count': 0,
    });
    expect(body.host_id.services[0].values[0].first_seen).toBe(iso(T0, '+0000'));
    const slashed = await server.api.get(`${HOSTS}/217.116.0.227/?format=json&tenant=3&ordering=ip`);
    expect(slashed.status).toBe(200);
    expect(slashed.json()).toEqual(body);
  });

  test('a valid address nothing is known of answers hits 0 and no host_id', async () => {
    const reply = await server.api.get(`${HOSTS}/10.0.0.1`);
    expect(reply.status).toBe(200);
    expect(reply.json()).toEqual({ ip: '10.0.0.1', hits: 0 });
  });

  test.each(['mail.example.com', '10.0.0.256', '1.2.3', 'import.x'])('%s is 400 Invalid IP address.', async (id) => {
    const reply = await server.api.get(`${HOSTS}/${id}`);
    expect(reply.status).toBe(400);
    expect(reply.json()).toEqual({ detail: 'Invalid IP address.' });
  });

  test('IPv6 addresses are normalised on import and on lookup', async () => {
    await importHosts(server.api, [{ ip: '2001:0DB8::0010', hits: 1 }]);
    const reply = await server.api.get(`${HOSTS}/2001:db8:0:0:0:0:0:10`);
    expect(reply.json()).toMatchObject({ ip: '2001:db8::10', hits: 1 });
    expect((await server.api.get(`${HOSTS}/2001:DB8::11/`)).json()).toEqual({ ip: '2001:db8::11', hits: 0 });
  });

  test('the detail is read-only: GET, HEAD, OPTIONS', async () => {
    const reply = await server.api.delete(`${HOSTS}/10.0.0.1/`);
    expect(reply.status).toBe(405);
    expect(reply.headers.allow).toBe('GET, HEAD, OPTIONS');
  });

  test('anonymous callers get 403', async () => {
    const reply = await server.api.as(null).get(`${HOSTS}/10.0.0.1`);
    expect(reply.status).toBe(403);
    expect(reply.json()).toEqual({ detail: 'Authentication credentials were not provided.' });
  });
});

describe('GET host_id/ (list)', () => {
  test('pages of 30 by default, newest last_seen first, next and previous links keep the parameters', async () => {
    const specs = Array.from({ length: 45 }, (_, i) => ({ ip: `10.1.0.${i + 1}`, first: 0, last: i }));
    expect((await importHosts(server.api, specs)).json()).toEqual({ imported: 45 });
    const first = await listed(server.api, '?tenant=1');
    expect(first.count).toBe(45);
    expect(ips(first)).toEqual(specs.slice(15).reverse().map((s) => s.ip));
    expect(first.previous).toBeNull();
    expect(first.next).toBe(`${server.url}${HOSTS}/?page=2&tenant=1`);
    const second = await listed(server.api, '?page=2&tenant=1');
    expect(ips(second)).toEqual(specs.slice(0, 15).reverse().map((s) => s.ip));
    expect(second.next).toBeNull();
    expect(second.previous).toBe(`${server.url}${HOSTS}/?tenant=1`);
    expect((await server.api.get(`${HOSTS}/?page=3`)).status).toBe(404);
    expect((await listed(server.api, '?page_size=40&page=last')).results).toHaveLength(5);
  });

  test('an empty list is page 1 with no results', async () => {
    expect(await listed(server.api, '')).toEqual({ count: 0, next: null, previous: null, results: [] });
  });

  test('ordering on ip (as text), hits, times and list counts; ties by pk', async () => {
    await importHosts(server.api, [
      { ip: '10.0.0.9', hits: 5, first: 3, last: 4, ports: [80] },
      { ip: '10.0.0.10', hits: 1, first: 1, last: 9, ports: [80, 443, 22] },
      { ip: '10.0.0.100', hits: 5, first: 2, last: 2 },
    ]);
    expect(ips(await listed(server.api, '?ordering=ip'))).toEqual(['10.0.0.10', '10.0.0.100', '10.0.0.9']);
    expect(ips(await listed(server.api, '?ordering=-hits'))).toEqual(['10.0.0.9', '10.0.0.100', '10.0.0.10']);
    expect(ips(await listed(server.api, '?ordering=-hits,-ip'))).toEqual(['10.0.0.9', '10.0.0.100', '10.0.0.10']);
    expect(ips(await listed(server.api, '?ordering=-hits,ip'))).toEqual(['10.0.0.100', '10.0.0.9', '10.0.0.10']);
    expect(ips(await listed(server.api, '?ordering=host_id.first_seen'))).toEqual(['10.0.0.10', '10.0.0.100', '10.0.0.9']);
    expect(ips(await listed(server.api, '?ordering=-host_id.last_seen'))).toEqual(['10.0.0.10', '10.0.0.9', '10.0.0.100']);
    expect(ips(await listed(server.api, '?ordering=-host_id.services_count'))).toEqual(['10.0.0.10', '10.0.0.9', '10.0.0.100']);
    expect(ips(await listed(server.api, '?ordering=host_id.services_count'))).toEqual(['10.0.0.100', '10.0.0.9', '10.0.0.10']);
    expect(ips(await listed(server.api, '?ordering=host_id.hostname_count'))).toEqual(['10.0.0.9', '10.0.0.10', '10.0.0.100']);
    expect(ips(await listed(server.api, '?ordering=bogus'))).toEqual(ips(await listed(server.api, '')));
  });

  test('start_date / end_date keep the hosts seen in that window', async () => {
    await importHosts(server.api, [
      { ip: '10.0.0.1', first: 0, last: 2 },
      { ip: '10.0.0.2', first: 3, last: 5 },
      { ip: '10.0.0.3', first: 6, last: 9 },
    ]);
    const window = (start: number, end: number) => `?start_date=${T0 + start * DAY}&end_date=${T0 + end * DAY}&ordering=ip`;
    expect(ips(await listed(server.api, window(1, 4)))).toEqual(['10.0.0.1', '10.0.0.2']);
    expect(ips(await listed(server.api, window(5, 5)))).toEqual(['10.0.0.2']);
    expect(ips(await listed(server.api, `?start_date=${T0 + 5 * DAY + 0.5}&ordering=ip`))).toEqual(['10.0.0.3']);
    expect(ips(await listed(server.api, `?end_date=${T0 + 2.5 * DAY}&ordering=ip`))).toEqual(['10.0.0.1']);
    expect(ips(await listed(server.api, '?start_date=&end_date=&ordering=ip'))).toEqual(['10.0.0.1', '10.0.0.2', '10.0.0.3']);
  });

  test('a start_date or end_date that is not a number is 400 Enter a number.', async () => {
    const one = await server.api.get(`${HOSTS}/?start_date=yesterday`);
    expect(one.status).toBe(400);
    expect(one.json()).toEqual({ start_date: ['Enter a number.'] });
    const both = await server.api.get(`${HOSTS}/?end_date=x&start_date=2023-07-11`);
    expect(both.json()).toEqual({ start_date: ['Enter a number.'], end_date: ['Enter a number.'] });
  });

  test('search looks in the ip and the hostnames, case-insensitively; every term must match', async () => {
    await importHosts(server.api, [
      { ip: '10.0.0.1', hostnames: ['MX.example.com'] },
      { ip: '10.0.0.2', hostnames: ['www.example.org', 'intranet'] },
      { ip: '192.168.5.1' },
    ]);
    expect(ips(await listed(server.api, '?search=example&ordering=ip'))).toEqual(['10.0.0.1', '10.0.0.2']);
    expect(ips(await listed(server.api, '?search=mx.EXAMPLE&ordering=ip'))).toEqual(['10.0.0.1']);
    expect(ips(await listed(server.api, '?search=192.168&ordering=ip'))).toEqual(['192.168.5.1']);
    expect(ips(await listed(server.api, '?search=example,intranet&ordering=ip'))).toEqual(['10.0.0.2']);
    expect(ips(await listed(server.api, '?search=10.0.0.2 example&ordering=ip'))).toEqual(['10.0.0.2']);
  });

  test('the ip filter is an exact match', async () => {
    await importHosts(server.api, [{ ip: '10.0.0.1' }, { ip: '10.0.0.11' }]);
    expect(ips(await listed(server.api, '?ip=10.0.0.1'))).toEqual(['10.0.0.1']);
    expect(ips(await listed(server.api, '?ip=10.0.0'))).toEqual([]);
  });

  test('filters, search, window and ordering combine', async () => {
    await importHosts(server.api, [
      { ip: '10.0.0.1', hits: 3, first: 0, last: 1, hostnames: ['a.example.com'] },
      { ip: '10.0.0.2', hits: 2, first: 5, last: 6, hostnames: ['b.example.com'] },
      { ip: '10.0.0.3', hits: 1, first: 5, last: 6, hostnames: ['c.example.com'] },
      { ip: '10.0.0.4', hits: 9, first: 5, last: 6, hostnames: ['d.example.net'] },
    ]);
    const page = await listed(server.api, `?search=example.com&start_date=${T0 + 4 * DAY}&ordering=hits`);
    expect(ips(page)).toEqual(['10.0.0.3', '10.0.0.2']);
  });
});

describe('host_id_qfilter', () => {
  beforeEach(async () => {
    await importHosts(server.api, [
      { ip: '10.0.0.1', hits: 4, hostnames: ['mail.corp.local'], ports: [25, 443] },
      { ip: '10.0.0.2', hits: 0, hostnames: ['www.corp.local'], ports: [80] },
      { ip: '217.116.0.227', hits: 12, hostnames: ['mx.example.com'], ports: [443], extra: { 'http.user_agent': [{ agent: 'curl/8.0', first_seen: iso(T0), last_seen: iso(T0) }] } },
    ]);
  });

  const qfilter = async (query: string, more = '&ordering=ip') => ips(await listed(server.api, `?host_id_qfilter=${encodeURIComponent(query)}${more}`));

  test.each([
    ['ip:"10.0.0.1"', ['10.0.0.1']],
    ['ip:10.0.0.1 OR ip:10.0.0.2', ['10.0.0.1', '10.0.0.2']],
    ['host_id.services.port:443 AND NOT host_id.net_info.agg:internet', ['10.0.0.1']],
    ['host_id.http.user_agent:*', ['217.116.0.227']],
    ['host_id.hostname.host:mail*', ['10.0.0.1']],
    ['host_id.hostname.host:mail', []],
    ['host_id.in_home_net:true', ['10.0.0.1', '10.0.0.2']],
    ['host_id.services_count>1', ['10.0.0.1']],
    ['host_id.services_count:>1', ['10.0.0.1']],
    ['mx.example.com', ['217.116.0.227']],
    ['hits:>=4 && !ip:10.0.0.1', ['217.116.0.227']],
    ['(services.port:80 || services.port:25) in_home_net:true', ['10.0.0.1', '10.0.0.2']],
    ['net_info.agg:10.0.0.0\\/8', ['10.0.0.1', '10.0.0.2']],
    [`host_id.first_seen:<${iso(T0).slice(0, 10)}`, []],
    [`host_id.first_seen:<=${iso(T0).slice(0, 10)}`, ['10.0.0.1', '10.0.0.2', '217.116.0.227']],
    [`host_id.first_seen:>="${iso(T0)}"`, ['10.0.0.1', '10.0.0.2', '217.116.0.227']],
  ])('%s', async (query, expected) => {
    expect(await qfilter(query)).toEqual(expected);
  });

  test('a blank query is no filter', async () => {
    expect(await qfilter('  ')).toHaveLength(3);
  });

  test('it combines with search and the other parameters', async () => {
    expect(await qfilter('in_home_net:true', '&search=mail&ordering=ip')).toEqual(['10.0.0.1']);
    expect(await qfilter('hits:>=0', '&ordering=-hits')).toEqual(['217.116.0.227', '10.0.0.1', '10.0.0.2']);
  });

  test.each([
    ['(ip:1', 'character 6: ")" expected.'],
    ['ip:"10.0.0.1', 'character 4: unterminated quoted string.'],
    ['ip:', 'character 4: a value is missing after "ip:".'],
    ['ip:1 AND', 'character 9: a term is expected at the end of the query.'],
    ['hits:>many', 'character 1: ":>" needs a number or a date.'],
  ])('%s does not parse: 400 with where and why', async (query, why) => {
    const reply = await server.api.get(`${HOSTS}/?host_id_qfilter=${encodeURIComponent(query)}`);
    expect(reply.status).toBe(400);
    expect(reply.json()).toEqual({ host_id_qfilter: [why] });
  });

  test('filter errors come before query errors', async () => {
    const reply = await server.api.get(`${HOSTS}/?host_id_qfilter=(&start_date=x`);
    expect(reply.json()).toEqual({ start_date: ['Enter a number.'] });
  });
});

describe('host_id_qfilter pages correctly over many hosts', () => {
  test('count, pages and order are those of the matching hosts', async () => {
    const specs = Array.from({ length: 75 }, (_, i) => ({ ip: `10.2.${Math.floor(i / 10)}.${i % 10}`, hits: i, last: i, ports: i % 3 === 0 ? [443] : [80] }));
    await importHosts(server.api, specs);
    const matching = specs.filter((_, i) => i % 3 === 0).reverse().map((s) => s.ip);
    const query = `?host_id_qfilter=${encodeURIComponent('services.port:443')}`;
    const first = await listed(server.api, query);
    expect(first.count).toBe(25);
    expect(ips(first)).toEqual(matching);
    const small = await listed(server.api, `${query}&page_size=10&page=2`);
    expect(small.count).toBe(25);
    expect(ips(small)).toEqual(matching.slice(10, 20));
    expect(small.next).toBe(`${server.url}${HOSTS}/?host_id_qfilter=services.port%3A443&page=3&page_size=10`);
    const last = await listed(server.api, `${query}&page_size=10&page=last`);
    expect(ips(last)).toEqual(matching.slice(20));
    expect((await server.api.get(`${HOSTS}/${query}&page_size=10&page=4`)).status).toBe(404);
  });
});

describe('POST host_id/import/', () => {
  test('201 {"imported": N}; the hosts are then served', async () => {
    const reply = await importHosts(server.api, [{ ip: '10.0.0.1', hits: 3 }, { ip: '10.0.0.2' }]);
    expect(reply.status).toBe(201);
    expect(reply.json()).toEqual({ imported: 2 });
    expect((await server.api.get(`${HOSTS}/10.0.0.1`)).json()).toMatchObject({ ip: '10.0.0.1', hits: 3 });
    expect((await server.api.get(`${HOSTS}/10.0.0.2`)).json()).toMatchObject({ ip: '10.0.0.2', hits: 0 });
  });

  test('entries upsert by ip: host_id replaced, an absent hits keeps the stored value', async () => {
    await importHosts(server.api, [{ ip: '10.0.0.1', hits: 7, hostnames: ['old'] }]);
    await importHosts(server.api, [{ ip: '10.0.0.1', hostnames: ['new'], last: 3 }]);
    const host = (await server.api.get(`${HOSTS}/10.0.0.1`)).json();
    expect(host.hits).toBe(7);
    expect(host.host_id.hostname.map((h: { host: string }) => h.host)).toEqual(['new']);
    expect(host.host_id.last_seen).toBe(iso(T0 + 3 * DAY));
    expect((await listed(server.api, '?search=old')).count).toBe(0);
    expect((await listed(server.api, '?search=new')).count).toBe(1);
    await importHosts(server.api, [{ ip: '10.0.0.1', hits: 0 }]);
    expect((await server.api.get(`${HOSTS}/10.0.0.1`)).json().hits).toBe(0);
    expect((await listed(server.api, '')).count).toBe(1);
  });

  test('the real clients\' samples import as they are and come back completed, their times the same instants in UTC', async () => {
    const xsoar = inUtc(sample('xsoar-fetch_host_id.json'));
    const scout = inUtc(sample('scout-mock-host_id-detail-with-hits.json'));
    expect((await server.api.post(`${HOSTS}/import/`, [sample('xsoar-fetch_host_id.json'), sample('scout-mock-host_id-detail-with-hits.json')])).json()).toEqual({ imported: 2 });
    const mail = (await server.api.get(`${HOSTS}/${xsoar.ip}`)).json();
    expect(mail.hits).toBe(0);
    expect(mail.host_id).toMatchObject({ ...xsoar.host_id, in_home_net: false, net_info: [{ agg: 'internet', first_seen: xsoar.host_id.first_seen, last_seen: xsoar.host_id.last_seen }] });
    const desk = (await server.api.get(`${HOSTS}/10.0.0.1`)).json();
    expect(desk.hits).toBe(42);
    // The mock's counts disagree with its lists: served counts are the lists' lengths.
    expect(desk.host_id).toMatchObject({ ...scout.host_id, services: [], services_count: 0, username_count: 1, 'tls.ja4_count': 0, 'http.user_agent_count': 0 });
    expect(ips(await listed(server.api, `?host_id_qfilter=${encodeURIComponent('mx.geacam.com')}`))).toEqual([xsoar.ip]);
  });

  test('given counts are recomputed from the lists', async () => {
    await importHosts(server.api, [{ ip: '10.0.0.1', ports: [80], extra: { services_count: 9, hostname_count: 4 } }]);
    expect((await server.api.get(`${HOSTS}/10.0.0.1`)).json().host_id).toMatchObject({ services_count: 1, hostname_count: 0 });
  });

  test('any invalid entry: 400 with one error object per entry, and nothing imported', async () => {
    const reply = await server.api.post(`${HOSTS}/import/`, [entry({ ip: '10.0.0.1' }), { ip: 'nope', host_id: { first_seen: 'x', last_seen: iso(T0), services: {} } }, 'text']);
    expect(reply.status).toBe(400);
    expect(reply.json()).toEqual([
      {},
      {
        ip: ['Enter a valid IPv4 or IPv6 address.'],
        host_id: {
          first_seen: ['Datetime has wrong format. Use one of these formats instead: YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z].'],
          services: ['Expected a list of items but got type "dict".'],
        },
      },
      { non_field_errors: ['Invalid data. Expected a dictionary, but got str.'] },
    ]);
    expect((await server.api.get(`${HOSTS}/10.0.0.1`)).json()).toEqual({ ip: '10.0.0.1', hits: 0 });
    expect((await server.api.get('/rest/rules/history/?action_type=import_host_id')).json().count).toBe(0);
  });

  test('a body that is not an array is 400 non_field_errors', async () => {
    const reply = await server.api.post(`${HOSTS}/import/`, entry({ ip: '10.0.0.1' }));
    expect(reply.status).toBe(400);
    expect(reply.json()).toEqual({ non_field_errors: ['Expected a list of items but got type "dict".'] });
  });

  test('one history entry import_host_id with the count, and ?comment= as its comment', async () => {
    await importHosts(server.api, [{ ip: '10.0.0.1' }, { ip: '10.0.0.2' }, { ip: '10.0.0.3' }], '?comment=weekly%20sync');
    await importHosts(server.api, [{ ip: '10.0.0.4' }]);
    const history = (await server.api.get('/rest/rules/history/?action_type=import_host_id&ordering=pk')).json();
    expect(history.count).toBe(2);
    expect(history.results[0]).toMatchObject({
      action_type: 'import_host_id',
      title: 'Import Host Identities',
      username: 'admin',
      comment: 'weekly sync',
      description: 'admin has imported 3 host identities',
      description_raw: '{user} has imported {count} host identities',
      ua_objects: { count: { value: 3 } },
    });
    expect(history.results[1]).toMatchObject({ comment: null, description: 'admin has imported 1 host identities' });
  });

  test('a Read-only user gets 403 and nothing is imported', async () => {
    const viewer = addUser(server, 'viewer', 'Read-only', '1'.repeat(40));
    const reply = await importHosts(viewer, [{ ip: '10.0.0.1', hits: 1 }]);
    expect(reply.status).toBe(403);
    expect(reply.json()).toEqual({ detail: 'You do not have permission to perform this action.' });
    expect((await viewer.get(`${HOSTS}/10.0.0.1`)).json()).toEqual({ ip: '10.0.0.1', hits: 0 });
  });

  test('import/ only takes POST', async () => {
    const reply = await server.api.get(`${HOSTS}/import/`);
    expect(reply.status).toBe(405);
    expect(reply.headers.allow).toBe('POST, OPTIONS');
  });
});

describe('GET /rules/hunt (api.md §8)', () => {
  const HUNT = '/rules/hunt?session=temporary&page=HOSTS_LIST&ip=';

  test('a signed-in caller sees the host identity of the address', async () => {
    await importHosts(server.api, [
      {
        ip: '10.0.0.5',
        hits: 3,
        hostnames: ['mail.corp.local'],
        ports: [443],
        extra: {
          username: [{ user: 'alice', first_seen: iso(T0), last_seen: iso(T0) }],
          roles: [{ name: 'domain controller', first_seen: iso(T0), last_seen: iso(T0) }],
          'http.user_agent': [{ agent: 'Mozilla/5.0', first_seen: iso(T0), last_seen: iso(T0) }],
          'tls.ja3': [{ hash: 'e7d705a3286e19ea42f587b344ee6865', agent: ['Postfix'], first_seen: iso(T0), last_seen: iso(T0) }],
          'ssh.client': [{ software_version: 'OpenSSH_9.6', first_seen: iso(T0), last_seen: iso(T0) }],
        },
      },
    ]);
    const reply = await server.api.get(`${HUNT}10.0.0.5`);
    expect(reply.status).toBe(200);
    expect(reply.headers['content-type']).toBe('text/html; charset=utf-8');
    for (const shown of ['10.0.0.5', 'mail.corp.local', 'alice', 'domain controller', 'Mozilla/5.0', 'e7d705a3286e19ea42f587b344ee6865', 'Postfix', 'OpenSSH_9.6', '443', 'tls', '10.0.0.0/8', iso(T0)]) {
      expect(reply.text).toContain(shown);
    }
  });

  test('the page carries the security headers and a strict Content-Security-Policy', async () => {
    const reply = await server.api.get(`${HUNT}10.0.0.5`);
    expect(reply.headers['x-content-type-options']).toBe('nosniff');
    expect(reply.headers['x-frame-options']).toBe('DENY');
    expect(reply.headers['referrer-policy']).toBe('same-origin');
    const csp = String(reply.headers['content-security-policy']);
    expect(csp).toMatch(/^default-src 'none'/);
    expect(csp).not.toContain('script-src');
    expect(reply.text).not.toContain('<script');
  });

  test('everything shown is HTML-escaped', async () => {
    await importHosts(server.api, [{ ip: '10.0.0.6', hostnames: ['<script>alert(1)</script>'], extra: { username: [{ user: '"><img src=x onerror=alert(1)>', first_seen: iso(T0), last_seen: iso(T0) }] } }]);
    const reply = await server.api.get(`${HUNT}10.0.0.6`);
    expect(reply.text).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(reply.text).toContain('&quot;&gt;&lt;img src=x onerror=alert(1)&gt;');
    expect(reply.text).not.toContain('<img');
    expect(reply.text).not.toContain('<script>');
  });

  test('an address nothing is known of says so', async () => {
    const reply = await server.api.get(`${HUNT}2001:db8::0001`);
    expect(reply.status).toBe(200);
    expect(reply.text).toContain('2001:db8::1');
    expect(reply.text).toContain('Nothing is known of this address');
  });

  test('a missing or invalid ip is a 400 page', async () => {
    const missing = await server.api.get('/rules/hunt?session=temporary&page=HOSTS_LIST');
    expect(missing.status).toBe(400);
    expect(missing.headers['content-type']).toBe('text/html; charset=utf-8');
    const invalid = await server.api.get(`${HUNT}${encodeURIComponent('<b>x</b>')}`);
    expect(invalid.status).toBe(400);
    expect(invalid.text).toContain('<code>&lt;b&gt;x&lt;/b&gt;</code> is not an IPv4 or IPv6 address');
  });

  test('an anonymous caller is asked to sign in, with a link back to this page, and sees no host data', async () => {
    await importHosts(server.api, [{ ip: '10.0.0.5', hostnames: ['secret.corp.local'] }]);
    const path = `${HUNT}10.0.0.5`;
    for (const client of [server.api.as(null), server.api.as('f'.repeat(40))]) {
      const reply = await client.get(path);
      expect(reply.status).toBe(200);
      expect(reply.text).not.toContain('secret.corp.local');
      expect(reply.text).toContain(`href="/api-auth/login/?next=${encodeURIComponent(path).replace(/&/g, '&amp;')}"`);
      expect(reply.text).toContain('Sign in');
    }
  });

  test('a browser session is accepted as sign-in', async () => {
    await importHosts(server.api, [{ ip: '10.0.0.5', hostnames: ['session.corp.local'] }]);
    const admin = server.workspace.services.users.byUsername('admin')!;
    const session = server.workspace.services.users.openSession(admin.pk);
    const reply = await request(server.url, 'GET', `${HUNT}10.0.0.5`, { headers: { Cookie: `sessionid=${session.key}` } });
    expect(reply.status).toBe(200);
    expect(reply.text).toContain('session.corp.local');
  });

  test('HEAD answers the headers without a body; other paths are not this page', async () => {
    const head = await server.api.send('HEAD', `${HUNT}10.0.0.5`);
    expect(head.status).toBe(200);
    expect(head.text).toBe('');
    expect(Number(head.headers['content-length'])).toBeGreaterThan(0);
    expect((await server.api.get('/rules/hunting?ip=10.0.0.5')).status).toBe(404);
  });
});

describe('many hosts', () => {
  test('lists stay fast with 12,000 hosts', async () => {
    const specs = Array.from({ length: 12_000 }, (_, i) => ({
      ip: `10.${Math.floor(i / 65536)}.${Math.floor(i / 256) % 256}.${i % 256}`,
      hits: i % 97,
      first: i % 30,
      last: (i % 30) + (i % 7),
      hostnames: [`host-${i}.corp.local`],
      ports: i % 5 === 0 ? [443, 80] : [80],
    }));
    expect((await importHosts(server.api, specs)).status).toBe(201);
    const timed = async (query: string): Promise<[Listed, number]> => {
      const started = performance.now();
      const page = await listed(server.api, query);
      return [page, performance.now() - started];
    };
    const [plain, plainMs] = await timed('');
    expect(plain.count).toBe(12_000);
    const [counted, countedMs] = await timed('?ordering=-host_id.services_count,ip&page=last');
    expect(counted.results.every((h) => h.host_id.services_count === 1)).toBe(true);
    const [searched, searchedMs] = await timed('?search=host-1199');
    expect(searched.count).toBe(11);
    const [byIp, byIpMs] = await timed(`?host_id_qfilter=${encodeURIComponent('ip:"10.0.46.223"')}`);
    expect(ips(byIp)).toEqual(['10.0.46.223']);
    const [byPort, byPortMs] = await timed(`?host_id_qfilter=${encodeURIComponent('services.port:443 AND hits:>50')}&page=2`);
    expect(byPort.count).toBe(specs.filter((s, i) => i % 5 === 0 && s.hits > 50).length);
    // Generous bounds: the machine is shared; a per-row query or a full parse would blow them.
    for (const ms of [plainMs, countedMs, searchedMs, byIpMs]) expect(ms).toBeLessThan(1500);
    expect(byPortMs).toBeLessThan(4000);
  });
});

describe('same answers as the reference server', () => {
  let reference: ReferenceServer;
  let outpost: TestServer;
  const SPECS: HostSpec[] = [
    { ip: '10.0.0.1', hits: 4, first: 0, last: 3, hostnames: ['mail.corp.local'], ports: [25, 443] },
    { ip: '10.0.0.2', hits: 0, first: 1, last: 1, hostnames: ['www.corp.local'], ports: [80] },
    { ip: '217.116.0.227', hits: 12, first: 2, last: 9, hostnames: ['mx.example.com'], ports: [443], extra: { tenant: 1, services_count: 7 } },
    { ip: '2001:0db8::0010', first: 4, last: 5, extra: { net_info: [], in_home_net: 'no' } },
    { ip: '::ffff:172.16.0.9', hits: 2, first: 3, last: 8, extra: { 'tls.ja4': [{ hash: 't13d1516h2', agent: ['curl'] }] } },
  ];

  beforeAll(async () => {
    reference = await startReference();
    outpost = await startServer();
    for (const api of [reference.api, outpost.api]) expect((await importHosts(api, SPECS)).status).toBe(201);
  });
  afterAll(async () => {
    await reference?.stop();
    await outpost?.close();
  });

  /** Both answers, with each server's own origin removed from links. */
  async function both(method: 'GET' | 'POST', path: string, json?: unknown): Promise<[unknown, unknown]> {
    const answers = await Promise.all(
      [outpost, reference].map(async (target) => {
        const reply = await target.api.send(method, path, json === undefined ? {} : { json });
        return { status: reply.status, body: JSON.parse(reply.text.split(target.url).join('')) };
      }),
    );
    return [answers[0], answers[1]];
  }

  test.each([
    `${HOSTS}/10.0.0.1`,
    `${HOSTS}/10.0.0.1/`,
    `${HOSTS}/2001:db8::10`,
    `${HOSTS}/172.16.0.9`,
    `${HOSTS}/10.9.9.9`,
    `${HOSTS}/not-an-ip`,
    `${HOSTS}/`,
    `${HOSTS}/?page_size=2`,
    `${HOSTS}/?page_size=2&page=2&ordering=ip`,
    `${HOSTS}/?ordering=-hits,ip`,
    `${HOSTS}/?ordering=host_id.first_seen`,
    `${HOSTS}/?ordering=-host_id.services_count,ip`,
    `${HOSTS}/?ordering=host_id.tls.ja4_count,ip`,
    `${HOSTS}/?start_date=${T0 + 2 * DAY}&end_date=${T0 + 4.5 * DAY}`,
    `${HOSTS}/?start_date=abc&end_date=1e400`,
    `${HOSTS}/?start_date=1e30&end_date=-1e400`,
    `${HOSTS}/?search=corp`,
    `${HOSTS}/?search=MX.EXAMPLE`,
    `${HOSTS}/?ip=10.0.0.2`,
    `${HOSTS}/?tenant=5`,
    `${HOSTS}/?host_id_qfilter=${encodeURIComponent('ip:10.0.0.1 OR ip:"2001:db8::10"')}`,
    `${HOSTS}/?host_id_qfilter=${encodeURIComponent('host_id.services.port:443 AND NOT host_id.net_info.agg:internet')}`,
    `${HOSTS}/?host_id_qfilter=${encodeURIComponent('host_id.services_count>1')}`,
    `${HOSTS}/?host_id_qfilter=${encodeURIComponent('host_id.in_home_net:true')}`,
    `${HOSTS}/?host_id_qfilter=${encodeURIComponent('tls.ja4.agent:cu?l')}`,
    `${HOSTS}/?host_id_qfilter=${encodeURIComponent('internet')}`,
    `${HOSTS}/?host_id_qfilter=${encodeURIComponent(`last_seen:>=${new Date((T0 + 5 * DAY) * 1000).toISOString().slice(0, 10)}`)}&ordering=ip`,
    `${HOSTS}/?host_id_qfilter=${encodeURIComponent('tenant:1')}`,
    `${HOSTS}/?host_id_qfilter=${encodeURIComponent('(hits:>1')}`,
    `${HOSTS}/?host_id_qfilter=${encodeURIComponent('hits:>x')}`,
    `${HOSTS}/?host_id_qfilter=${encodeURIComponent('"open')}`,
  ])('GET %s', async (path) => {
    const [mine, theirs] = await both('GET', path);
    expect(mine).toEqual(theirs);
  });

  test('import validation errors are worded the same', async () => {
    const bad = [
      { ip: 'x', hits: -1, host_id: 's' },
      { ip: 5, hits: true, host_id: [] },
      { ip: '', hits: null, host_id: null },
      {},
      { ip: ' 10.0.0.1 ', host_id: { first_seen: '2023', last_seen: null, in_home_net: 'maybe', hostname: { a: 1 }, services: 'x', roles: [1, null, {}], 'tls.ja3': 5, net_info: null } },
      { ip: '10.0.0.1', hits: '1.5', host_id: { first_seen: '2023-07-11', last_seen: '', in_home_net: null, username: true } },
      { ip: '10.0.0.1', host_id: { first_seen: '0001-01-01T00:00:00+01:00', last_seen: '2023-07-11T16:07:33.559720+0000' } },
      ['list'],
    ];
    const [mine, theirs] = await both('POST', `${HOSTS}/import/`, bad);
    expect(mine).toEqual(theirs);
    const [mineObject, theirsObject] = await both('POST', `${HOSTS}/import/`, { ip: '10.0.0.1' });
    expect(mineObject).toEqual(theirsObject);
  });
});
