/** Small data hooks shared by the screens. */
import { useCallback, useEffect, useMemo, useState } from 'react';
import type { JsonObject } from '../../shared/resources';
import { ApiFailure, api } from './api/client';
import type { RefOption } from './components/ResourceForm';
import { createPagedList } from './stores/pagedList';

export interface Loaded<T> {
  readonly data: T | undefined;
  readonly error: ApiFailure | Error | undefined;
  readonly loading: boolean;
  reload(): void;
}

/** One object (or any JSON answer) at `path`; `undefined` path loads nothing. */
export function useObject(path: string | undefined): Loaded<JsonObject> {
  const [state, setState] = useState<{ data?: JsonObject; error?: ApiFailure | Error; loading: boolean }>({ loading: false });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    if (!path) {
      setState({ loading: false });
      return;
    }
    const controller = new AbortController();
    setState((s) => ({ ...s, loading: true }));
    api
      .get(path, undefined, controller.signal)
      .then((data) => setState({ data, loading: false }))
      .catch((error: unknown) => {
        if (error instanceof DOMException && error.name === 'AbortError') return;
        setState({ error: error instanceof Error ? error : new Error(String(error)), loading: false });
      });
    return () => controller.abort();
  }, [path, tick]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { data: state.data, error: state.error, loading: state.loading, reload };
}

/** Choices for a reference field: every object of `path` (pk and a label). */
export function useRefOptions(path: string, label: string, enabled = true): readonly RefOption[] {
  const [options, setOptions] = useState<readonly RefOption[]>([]);
  useEffect(() => {
    if (!enabled) return;
    const controller = new AbortController();
    api
      .get(path, { page_size: 10000, ordering: label }, controller.signal)
      .then((page) => setOptions(((page.results as JsonObject[]) ?? []).map((o) => ({ value: Number(o.pk), label: String(o[label]) }))))
      .catch(() => undefined);
    return () => controller.abort();
  }, [path, label, enabled]);
  return options;
}

/** A paged list store for `path`, made once per path. */
export function usePagedList(path: string) {
  return useMemo(() => createPagedList(path), [path]);
}

/** The query of a route as list parameters (strings). */
export function paramsOf(query: URLSearchParams): Record<string, string> {
  const params: Record<string, string> = {};
  query.forEach((value, key) => {
    params[key] = value;
  });
  return params;
}
