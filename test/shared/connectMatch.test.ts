/**
 * The pure part of connecting a standalone workspace (shared/sync/connectMatch.ts): matching by
 * name, differences compared in the central server's terms, decisions checked as untrusted
 * input, and what becomes of each object; an imported identity taken apart into local evidence.
 */
import { describe, expect, test } from 'vitest';
import type { JsonObject } from '../../shared/resources';
import { CONNECTED_RESOURCES, type ConnectedResource } from '../../shared/sync/connect';
import { checkDecisions, comparedFields, connectActions, matchByName, type ObjectsOf } from '../../shared/sync/connectMatch';
import { evidenceOfIdentity } from '../../shared/eve/identityEvidence';

function objects(given: Partial<Record<ConnectedResource, JsonObject[]>>): ObjectsOf {
  return Object.fromEntries(CONNECTED_RESOURCES.map((r) => [r, given[r] ?? []])) as unknown as ObjectsOf;
}

const template = (pk: number, name: string, extra: JsonObject = {}): JsonObject => ({ pk, name, descr: '', parent_tmpl: null, interfaces: [], protocols: [], ntp_server: '', created: '2024-01-01T00:00:00Z', updated: '2024-01-01T00:00:00Z', ...extra });
const probe = (pk: number, name: string, extra: JsonObject = {}): JsonObject => ({ pk, name, address: '10.0.0.1', location: '', version: '', vendordevice_id: pk + 100, parent_tmpl: null, interfaces: [], ...extra });

describe('matching by name', () => {
  test('an object the central server lacks is a create; an equal one is same; one that differs is a collision with its differences', () => {
    const local = objects({ vendor_probe: [probe(1, 'a'), probe(2, 'b', { location: 'rack 1' }), probe(3, 'c')] });
    const central = objects({ vendor_probe: [probe(7, 'a'), probe(8, 'b', { location: 'rack 9' })] });
    const { items } = matchByName(local, central);
    expect(items.map((i) => [i.name, i.match, i.centralPk])).toEqual([['a', 'same', 7], ['b', 'collision', 8], ['c', 'create', null]]);
    expect(items[1]!.differences).toEqual([{ field: 'location', mine: 'rack 1', central: 'rack 9' }]);
  });

  test('pk, times, the comment and what the central server owns (version, device) are not compared', () => {
    expect(comparedFields('vendor_probe')).not.toEqual(expect.arrayContaining(['pk']));
    for (const field of ['pk', 'created', 'updated', 'comment', 'version', 'vendordevice_id']) expect(comparedFields('vendor_probe')).not.toContain(field);
    const local = objects({ vendor_probe: [probe(1, 'a', { version: '1.0', created: 'x' })] });
    const central = objects({ vendor_probe: [probe(50, 'a', { version: '2.0', created: 'y' })] });
    expect(matchByName(local, central).items[0]!.match).toBe('same');
  });

  test('interfaces compare by name and flag, whatever their pks and order', () => {
    const local = objects({ vendor_probe_template: [template(1, 't', { interfaces: [{ pk: 3, name: 'eth1', active: false }, { pk: 2, name: 'eth0', active: true }] })] });
    const central = objects({ vendor_probe_template: [template(9, 't', { interfaces: [{ pk: 40, name: 'eth0', active: true }, { pk: 41, name: 'eth1', active: false }] })] });
    expect(matchByName(local, central).items[0]!.match).toBe('same');
    const flipped = objects({ vendor_probe_template: [template(9, 't', { interfaces: [{ pk: 40, name: 'eth0', active: true }, { pk: 41, name: 'eth1', active: true }] })] });
    expect(matchByName(local, flipped).items[0]!.differences.map((d) => d.field)).toEqual(['interfaces']);
  });

  test('a reference is equal when the central object names the central match of my referent', () => {
    // My template 1 is the central template 17; my probe on 1 equals the central probe on 17.
    const local = objects({ vendor_probe_template: [template(1, 'T')], vendor_probe: [probe(5, 'p', { parent_tmpl: 1 })] });
    const central = objects({ vendor_probe_template: [template(17, 'T')], vendor_probe: [probe(5, 'p', { parent_tmpl: 17 })] });
    const { items } = matchByName(local, central);
    expect(items.find((i) => i.name === 'p')!.match).toBe('same');
    expect(items.find((i) => i.name === 'T')!.referencedBy).toEqual(['vendor_probe:5']);
    // The central probe on pk 1 (its own template of that pk, another one) differs.
    const other = objects({ vendor_probe_template: [template(17, 'T'), template(1, 'U')], vendor_probe: [probe(5, 'p', { parent_tmpl: 1 })] });
    expect(matchByName(local, other).items.find((i) => i.name === 'p')!.differences).toEqual([{ field: 'parent_tmpl', mine: 17, central: 1 }]);
  });

  test("a reference to an object the central server lacks never equals a central pk, and a ruleset's sources compare as a set", () => {
    const local = objects({ source: [{ pk: 1, name: 's1' }, { pk: 2, name: 's2' }], ruleset: [{ pk: 1, name: 'r', descr: '', sources: [2, 1] }] });
    const central = objects({ source: [{ pk: 1, name: 's2' }, { pk: 2, name: 's1' }], ruleset: [{ pk: 4, name: 'r', descr: '', sources: [1, 2] }] });
    expect(matchByName(local, central).items.find((i) => i.resource === 'ruleset')!.match).toBe('same');
    const fewer = objects({ source: [{ pk: 1, name: 's2' }], ruleset: [{ pk: 4, name: 'r', descr: '', sources: [1] }] });
    expect(matchByName(local, fewer).items.find((i) => i.resource === 'ruleset')!.differences).toEqual([{ field: 'sources', mine: ['local:1', 1], central: [1] }]); // sorted by their JSON text: a quoted string first
  });

  test('two central objects of one name are a problem', () => {
    const { problems } = matchByName(objects({}), objects({ source: [{ pk: 1, name: 's' }, { pk: 2, name: 's' }] }));
    expect(problems).toEqual(['the central server holds two source objects named "s": they cannot be matched by name']);
  });
});

