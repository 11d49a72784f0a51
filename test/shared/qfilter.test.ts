import { describe, expect, test } from 'vitest';
import { flatten, matchesHost, ordinalOf, parseQFilter, QueryError, QueryHost } from '../../shared/api/qfilter';
import type { JsonObject } from '../../shared/resources';

/** A mail server on the internet, shaped as the real server's samples. */
const MAIL: JsonObject = {
  first_seen: '2023-07-11T16:07:33.559720+00:00',
  last_seen: '2023-07-25T12:04:16.060288+00:00',
  in_home_net: false,
  net_info: [{ agg: 'internet', first_seen: '2023-07-11T16:07:33.559720+00:00', last_seen: '2023-07-25T12:04:16.060288+00:00' }],
  net_info_count: 1,
  hostname: [{ host: 'mx.example.com', first_seen: '2023-07-11T16:07:33.559720+00:00', last_seen: '2023-07-25T12:04:16.059759+00:00' }],
  hostname_count: 1,
  'http.user_agent': [],
  'http.user_agent_count': 0,
  'tls.ja3': [{ hash: 'e7d705a3286e19ea42f587b344ee6865', agent: ['Postfix TLS', 'curl/8.0'], first_seen: '2023-07-12T00:00:00+00:00', last_seen: '2023-07-13T00:00:00+00:00' }],
  'tls.ja3_count': 1,
  services: [
    { proto: 'tcp', port: 25, values: [{ app_proto: 'smtp', first_seen: '2023-07-11T16:07:50.108895+0000', last_seen: '2023-07-25T12:04:33.188748+0000' }] },
    {
      proto: 'tcp',
      port: 443,
      values: [{ app_proto: 'tls', tls: { subject: 'CN=mx.example.com', issuerdn: "CN=R3, O=Let's Encrypt", fingerprint: 'ab:cd' }, first_seen: '2023-07-11T16:07:50.108895+0000', last_seen: '2023-07-25T12:04:33.188748+0000' }],
    },
  ],
  services_count: 2,
};

/** A workstation in the home net with a browser, a user and a role. */
const DESK: JsonObject = {
  first_seen: '2024-01-01T00:00:00.000000+00:00',
  last_seen: '2024-03-17T10:00:00.000000+00:00',
  in_home_net: true,
  net_info: [{ agg: '10.0.0.0/8', first_seen: '2024-01-01T00:00:00+00:00', last_seen: '2024-03-17T10:00:00+00:00' }],
  net_info_count: 1,
  hostname: [{ host: 'mail-desk.corp.local', first_seen: '2024-01-01T00:00:00+00:00', last_seen: '2024-03-17T10:00:00+00:00' }],
  hostname_count: 1,
  username: [{ user: 'Alice', first_seen: '2024-01-01T00:00:00+00:00', last_seen: '2024-03-17T10:00:00+00:00' }],
  username_count: 1,
  roles: [{ name: 'domain controller', first_seen: '2024-01-01T00:00:00+00:00', last_seen: '2024-03-17T10:00:00+00:00' }],
  roles_count: 1,
  'http.user_agent': [{ agent: 'Mozilla/5.0 (X11; Linux x86_64)', first_seen: '2024-01-01T00:00:00+00:00', last_seen: '2024-03-17T10:00:00+00:00' }],
  'http.user_agent_count': 1,
  services: [{ proto: 'udp', port: 53, values: [{ app_proto: 'dns', first_seen: '2024-01-01T00:00:00+0000', last_seen: '2024-03-17T10:00:00+0000' }] }],
  services_count: 1,
  note: 'a:b (c)',
};

const HOSTS = {
  mail: () => new QueryHost('217.116.0.227', 12, MAIL),
  desk: () => new QueryHost('10.0.0.5', 0, JSON.stringify(DESK)),
  bare: () => new QueryHost('10.0.0.2', 3, JSON.stringify({ first_seen: '2022-01-01T00:00:00+00:00', last_seen: '2022-01-02T00:00:00+00:00' })),
};

