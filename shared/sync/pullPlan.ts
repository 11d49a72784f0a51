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
 * The most pages one list is read in: a first page whose count would need more (a hostile or
 * broken server announcing 10^15 objects) is refused before anything is allocated for it.
 * At the 1,000 per page the pull asks for, that is a billion objects; at 30 a page (a server
 * capping page_size), 30 million. The list of page numbers then takes 8 MB at the most.
 */
export const MAX_PAGES = 1_000_000;

/** Why the central server's first page cannot be paged through (a `next` link and no objects, or too many pages); none when it can. */
export function pagingProblem(first: FirstPage): string | undefined {
  if (!first.hasNext) return undefined;
  if (first.received === 0) return `its first page has a next link but no objects (count ${first.count})`;
  const total = Math.ceil(first.count / first.received);
  if (total > MAX_PAGES) return `its count (${first.count}) in pages of ${first.received} would take ${total} pages; more than ${MAX_PAGES} is refused`;
  return undefined;
}

/**
 * The page size the server really uses, and the page numbers still to fetch. A first page with
 * a `next` link tells the size the server applied; without one, the first page was everything.
 * A first page `pagingProblem` refuses gives no pages (the callers refuse it with its reason).
 */
export function remainingPages(first: FirstPage, asked: number): { pageSize: number; pages: number[] } {
  if (pagingProblem(first) !== undefined) return { pageSize: Math.max(1, first.received), pages: [] };
  if (!first.hasNext) return { pageSize: Math.max(asked, first.received), pages: [] };
  const pageSize = Math.max(1, first.received);
  const total = Math.max(1, Math.ceil(first.count / pageSize));
  return { pageSize, pages: Array.from({ length: total - 1 }, (_, i) => i + 2) };
}
