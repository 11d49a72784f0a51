/**
 * Datetimes are kept as integer microseconds since the epoch (UTC) and shown in DRF's form:
 * ISO 8601 with `Z`, microseconds only when not zero.
 */

let last = 0;

/** Now, in microseconds; strictly increasing within a process so that creation order is total. */
export function nowMicros(clockMillis: () => number = Date.now): number {
  const micros = Math.floor(clockMillis() * 1000);
  last = micros > last ? micros : last + 1;
  return last;
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

export function formatDateTime(micros: number): string {
  const millis = Math.floor(micros / 1000);
  const date = new Date(millis);
  const fraction = micros - millis * 1000 + (date.getUTCMilliseconds() * 1000);
  const base =
    `${pad(date.getUTCFullYear(), 4)}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())}` +
    `T${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())}`;
  return fraction === 0 ? `${base}Z` : `${base}.${pad(fraction, 6)}Z`;
}

const DATETIME =
  /^(\d{4})-(\d{1,2})-(\d{1,2})[T ](\d{1,2}):(\d{1,2})(?::(\d{1,2})(?:[.,](\d{1,6})\d{0,6})?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/;
const DATE = /^(\d{4})-(\d{1,2})-(\d{1,2})$/;

/** Is there such a day (the Gregorian calendar, year 1 on)? */
export function validDate(year: number, month: number, day: number): boolean {
  if (year < 1 || month < 1 || month > 12 || day < 1) return false;
  return day <= new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** UTC epoch milliseconds of a date and time at an offset: exact (epoch microseconds are not, from about 285 years off 1970). */
function millis(year: number, month: number, day: number, h = 0, m = 0, s = 0, offsetMinutes = 0): number {
  const at = new Date(0);
  at.setUTCFullYear(year, month - 1, day);
  at.setUTCHours(h, m, s, 0);
  return at.getTime() - offsetMinutes * 60_000;
}

function micro(year: number, month: number, day: number, h = 0, m = 0, s = 0, us = 0, offsetMinutes = 0): number {
  return millis(year, month, day, h, m, s, offsetMinutes) * 1000 + us;
}

/** The first and last milliseconds Python's datetime holds (0001-01-01T00:00 and 9999-12-31T23:59:59.999, UTC). */
const MIN_MILLIS = millis(1, 1, 1);
const MAX_MILLIS = millis(9999, 12, 31, 23, 59, 59) + 999;

/**
 * Can Python's datetime (and so the central server) hold the instant of these UTC milliseconds
 * (and microseconds within the last)? Checked on the milliseconds, which are exact.
 */
export function inDateTimeRange(utcMillis: number): boolean {
  return utcMillis >= MIN_MILLIS && utcMillis <= MAX_MILLIS;
}

/** Django's `parse_datetime` of a datetime Python can hold: its epoch microseconds, 'out of range', or undefined when it is no datetime. */
export function parseIsoDateTimeInRange(text: string): number | 'out of range' | undefined {
  const parts = isoParts(text);
  if (!parts) return undefined;
  const ms = millis(parts.year, parts.month, parts.day, parts.hour, parts.minute, parts.second, parts.offset);
  return inDateTimeRange(ms) ? ms * 1000 + parts.us : 'out of range';
}

/** Django's `parse_datetime` (naive values are UTC); undefined when it is not a datetime. */
export function parseIsoDateTime(text: string): number | undefined {
  const parts = isoParts(text);
  return parts && micro(parts.year, parts.month, parts.day, parts.hour, parts.minute, parts.second, parts.us, parts.offset);
}

function isoParts(text: string): { year: number; month: number; day: number; hour: number; minute: number; second: number; us: number; offset: number } | undefined {
  const m = DATETIME.exec(text);
  if (!m) return undefined;
  const [year, month, day, hour, minute] = [m[1], m[2], m[3], m[4], m[5]].map(Number) as [number, number, number, number, number];
  const second = m[6] === undefined ? 0 : Number(m[6]);
  const us = m[7] === undefined ? 0 : Number(m[7].padEnd(6, '0'));
  if (!validDate(year, month, day) || hour > 23 || minute > 59 || second > 59) return undefined;
  let offset = 0;
  const tz = m[8];
  if (tz && tz !== 'Z') {
    const sign = tz[0] === '-' ? -1 : 1;
    const digits = tz.slice(1).replace(':', '');
    const hours = Number(digits.slice(0, 2));
    const minutes = digits.length > 2 ? Number(digits.slice(2, 4)) : 0;
    if (hours > 23 || minutes > 59) return undefined;
    offset = sign * (hours * 60 + minutes);
  }
  return { year, month, day, hour, minute, second, us, offset };
}

/** Django's `parse_date`; undefined when not a valid date. */
export function parseIsoDate(text: string): { year: number; month: number; day: number } | undefined {
  const m = DATE.exec(text);
  if (!m) return undefined;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  return validDate(year, month, day) ? { year, month, day } : undefined;
}

export function formatDate(date: { year: number; month: number; day: number }): string {
  return `${pad(date.year, 4)}-${pad(date.month)}-${pad(date.day)}`;
}

/** What Django's forms.DateTimeField accepts in a filter: ISO datetimes, or a date (midnight UTC). */
export function parseDateTimeInput(text: string): number | undefined {
  const iso = parseIsoDateTime(text);
  if (iso !== undefined) return iso;
  const date = parseIsoDate(text);
  return date ? micro(date.year, date.month, date.day) : undefined;
}
