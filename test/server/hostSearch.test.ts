/**
 * host_id_qfilter in SQL (issue 10): the hosts the SQL translation finds are exactly those the
 * query language's own evaluator (shared/api/qfilter.ts) accepts, on random identities and random
 * queries, after updates and removals too, and while hosts wait to be indexed; the usual shapes
 * are answered through indexes.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { checkHostEntry } from '../../shared/api/hostIdentity';
import { matchesHost, parseQFilter, QueryError, QueryHost, type QueryNode } from '../../shared/api/qfilter';
import type { JsonObject } from '../../shared/resources';
import { openDatabase } from '../../electron/server/store/database';
import { Services } from '../../electron/server/store/services';
import { Hosts, type HostRow } from '../../electron/server/store/hosts';
import { Evidence } from '../../electron/server/store/evidence';
import { Store } from '../../electron/server/store/store';
import { openWorkspace } from '../../electron/workspaces/openWorkspace';
import { prng } from '../helpers/prng';
import { heldBy, watchEventLoop } from '../helpers/eventLoop';

const INSTANCE = { name: 'outpost', version: 'test', address: '127.0.0.1' };
/** Stores to close after each test. */
let open: Store[] = [];

function services(file = ':memory:'): Services {
  const made = new Services(openDatabase(file), INSTANCE);
  open.push(made.store);
  return made;
}

afterEach(() => {
  for (const store of open) store.close();
  open = [];
});

const WORDS = ['mail', 'Corp', 'corp', 'DESKTOP', 'srv', 'dc01', 'printer', 'proxy', 'İstanbul', 'straße', 'ΣΟΦΙΑ', 'a*b', 'x?y', '[lab]', 'q"t', 'back\\slash', 'ab', 'z'];
const AGENTS = ['Mozilla/5.0 (Windows NT 10.0)', 'curl/8.1', 'Microsoft-CryptoAPI/10.0', 'python-requests/2.31'];
const PROTOS = ['http', 'tls', 'ssh', 'dns', 'unknown', 'smb'];

function randomHost(random: () => number, i: number): JsonObject {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const maybe = (p: number) => random() < p;
  const time = (day: number) => `2024-0${1 + (day % 9)}-1${day % 10}T0${day % 10}:00:00.000000+00:00`;
  const name = () => `${pick(WORDS)}${maybe(0.5) ? `-${Math.floor(random() * 40)}` : ''}${maybe(0.4) ? `.${pick(WORDS)}.example` : ''}`;
  const seen = () => ({ first_seen: time(i % 7), last_seen: time((i % 7) + 1) });
  const list = <T>(n: number, make: () => T): T[] => Array.from({ length: Math.floor(random() * n) }, make);
  const ip = maybe(0.8) ? `10.${i % 3}.${Math.floor(i / 250)}.${i % 250}` : `2001:db8::${i.toString(16)}`;
  return {
    ip,
    hits: Math.floor(random() * 5),
    host_id: {
      first_seen: time(i % 5),
      last_seen: time((i % 5) + 2),
      hostname: list(3, () => ({ host: name(), ...seen() })),
      username: list(2, () => ({ user: pick(WORDS).toLowerCase(), ...seen() })),
      roles: list(2, () => ({ name: pick(['dhcp', 'domain controller', 'printer', 'http proxy']), ...seen() })),
      client_service: list(2, () => ({ name: pick(PROTOS), ...seen() })),
      'http.user_agent': list(2, () => ({ agent: pick(AGENTS), ...seen() })),
      'tls.ja3': list(2, () => ({ hash: `e7d705a3286e19ea42f587b344ee6865${Math.floor(random() * 3)}`, agent: list(3, () => pick(AGENTS)), ...seen() })),
      services: list(3, () => ({
        proto: pick(['tcp', 'udp']),
        port: pick([22, 53, 80, 443, 8080, 3128]),
        values: list(2, () => ({ app_proto: pick(PROTOS), first_seen: '2024-01-01T00:00:00.000000+0000', last_seen: '2024-01-02T00:00:00.000000+0000', ...(maybe(0.5) ? { http: { server: pick(['nginx', 'Apache/2.4', 'IIS']) } } : {}) })),
      })),
    },
  };
}

const FIELDS = [
  undefined,
  'ip',
  'hits',
  'host_id',
  'host_id.hostname',
  'host_id.hostname.host',
  'hostname.host',
  'hostname.host.raw',
  'host_id.username.user.keyword',
  'host_id.roles.name',
  'services.port',
  'services.values.app_proto',
  'host_id.services.values.http.server',
  'host_id.http.user_agent',
  'tls.ja3.agent',
  'host_id.services_count',
  'hostname_count',
  'host_id.first_seen',
  'last_seen',
  'hostname.first_seen',
  'in_home_net',
  'net_info.agg',
  'nothing.here',
];

