/**
 * One line of a Suricata EVE log, read with no I/O: JSON, an event (`event_type`, `timestamp`),
 * its two addresses normalised. Anything else is a skip with its reason, counted by the import.
 * Suricata 6, 7 and 8 write the same envelope.
 */
import { normaliseHostIp } from '../api/hostIdentity';
import { parseIsoDateTime } from '../api/datetime';
import type { JsonObject, JsonValue } from '../resources/fields';

export type SkipReason = 'not JSON' | 'not an EVE event' | 'no valid address' | 'no valid timestamp' | 'line too long';

export const SKIP_REASONS: readonly SkipReason[] = ['not JSON', 'not an EVE event', 'no valid address', 'no valid timestamp', 'line too long'];

/** An endpoint of the event: a normalised address and its port (0 when the protocol has none). */
export interface Endpoint {
  readonly ip: string;
  readonly port: number;
}

export interface EveEvent {
  readonly type: string;
  /** Epoch microseconds, UTC, whatever offset the log carried. */
  readonly at: number;
  readonly src: Endpoint;
  readonly dest: Endpoint;
  /** TCP, UDP, ICMP… as Suricata writes it. */
  readonly proto: string;
  /** The application protocol Suricata detected, when it says (`failed` when detection failed). */
  readonly appProto: string | undefined;
  readonly body: JsonObject;
}

/**
 * An event this import uses, an event of another type (stats, anomaly… say nothing of hosts and
 * need no address), or a skipped line.
 */
export type ReadLine = { readonly event: EveEvent } | { readonly other: string } | { readonly skip: SkipReason };

/** Event types that say something of the hosts in them. */
export const HOST_EVENT_TYPES: ReadonlySet<string> = new Set(['dns', 'tls', 'http', 'fileinfo', 'dhcp', 'krb5', 'smb', 'ssh', 'flow', 'alert']);

export function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function text(value: JsonValue | undefined): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** Addresses normalised before (a log names the same few thousand addresses again and again). */
const NORMALISED = new Map<string, string | null>();
const NORMALISED_LIMIT = 65_536;

function normalisedIp(ip: string): string | undefined {
  let known = NORMALISED.get(ip);
  if (known === undefined) {
    known = normaliseHostIp(ip)?.text ?? null;
    if (NORMALISED.size >= NORMALISED_LIMIT) NORMALISED.clear();
    NORMALISED.set(ip, known);
  }
  return known ?? undefined;
}

const digit = (text: string, at: number) => text.charCodeAt(at) - 48;
const number = (text: string, at: number, length: number) => {
  let value = 0;
  for (let i = at; i < at + length; i++) {
    const d = digit(text, i);
    if (d < 0 || d > 9) return -1;
    value = value * 10 + d;
  }
  return value;
};

function daysIn(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/** The day of the last timestamp read, and its start (a log's events come day by day: Date.UTC once a day). */
const lastDay = { key: -1, millis: 0 };

/**
 * Suricata's own form, `2022-11-18T00:15:51.533831+0100`, read without a regular expression (an
 * import reads millions); anything else goes through the general ISO 8601 reader.
 */
export function eveTimestamp(text: string): number | undefined {
  if (text.length === 31 && text[4] === '-' && text[7] === '-' && text[10] === 'T' && text[13] === ':' && text[16] === ':' && text[19] === '.') {
    // One by one, not destructured from an array: no allocation for each of millions of events.
    const year = number(text, 0, 4);
    const month = number(text, 5, 2);
    const day = number(text, 8, 2);
    const hour = number(text, 11, 2);
    const minute = number(text, 14, 2);
    const second = number(text, 17, 2);
    const micros = number(text, 20, 6);
    const sign = text[26] === '+' ? 1 : text[26] === '-' ? -1 : 0;
    const offsetHours = number(text, 27, 2);
    const offsetMinutes = number(text, 29, 2);
    if (
      sign !== 0 && year >= 100 && month >= 1 && month <= 12 && day >= 1 && day <= 31 && hour >= 0 && hour <= 23 && minute >= 0 && minute <= 59 &&
      second >= 0 && second <= 59 && micros >= 0 && offsetHours >= 0 && offsetHours <= 23 && offsetMinutes >= 0 && offsetMinutes <= 59
    ) {
      const dayKey = (year * 16 + month) * 32 + day;
      if (dayKey !== lastDay.key) {
        // Date.UTC rolls 31 February over to March: such a date is refused as the general reader does.
        if (day > daysIn(year, month)) return parseIsoDateTime(text);
        lastDay.key = dayKey;
        lastDay.millis = Date.UTC(year, month - 1, day);
      }
      const millis = lastDay.millis + ((hour * 60 + minute) * 60 + second) * 1000;
      return (millis - sign * (offsetHours * 60 + offsetMinutes) * 60_000) * 1000 + micros;
    }
  }
  return parseIsoDateTime(text);
}

function endpoint(ip: JsonValue | undefined, port: JsonValue | undefined): Endpoint | undefined {
  if (typeof ip !== 'string') return undefined;
  const normalised = normalisedIp(ip);
  if (normalised === undefined) return undefined;
  return { ip: normalised, port: typeof port === 'number' && Number.isInteger(port) && port >= 0 && port <= 65535 ? port : 0 };
}

/** One line (without its newline) of an EVE log. */
export function readEveLine(line: string): ReadLine {
  let value: JsonValue;
  try {
    value = JSON.parse(line) as JsonValue;
  } catch {
    return { skip: 'not JSON' };
  }
  if (!isObject(value) || typeof value.event_type !== 'string' || typeof value.timestamp !== 'string') return { skip: 'not an EVE event' };
  if (!HOST_EVENT_TYPES.has(value.event_type)) return { other: value.event_type };
  const at = eveTimestamp(value.timestamp);
  if (at === undefined) return { skip: 'no valid timestamp' };
  const src = endpoint(value.src_ip, value.src_port);
  const dest = endpoint(value.dest_ip, value.dest_port);
  if (!src || !dest) return { skip: 'no valid address' };
  return {
    event: {
      type: value.event_type,
      at,
      src,
      dest,
      proto: typeof value.proto === 'string' ? value.proto : '',
      appProto: text(value.app_proto),
      body: value,
    },
  };
}