describe('decisions, checked as untrusted input', () => {
  const local = objects({ vendor_probe: [probe(1, 'a'), probe(2, 'b', { location: 'x' }), probe(3, 'c')] });
  const central = objects({ vendor_probe: [probe(7, 'a'), probe(8, 'b'), probe(9, 'z')] });
  const { items } = matchByName(local, central);
  const names = new Map<ConnectedResource, Set<string>>([['vendor_probe', new Set(['a', 'b', 'z'])]]);

  test('keyed by resource:pk or resource:name, given by resource:pk', () => {
    const checked = checkDecisions({ 'vendor_probe:2': { use: 'central', mine: 'drop' }, 'vendor_probe:c': { use: 'rename', name: 'c2' } }, items, names);
    expect(checked.ok && [...checked.decisions]).toEqual([
      ['vendor_probe:2', { use: 'central', mine: 'drop' }],
      ['vendor_probe:3', { use: 'rename', name: 'c2' }],
    ]);
  });

  test.each([
    ['not an object', [1], 'decisions'],
    ['an unknown key', { 'vendor_probe:99': { use: 'leave_out' } }, 'vendor_probe:99'],
    ['an unknown resource', { 'user:1': { use: 'leave_out' } }, 'user:1'],
    ['extra fields', { 'vendor_probe:2': { use: 'leave_out', name: 'x' } }, 'vendor_probe:2'],
    ['central for a create', { 'vendor_probe:3': { use: 'central', mine: 'queue' } }, 'vendor_probe:3'],
    ['a rename to a central name', { 'vendor_probe:2': { use: 'rename', name: 'z' } }, 'vendor_probe:2'],
    ['a rename to a local name', { 'vendor_probe:2': { use: 'rename', name: 'c' } }, 'vendor_probe:2'],
    ['a rename with control characters', { 'vendor_probe:2': { use: 'rename', name: 'b\u001b[2J' } }, 'vendor_probe:2'],
    ['a rename too long', { 'vendor_probe:2': { use: 'rename', name: 'n'.repeat(101) } }, 'vendor_probe:2'],
    ['a rename to an empty name', { 'vendor_probe:2': { use: 'rename', name: ' ' } }, 'vendor_probe:2'],
    ['two decisions for one object', { 'vendor_probe:2': { use: 'leave_out' }, 'vendor_probe:b': { use: 'leave_out' } }, 'vendor_probe:b'],
    ['mine neither queue nor drop', { 'vendor_probe:2': { use: 'central', mine: 'keep' } }, 'vendor_probe:2'],
  ])('refused: %s', (_what, raw, key) => {
    const checked = checkDecisions(raw, items, names);
    expect(checked.ok).toBe(false);
    expect(!checked.ok && Object.keys(checked.errors)).toEqual([key]);
  });

  test('two renames to one name are refused', () => {
    const checked = checkDecisions({ 'vendor_probe:2': { use: 'rename', name: 'n' }, 'vendor_probe:3': { use: 'rename', name: 'n' } }, items, names);
    expect(!checked.ok && checked.errors['vendor_probe:3']).toEqual(['vendor_probe:2 is renamed "n" too']);
  });

  test('a key of a million characters is named bounded', () => {
    const checked = checkDecisions({ [`vendor_probe:${'x'.repeat(1_000_000)}`]: { use: 'leave_out' } }, items, names);
    expect(!checked.ok && Object.keys(checked.errors)[0]!.length).toBeLessThan(500);
  });
});

