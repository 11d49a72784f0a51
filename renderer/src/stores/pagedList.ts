/**
 * A server-paged list for virtualised rows: the count comes with the first page, other pages
 * are fetched when their rows come into view, and parameters (search, filters, ordering) map
 * 1:1 to the API's list parameters. Answers to superseded parameters are dropped.
 */
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { JsonObject } from '../../../shared/resources';
import { ApiFailure, api, type Query } from '../api/client';
import { isAbortError } from '../data/errors';
import { PagedRows } from './pagedRows';

export const LIST_PAGE_SIZE = 100;

export interface PagedListState {
  readonly params: Query;
  readonly count: number | undefined;
  readonly rows: PagedRows;
  readonly loading: boolean;
  readonly error: string | undefined;
  /** The failure behind `error`, for screens that show a 400's field errors next to their controls. */
  readonly failure: ApiFailure | undefined;
  /** Bumped on every change of parameters or refresh. */
  readonly generation: number;
  setParams(params: Query): void;
  /** Make sure the rows from `start` to `end` (indexes) are loaded or loading. */
  ensureRange(start: number, end: number): void;
  refresh(): void;
  /**
   * Read again the pages in view, keeping the rows shown (and the generation: the list keeps its
   * scroll and its keyboard row) until the new ones replace them at once: the list following the
   * data (a terminal's import), not a new list.
   */
  reload(): Promise<void>;
}

export function createPagedList(path: string, pageSize = LIST_PAGE_SIZE): StoreApi<PagedListState> {
  const requested = new Set<number>();
  let controller = new AbortController();
  /** The pages of the rows last asked for (what `reload` reads again). */
  let inView = { first: 1, last: 1 };

  return createStore<PagedListState>((set, get) => {
    const loadPage = async (page: number, generation: number) => {
      if (requested.has(page)) return;
      requested.add(page);
      set({ loading: true });
      try {
        const body = await api.get<JsonObject>(path, { ...get().params, page, page_size: pageSize }, controller.signal);
        if (generation !== get().generation) return;
        const results = (body.results as JsonObject[]) ?? [];
        set({ count: Number(body.count), rows: get().rows.withPage(page, results), loading: false, error: undefined, failure: undefined });
      } catch (error) {
        if (generation !== get().generation || isAbortError(error)) return;
        requested.delete(page);
        set({ loading: false, error: error instanceof ApiFailure ? failureText(error) : String(error), failure: error instanceof ApiFailure ? error : undefined });
      }
    };

    const restart = (params: Query) => {
      controller.abort();
      controller = new AbortController();
      requested.clear();
      const generation = get().generation + 1;
      set({ params, generation, rows: PagedRows.empty(pageSize), count: undefined, error: undefined, failure: undefined });
      void loadPage(1, generation);
    };

    return {
      params: {},
      count: undefined,
      rows: PagedRows.empty(pageSize),
      loading: false,
      error: undefined,
      failure: undefined,
      generation: 0,
      setParams(params) {
        if (sameQuery(params, get().params) && get().generation > 0) return;
        restart(params);
      },
      ensureRange(start, end) {
        const { count, generation } = get();
        if (count === undefined) return;
        const last = Math.min(end, count - 1);
        inView = { first: Math.floor(start / pageSize) + 1, last: Math.max(1, Math.floor(last / pageSize) + 1) };
        for (let page = Math.floor(start / pageSize) + 1; page <= Math.floor(last / pageSize) + 1; page++) void loadPage(page, generation);
      },
      refresh() {
        restart(get().params);
      },
      async reload() {
        const { generation, params } = get();
        const pages: number[] = [];
        for (let page = inView.first; page <= inView.last; page++) pages.push(page);
        try {
          const answers = await Promise.all(pages.map((page) => api.get<JsonObject>(path, { ...params, page, page_size: pageSize }, controller.signal).catch((error: unknown) => (page === 1 ? Promise.reject(error) : undefined))));
          if (generation !== get().generation) return;
          let rows = PagedRows.empty(pageSize);
          answers.forEach((body, i) => {
            if (body) rows = rows.withPage(pages[i]!, (body.results as JsonObject[]) ?? []);
          });
          requested.clear();
          pages.forEach((page, i) => answers[i] && requested.add(page));
          set({ count: Number(answers[0]!.count), rows, error: undefined, failure: undefined });
        } catch (error) {
          if (generation !== get().generation || isAbortError(error)) return;
          set({ error: error instanceof ApiFailure ? failureText(error) : String(error), failure: error instanceof ApiFailure ? error : undefined });
        }
      },
    };
  });
}

function sameQuery(a: Query, b: Query): boolean {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  for (const key of keys) if ((a[key] ?? '') !== (b[key] ?? '')) return false;
  return true;
}

/**
 * A failure in words a user can act on (a 400 on a list is a bad filter value). The errors of
 * `shown` fields are left out: the screen shows them beside their controls already, and the same
 * message twice reads as two problems.
 */
export function failureText(failure: ApiFailure, shown: readonly string[] = []): string {
  const errors = failure.fieldErrors();
  const fields = Object.entries(errors).filter(([key]) => key !== 'detail');
  const rest = fields.filter(([key]) => !shown.includes(key));
  if (rest.length > 0) return rest.map(([key, value]) => `${key}: ${Array.isArray(value) ? value.join(' ') : String(value)}`).join('; ');
  if (fields.length > 0) return 'Nothing to show until the filter above is corrected.';
  return failure.message;
}
