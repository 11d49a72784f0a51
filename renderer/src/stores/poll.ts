/**
 * The one way the renderer does something again and again (test/layering.test.ts holds it: no
 * `setInterval` elsewhere): a loop that never overlaps itself. `run`, wait `delay()` ms (asked
 * again after each run, so it can follow the state: fast while a sync runs), run again: the next
 * run starts after the previous one ended. `soon(ms)` brings the next run forward, e.g. right
 * after the user started a sync; `stop()` ends the loop and aborts the run under way (its signal),
 * e.g. when the screen that polls leaves.
 */
export interface Poller {
  soon(ms?: number): void;
  stop(): void;
}

/** `firstIn`: when the first run starts (at once by default). */
export function startPolling(run: (signal: AbortSignal) => Promise<void>, delay: () => number, firstIn = 0): Poller {
  let timer: number | undefined;
  let running = false;
  let stopped = false;
  let again = false;
  const controller = new AbortController();
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
      await run(controller.signal);
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
  schedule(firstIn);
  return {
    soon(ms = 0) {
      schedule(ms);
    },
    stop() {
      stopped = true;
      if (timer !== undefined) window.clearTimeout(timer);
      controller.abort();
    },
  };
}
