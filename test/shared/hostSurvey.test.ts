/**
 * The site survey's declarations (shared/app/hostSurvey.ts): what a column shows of an identity,
 * the filter's and the ordering's parameters. The identity below is written as api.md §7 shapes
 * one, and each expected text is read off it by hand.
 */
import { describe, expect, test } from 'vitest';
import { columnValues, hostFilterQuery, parseHostColumns, parseHostFilter, parseHostOrdering, serviceTexts, valuesAt, type HostRow } from '../../shared/app/hostSurvey';

const T = { first_seen: '2024-03-01T08:00:00.000000+00:00', last_seen: '2024-03-02T08:00:00.000000+00:00' };

const ROW: HostRow = {
  ip: '10.0.0.5',
  hits: 7,
  source: 'both',
  learned: { visit: 3, at: '2026-11-27T10:00:00.000000Z' },
  host_id: {
    ...T,
    roles: [{ name: 'domain controller', ...T }],
    username: [{ user: 'jessie.andrews', ...T }, { user: 'giorgio', ...T }],
    hostname: [{ host: 'dc1.corp', ...T }],
    'tls.ja3': [{ hash: 'e7d705a3286e19ea42f587b344ee6865', ...T }],
    'http.user_agent': [{ agent: 'curl/8.0', ...T }],
    net_info: [{ agg: '10.0.0.0/8', ...T }],
    services: [
      { proto: 'tcp', port: 443, values: [{ app_proto: 'tls', tls: { subject: 'CN=dc1.corp', issuerdn: 'CN=corp CA' }, ...T }, { app_proto: 'http', ...T }] },
      { proto: 'udp', port: 53, values: [] },
    ],
  },
};

describe('what a column shows', () => {
  test('list columns take every value at their path, keys with dots included (tls.ja3, http.user_agent)', () => {
    expect(columnValues(ROW, 'users')).toEqual(['jessie.andrews', 'giorgio']);
    expect(columnValues(ROW, 'roles')).toEqual(['domain controller']);
    expect(columnValues(ROW, 'ja3')).toEqual(['e7d705a3286e19ea42f587b344ee6865']);
    expect(columnValues(ROW, 'user_agents')).toEqual(['curl/8.0']);
    expect(columnValues(ROW, 'networks')).toEqual(['10.0.0.0/8']);
    expect(columnValues(ROW, 'tls_subjects')).toEqual(['CN=dc1.corp']);
    expect(columnValues(ROW, 'ja4')).toEqual([]);
  });

  test('a service reads port/proto and each application protocol seen on it; one without reads port/proto', () => {
    expect(columnValues(ROW, 'services')).toEqual(['443/tcp tls', '443/tcp http', '53/udp']);
    expect(serviceTexts('443')).toEqual([]);
    expect(serviceTexts({ proto: 'tcp' })).toEqual([]);
  });

  test('single columns: the address, hits, the identity times whole, where the evidence came from, when Outpost learned of it', () => {
    expect(columnValues(ROW, 'ip')).toEqual(['10.0.0.5']);
    expect(columnValues(ROW, 'hits')).toEqual(['7']);
    expect(columnValues(ROW, 'first_seen')).toEqual([T.first_seen]);
    expect(columnValues(ROW, 'source')).toEqual(['both']);
    expect(columnValues(ROW, 'learned')).toEqual(['2026-11-27T10:00:00.000000Z']);
    expect(columnValues({ ...ROW, learned: { visit: null, at: null } }, 'learned')).toEqual([]);
  });

  test('each value once, whatever the nesting', () => {
    expect(valuesAt({ a: [{ b: 'x' }, { b: 'x' }, { b: ['y', 'x'] }] }, 'a.b')).toEqual(['x', 'y']);
    expect(valuesAt({ a: { b: { c: 1 } } }, 'a.b')).toEqual([]);
  });
});

describe('parameters', () => {
  const from = (query: Record<string, string>) => parseHostFilter((name) => query[name]);

  test('a filter from its parameters and back', () => {
    const filter = from({ q: ' host_id.roles.name:dhcp ', search: 'jes', visit: '12', visit_change: 'new' });
    expect(filter).toEqual({ q: 'host_id.roles.name:dhcp', search: 'jes', visit: 12, visitChange: 'new' });
    expect(hostFilterQuery(filter as never)).toEqual({ q: 'host_id.roles.name:dhcp', search: 'jes', visit: '12', visit_change: 'new' });
  });

  test('a search under three characters, a visit that is not a number, an unknown change: an error naming the parameter', () => {
    expect(from({ search: 'je' })).toEqual({ error: 'search: give at least 3 characters.' });
    expect(from({ visit: '0' })).toEqual({ error: 'visit: give the number of an import or pull.' });
    expect(from({ visit: '1e3' })).toEqual({ error: 'visit: give the number of an import or pull.' });
    expect(from({ visit_change: 'gone' })).toEqual({ error: 'visit_change: give "new" or "changed".' });
  });

  test('columns: known ones once, in order, the address first; none given is the default set', () => {
    expect(parseHostColumns('users, roles,users,nope')).toEqual(['ip', 'users', 'roles']);
    expect(parseHostColumns('')).toEqual(['ip', 'hostnames', 'roles', 'services', 'hits', 'last_seen']);
  });

  test('ordering: a key with - for descending, -last_seen by default, an unknown key refused', () => {
    expect(parseHostOrdering('-learned')).toEqual({ key: 'learned', descending: true });
    expect(parseHostOrdering(undefined)).toEqual({ key: 'last_seen', descending: true });
    expect(parseHostOrdering('roles')).toBeUndefined();
  });
});
