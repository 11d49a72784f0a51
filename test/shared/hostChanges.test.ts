/**
 * shared/app/hostChanges.ts: the facts of an identity as a comparison reads them (api.md §7's
 * lists), the diff a visit records, the net change over several visits, the compact form of the
 * hosts a visit saw, and the points the engineer writes. Expected values are written by hand
 * from the identities below.
 */
import { describe, expect, test } from 'vitest';
import { decodePks, diffFacts, encodePks, identityFacts, netChanges, parseDiff, parsePoint, type FactChange } from '../../shared/app/hostChanges';
import type { JsonObject } from '../../shared/resources/fields';

const T = '2026-01-01T00:00:00.000000+0000';
const service = (port: number, app: string, extra: JsonObject = {}): JsonObject => ({ proto: 'tcp', port, values: [{ app_proto: app, first_seen: T, last_seen: T, ...extra }] });
const cert = (subject: string, fingerprint = 'aa:bb'): JsonObject => ({ tls: { subject, issuerdn: 'CN=Site CA', fingerprint } });

describe('the facts of an identity', () => {
  test('roles, users, host names (folded, told in their spelling), each service value, and each certificate', () => {
    const identity: JsonObject = {
      roles: [{ name: 'domain controller' }],
      username: [{ user: 'jessie.andrews' }],
      hostname: [{ host: 'DESKTOP-K8LUF0E' }],
      services: [service(88, 'krb5'), { proto: 'TCP', port: 443, values: [{ app_proto: 'tls', ...cert('CN=dc.example') }, { app_proto: 'http' }] }],
      first_seen: T,
    };
    expect([...identityFacts(identity)]).toEqual([
      ['role:domain controller', ''],
      ['user:jessie.andrews', ''],
      ['hostname:desktop-k8luf0e', 'DESKTOP-K8LUF0E'],
      ['service:88/tcp krb5', ''],
      ['service:443/tcp tls', ''],
      ['tls:443/tcp tls', 'CN=dc.example\u001fCN=Site CA\u001faa:bb'],
      ['service:443/tcp http', ''],
    ]);
  });

  test('anything else is no fact: wrong types, missing names, a service without a port', () => {
    const identity = { roles: [{ name: 3 }, 'dhcp', null], username: {}, hostname: [{}], services: [{ proto: 'tcp', values: [{ app_proto: 'x' }] }] } as unknown as JsonObject;
    expect([...identityFacts(identity)]).toEqual([['role:3', '']]);
  });

  test('a hostile value of a megabyte is bounded, still told apart by its start', () => {
    const long = `${'x'.repeat(600)}\u001b[2J`;
    const [key] = [...identityFacts({ roles: [{ name: long }] }).keys()];
    expect(key).toBe(`role:${'x'.repeat(512)}…`);
  });
});

describe('the diff of two identities', () => {
  test('added, removed and replaced, in key order; nothing for the same facts', () => {
    const before = identityFacts({ roles: [{ name: 'printer' }], services: [service(443, 'tls', cert('CN=old'))] });
    const after = identityFacts({ hostname: [{ host: 'web' }], services: [service(443, 'tls', cert('CN=new'))] });
    expect(diffFacts(before, after)).toEqual([
      ['+', 'hostname:web', 'web'],
      ['-', 'role:printer', ''],
      ['~', 'tls:443/tcp tls', 'CN=new\u001fCN=Site CA\u001faa:bb', 'CN=old\u001fCN=Site CA\u001faa:bb'],
    ]);
    expect(diffFacts(before, before)).toEqual([]);
  });

  test('read back from JSON; anything else reads as no change', () => {
    const diff: FactChange[] = [['+', 'role:dhcp', ''], ['~', 'tls:1/tcp tls', 'a', 'b']];
    expect(parseDiff(JSON.stringify(diff))).toEqual(diff);
    expect(parseDiff(null)).toEqual([]);
    expect(parseDiff('{')).toEqual([]);
    expect(parseDiff('[["?", "x", ""], ["~", "y", "z"]]')).toEqual([]);
  });
});

