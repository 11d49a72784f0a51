/**
 * The times of a host identity as text, from epoch microseconds (UTC): host_id's own form and the
 * EVE form used inside `services[].values[]`.
 */

/** `2023-07-11T16:07:33.559720+00:00`: the form of host_id's times. */
export function hostTime(micros: number): string {
  return `${isoMicros(micros)}+00:00`;
}

/** `2023-07-11T16:07:50.108895+0000`: the EVE form of times inside `services[].values[]`. */
export function eveTime(micros: number): string {
  return `${isoMicros(micros)}+0000`;
}

/**
 * The `YYYY-MM-DDTHH:MM:SS` of recent seconds: an identity's many times fall in few seconds, and
 * a large import's refresh formats hundreds of thousands of them.
 */
const SECONDS = new Map<number, string>();
const SECONDS_KEPT = 4096;

function isoMicros(micros: number): string {
  const second = Math.floor(micros / 1_000_000);
  let prefix = SECONDS.get(second);
  if (prefix === undefined) {
    if (SECONDS.size >= SECONDS_KEPT) SECONDS.clear();
    prefix = new Date(second * 1000).toISOString().slice(0, 19); // 2023-07-11T16:07:33
    SECONDS.set(second, prefix);
  }
  return `${prefix}.${String(micros - second * 1_000_000).padStart(6, '0')}`;
}