/** The hosts a query keeps, by name. */
function kept(query: string): string[] {
  const node = parseQFilter(query);
  if (!node) throw new Error('blank query');
  return Object.entries(HOSTS)
    .filter(([, make]) => matchesHost(node, make()))
    .map(([name]) => name);
}

function parseError(query: string): string {
  try {
    parseQFilter(query);
  } catch (error) {
    if (error instanceof QueryError) return error.message;
    throw error;
  }
  throw new Error(`${query} parsed`);
}

describe('host_id_qfilter: the forms api.md §7 lists', () => {
  test('ip:"10.0.0.5" keeps that address only', () => {
    expect(kept('ip:"10.0.0.5"')).toEqual(['desk']);
  });

  test('ip:a OR ip:b keeps both addresses', () => {
    expect(kept('ip:10.0.0.5 OR ip:217.116.0.227')).toEqual(['mail', 'desk']);
  });

  test('services.port:443 AND NOT net_info.agg:internet keeps hosts with that port in the home net', () => {
    expect(kept('host_id.services.port:443 AND NOT host_id.net_info.agg:internet')).toEqual([]);
    expect(kept('host_id.services.port:53 AND NOT host_id.net_info.agg:internet')).toEqual(['desk']);
    expect(kept('host_id.services.port:443 AND host_id.net_info.agg:internet')).toEqual(['mail']);
  });

  test('field:* keeps hosts where the field has a value (an empty list has none)', () => {
    expect(kept('host_id.http.user_agent:*')).toEqual(['desk']);
    expect(kept('host_id.username:*')).toEqual(['desk']);
  });

  test('a trailing * matches a prefix; the plain word matches the whole value only', () => {
    expect(kept('host_id.hostname.host:mail*')).toEqual(['desk']);
    expect(kept('host_id.hostname.host:mail')).toEqual([]);
    expect(kept('host_id.hostname.host:mx.example.com')).toEqual(['mail']);
  });

  test('booleans read true and false', () => {
    expect(kept('host_id.in_home_net:true')).toEqual(['desk']);
    expect(kept('host_id.in_home_net:false')).toEqual(['mail']);
    expect(kept('in_home_net:TRUE')).toEqual(['desk']);
  });

  test('counts compare as numbers, written field>v or field:>v', () => {
    expect(kept('host_id.services_count>1')).toEqual(['mail']);
    expect(kept('host_id.services_count:>1')).toEqual(['mail']);
    expect(kept('host_id.services_count>=1')).toEqual(['mail', 'desk']);
    expect(kept('host_id.services_count:<2')).toEqual(['desk']);
    expect(kept('host_id.services_count<=2')).toEqual(['mail', 'desk']);
    expect(kept('hits:>10')).toEqual(['mail']);
    expect(kept('services.port:>100')).toEqual(['mail']);
  });

  test('a bare term matches any text value, whole and case-insensitively', () => {
    expect(kept('mx.example.com')).toEqual(['mail']);
    expect(kept('MX.EXAMPLE.COM')).toEqual(['mail']);
    expect(kept('alice')).toEqual(['desk']);
    expect(kept('"domain controller"')).toEqual(['desk']);
    expect(kept('10.0.0.2')).toEqual(['bare']);
    expect(kept('internet')).toEqual(['mail']);
  });

  test('a bare term never matches timestamps, numbers or booleans', () => {
    expect(kept('"2023-07-11T16:07:33.559720+00:00"')).toEqual([]);
    expect(kept('2023*')).toEqual([]);
    expect(kept('25')).toEqual([]);
    expect(kept('true')).toEqual([]);
  });
});

