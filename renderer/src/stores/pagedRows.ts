/**
 * The rows of a paged list read so far, by index, kept by page: adding a page copies the map of
 * pages (a few hundred entries at most), not every row read so far, as a fast scroll through
 * tens of thousands of rows adds a page every few frames.
 */
import type { JsonObject } from '../../../shared/resources';

export class PagedRows {
  private constructor(
    private readonly pageSize: number,
    private readonly pages: ReadonlyMap<number, readonly JsonObject[]>,
  ) {}

  static empty(pageSize: number): PagedRows {
    return new PagedRows(pageSize, new Map());
  }

  /** A new set of rows with page `page` (1-based) as `results`. */
  withPage(page: number, results: readonly JsonObject[]): PagedRows {
    const pages = new Map(this.pages);
    pages.set(page, results);
    return new PagedRows(this.pageSize, pages);
  }

  get(index: number): JsonObject | undefined {
    return this.pages.get(Math.floor(index / this.pageSize) + 1)?.[index % this.pageSize];
  }

  /** Every row read, in the order of the pages' arrival. */
  *values(): IterableIterator<JsonObject> {
    for (const rows of this.pages.values()) yield* rows;
  }
}
