/**
 * A polling loop that never overlaps itself: `run`, wait `delay()` ms (asked again after each
 * run, so it can follow the state: fast while a sync runs), run again. `soon(ms)` brings the
 * next run forward, e.g. right after the user started a sync.
 */
export interface Poller {
  soon(ms?: number): void;
  stop(): void;
}

export function startPolling(run: () => Promise<void>, delay: () => number): Poller {
  let timer: number | undefined;
  let running = false;
  let stopped = false;
  let again = false;
  const schedule = (ms: number) => {
    if (stopped) return;
    if (timer !== undefined) window.clearTimeout(timer);
    timer = window.setTimeout(() => void tick(), ms);
  };
  const tick = async () => {
    timer = undefined;
    if (running) {
      again = true;
      return;
    }
    running = true;
    try {
      await run();
    } catch {
      // the run reports its own failures; polling goes on
    } finally {
      running = false;
    }
    if (again) {
      again = false;
      schedule(0);
    } else if (timer === undefined) schedule(delay());
    // else: soon() was asked during the run; its timer stands.
  };
  schedule(0);
  return {
    soon(ms = 0) {
      schedule(ms);
    },
    stop() {
      stopped = true;
      if (timer !== undefined) window.clearTimeout(timer);
    },
  };
}