describe('host_id_qfilter: syntax', () => {
  test('quoted values are literal: spaces kept, * and ? not wildcards', () => {
    expect(kept('host_id.roles.name:"domain controller"')).toEqual(['desk']);
    expect(kept('hostname.host:"mail*"')).toEqual([]);
  });

  test('? matches exactly one character', () => {
    expect(kept('ip:10.0.0.?')).toEqual(['desk', 'bare']);
    expect(kept('ip:10.0.0.??')).toEqual([]);
  });

  test('&&, || and ! are AND, OR and NOT', () => {
    expect(kept('in_home_net:true && services.port:53')).toEqual(['desk']);
    expect(kept('ip:10.0.0.2 || ip:10.0.0.5')).toEqual(['desk', 'bare']);
    expect(kept('!in_home_net:true')).toEqual(['mail', 'bare']);
    expect(kept('NOT ip:10.0.0.2')).toEqual(['mail', 'desk']);
  });

  test('terms side by side are ANDed; AND binds tighter than OR; parentheses group', () => {
    expect(kept('in_home_net:true services.port:53')).toEqual(['desk']);
    expect(kept('in_home_net:true services.port:25')).toEqual([]);
    expect(kept('ip:10.0.0.2 OR in_home_net:true AND services.port:53')).toEqual(['desk', 'bare']);
    expect(kept('(ip:10.0.0.2 OR in_home_net:true) AND services.port:53')).toEqual(['desk']);
    expect(kept('NOT (ip:10.0.0.2 OR ip:10.0.0.5)')).toEqual(['mail']);
  });

  test('operators are upper-case words; lower-case and/or are plain terms', () => {
    expect(kept('ip:10.0.0.5 and')).toEqual([]);
    expect(kept('"AND"')).toEqual([]);
  });

  test('dates compare as dates, with or without a time', () => {
    expect(kept('host_id.first_seen:>2024-01-01')).toEqual([]);
    expect(kept('host_id.first_seen:>=2024-01-01')).toEqual(['desk']);
    expect(kept('host_id.last_seen<2023-01-01')).toEqual(['bare']);
    expect(kept('host_id.last_seen:>"2023-07-25T12:04:16+00:00"')).toEqual(['mail', 'desk']);
    expect(kept('host_id.last_seen:<=2022-01-02T00:00:00Z')).toEqual(['bare']);
  });

  test('EVE timestamps (+0000) inside services compare as dates', () => {
    expect(kept('services.values.first_seen:<2024-01-01')).toEqual(['mail']);
  });

  test('a backslash escapes the next character, in fields and values', () => {
    expect(kept('note:a\\:b\\ \\(c\\)')).toEqual(['desk']);
    expect(kept('services.values.tls.issuerdn:CN\\=R3,\\ O\\=Let\'s\\ Encrypt')).toEqual(['mail']);
    expect(kept('hostname.host:mx\\.example\\.com')).toEqual(['mail']);
    expect(kept('hostname.host:mx\\*')).toEqual([]);
    expect(kept('"a:b (c)"')).toEqual(['desk']);
    expect(kept('note:"a:b \\(c)"')).toEqual(['desk']);
  });

  test('the host_id. prefix is optional', () => {
    expect(kept('services.port:25')).toEqual(kept('host_id.services.port:25'));
    expect(kept('hostname.host:mx*')).toEqual(['mail']);
  });

  test('a field covers its sub-fields and list items share their list path', () => {
    expect(kept('hostname:mx.example.com')).toEqual(['mail']);
    expect(kept('services:smtp')).toEqual(['mail']);
    expect(kept('tls.ja3.agent:curl*')).toEqual(['mail']);
    expect(kept('tls:postfix*')).toEqual(['mail']);
    expect(kept('host_id:alice')).toEqual(['desk']);
  });

  test('field names are exact: a prefix of a key name is not its field', () => {
    expect(kept('host:mx.example.com')).toEqual([]);
    expect(kept('hostnam:*')).toEqual([]);
  });

  test('a comparison ignores values of another kind', () => {
    expect(kept('hostname.host:>5')).toEqual([]);
    expect(kept('services:>2020-01-01')).toEqual(['mail', 'desk']);
  });

  test('a blank query is no filter', () => {
    expect(parseQFilter('')).toBeUndefined();
    expect(parseQFilter('   ')).toBeUndefined();
  });
});