describe('what becomes of each object', () => {
  const { items } = matchByName(
    objects({ vendor_probe: [probe(1, 'same'), probe(2, 'diff', { location: 'x' }), probe(3, 'new'), probe(4, 'gone', { location: 'x' })] }),
    objects({ vendor_probe: [probe(7, 'same'), probe(8, 'diff'), probe(9, 'gone')] }),
  );

  test('a collision without a decision takes the central object and queues mine; a same needs none', () => {
    const actions = connectActions(items, new Map([['vendor_probe:4', { use: 'leave_out' }]]));
    expect(actions.map((a) => [a.item.name, a.kind, a.kind === 'match' ? a.mine : a.kind === 'leave_out' ? a.centralPk : a.name])).toEqual([
      ['diff', 'match', 'queue'],
      ['gone', 'leave_out', 9],
      ['new', 'create', 'new'],
      ['same', 'match', 'none'],
    ]);
  });
});

describe('an imported identity as local evidence', () => {
  test('each list item becomes a row keyed as an EVE import keys it, with its times; services with their details', () => {
    const { first, last, values } = evidenceOfIdentity({
      first_seen: '2024-04-18T18:43:15.000000+00:00',
      last_seen: '2024-04-19T08:00:00.000000+00:00',
      hostname: [{ host: 'h.example', first_seen: '2024-04-18T20:00:00.000000+00:00', last_seen: '2024-04-18T21:00:00.000000+00:00' }],
      username: [{ user: 'alice' }],
      services: [{ proto: 'TCP', port: 443, values: [{ app_proto: 'tls', first_seen: '2024-04-18T18:43:15.000000+0000', last_seen: '2024-04-19T08:00:00.000000+0000', tls: { subject: 'CN=h' } }] }],
      net_info: [{ agg: 'internet' }],
    });
    const micros = (iso: string) => Date.parse(iso) * 1000;
    expect(first).toBe(micros('2024-04-18T18:43:15Z'));
    expect(last).toBe(micros('2024-04-19T08:00:00Z'));
    expect(values).toEqual([
      ['hostname', 'h.example', '{"host":"h.example"}', micros('2024-04-18T20:00:00Z'), micros('2024-04-18T21:00:00Z')],
      ['username', 'alice', '{"user":"alice"}', first, last],
      ['services', 'tcp/443/tls', '{"proto":"tcp","port":443,"app_proto":"tls"}', first, last],
      ['services.tls', 'tcp/443/tls', '{"subject":"CN=h"}', first, last],
    ]);
  });
});
