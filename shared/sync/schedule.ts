/**
 * When the next automatic sync runs (app.md §3: "every few minutes while reachable"; issue 4:
 * network errors back off and retry on a timer; a refused token pauses until it is fixed).
 */
export const SYNC_INTERVAL_MS = 5 * 60_000;
/** A local write is pushed this long after it (writes in a burst go together). */
export const PUSH_DELAY_MS = 2_000;
export const BACKOFF_FIRST_MS = 5_000;
export const BACKOFF_MAX_MS = 5 * 60_000;

export type SyncOutcome = 'done' | 'conflicts' | 'unreachable' | 'auth' | 'failed';

/**
 * Milliseconds until the next sync after one ended with `outcome`, `failures` being the number
 * of unreachable attempts in a row (this one included); null: wait for the user.
 */
export function nextSyncDelay(outcome: SyncOutcome, failures: number, random: () => number = Math.random): number | null {
  switch (outcome) {
    case 'auth':
      return null;
    case 'unreachable': {
      const exponential = Math.min(BACKOFF_MAX_MS, BACKOFF_FIRST_MS * 2 ** Math.max(0, failures - 1));
      // ±20 % so that many field laptops coming back online do not knock in step.
      return Math.round(exponential * (0.8 + 0.4 * random()));
    }
    default:
      return SYNC_INTERVAL_MS;
  }
}