function escapeWord(word: string): string {
  return word.replace(/[\s()"\\:<>=!*?&|]/g, (c) => `\\${c}`);
}

function randomValue(random: () => number, hosts: readonly JsonObject[]): string {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const roll = random();
  if (roll < 0.08) return pick(['443', '22', '2', '0', '1', 'true', 'false', 'internet', '10.0.0.0/8']);
  if (roll < 0.14) return pick(['"10.0.0.5"', '10.1.*', '2001\\:db8\\:\\:*', `"${String(pick(hosts).ip)}"`]);
  const source = JSON.stringify(pick(hosts)).match(/"([^"\\]{1,40})"/g) ?? ['"x"'];
  let text: string = pick(source).slice(1, -1);
  if (random() < 0.3) text = random() < 0.5 ? text.toUpperCase() : text.toLowerCase();
  if (random() < 0.4) return `"${text.replace(/["\\]/g, (c) => `\\${c}`)}"`;
  const chars = [...escapeWord(text)];
  const shape = random();
  if (shape < 0.2) return `*${[...text].slice(1, 5).map((c) => escapeWord(c)).join('')}*`;
  if (shape < 0.35) return `${[...text].slice(0, 3).map((c) => escapeWord(c)).join('')}*`;
  if (shape < 0.45) return `*${[...text].slice(-2).map((c) => escapeWord(c)).join('')}`;
  if (shape < 0.55 && text.length > 2 && /^[a-z0-9.-]+$/i.test(text)) return `${text.slice(0, 1)}?${text.slice(2)}`;
  if (shape < 0.6) return '*';
  return chars.join('');
}

function randomQuery(random: () => number, hosts: readonly JsonObject[], depth = 0): string {
  const roll = random();
  if (depth < 2 && roll < 0.15) return `(${randomQuery(random, hosts, depth + 1)} OR ${randomQuery(random, hosts, depth + 1)})`;
  if (depth < 2 && roll < 0.3) return `${randomQuery(random, hosts, depth + 1)} AND ${randomQuery(random, hosts, depth + 1)}`;
  if (depth < 2 && roll < 0.38) return `NOT ${randomQuery(random, hosts, depth + 1)}`;
  const field = FIELDS[Math.floor(random() * FIELDS.length)];
  if (field !== undefined && random() < 0.2) {
    const op = ['>', '>=', '<', ':<=', ':>'][Math.floor(random() * 5)]!;
    const bound = random() < 0.6 ? String(Math.floor(random() * 500)) : '2024-03-13T00:00:00Z';
    return `${field}${op}${bound}`;
  }
  const value = randomValue(random, hosts);
  return field === undefined ? value : `${field}:${value}`;
}

/** What the helpers below use of a workspace's services. */
type Searchable = Pick<Services, 'store' | 'hosts'>;

function listIps(s: Searchable, qfilter: QueryNode): string[] {
  const page = s.hosts.list({ page: 1, pageSize: 100_000, ordering: [{ field: 'ip', descending: false }], search: [], qfilter });
  return (page?.rows ?? []).map((row: HostRow) => row.ip);
}

function expectedIps(s: Searchable, qfilter: QueryNode): string[] {
  const rows = s.store.query('SELECT ip, hits, data FROM host_id ORDER BY ip, pk').all() as HostRow[];
  return rows.filter((row) => matchesHost(qfilter, new QueryHost(row.ip, row.hits, row.data))).map((row) => row.ip);
}

/** Store the hosts; `indexed`: and let the search index catch up with them, as the background does. */
function saveAll(s: Searchable, entries: readonly JsonObject[], indexed = true): void {
  s.store.write(() => {
    for (const raw of entries) {
      const checked = checkHostEntry(raw);
      if (!checked.ok) throw new Error(JSON.stringify(checked.errors));
      s.hosts.save(checked.entry);
    }
  });
  if (indexed) while (s.hosts.indexPending(97));
  expect(s.hosts.pendingIndex() === 0).toBe(indexed);
}

function compareOn(s: Searchable, random: () => number, hosts: readonly JsonObject[], queries: number): number {
  let nonEmpty = 0;
  for (let q = 0; q < queries; q++) {
    const text = randomQuery(random, hosts);
    let node: QueryNode | undefined;
    try {
      node = parseQFilter(text);
    } catch (error) {
      if (error instanceof QueryError) continue;
      throw error;
    }
    if (!node) continue;
    const expected = expectedIps(s, node);
    if (expected.length > 0) nonEmpty++;
    expect({ query: text, ips: listIps(s, node) }).toEqual({ query: text, ips: expected });
  }
  return nonEmpty;
}

describe('host_id_qfilter in SQL', () => {
  test('finds exactly the hosts the query language accepts, on random identities and queries', () => {
    const s = services();
    const random = prng(20261125);
    const hosts = Array.from({ length: 240 }, (_, i) => randomHost(random, i));
    saveAll(s, hosts);
    const nonEmpty = compareOn(s, random, hosts, 1000);
    // The queries are not all trivially empty: many find something.
    expect(nonEmpty).toBeGreaterThan(150);
  });

  test('is exact while written hosts wait to be indexed, and after the index catches up', () => {
    const s = services();
    const random = prng(11);
    const hosts = Array.from({ length: 120 }, (_, i) => randomHost(random, i));
    saveAll(s, hosts.slice(0, 80));
    // Forty new hosts and twenty changed ones wait; the index holds the rest.
    const changed = hosts.slice(0, 20).map((host, i) => ({ ...randomHost(random, i + 500), ip: host.ip! }));
    saveAll(s, [...hosts.slice(80), ...changed], false);
    expect(s.hosts.pendingIndex()).toBe(60);
    const current = [...changed, ...hosts.slice(20)];
    compareOn(s, random, current, 250);
    while (s.hosts.indexPending(7));
    compareOn(s, random, current, 250);
  });

  test('stays exact after hosts change and are removed (the index follows every write)', () => {
    const s = services();
    const random = prng(7);
    let hosts = Array.from({ length: 150 }, (_, i) => randomHost(random, i));
    saveAll(s, hosts);
    const changed = hosts.slice(0, 60).map((host, i) => ({ ...randomHost(random, i + 1000), ip: host.ip! }));
    saveAll(s, changed);
    s.store.write(() => {
      for (const host of hosts.slice(100, 130)) s.hosts.remove(String(host.ip));
    });
    expect(s.hosts.indexPending(1000)).toBe(false);
    hosts = [...changed, ...hosts.slice(60, 100), ...hosts.slice(130)];
    compareOn(s, random, hosts, 600);
    const dangling = s.store.query('SELECT count(*) FROM host_term WHERE pk NOT IN (SELECT pk FROM host_id)').pluck().get();
    expect(dangling).toBe(0);
  });

  test('in an open workspace the index catches up by itself, in batches between other work', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'outpost-indexer-'));
    const opened = openWorkspace({ file: path.join(dir, 'ws.sqlite3'), instance: INSTANCE });
    try {
      const random = prng(5);
      const hosts = Array.from({ length: 1200 }, (_, i) => randomHost(random, i));
      saveAll(opened.services, hosts, false);
      expect(opened.services.hosts.pendingIndex()).toBe(1200);
      // Timers keep firing while it works: no batch holds the loop for long.
      const loop = watchEventLoop(1);
      const started = performance.now();
      while (opened.services.hosts.pendingIndex() > 0) {
        await new Promise((resolve) => setTimeout(resolve, 5));
        expect(performance.now() - started).toBeLessThan(20_000);
      }
      expect(heldBy(loop.stop().latenesses)).toBeUndefined();
      const probe = parseQFilter('host_id.services.port:443')!;
      expect(listIps(opened.services, probe)).toEqual(expectedIps(opened.services, probe));
    } finally {
      opened.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a database whose index is missing or of another version is indexed again after it opens', () => {
    const dir = `${process.env.TMPDIR ?? '/tmp'}/outpost-hostsearch-${process.pid}-${Date.now()}`;
    const file = `${dir}/workspace.sqlite3`;
    const first = services(file);
    const random = prng(99);
    const hosts = Array.from({ length: 40 }, (_, i) => randomHost(random, i));
    saveAll(first, hosts);
    first.store.write(() => {
      first.store.command('DELETE FROM host_term').run();
      first.store.command("DELETE FROM host_search_state WHERE key = 'version'").run();
    });
    const probe = parseQFilter('hostname.host:*')!;
    expect(listIps(first, probe)).toEqual([]);
    first.store.close();
    const again = services(file);
    // Every host waits to be indexed again, and is found meanwhile; then through the index.
    expect(again.hosts.pendingIndex()).toBe(40);
    expect(listIps(again, probe)).toEqual(expectedIps(again, probe));
    while (again.hosts.indexPending(16));
    expect(listIps(again, probe)).toEqual(expectedIps(again, probe));
    expect(listIps(again, probe).length).toBeGreaterThan(0);
    expect(again.store.query('SELECT count(*) FROM host_term').pluck().get()).toBeGreaterThan(40);
  });

  test('making the index again empties its tables at once, not a row at a time (no foreign key holds them)', () => {
    const s = services();
    for (const table of ['host_term', 'host_term_set', 'host_vocab', 'host_path']) {
      const program = s.store.db.prepare(`EXPLAIN DELETE FROM ${table}`).all() as { opcode: string }[];
      const opcodes = program.map((step) => step.opcode);
      expect({ table, clears: opcodes.includes('Clear'), deletesRows: opcodes.includes('Delete') }).toEqual({ table, clears: true, deletesRows: false });
    }
  });

  test('a value containing a text (*corp*) finds what the query language finds: ASCII case folded, other text folded code point by code point, case kept when exact', () => {
    const s = services();
    const names = ['Corp-1.example', 'CORPORATE', 'xcorpx', 'cor.p', 'İstanbul', 'istanbul', 'Kiosk', '\u212Aiosk', 'straße', 'STRASSE', 'ΣΟΦΙΑ-corp', 'σοφια', 'tab\tcorp', 'del\u007fcorp', 'a*b', 'a?b', '[lab]', 'ünï-Corp', 'KADIKÖY-DELİ'];
    const seen = { first_seen: '2024-01-01T00:00:00.000000+00:00', last_seen: '2024-01-02T00:00:00.000000+00:00' };
    saveAll(
      s,
      names.map((host, i) => ({ ip: `10.9.0.${i + 1}`, hits: 0, host_id: { ...seen, hostname: [{ host, ...seen }], username: [{ user: `u${i}`, ...seen }] } })),
    );
    const queries = ['*corp*', '*CORP*', '*Corp*', 'hostname.host:*corp*', 'hostname.host.raw:*Corp*', 'hostname.host.raw:*corp*', 'hostname.host.keyword:*CORP*', '*i*', '*İ*', '*\u0130st*', '*k*', '*ki*', '*\u212A*', 'hostname.host.raw:*\u212Aio*', '*ss*', '*ß*', '*σοφ*', '*ΣΟΦ*', '*\\**', '*\\?*', '*\\[lab*', '*p-1.*', '*nï*', 'NOT *corp*', '*corp* AND *1*', '*eli*', '*deli*', '*ELİ*', 'deli*', '*köy*'];
    let found = 0;
    for (const query of queries) {
      const node = parseQFilter(query)!;
      const expected = expectedIps(s, node);
      found += expected.length;
      expect({ query, ips: listIps(s, node) }).toEqual({ query, ips: expected });
    }
    expect(found).toBeGreaterThan(30);
    // Of these, *corp* finds every value holding it in any case, and .raw only the case asked for.
    expect(listIps(s, parseQFilter('hostname.host:*corp*')!).length).toBe(7);
    expect(listIps(s, parseQFilter('hostname.host.raw:*Corp*')!)).toEqual(['10.9.0.1', '10.9.0.18']);
  });

  test('values beyond the range of ids of their path, and paths beyond the ranges, share ids told apart by their rows: the same hosts are found', () => {
    const store = new Store(openDatabase(':memory:'));
    open.push(store);
    // Eight ids of each kind per path, and paths from id 12 on sharing (a workspace would need
    // two million values of one path, or 511 paths, for either).
    const s: Searchable = { store, hosts: new Hosts(store, new Evidence(store), { slotBits: 4, sharedSlot: 12 }) };
    const random = prng(606);
    const hosts = Array.from({ length: 160 }, (_, i) => randomHost(random, i));
    saveAll(s, hosts);
    const sharedPaths = store.query('SELECT count(DISTINCT path_id) FROM host_vocab WHERE id >= 12 * 16').pluck().get() as number;
    const spilled = store.query('SELECT count(DISTINCT path_id) FROM host_vocab WHERE id >= 12 * 16 AND path_id < 12').pluck().get() as number;
    expect(sharedPaths).toBeGreaterThan(3);
    expect(spilled).toBeGreaterThan(0);
    expect(compareOn(s, random, hosts, 600)).toBeGreaterThan(80);
    // Shared ids say nothing of their text: sixteen non-ASCII names that *eli* narrows to but does not match, and one it does.
    const seen = { first_seen: '2024-01-01T00:00:00.000000+00:00', last_seen: '2024-01-02T00:00:00.000000+00:00' };
    const names = [...Array.from({ length: 16 }, (_, i) => `DELİ-${i}`), 'deli-x'];
    saveAll(
      s,
      names.map((host, i) => ({ ip: `10.7.0.${i + 1}`, hits: 0, host_id: { ...seen, hostname: [{ host, ...seen }] } })),
    );
    expect(listIps(s, parseQFilter('*eli*')!)).toEqual(['10.7.0.17']);
    for (const query of ['*corp*', 'hostname.host:*corp*', 'username.user:corp', 'services.values.app_proto:tls', 'hostname.host:mail*', 'net_info.agg:internet', 'hostname.host:deli*']) {
      const node = parseQFilter(query)!;
      expect({ query, ips: listIps(s, node) }).toEqual({ query, ips: expectedIps(s, node) });
    }
    // The same database opened with another layout of ids is indexed again.
    const reopened: Searchable = { store, hosts: new Hosts(store, new Evidence(store)) };
    expect(reopened.hosts.pendingIndex()).toBe(177);
    while (reopened.hosts.indexPending(50));
    expect(store.query('SELECT count(*) FROM host_vocab WHERE id >= 512 << 22').pluck().get()).toBe(0);
    expect(listIps(reopened, parseQFilter('*eli*')!)).toEqual(['10.7.0.17']);
  });

  test('an ASCII value that `x`, `x*` or `*x*` (case folded, x of ASCII) finds through the index is not passed to the evaluator; other values are', () => {
    const s = services();
    const seen = { first_seen: '2024-01-01T00:00:00.000000+00:00', last_seen: '2024-01-02T00:00:00.000000+00:00' };
    const names = ['mail.CORP.example', 'corp-dc01', 'ünï-corp', 'Corp', 'corporate'];
    saveAll(
      s,
      names.map((host, i) => ({ ip: `10.8.0.${i + 1}`, hits: 0, host_id: { ...seen, hostname: [{ host, ...seen }] } })),
    );
    // The evaluator, counted: it accepts what it is asked about, so a call shows in the result too.
    const asked: string[] = [];
    s.store.db.function('qfilter_value', (_slot: number, text: string) => {
      asked.push(text);
      return 1;
    });
    const ips = (query: string) => listIps(s, parseQFilter(query)!);
    expect(ips('*corp*')).toEqual(['10.8.0.1', '10.8.0.2', '10.8.0.3', '10.8.0.4', '10.8.0.5']);
    expect(asked).toEqual(['ünï-corp']);
    asked.length = 0;
    expect(ips('hostname.host:corp*')).toEqual(['10.8.0.2', '10.8.0.4', '10.8.0.5']);
    expect(ips('hostname.host:"CORP"')).toEqual(['10.8.0.4']);
    expect(asked).toEqual([]);
    // Case kept (.raw), a suffix, a pattern of two parts: the index only narrows, the evaluator decides on every candidate.
    const startingCo = ['Corp', 'corp-dc01', 'corporate'];
    for (const [query, candidates] of [
      ['hostname.host.raw:*corp*', names],
      ['*corp', names],
      ['*ma*corp*', names],
      ['*corp*e', names],
      ['hostname.host:co*p', startingCo],
      ['hostname.host.raw:"Corp"', ['Corp']],
    ] as const) {
      asked.length = 0;
      ips(query);
      expect({ query, asked: asked.sort() }).toEqual({ query, asked: [...candidates].sort() });
    }
  });

  test('a field:value term and a wildcard inside a value are answered through indexes, without reading every host', () => {
    const s = services();
    const random = prng(3);
    saveAll(s, Array.from({ length: 50 }, (_, i) => randomHost(random, i)));
    const plans: Record<string, string> = {};
    for (const query of ['host_id.hostname.host:"mail-3.corp.example"', 'host_id.hostname.host:*corp*', 'hostname.host:mail*', 'ip:"10.0.0.5"', 'services.port:443 AND NOT net_info.agg:internet']) {
      const hostSearch = (s.hosts as unknown as { search: { condition(n: QueryNode): { set: string; params: Record<string, unknown> } } }).search;
      const condition = hostSearch.condition(parseQFilter(query)!);
      const plan = s.store.db.prepare(`EXPLAIN QUERY PLAN SELECT count(DISTINCT pk) FROM (${condition.set})`).all(condition.params) as { detail: string }[];
      plans[query] = plan.map((p) => p.detail).join('; ');
    }
    for (const [query, plan] of Object.entries(plans)) {
      expect(plan, query).not.toMatch(/SCAN host_id\b(?! USING COVERING)/);
      expect(plan, query).not.toMatch(/SCAN v\b/);
    }
  });
});
