/**
 * The pull's arithmetic (app.md §3), without I/O: how many pages an endpoint has once its first
 * page is known (the central server may honour the asked page_size or cap it), and whether the
 * deletions a complete scan implies are too many to apply without the user's word.
 */

/** At or above this share of an endpoint's local rows, deletions need --allow-mass-delete. */
export const MASS_DELETE_SHARE = 0.9;
/** Endpoints with fewer local rows than this are never guarded (deleting 9 of 9 is normal). */
export const MASS_DELETE_MINIMUM = 10;

export function isMassDelete(localCount: number, goneCount: number): boolean {
  return localCount >= MASS_DELETE_MINIMUM && goneCount >= MASS_DELETE_SHARE * localCount;
}

export interface FirstPage {
  readonly count: number;
  readonly received: number;
  readonly hasNext: boolean;
}

/**
 * The page size the server really uses, and the page numbers still to fetch. A first page with
 * a `next` link tells the size the server applied; without one, the first page was everything.
 */
export function remainingPages(first: FirstPage, asked: number): { pageSize: number; pages: number[] } {
  if (!first.hasNext) return { pageSize: Math.max(asked, first.received), pages: [] };
  const pageSize = Math.max(1, first.received);
  const total = Math.max(1, Math.ceil(first.count / pageSize));
  return { pageSize, pages: Array.from({ length: total - 1 }, (_, i) => i + 2) };
}
