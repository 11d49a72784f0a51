/**
 * Fault injection for the crash-safety tests: `OUTPOST_SYNC_CRASH=<point>[:<n>]` kills the
 * process (SIGKILL, as a power cut would) the n-th time the sync reaches that point. Unset, the
 * points cost nothing.
 */
export type CrashPoint = 'before-send' | 'after-response' | 'after-page' | 'after-commit';

const spec = process.env.OUTPOST_SYNC_CRASH;
const [wanted, nth] = spec ? [spec.split(':')[0], Number(spec.split(':')[1] ?? '1')] : [undefined, 0];
let reached = 0;

export function crashPoint(point: CrashPoint): void {
  if (wanted !== point) return;
  reached++;
  if (reached === nth) process.kill(process.pid, 'SIGKILL');
}
