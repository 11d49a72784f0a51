/**
 * Fault injection for the crash-safety tests: `OUTPOST_SYNC_CRASH=<point>[:<n>]` kills the
 * process (SIGKILL, as a power cut would) the n-th time the sync reaches that point. Unset, the
 * points cost nothing. A malformed value stops the sync with a clear error rather than letting a
 * crash test silently test nothing.
 */
export type CrashPoint = 'before-send' | 'after-response' | 'after-page' | 'after-commit';

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

const spec = process.env.OUTPOST_SYNC_CRASH;
let wanted: CrashSpec | undefined;
let reached = 0;

export function crashPoint(point: CrashPoint): void {
  if (!spec) return;
  wanted ??= parseCrashSpec(spec);
  if (wanted.point !== point) return;
  reached++;
  if (reached === wanted.nth) process.kill(process.pid, 'SIGKILL');
}
