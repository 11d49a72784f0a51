/** Small data hooks shared by the screens, all reading through useQuery. */
import { useLayoutEffect, useMemo } from 'react';
import type { StoreApi } from 'zustand';
import type { JsonObject } from '../../shared/resources';
import { api, withQuery, type Query as ListQuery } from './api/client';
import type { RefChoices, RefOption } from './components/resourceFormModel';
import { useQuery, type Query } from './data/useQuery';
import { createPagedList, type PagedListState } from './stores/pagedList';

export type Loaded<T> = Query<T>;

/**
 * One object (or any JSON answer) at `path`; `undefined` path loads nothing. The object read
 * before stays shown while another path loads (a probe's template link); beside a failure, none.
 */
export function useObject(path: string | undefined): Loaded<JsonObject> {
  const query = useQuery(path, (signal) => api.get(path!, undefined, signal), { keepPrevious: true });
  return query.error ? { ...query, data: undefined } : query;
}

const NO_OPTIONS: readonly RefOption[] = [];

/** Choices for a reference field: every object of `path` (pk and a label), or why they could not be read. */
export function useRefOptions(path: string, label: string, enabled = true): RefChoices {
  const query = { page_size: 10000, ordering: label };
  const { data, error } = useQuery(enabled ? withQuery(path, query) : undefined, async (signal) => {
    const page = await api.get(path, query, signal);
    return ((page.results as JsonObject[]) ?? []).map((o): RefOption => ({ value: Number(o.pk), label: String(o[label]) }));
  });
  return useMemo(() => ({ options: data ?? NO_OPTIONS, error: error?.message }), [data, error]);
}

/** A paged list store for `path`, made once per path. */
export function usePagedList(path: string) {
  return useMemo(() => createPagedList(path), [path]);
}

/**
 * Gives a paged list its parameters when they change, in a layout effect: a list's first page is
 * asked for as the screen is committed, while the browser paints it, not once it has painted
 * (a passive effect) — on a first load that is the whole shell's first paint sooner.
 */
export function useListParams(list: StoreApi<PagedListState>, params: ListQuery): void {
  const key = JSON.stringify(params);
  useLayoutEffect(() => list.getState().setParams(JSON.parse(key) as ListQuery), [list, key]);
}

/** The query of a route as list parameters (strings). */
export function paramsOf(query: URLSearchParams): Record<string, string> {
  const params: Record<string, string> = {};
  query.forEach((value, key) => {
    params[key] = value;
  });
  return params;
}
