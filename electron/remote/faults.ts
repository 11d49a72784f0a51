/**
 * Fault injection for the crash-safety tests: the sync calls its `faults` hook at each crash
 * point, and the hook made from `OUTPOST_SYNC_CRASH=<point>[:<n>]` (read by the command line, not
 * here) kills the process (SIGKILL, as a power cut would) the n-th time the sync reaches that
 * point. Without a hook the points cost nothing. A malformed value stops the sync with a clear
 * error rather than letting a crash test silently test nothing.
 */
export type CrashPoint = 'before-send' | 'after-response' | 'after-page' | 'after-commit';

/** Called by the sync at each crash point. */
export type SyncFaults = (point: CrashPoint) => void;

export const NO_FAULTS: SyncFaults = () => undefined;

const POINTS: readonly CrashPoint[] = ['before-send', 'after-response', 'after-page', 'after-commit'];

export interface CrashSpec {
  readonly point: CrashPoint;
  readonly nth: number;
}

/** `<point>[:<n>]`, n counting from 1 (default 1). */
export function parseCrashSpec(spec: string): CrashSpec {
  const match = /^([a-z-]+)(?::(\d+))?$/.exec(spec);
  const point = POINTS.find((p) => p === match?.[1]);
  const nth = Number(match?.[2] ?? '1');
  if (!point || nth < 1) {
    throw new Error(`OUTPOST_SYNC_CRASH must be <point>[:<n>] with a point among ${POINTS.join(', ')} and n from 1, not "${spec}"`);
  }
  return { point, nth };
}

/** The hook for a crash spec (none: no faults); the spec is checked when the sync first reaches a point. */
export function crashFaults(spec: string | undefined, kill: () => void = () => process.kill(process.pid, 'SIGKILL')): SyncFaults {
  if (!spec) return NO_FAULTS;
  let wanted: CrashSpec | undefined;
  let reached = 0;
  return (point) => {
    wanted ??= parseCrashSpec(spec);
    if (wanted.point !== point) return;
    reached++;
    if (reached === wanted.nth) kill();
  };
}
