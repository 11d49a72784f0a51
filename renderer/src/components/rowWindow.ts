/**
 * Which rows of a list of fixed-height rows are in view of its scroller (no DOM): a few lines of
 * arithmetic, where a general virtualiser lays out every row of the list (100,000 positions)
 * each time the count changes, as each search does.
 */

/** The rows to render, `first` to `last` inclusive; empty when `last < first`. */
export interface RowRange {
  readonly first: number;
  readonly last: number;
}

export const NO_ROWS: RowRange = { first: 0, last: -1 };

/** The rows in view of a scroller `height` pixels high scrolled to `top`, and `overscan` more on each side. */
export function rowsInView(count: number, rowHeight: number, top: number, height: number, overscan: number): RowRange {
  if (count <= 0 || height <= 0) return NO_ROWS;
  const firstInView = Math.min(count - 1, Math.max(0, Math.floor(top / rowHeight)));
  const lastInView = Math.min(count - 1, Math.max(firstInView, Math.ceil((top + height) / rowHeight) - 1));
  return { first: Math.max(0, firstInView - overscan), last: Math.min(count - 1, lastInView + overscan) };
}

export function sameRange(a: RowRange, b: RowRange): boolean {
  return a.first === b.first && a.last === b.last;
}

/**
 * Where to scroll so that row `index` is wholly in view, moving as little as possible (its start
 * when the scroller is lower than a row); undefined when it is in view already.
 */
export function scrollTopShowing(index: number, rowHeight: number, top: number, height: number): number | undefined {
  const start = index * rowHeight;
  const end = start + rowHeight;
  const target = start < top ? start : end > top + height ? Math.min(start, end - height) : top;
  return target === top ? undefined : Math.max(0, target);
}