describe('the net change over visits', () => {
  test('a fact added then removed is none; removed then added is none; appeared and went are told', () => {
    expect(netChanges([[['+', 'role:printer', '']], [['-', 'role:printer', '']]])).toEqual([]);
    expect(netChanges([[['-', 'service:22/tcp ssh', '']], [['+', 'service:22/tcp ssh', '']]])).toEqual([]);
    expect(netChanges([[['+', 'service:80/tcp http', '']], [['-', 'service:22/tcp ssh', '']]])).toEqual([
      { kind: 'service_added', value: '80/tcp http', previous: null },
      { kind: 'service_gone', value: '22/tcp ssh', previous: null },
    ]);
  });

  test('roles, users and host names are told as they appear, not as they go', () => {
    expect(netChanges([[['+', 'user:alice', ''], ['-', 'user:bob', ''], ['+', 'hostname:web', 'Web']]])).toEqual([
      { kind: 'user_new', value: 'alice', previous: null },
      { kind: 'hostname_new', value: 'Web', previous: null },
    ]);
  });

  test('a certificate replaced twice is one change from the first to the last; replaced and back is none', () => {
    const a = 'CN=a\u001fCN=CA\u001f01';
    const b = 'CN=b\u001fCN=CA\u001f02';
    const c = 'CN=c\u001fCN=CA\u001f03';
    expect(netChanges([[['~', 'tls:443/tcp tls', b, a]], [['~', 'tls:443/tcp tls', c, b]]])).toEqual([{ kind: 'tls_changed', value: '443/tcp tls: CN=c', previous: 'CN=a' }]);
    expect(netChanges([[['~', 'tls:443/tcp tls', b, a]], [['~', 'tls:443/tcp tls', a, b]]])).toEqual([]);
  });

  test('a certificate renewed under the same subject is told by its fingerprint; a first certificate has no previous', () => {
    const old = 'CN=a\u001fCN=CA\u001f01';
    const renewed = 'CN=a\u001fCN=CA\u001f02';
    expect(netChanges([[['~', 'tls:443/tcp tls', renewed, old]]])).toEqual([{ kind: 'tls_changed', value: '443/tcp tls: CN=a (02)', previous: 'CN=a (01)' }]);
    expect(netChanges([[['+', 'tls:443/tcp tls', old]]])).toEqual([{ kind: 'tls_changed', value: '443/tcp tls: CN=a', previous: null }]);
  });
});

describe('the hosts a visit saw', () => {
  test('sorted pks as varint gaps: one byte a host for consecutive pks, read back the same', () => {
    const pks = [1, 2, 3, 130, 20_000, 2 ** 40];
    const bytes = encodePks(pks);
    // Gaps 1, 1, 1, 127 (one byte each), 19870 (three: 2^14 ≤ it < 2^21), 2^40 - 20000 (six: 2^35 ≤ it < 2^42).
    expect(bytes.length).toBe(1 + 1 + 1 + 1 + 3 + 6);
    const back: number[] = [];
    decodePks(bytes, (pk) => back.push(pk));
    expect(back).toEqual(pks);
    expect(encodePks(Array.from({ length: 1000 }, (_, i) => i + 1)).length).toBe(1000);
  });
});

describe('a point as written', () => {
  test.each([
    ['12', { visit: 12 }],
    ['pull', { pull: true }],
    ['2026-11-20', { at: Date.UTC(2026, 10, 20) * 1000 }],
    ['2026-11-20T14:00:00Z', { at: Date.UTC(2026, 10, 20, 14) * 1000 }],
    ['2026-11-20T14:00:00+01:00', { at: Date.UTC(2026, 10, 20, 13) * 1000 }],
    ['2026-11-20T14:00', { at: Date.UTC(2026, 10, 20, 14) * 1000 }],
  ])('%s', (text, point) => {
    expect(parsePoint(text)).toEqual(point);
  });

  test.each(['', '0', '-1', 'yesterday', '2026-02-30', '12abc', '1'.repeat(16), '<script>'])('%j is no point', (text) => {
    expect(parsePoint(text)).toHaveProperty('error');
  });
});
