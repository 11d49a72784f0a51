/**
 * How a screen reads data: `useQuery(key, load)` runs `load` when `key` changes (or on
 * `reload()`), aborts it when the screen leaves or the key changes, and gives the answer, the
 * failure and whether a load is under way. Failures are never dropped: they come back as `error`
 * for the screen to show. Virtualised server-paged lists use the pagedList store instead
 * (rows fetched as they scroll into view), and the app-wide polled state its own stores.
 */
import { useEffect, useRef, useState } from 'react';
import { asError } from './errors';
import { answered, failed, IDLE, shownFor, started, type QueryState } from './queryState';

export interface Query<T> {
  readonly data: T | undefined;
  readonly error: Error | undefined;
  readonly loading: boolean;
  /** Read again, keeping the answer shown until the new one comes. */
  reload(): void;
}

export interface QueryOptions {
  /** Show the previous key's answer and failure until the new key's come, instead of nothing. */
  readonly keepPrevious?: boolean;
  /** Read again (as `reload()` does) whenever this value changes, e.g. the object a form edits. */
  readonly refreshOn?: unknown;
}

/**
 * `key` names everything `load` depends on (`undefined`: nothing to read). `load` gets the signal
 * to pass to the client and the answer held when it starts (to grow a list page by page).
 */
export function useQuery<T>(key: string | undefined, load: (signal: AbortSignal, previous: T | undefined) => Promise<T>, options: QueryOptions = {}): Query<T> {
  const { keepPrevious = false, refreshOn } = options;
  const [state, setState] = useState<QueryState<T>>(IDLE);
  const [tick, setTick] = useState(0);
  // The effect runs on a change of what is read, not of the closure a render made.
  const latest = useRef({ load, state, keepPrevious });
  latest.current = { load, state, keepPrevious };
  const reload = useRef(() => setTick((t) => t + 1)).current;

  useEffect(() => {
    if (key === undefined) {
      setState(IDLE);
      return;
    }
    const controller = new AbortController();
    const { load: run, state: held, keepPrevious: keep } = latest.current;
    setState((current) => started(current, key, keep));
    run(controller.signal, started(held, key, keep).data).then(
      (data) => {
        if (!controller.signal.aborted) setState(answered(key, data));
      },
      (error: unknown) => {
        // A rejection after our own abort is that abort: nobody waits for this answer any more.
        if (!controller.signal.aborted) setState((current) => failed(current, key, asError(error)));
      },
    );
    return () => controller.abort();
  }, [key, tick, refreshOn]);

  const shown = shownFor(state, key, keepPrevious);
  return { data: shown.data, error: shown.error, loading: shown.loading, reload };
}
