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

function validDate(year: number, month: number, day: number): boolean {
  if (year < 1 || month < 1 || month > 12 || day < 1) return false;
  return day <= new Date(Date.UTC(year, month, 0)).getUTCDate();
}

function micro(year: number, month: number, day: number, h = 0, m = 0, s = 0, us = 0, offsetMinutes = 0): number {
  const at = new Date(0);
  at.setUTCFullYear(year, month - 1, day);
  at.setUTCHours(h, m, s, 0);
  return (at.getTime() - offsetMinutes * 60_000) * 1000 + us;
}

/** Django's `parse_datetime` (naive values are UTC); undefined when it is not a datetime. */
export function parseIsoDateTime(text: string): number | undefined {
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
  return micro(year, month, day, hour, minute, second, us, offset);
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
