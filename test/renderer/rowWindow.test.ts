/** The rows a list of fixed-height rows renders, and the scroll that shows a row (renderer/src/components/rowWindow.ts). */
import { describe, expect, test } from 'vitest';
import { NO_ROWS, rowsInView, scrollTopShowing } from '../../renderer/src/components/rowWindow';

describe('rows in view', () => {
  test('the rows a scroller shows, partly shown ones included, and the overscan on each side', () => {
    expect(rowsInView(1000, 34, 0, 340, 0)).toEqual({ first: 0, last: 9 });
    expect(rowsInView(1000, 34, 0, 341, 0)).toEqual({ first: 0, last: 10 });
    expect(rowsInView(1000, 34, 35, 340, 0)).toEqual({ first: 1, last: 11 });
    expect(rowsInView(1000, 34, 34, 340, 0)).toEqual({ first: 1, last: 10 });
    expect(rowsInView(1000, 34, 340, 340, 4)).toEqual({ first: 6, last: 23 });
  });

  test('never before the first row nor past the last', () => {
    expect(rowsInView(1000, 34, 0, 340, 4)).toEqual({ first: 0, last: 13 });
    expect(rowsInView(5, 34, 0, 340, 4)).toEqual({ first: 0, last: 4 });
    // Scrolled past the end of a list that just shrank: its last rows.
    expect(rowsInView(20, 34, 100_000, 340, 2)).toEqual({ first: 17, last: 19 });
  });

  test('no rows for an empty list or a scroller with no height', () => {
    expect(rowsInView(0, 34, 0, 340, 4)).toEqual(NO_ROWS);
    expect(rowsInView(1000, 34, 0, 0, 4)).toEqual(NO_ROWS);
  });
});

describe('scrolling to a row', () => {
  test('moves as little as needed to show the row wholly (its start in a scroller lower than a row), not at all when it is', () => {
    expect(scrollTopShowing(5, 34, 0, 340)).toBeUndefined();
    expect(scrollTopShowing(10, 34, 0, 340)).toBe(34);
    expect(scrollTopShowing(2, 34, 340, 340)).toBe(68);
    expect(scrollTopShowing(0, 34, 0, 20)).toBeUndefined();
    expect(scrollTopShowing(1, 34, 0, 20)).toBe(34);
  });
});
