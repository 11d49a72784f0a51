/**
 * Dates as the user reads them (their locale and time zone) with the exact UTC value beside
 * (a tooltip): every timestamp form the API uses, DRF's `…Z`, host_id's `…+00:00` and EVE's
 * `…+0000`. No DOM, no I/O; the locale and zone are parameters so that tests pin them.
 */

const TIMESTAMP = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?(Z|[+-]\d{2}(?::?\d{2})?)?$/;

export interface Instant {
  /** Milliseconds since the epoch. */
  readonly epochMs: number;
  /** The fraction of a second as written (`.559720`), '' when none. */
  readonly fraction: string;
}

/** A timestamp of the API as an instant; undefined for anything else. */
export function parseInstant(text: string): Instant | undefined {
  const m = TIMESTAMP.exec(text.trim());
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s = '0', fraction = '', zone = 'Z'] = m;
  let offsetMinutes = 0;
  if (zone !== 'Z') {
    const digits = zone.slice(1).replace(':', '');
    offsetMinutes = (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2) || '0')) * (zone.startsWith('-') ? -1 : 1);
  }
  const epochMs = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi) - offsetMinutes, Number(s));
  return Number.isNaN(epochMs) ? undefined : { epochMs, fraction };
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** The exact value in UTC, fraction kept: `2023-07-11 14:07:33.559720 UTC`. */
export function exactUtc(instant: Instant): string {
  const t = new Date(instant.epochMs);
  return `${pad(t.getUTCFullYear(), 4)}-${pad(t.getUTCMonth() + 1)}-${pad(t.getUTCDate())} ${pad(t.getUTCHours())}:${pad(t.getUTCMinutes())}:${pad(t.getUTCSeconds())}${instant.fraction} UTC`;
}

export interface DateView {
  /** In the user's form: `Jul 11, 2023, 4:07 PM`. */
  readonly text: string;
  /** The exact UTC value, for the tooltip. */
  readonly exact: string;
  /** For `<time dateTime>`: ISO 8601 in UTC. */
  readonly iso: string;
}

export interface DateOptions {
  /** A BCP 47 locale; undefined: the user's. */
  readonly locale?: string | undefined;
  /** An IANA zone; undefined: the user's. */
  readonly timeZone?: string | undefined;
  /** Leave the time of day out. */
  readonly dateOnly?: boolean;
}

/** A timestamp of the API as the user reads it; undefined when `value` is not one. */
export function dateView(value: string, options: DateOptions = {}): DateView | undefined {
  const instant = parseInstant(value);
  if (!instant) return undefined;
  const format = new Intl.DateTimeFormat(options.locale, {
    dateStyle: 'medium',
    ...(options.dateOnly ? {} : { timeStyle: 'short' }),
    ...(options.timeZone ? { timeZone: options.timeZone } : {}),
  });
  return { text: format.format(new Date(instant.epochMs)), exact: exactUtc(instant), iso: new Date(instant.epochMs).toISOString() };
}
