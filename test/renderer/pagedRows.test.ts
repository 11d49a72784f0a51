/** The rows of a paged list by index, kept by page (renderer/src/stores/pagedRows.ts). */
import { describe, expect, test } from 'vitest';
import { PagedRows } from '../../renderer/src/stores/pagedRows';

const page = (from: number, n: number) => Array.from({ length: n }, (_, i) => ({ pk: from + i }));

describe('paged rows', () => {
  test('a row is found by its index in the list, in whichever page it came', () => {
    const rows = PagedRows.empty(100).withPage(3, page(200, 100)).withPage(1, page(0, 100));
    expect(rows.get(0)).toEqual({ pk: 0 });
    expect(rows.get(99)).toEqual({ pk: 99 });
    expect(rows.get(250)).toEqual({ pk: 250 });
    expect(rows.get(100)).toBeUndefined();
    // A last page shorter than the others.
    expect(PagedRows.empty(100).withPage(2, page(100, 5)).get(106)).toBeUndefined();
  });

  test('adding a page leaves the rows it came from as they were', () => {
    const before = PagedRows.empty(10).withPage(1, page(0, 10));
    const after = before.withPage(2, page(10, 10));
    expect(before.get(15)).toBeUndefined();
    expect(after.get(15)).toEqual({ pk: 15 });
    expect([...after.values()].map((row) => row.pk)).toEqual([...Array(20).keys()]);
  });
});
