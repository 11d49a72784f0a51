/** Decisions of a connect (shared/sync/connectMatch.ts) given as a hostile user would give them. */
import { expect, test } from 'vitest';
import type { JsonObject } from '../../shared/resources';
import { CONNECTED_RESOURCES, type ConnectedResource } from '../../shared/sync/connect';
import { checkDecisions, matchByName, type ObjectsOf } from '../../shared/sync/connectMatch';

const objects = (probes: JsonObject[]): ObjectsOf => Object.fromEntries(CONNECTED_RESOURCES.map((r) => [r, r === 'vendor_probe' ? probes : []])) as unknown as ObjectsOf;
const probe = (pk: number, name: string, location = ''): JsonObject => ({ pk, name, address: '10.0.0.1', location, version: '', vendordevice_id: pk + 100, parent_tmpl: null, interfaces: [] });

const { items } = matchByName(objects([probe(1, 'a', 'x')]), objects([probe(7, 'a')]));
const names = new Map<ConnectedResource, Set<string>>([['vendor_probe', new Set(['a'])]]);

test('a rename to a name holding a lone surrogate is refused (SQLite would store U+FFFD; the API refuses such a name)', () => {
  const checked = checkDecisions({ 'vendor_probe:1': { use: 'rename', name: 'probe \ud800' } }, items, names);
  expect(!checked.ok && checked.errors['vendor_probe:1']).toEqual(['the new name holds a lone surrogate (half of a UTF-16 pair)']);
});

test('a rename to a name with a whole surrogate pair (an emoji) is taken', () => {
  const checked = checkDecisions({ 'vendor_probe:1': { use: 'rename', name: 'probe \ud83d\ude00' } }, items, names);
  expect(checked.ok).toBe(true);
});

test('a rename is measured in characters as the API measures them: 100 emoji fit a name of 100, 101 do not', () => {
  const emoji = '\ud83d\ude00';
  expect(checkDecisions({ 'vendor_probe:1': { use: 'rename', name: emoji.repeat(100) } }, items, names).ok).toBe(true);
  const over = checkDecisions({ 'vendor_probe:1': { use: 'rename', name: emoji.repeat(101) } }, items, names);
  expect(!over.ok && over.errors['vendor_probe:1']).toEqual(['the new name is longer than 100 characters']);
});
