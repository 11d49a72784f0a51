/**
 * The rows of a workspace bundle checked against their tables' schemas (electron/workspaces/bundleCheck.ts),
 * directly: the rules the import route's tests (bundleImport.test.ts) do not walk one by one.
 */
import { describe, expect, test } from 'vitest';
import { bundleShapes, writeBundleRows } from '../../electron/server/store/bundleRows';
import { openDatabase } from '../../electron/server/store/database';
import { Store } from '../../electron/server/store/store';
import { BUNDLE_FORMAT, BUNDLE_VERSION, checkBundle } from '../../electron/workspaces/bundle';
import { checkBundleRows } from '../../electron/workspaces/bundleCheck';
import { prng } from '../helpers/prng';
import type { JsonObject } from '../../shared/resources';

const NOW = 1_795_807_621_961_820;
const TIME = '2026-11-01T08:00:00+00:00';
const inherited = { home_net: '[]', external_net: '!$HOME_NET', capture_method: 'af_packet', capture_threads: 2, pcap_capture: 0, log_retention_days: 30, ntp_server: '', dns_server: '', timezone: 'UTC' };

/** A small, valid bundle's tables: admin and one more account, a template, one probe of each family, a device, a host. */
function tables(): Record<string, JsonObject[]> {
  return {
    user: [
      { pk: 1, username: 'admin', password: '', is_active: 1, is_staff: 1, is_superuser: 1, role: 'Superuser', date_joined: NOW },
      { pk: 2, username: 'eve', password: '', is_active: 1, is_staff: 0, is_superuser: 0, role: 'Admin', date_joined: NOW },
    ],
    vendor_probe_template: [{ pk: 1, name: 't', parent_tmpl: null, overriden_fields: '[]', ...inherited, created: NOW, updated: NOW }],
    appliance: [
      { pk: 1, type: 'vendor', name: 'gate', address: '10.0.0.1', serial: '', parent_tmpl: 1, overriden_fields: '[]', ...inherited, ruleset: null, created: NOW, updated: NOW },
      { pk: 2, type: 'engine', name: 'core', address: '10.0.0.2', serial: '', home_net: '[]', ruleset: null, created: NOW, updated: NOW },
    ],
    network_interface: [{ pk: 1, name: 'eth0', active: 1, probe: 1, template: null }],
    vendor_device: [
      { pk: 1, kind: 'central', name: 'hq', address: '', probe: null, version: '' },
      { pk: 2, kind: 'probe', name: 'gate', address: '10.0.0.1', probe: 1, version: '' },
    ],
    user_action: [{ pk: 1, action_type: 'create_appliance', date: NOW, comment: null, user: 1, username: 'admin', client_ip: '', ua_objects: '{"appliance":{"type":"vendor_probe","pk":1,"value":"gate"}}', changes: '[{"field":"name","to":"gate"}]' }],
    host_id: [{ pk: 1, ip: '10.9.8.7', hits: 2, first_seen: 0, last_seen: 0, hostnames: 'forged', data: JSON.stringify({ first_seen: TIME, last_seen: TIME }), central: '', central_hits: 2 }],
    sqlite_sequence: [{ name: 'appliance', seq: 2 }],
  };
}

const check = (crafted: Record<string, JsonObject[]>) => checkBundleRows(crafted, bundleShapes());

describe('a valid bundle comes out clean', () => {
  test('secrets and marks it may not give are dropped; copies of a host identity are made from it again', () => {
    const given = tables();
    Object.assign(given.user![1]!, { password: 'scrypt$16384$8$1$c2FsdA==$aGFzaA==', is_superuser: 1 });
    Object.assign(given.user![0]!, { is_active: 0, is_superuser: 0 });
    const checked = check(given);
    if (!checked.ok) throw new Error(checked.reason);
    expect(checked.tables.user.map((u) => [u.username, u.password, u.is_superuser, u.is_active])).toEqual([
      ['admin', '', 1, 1],
      ['eve', '', 0, 1],
    ]);
    expect(checked.accounts).toEqual({ count: 1, roles: { Superuser: 0, Admin: 1, 'Read-only': 0 } });
    // 2026-11-01T08:00:00Z in microseconds, worked out by hand: 1793520000 s since 1970.
    expect(checked.tables.host_id[0]).toMatchObject({ first_seen: 1_793_520_000_000_000, last_seen: 1_793_520_000_000_000, hostnames: '' });
  });
});

