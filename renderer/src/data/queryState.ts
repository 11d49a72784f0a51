/**
 * The states of one read a screen makes (useQuery), as pure functions tested directly. Rules: a
 * reload keeps the answer shown until the next one comes; a failure keeps it too, beside the
 * error; another key starts empty, unless the screen asked to keep the previous key's answer
 * while the new one loads (a list growing a page at a time).
 */

export interface QueryState<T> {
  /** What was read (a path, or any string naming what the load depends on). */
  readonly key: string | undefined;
  /** The last answer for `key`. */
  readonly data: T | undefined;
  /** The last failure for `key`, until the next answer. */
  readonly error: Error | undefined;
  readonly loading: boolean;
}

export const IDLE: QueryState<never> = { key: undefined, data: undefined, error: undefined, loading: false };

/** A load of `key` starts. */
export function started<T>(state: QueryState<T>, key: string, keepPrevious: boolean): QueryState<T> {
  if (state.key === key || keepPrevious) return { ...state, key, loading: true };
  return { key, data: undefined, error: undefined, loading: true };
}

export function answered<T>(key: string, data: T): QueryState<T> {
  return { key, data, error: undefined, loading: false };
}

export function failed<T>(state: QueryState<T>, key: string, error: Error): QueryState<T> {
  return { ...state, key, error, loading: false };
}

/** What a render shows for `key`, before the effect that loads a new key has run. */
export function shownFor<T>(state: QueryState<T>, key: string | undefined, keepPrevious: boolean): QueryState<T> {
  if (key === undefined) return IDLE;
  return state.key === key ? state : started(state, key, keepPrevious);
}
