/**
 * One line of a Suricata EVE log, read with no I/O: JSON, an event (`event_type`, `timestamp`),
 * its two addresses in canonical form. Anything else is a skip with its reason, counted by the
 * import. Suricata 6, 7 and 8 write the same envelope. Whatever the import stores is something
 * `POST /rest/appliances/host_id/import/` accepts: canonical addresses (normaliseHostIp) and
 * times Python's datetime holds.
 */
import { inDateTimeRange, parseIsoDateTimeInRange, validDate } from '../api/datetime';
import { normaliseHostIp } from '../api/hostIdentity';
import type { JsonObject, JsonValue } from '../resources/fields';

export const SKIP_REASONS = ['not JSON', 'not an EVE event', 'no valid address', 'no valid timestamp', 'line too long', 'nested too deep', 'too many values'] as const;
export type SkipReason = (typeof SKIP_REASONS)[number];

/** Why a value an event gives is not stored: its address is not one, or not a host's. */
export const DROP_REASONS = ['not a valid address', 'not a host address'] as const;
export type DropReason = (typeof DROP_REASONS)[number];

/**
 * An address an event names, canonical: `host` false for addresses that are no host's (the
 * unspecified address, loopback, multicast, the limited broadcast), whose evidence is dropped.
 */
export interface Address {
  readonly ip: string;
  readonly host: boolean;
}

/** An endpoint of the event: its address and its port (0 when the protocol has none). */
export interface Endpoint extends Address {
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

/** Is this canonical address one a host can have (not ::, 0.0.0.0/8, loopback, multicast, 255.255.255.255)? */
function isHostAddress(version: 4 | 6, bytes: readonly number[]): boolean {
  if (version === 4) {
    const [a] = bytes as [number];
    return a !== 0 && a !== 127 && (a < 224 || a > 239) && !bytes.every((b) => b === 255);
  }
  if (bytes[0] === 0xff) return false;
  const upTo15 = bytes.slice(0, 15).every((b) => b === 0);
  return !(upTo15 && (bytes[15] === 0 || bytes[15] === 1));
}

/** Addresses read before (a log names the same few thousand addresses again and again). */
const ADDRESSES = new Map<string, Address | DropReason>();
const ADDRESSES_KEPT = 65_536;

/** An address as the host import stores it, or why it is not one. */
export function addressOf(text: string): Address | DropReason {
  const known = ADDRESSES.get(text);
  if (known !== undefined) return known;
  const ip = normaliseHostIp(text);
  if (ADDRESSES.size >= ADDRESSES_KEPT) ADDRESSES.clear();
  return ADDRESSES.set(text, ip ? { ip: ip.text, host: isHostAddress(ip.version, ip.bytes) } : 'not a valid address').get(text)!;
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

/** The day of the last timestamp read, and its start (a log's events come day by day: Date.UTC once a day). */
const lastDay = { key: -1, millis: 0 };

/**
 * Suricata's own form, `2022-11-18T00:15:51.533831+0100`, read without a regular expression (an
 * import reads millions); anything else goes through the general ISO 8601 reader. An instant
 * Python's datetime cannot hold (before year 1 or after 9999 once in UTC) is no timestamp.
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
        if (!validDate(year, month, day)) return undefined;
        lastDay.key = dayKey;
        lastDay.millis = Date.UTC(year, month - 1, day);
      }
      const utc = lastDay.millis + ((hour * 60 + minute) * 60 + second) * 1000 - sign * (offsetHours * 60 + offsetMinutes) * 60_000;
      return inDateTimeRange(utc) ? utc * 1000 + micros : undefined;
    }
  }
  const micros = parseIsoDateTimeInRange(text);
  return typeof micros === 'number' ? micros : undefined;
}

function endpoint(ip: JsonValue | undefined, port: JsonValue | undefined): Endpoint | undefined {
  const address = typeof ip === 'string' ? addressOf(ip) : undefined;
  if (address === undefined || typeof address === 'string') return undefined;
  return { ip: address.ip, host: address.host, port: typeof port === 'number' && Number.isInteger(port) && port >= 0 && port <= 65535 ? port : 0 };
}

/** Lines longer than this are looked over before they are parsed (a shorter one cannot hold enough to matter). */
const CHECKED_FROM = 64 * 1024;
/** An EVE event nests a few levels deep and holds a few hundred values at most. */
const MAX_DEPTH = 512;
const MAX_VALUES = 250_000;

/**
 * Why a long line is not parsed: nested deeper, or holding more values, than any event does.
 * JSON.parse of a 16 MB line of `[[[…]]]` five million deep, or of four million `{}`, holds
 * 350–430 MB; the line is scanned first (brackets and commas outside strings), in one pass.
 */
export function tooComplex(line: string): SkipReason | undefined {
  if (line.length < CHECKED_FROM) return undefined;
  let depth = 0;
  let values = 0;
  let inString = false;
  for (let i = 0; i < line.length; i++) {
    const c = line.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > MAX_DEPTH) return 'nested too deep';
      if (++values > MAX_VALUES) return 'too many values';
    } else if (c === 0x5d || c === 0x7d) depth--;
    else if (c === 0x2c && ++values > MAX_VALUES) return 'too many values';
  }
  return undefined;
}

/** One line (without its newline) of an EVE log. */
export function readEveLine(line: string): ReadLine {
  const complex = tooComplex(line);
  if (complex) return { skip: complex };
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
  return { event: { type: value.event_type, at, src, dest, proto: typeof value.proto === 'string' ? value.proto : '', appProto: text(value.app_proto), body: value } };
}
