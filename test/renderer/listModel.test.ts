/** A list's parameters as the list screens show them, and its count (renderer/src/components/listModel.ts, columnsFit.ts, countText.ts). */
import { describe, expect, test } from 'vitest';
import { fitColumns, trackMinPx } from '../../renderer/src/components/columnsFit';
import { countText } from '../../renderer/src/components/countText';
import {
  activeFilters,
  emptyListText,
  filtersButtonText,
  humanized,
  nextOrdering,
  orderingText,
  sortStateOf,
  withoutFilters,
} from '../../renderer/src/components/listModel';

const FILTERS = ['type', 'name', 'enabled'];

describe('filters', () => {
  test('the filters on are those with a value; search and ordering are not filters', () => {
    expect(activeFilters({ type: 'vendor', name: '', search: 'lyon', ordering: '-name', enabled: 'true' }, FILTERS)).toEqual(['type', 'enabled']);
    expect(activeFilters({ name: '  ' }, FILTERS)).toEqual([]);
  });

  test('the Filters button says how many are on', () => {
    expect(filtersButtonText(0)).toBe('Filters');
    expect(filtersButtonText(2)).toBe('Filters (2)');
  });

  test('Clear filters takes every filter off and keeps the search and the ordering', () => {
    expect(withoutFilters({ type: 'vendor', enabled: 'false', search: 'lyon', ordering: '-name' }, FILTERS)).toEqual({ search: 'lyon', ordering: '-name' });
  });

  test('an empty result says that a filter or the search is on', () => {
    expect(emptyListText('probe', 1, false, 'No probe yet.')).toBe('No probe matches: a filter is on.');
    expect(emptyListText('probe', 2, false, 'No probe yet.')).toBe('No probe matches: 2 filters are on.');
    expect(emptyListText('probe', 1, true, 'No probe yet.')).toBe('No probe matches the search and the filter that are on.');
    expect(emptyListText('probe', 0, true, 'No probe yet.')).toBe('No probe matches the search.');
    expect(emptyListText('probe', 0, false, 'No probe yet.')).toBe('No probe yet.');
  });
});

describe('ordering by a column header (the `ordering` parameter)', () => {
  test('a click sorts ascending, a second click descending, and back', () => {
    expect(nextOrdering('address', undefined, ['name'])).toBe('address');
    expect(nextOrdering('address', 'address', ['name'])).toBe('-address');
    expect(nextOrdering('address', '-address', ['name'])).toBe('address');
    expect(nextOrdering('address', 'name,-address', ['name'])).toBe('address');
  });

  test('the default ordering counts as the current one', () => {
    expect(sortStateOf('name', undefined, ['name'])).toBe('ascending');
    expect(nextOrdering('name', undefined, ['name'])).toBe('-name');
    expect(sortStateOf('host_id.last_seen', '', ['-host_id.last_seen'])).toBe('descending');
    expect(sortStateOf('name', '-updated,name', ['name'])).toBeUndefined();
  });

  test('an ordering in words says what ascending means for its kind of value', () => {
    expect(orderingText('name', 'Name', 'text')).toBe('Name (A to Z)');
    expect(orderingText('-updated', 'Updated', 'date')).toBe('Updated (newest first)');
    expect(orderingText('hits', 'Hits', 'number')).toBe('Hits (lowest first)');
    expect(humanized('log_retention_days')).toBe('Log retention days');
  });
});

describe('columns that fit the width', () => {
  const columns = [
    { key: 'name', width: 'minmax(9rem, 2fr)' },
    { key: 'type', width: '5.5rem', priority: 2 },
    { key: 'address', width: 'minmax(7.5rem, 1.2fr)' },
    { key: 'location', width: 'minmax(7rem, 1.2fr)', priority: 1 },
    { key: 'version', width: '5.5rem', priority: 3 },
  ];

  test('a track’s least width: the minimum of minmax, a fixed length, or a few rem for a bare fr', () => {
    expect(trackMinPx('minmax(9rem, 2fr)', 16)).toBe(144);
    expect(trackMinPx('5.5rem', 16)).toBe(88);
    expect(trackMinPx('120px', 16)).toBe(120);
    expect(trackMinPx('2fr', 16)).toBe(64);
  });

  test('all columns when they fit; else the lowest priority goes first, and unranked columns stay', () => {
    const keys = (width: number) => fitColumns(columns, width, 16).shown.map((c) => c.key);
    expect(keys(1000)).toEqual(['name', 'type', 'address', 'location', 'version']);
    expect(keys(500)).toEqual(['name', 'type', 'address', 'location']);
    expect(keys(420)).toEqual(['name', 'address', 'location']);
    expect(keys(300)).toEqual(['name', 'address']);
    expect(keys(100)).toEqual(['name', 'address']);
    expect(fitColumns(columns, 420, 16).hidden.map((c) => c.key)).toEqual(['type', 'version']);
  });

  test('before the width is known (0), every column is shown', () => {
    expect(fitColumns(columns, 0, 16).shown).toHaveLength(5);
  });
});

describe('counts', () => {
  test('digits grouped by three with commas, as toLocaleString("en") writes them', () => {
    for (const n of [0, 7, 999, 1000, 12_345, 100_000, 1_234_567, -4_321, 9_007_199_254_740_991]) expect(countText(n)).toBe(n.toLocaleString('en'));
  });
});