describe('host_id_qfilter: errors say where and why', () => {
  test.each([
    ['(ip:1', 'character 6: ")" expected.'],
    ['ip:"10.0.0.1', 'character 4: unterminated quoted string.'],
    ['"abc', 'character 1: unterminated quoted string.'],
    ['ip:', 'character 4: a value is missing after "ip:".'],
    ['ip: 10.0.0.1', 'character 4: a value is missing after "ip:".'],
    ['hits>', 'character 6: a value is missing after "hits>".'],
    ['ip:(1)', 'character 4: a value is missing after "ip:".'],
    ['hits:>abc', 'character 1: ":>" needs a number or a date.'],
    ['a hits>x', 'character 3: ">" needs a number or a date.'],
    ['ip:1 AND', 'character 9: a term is expected at the end of the query.'],
    ['OR ip:1', 'character 1: a term is expected, not "OR".'],
    ['ip:1 || && ip:2', 'character 9: a term is expected, not "AND".'],
    ['NOT', 'character 4: a term is expected at the end of the query.'],
    ['()', 'character 2: a term is expected, not ")".'],
    ['ip:1)', 'character 5: unexpected ")".'],
    ['abc\\', 'character 4: unexpected "\\".'],
    ['ab"c"', 'character 1: unexpected "a".'],
  ])('%s → %s', (query, expected) => {
    expect(parseError(query)).toBe(expected);
  });

  test('positions count characters, not UTF-16 units, from the first non-blank one', () => {
    expect(parseError('  (hostname.host:😀x')).toBe('character 18: ")" expected.');
  });
});

describe('host_id_qfilter: values', () => {
  test('flatten gives every scalar its dotted path; list items share it; nulls are skipped', () => {
    expect(flatten({ a: [{ b: 1 }, { b: null, c: 'x' }], 'tls.ja3': [{ agent: ['p', 'q'] }] })).toEqual([
      ['a.b', 1],
      ['a.c', 'x'],
      ['tls.ja3.agent', 'p'],
      ['tls.ja3.agent', 'q'],
    ]);
  });

  test('numbers, numeric text and ISO dates are ordinals; other text and booleans are not', () => {
    expect(ordinalOf(3)).toEqual({ kind: 'number', value: 3 });
    expect(ordinalOf('-2.5')).toEqual({ kind: 'number', value: -2.5 });
    expect(ordinalOf('2024-01-01')).toEqual({ kind: 'time', value: Date.UTC(2024, 0, 1) * 1000 });
    expect(ordinalOf('2024-01-01T01:00:00+01:00')).toEqual({ kind: 'time', value: Date.UTC(2024, 0, 1) * 1000 });
    expect(ordinalOf('1e3')).toBeUndefined();
    expect(ordinalOf(true)).toBeUndefined();
    expect(ordinalOf('mail')).toBeUndefined();
  });

  test('host_id given as JSON text is only parsed when a term needs it', () => {
    const text = JSON.stringify(DESK);
    let parsed = 0;
    const original = JSON.parse;
    JSON.parse = ((...args: Parameters<typeof JSON.parse>) => {
      parsed++;
      return original(...args);
    }) as typeof JSON.parse;
    try {
      expect(matchesHost(parseQFilter('ip:10.0.0.5')!, new QueryHost('10.0.0.5', 0, text))).toBe(true);
      expect(matchesHost(parseQFilter('ip:10.0.0.9')!, new QueryHost('10.0.0.5', 0, text))).toBe(false);
      expect(matchesHost(parseQFilter('hits:>3')!, new QueryHost('10.0.0.5', 0, text))).toBe(false);
      expect(parsed).toBe(0);
      expect(matchesHost(parseQFilter('hostname.host:mail*')!, new QueryHost('10.0.0.5', 0, text))).toBe(true);
      expect(parsed).toBe(1);
    } finally {
      JSON.parse = original;
    }
  });

  test('a key named like a top-level field inside host_id is still found', () => {
    const host = new QueryHost('10.0.0.1', 42, JSON.stringify({ ip: '10.9.9.9', first_seen: 'x', last_seen: 'y' }));
    expect(matchesHost(parseQFilter('ip:10.9.9.9')!, host)).toBe(true);
    expect(matchesHost(parseQFilter('host_id.ip:10.0.0.1')!, host)).toBe(true);
  });
});