const CRAFTED: readonly { readonly kind: string; readonly craft: (t: Record<string, JsonObject[]>) => void; readonly table: string; readonly row: number; readonly reason: RegExp }[] = [
  { kind: 'an interface of no owner', craft: (t) => Object.assign(t.network_interface![0]!, { probe: null }), table: 'network_interface', row: 1, reason: /belongs to no owner/ },
  { kind: 'an interface of a probe and a template at once', craft: (t) => Object.assign(t.network_interface![0]!, { template: 1 }), table: 'network_interface', row: 1, reason: /belongs to more than one owner/ },
  { kind: 'an interface of an engine probe', craft: (t) => Object.assign(t.network_interface![0]!, { probe: 2 }), table: 'network_interface', row: 1, reason: /probe: Invalid pk "2"/ },
  { kind: 'an engine probe with a field of the other family', craft: (t) => Object.assign(t.appliance![1]!, { parent_tmpl: 1 }), table: 'appliance', row: 2, reason: /parent_tmpl: not a field of engine_probe/ },
  { kind: 'a probe of no family', craft: (t) => Object.assign(t.appliance![1]!, { type: 'other' }), table: 'appliance', row: 2, reason: /type: not one of "vendor", "engine"/ },
  { kind: 'a probe address that is none', craft: (t) => Object.assign(t.appliance![0]!, { address: 'not an address!' }), table: 'appliance', row: 1, reason: /address: Enter a valid IPv4 or IPv6 address/ },
  { kind: 'two rows of one pk', craft: (t) => Object.assign(t.appliance![1]!, { pk: 1 }), table: 'appliance', row: 2, reason: /pk: the same as an earlier row's/ },
  { kind: 'a name taken by an earlier row', craft: (t) => Object.assign(t.user![1]!, { username: 'admin' }), table: 'user', row: 2, reason: /username: A user with that username already exists\./ },
  { kind: 'a pk out of range', craft: (t) => Object.assign(t.user![1]!, { pk: 2 ** 40 }), table: 'user', row: 2, reason: /pk: 1099511627776 is out of range/ },
  { kind: 'a central device naming a probe', craft: (t) => Object.assign(t.vendor_device![0]!, { probe: 1 }), table: 'vendor_device', row: 1, reason: /the central device names no probe/ },
  { kind: 'linked objects that are not objects', craft: (t) => Object.assign(t.user_action![0]!, { ua_objects: '{"appliance":null}' }), table: 'user_action', row: 1, reason: /ua_objects: "appliance" is not \{type, pk, value\}/ },
  { kind: 'field changes that are not a list of changes', craft: (t) => Object.assign(t.user_action![0]!, { changes: '[{"field":"name","secret":true,"to":"x"}]' }), table: 'user_action', row: 1, reason: /changes: item 0 is not/ },
  { kind: 'a central part the host import refuses', craft: (t) => Object.assign(t.host_id![0]!, { central: '{"first_seen":"x"}' }), table: 'host_id', row: 1, reason: /central: host_id: first_seen: Datetime has wrong format.*last_seen: This field is required\./ },
  { kind: 'a host address that is none', craft: (t) => Object.assign(t.host_id![0]!, { ip: '10.9.8' }), table: 'host_id', row: 1, reason: /data: ip: Enter a valid IPv4 or IPv6 address\./ },
  { kind: 'a sequence of a table that has none', craft: (t) => t.sqlite_sequence!.push({ name: 'outbox', seq: 1 }), table: 'sqlite_sequence', row: 2, reason: /name: "outbox" is not a bundled table with a pk sequence/ },
  { kind: 'a negative sequence', craft: (t) => Object.assign(t.sqlite_sequence![0]!, { seq: -1 }), table: 'sqlite_sequence', row: 1, reason: /seq: out of range/ },
  { kind: 'a column that must have a value missing', craft: (t) => delete t.appliance![0]!.created, table: 'appliance', row: 1, reason: /no value for "created"/ },
  { kind: 'a cell that is no column value', craft: (t) => Object.assign(t.user![1]!, { first_name: ['x'] }), table: 'user', row: 2, reason: /first_name: expected a column's value, got a list/ },
  // Deeper than the API's body parser takes (256 levels): it would overflow what reads it (the browsable page, the history's changes).
  { kind: 'a JSON column nested 100,000 deep', craft: (t) => Object.assign(t.appliance![0]!, { overriden_fields: `${'['.repeat(100_000)}1${']'.repeat(100_000)}` }), table: 'appliance', row: 1, reason: /overriden_fields: .*maximum nesting depth exceeded/ },
  { kind: 'field changes nested 50,000 deep', craft: (t) => Object.assign(t.user_action![0]!, { changes: `[{"field":"x","to":${'['.repeat(50_000)}1${']'.repeat(50_000)}}]` }), table: 'user_action', row: 1, reason: /changes: expected JSON text \(maximum nesting depth exceeded/ },
  { kind: 'linked objects nested 50,000 deep', craft: (t) => Object.assign(t.user_action![0]!, { ua_objects: `{"a":{"value":${'['.repeat(50_000)}1${']'.repeat(50_000)}}}` }), table: 'user_action', row: 1, reason: /ua_objects: expected JSON text \(maximum nesting depth exceeded/ },
  { kind: "a probe's device that is not its probe's", craft: (t) => Object.assign(t.vendor_device![1]!, { name: 'liar', address: '6.6.6.6' }), table: 'vendor_device', row: 2, reason: /name, address: not those of its probe 1 \("gate", "10\.0\.0\.1"\)/ },
  { kind: 'a second central device', craft: (t) => t.vendor_device!.push({ pk: 3, kind: 'central', name: 'other hq', address: '', probe: null, version: '' }), table: 'vendor_device', row: 3, reason: /a second central device/ },
  { kind: 'a central device of another pk', craft: (t) => Object.assign(t.vendor_device![0]!, { pk: 7 }), table: 'vendor_device', row: 1, reason: /pk: the central device is pk 1, not 7/ },
  { kind: 'a datetime out of range', craft: (t) => Object.assign(t.user![1]!, { date_joined: -1e17 }), table: 'user', row: 2, reason: /date_joined: expected a time in microseconds/ },
];

describe('a crafted row is refused, naming the table, the row and the reason', () => {
  test.each(CRAFTED)('$kind', ({ craft, table, row, reason }) => {
    const crafted = tables();
    craft(crafted);
    const checked = check(crafted);
    expect(checked).toMatchObject({ ok: false, table, row });
    expect(checked.ok ? '' : checked.reason).toMatch(reason);
  });

  test('a template whose parents lead back to it, through another', () => {
    const crafted = tables();
    crafted.vendor_probe_template!.push({ ...crafted.vendor_probe_template![0]!, pk: 2, name: 'u', parent_tmpl: 1 });
    crafted.vendor_probe_template![0]!.parent_tmpl = 2;
    expect(check(crafted)).toEqual({ ok: false, table: 'vendor_probe_template', row: 1, reason: 'parent_tmpl: its parents lead back to itself' });
  });

  test('a refused value is not repeated at length', () => {
    const crafted = tables();
    crafted.user![1]!.role = 'x'.repeat(100_000);
    const checked = check(crafted);
    expect(checked.ok ? '' : checked.reason.length).toBeLessThanOrEqual(301);
  });
});

describe('any row, however made', () => {
  /** Values a crafted cell may hold: every JSON type, edge numbers, texts that look like others. */
  const ODD: readonly unknown[] = [null, true, 0, -1, 1.5, 2 ** 53, -(2 ** 63), 1e308, '', ' ', 'x'.repeat(300), '0', '1', '[]', '{}', 'null', '[1,2]', '{"a":{}}', '\u0000', '\ud800', [], {}, [1], { a: 1 }];

  test('is refused with a reason or comes out clean: a check never fails otherwise (2,000 rows, seeded; what passes is stored)', () => {
    const random = prng(23);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
    for (let round = 0; round < 2000; round++) {
      const crafted = tables();
      const table = pick(Object.keys(crafted));
      const row = pick(crafted[table]!);
      const column = random() < 0.9 ? pick(Object.keys(row)) : 'extra';
      row[column] = pick(ODD) as JsonObject[string];
      const checked = check(crafted);
      // A change to one row may break another's reference to it: the refusal names that row.
      if (!checked.ok) expect(Object.keys(crafted), `round ${round}`).toContain(checked.table);
      if (!checked.ok) expect(checked.reason.length).toBeGreaterThan(0);
      // What comes out clean is stored as it is, by the schema's own constraints too (every tenth, for time).
      if (checked.ok && round % 10 === 0) {
        const store = new Store(openDatabase(':memory:'));
        try {
          writeBundleRows(store, checked.tables);
        } finally {
          store.close();
        }
      }
    }
  });
});

describe("a bundle's header", () => {
  test("the outbox's pk sequence (in bundles of bound workspaces exported before it was left out) is dropped, not refused", () => {
    const given = tables();
    given.sqlite_sequence!.push({ name: 'outbox', seq: 4 });
    const checked = checkBundle({ format: BUNDLE_FORMAT, version: BUNDLE_VERSION, schema: 1, name: 'x', exportedAt: TIME, tables: given });
    expect(checked.tables.sqlite_sequence).toEqual([{ name: 'appliance', seq: 2 }]);
  });

  test.each([1.5, -1e9, 0, '1'])('a schema of %j is no version of the database: refused', (schema) => {
    const bundle = { format: BUNDLE_FORMAT, version: BUNDLE_VERSION, schema, name: 'x', exportedAt: TIME, tables: tables() };
    expect(() => checkBundle(bundle)).toThrow(/is not a version of Outpost's database/);
  });
});
