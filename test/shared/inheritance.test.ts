/** api.md §4 decisions as pure functions (the HTTP behaviour is in test/server/inheritance.test.ts). */
import { describe, expect, test } from 'vitest';
import {
  changedFields,
  closesCycle,
  diffItems,
  fieldsReachingChild,
  fieldsToInherit,
  inheritedFieldErrors,
  itemsKey,
  type Snapshot,
} from '../../shared/api/inheritance';
import { INHERITABLE } from '../../shared/resources';

const snapshot = (overrides: Partial<Snapshot> = {}): Snapshot => ({
  ...(Object.fromEntries(INHERITABLE.map((f) => [f, `"${f}"`])) as Snapshot),
  ...overrides,
});

describe('items compare as sets of (name, flag)', () => {
  test('order does not matter, flags do', () => {
    expect(itemsKey([['b', true], ['a', false]])).toBe(itemsKey([['a', false], ['b', true]]));
    expect(itemsKey([['a', true]])).not.toBe(itemsKey([['a', false]]));
  });

  test('writing a list keeps the pks of kept names, updates flags, adds and removes the rest', () => {
    const current = [
      { pk: 1, name: 'eth0', flag: true },
      { pk: 2, name: 'eth1', flag: true },
      { pk: 3, name: 'eth2', flag: false },
    ];
    expect(diffItems(current, [['eth0', true], ['eth1', false], ['eth9', true]])).toEqual({
      remove: [3],
      update: [{ pk: 2, flag: false }],
      add: [['eth9', true]],
    });
  });
});

describe('rule 6: inherited fields', () => {
  const parent = { name: 'base', values: snapshot() };
  test('a different value for an inherited field is refused with the template name', () => {
    expect(inheritedFieldErrors({ home_net: '"x"' }, [], 1, parent, undefined)).toEqual({
      home_net: ['This field is inherited from template "base"; add it to overriden_fields to change it.'],
    });
  });

  test('the inherited value itself, or an overridden field, is accepted', () => {
    expect(inheritedFieldErrors({ home_net: '"home_net"', timezone: '"Paris"' }, ['timezone'], 1, parent, undefined)).toEqual({});
  });

  test("the child's own current value is accepted when the parent stays (GET-modify-PUT)", () => {
    const current = { parent: 1, overrides: [], values: snapshot({ protocols: 'old' }) };
    expect(inheritedFieldErrors({ protocols: 'old' }, [], 1, parent, current)).toEqual({});
    expect(inheritedFieldErrors({ protocols: 'old' }, [], 2, parent, current)).toHaveProperty('protocols');
  });
});

describe('rules 2–3: what a child takes from its parent after a write', () => {
  test('a new parent hands down every field not overridden', () => {
    expect(fieldsToInherit(5, 4, ['timezone'], ['timezone'])).toEqual(INHERITABLE.filter((f) => f !== 'timezone'));
  });

  test('with the same parent, only the fields given back to inheritance', () => {
    expect(fieldsToInherit(5, 5, [], ['timezone', 'home_net'])).toEqual(['home_net', 'timezone']);
  });

  test('no parent, nothing', () => {
    expect(fieldsToInherit(null, 5, [], [])).toEqual([]);
  });
});

describe('rule 5: the protocol exception', () => {
  test('protocols do not reach a child template that is the parent of a probe', () => {
    expect(fieldsReachingChild(['home_net', 'protocols'], { overrides: [], isTemplateWithProbes: true })).toEqual(['home_net']);
    expect(fieldsReachingChild(['home_net', 'protocols'], { overrides: [], isTemplateWithProbes: false })).toEqual(['home_net', 'protocols']);
  });

  test("overridden fields never reach the child", () => {
    expect(fieldsReachingChild(['home_net'], { overrides: ['home_net'], isTemplateWithProbes: false })).toEqual([]);
  });
});

describe('rule 7: cycles', () => {
  const parents = new Map<number, number | null>([
    [1, null],
    [2, 1],
    [3, 2],
  ]);
  const parentOf = (pk: number) => parents.get(pk) ?? null;
  test('a template cannot inherit from itself or a descendant', () => {
    expect(closesCycle(1, 1, parentOf)).toBe(true);
    expect(closesCycle(1, 3, parentOf)).toBe(true);
    expect(closesCycle(3, 1, parentOf)).toBe(false);
  });
});

test('changed fields between two snapshots', () => {
  expect(changedFields(snapshot(), snapshot({ dns_server: 'x', interfaces: 'y' }))).toEqual(['dns_server', 'interfaces']);
});