describe('host_id_qfilter: bounded cost, whatever the query', () => {
  const agent = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36 Edg/120';
  const longHost = new QueryHost('10.0.0.9', 0, { hostname: [{ host: 'a'.repeat(5000) }], 'http.user_agent': [{ agent }] });

  test('wildcard soups are matched without backtracking (the 46 s query of the report answers at once)', () => {
    const started = performance.now();
    expect(matchesHost(parseQFilter('host_id.http.user_agent.agent:*?*?*?*?*?*#')!, longHost)).toBe(false);
    expect(matchesHost(parseQFilter(`hostname.host:${'*a'.repeat(200)}*b`)!, longHost)).toBe(false);
    expect(matchesHost(parseQFilter(`hostname.host:${'*a'.repeat(200)}*`)!, longHost)).toBe(true);
    expect(performance.now() - started).toBeLessThan(1000);
  });

  test('stars and question marks keep their meaning at every position', () => {
    const host = new QueryHost('10.0.0.9', 0, { hostname: [{ host: 'Mail-Desk.corp.local' }] });
    const cases: [string, boolean][] = [
      ['*', true],
      ['**', true],
      ['mail*', true],
      ['*local', true],
      ['*desk*', true],
      ['m?il-desk.corp.local', true],
      ['*.corp.*', true],
      ['*.c?rp.l*l', true],
      ['*corp*corp*', false],
      ['?', false],
      ['mail', false],
      ['*x*', false],
      ['mail-desk.corp.local?', false],
    ];
    for (const [pattern, expected] of cases) expect([pattern, matchesHost(parseQFilter(`hostname.host:${pattern}`)!, host)]).toEqual([pattern, expected]);
  });

  test.each([
    ['a NOT chain thousands deep', '!'.repeat(3000) + 'x', 'more than 32 nested'],
    ['parentheses thousands deep', '('.repeat(2000) + 'x' + ')'.repeat(2000), 'more than 32 nested'],
    ['parentheses past the nesting limit', '('.repeat(33) + 'x' + ')'.repeat(33), 'more than 32 nested'],
    ['more terms than the limit', Array.from({ length: 300 }, (_, i) => `t${i}`).join(' OR '), 'more than 256 terms'],
    ['a query longer than the limit', 'x'.repeat(5000), 'longer than 4096'],
  ])('%s is refused with a QueryError, not a stack overflow', (_name, query, why) => {
    expect(() => parseQFilter(query)).toThrow(QueryError);
    expect(() => parseQFilter(query)).toThrow(why);
  });

  test('the limits themselves are accepted', () => {
    expect(parseQFilter('('.repeat(32) + 'x' + ')'.repeat(32))).toBeDefined();
    expect(parseQFilter(Array.from({ length: 256 }, (_, i) => `t${i}`).join(' '))).toBeDefined();
  });
});

describe('host_id_qfilter: keyword sub-fields, as the vendor web UI queries them', () => {
  const host = new QueryHost('10.0.0.7', 2, {
    roles: [{ name: 'http proxy', first_seen: '2025-01-01T00:00:00.000000+00:00', last_seen: '2025-01-02T00:00:00.000000+00:00' }],
    hostname: [{ host: 'Proxy-01.corp', first_seen: '2025-01-01T00:00:00.000000+00:00', last_seen: '2025-01-02T00:00:00.000000+00:00' }],
  });
  const query = (q: string) => matchesHost(parseQFilter(q)!, host);

  test('`.raw` and `.keyword` match the field they follow exactly, case included', () => {
    expect(query('host_id.roles.name.raw:"http proxy"')).toBe(true);
    expect(query('host_id.roles.name.keyword:"http proxy"')).toBe(true);
    expect(query('host_id.roles.name.raw:"HTTP proxy"')).toBe(false);
    expect(query('host_id.roles.name:"HTTP proxy"')).toBe(true);
    expect(query('host_id.roles.name.raw:"http"')).toBe(false);
  });

  test('wildcards still work on them, case included', () => {
    expect(query('host_id.hostname.host.raw:Proxy-*')).toBe(true);
    expect(query('host_id.hostname.host.raw:proxy-*')).toBe(false);
    expect(query('host_id.hostname.host:proxy-*')).toBe(true);
  });
});
