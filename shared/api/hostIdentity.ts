/**
 * Host identities (api.md §7) with no I/O: one import entry `{"ip", "hits"?, "host_id"}` checked
 * field by field in DRF's words, its address normalised, and its host_id object completed to the
 * full shape the API serves; plus the list's `start_date`/`end_date` values.
 */
import { HOME_NETS, HOST_LISTS } from '../resources/hosts';
import type { JsonObject, JsonValue } from '../resources/fields';
import { networkContains, parseIp, parseNetwork, type IpAddress, type Network } from './address';
import { parseIsoDateTimeInRange } from './datetime';
import { MESSAGES, message, pythonTypeName } from './messages';
import { eveTime, hostTime } from '../eve/times';
import { pyStr } from './python';
import { toBoolean, toInteger } from './validate';

/** DRF's DateTimeField messages (ISO 8601 input). */
export const DATETIME_MESSAGES = {
  invalid: 'Datetime has wrong format. Use one of these formats instead: YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z].',
  overflow: 'Datetime value out of range.',
} as const;

export const expectedDictItems = (got: string) => `Expected a dictionary of items but got type "${got}".`;

/** A valid import entry: normalised ip, hits when given, host_id completed to the §7 shape. */
export interface HostEntry {
  readonly ip: string;
  readonly hits?: number;
  readonly hostId: JsonObject;
  /** first_seen / last_seen as epoch microseconds. */
  readonly firstSeen: number;
  readonly lastSeen: number;
}

export type EntryCheck = { readonly ok: true; readonly entry: HostEntry } | { readonly ok: false; readonly errors: JsonObject };

const HOME_NETWORKS: readonly Network[] = HOME_NETS.map((text) => parseNetwork(text)!);

/** The default home net holding `ip`, if any. */
export function homeNetOf(ip: IpAddress): string | undefined {
  return HOME_NETWORKS.find((network) => networkContains(network, ip))?.text;
}

/**
 * An address as DRF's IPAddressField (both protocols) stores it: IPv4 trimmed, IPv6 compressed
 * without its zone, an IPv4-mapped IPv6 address unpacked to IPv4.
 */
export function normaliseHostIp(text: string): IpAddress | undefined {
  if (!text.includes(':')) return parseIp(text.trim());
  const ip = parseIp(text);
  if (!ip) return undefined;
  const bytes = ip.bytes;
  const mapped = bytes.slice(0, 10).every((b) => b === 0) && bytes[10] === 0xff && bytes[11] === 0xff;
  if (mapped) return parseIp(bytes.slice(12).join('.'));
  return parseIp(ip.text.replace(/%.*$/s, ''));
}

/**
 * Field validators in ./validate throw their (unexported) field error, an object carrying DRF's
 * `detail` for the field; turn it into a result. Anything else is a bug and propagates.
 */
function attempt<T>(check: () => T): { value: T } | { errors: JsonValue } {
  try {
    return { value: check() };
  } catch (error) {
    if (typeof error === 'object' && error !== null && 'detail' in error) return { errors: (error as { detail: JsonValue }).detail };
    throw error;
  }
}

/** A DateTimeField value: epoch microseconds, or DRF's message. */
export function checkDateTime(value: JsonValue): { value: number } | { errors: JsonValue } {
  if (value === null) return { errors: [MESSAGES.null] };
  const micros = typeof value === 'string' ? parseIsoDateTimeInRange(value) : undefined;
  if (micros === undefined) return { errors: [DATETIME_MESSAGES.invalid] };
  if (micros === 'out of range') return { errors: [DATETIME_MESSAGES.overflow] };
  return { value: micros };
}

/** A ListField of DictFields: errors for the list, or keyed by item index. */
export function checkDictList(value: JsonValue): JsonValue | undefined {
  if (value === null) return [MESSAGES.null];
  if (!Array.isArray(value)) return [message.expectedList(pythonTypeName(value))];
  const errors: JsonObject = {};
  value.forEach((item, index) => {
    if (item === null) errors[String(index)] = [MESSAGES.null];
    else if (typeof item !== 'object' || Array.isArray(item)) errors[String(index)] = [expectedDictItems(pythonTypeName(item))];
  });
  return Object.keys(errors).length > 0 ? errors : undefined;
}

function checkIp(value: JsonValue | undefined): { value: IpAddress } | { errors: JsonValue } {
  if (value === undefined) return { errors: [MESSAGES.required] };
  if (value === null) return { errors: [MESSAGES.null] };
  if (typeof value === 'string' && value.trim() === '') return { errors: [MESSAGES.blank] };
  const ip = typeof value === 'string' ? normaliseHostIp(value) : undefined;
  return ip ? { value: ip } : { errors: [MESSAGES.invalidAddress] };
}

interface CheckedHostId {
  readonly data: JsonObject;
  readonly firstSeen: number;
  readonly lastSeen: number;
}

function checkHostId(value: JsonValue | undefined): { value: CheckedHostId } | { errors: JsonValue } {
  if (value === undefined) return { errors: [MESSAGES.required] };
  if (value === null) return { errors: [MESSAGES.null] };
  if (typeof value !== 'object' || Array.isArray(value)) {
    return { errors: { non_field_errors: [message.expectedDictionary(pythonTypeName(value))] } };
  }
  const errors: JsonObject = {};
  const seen: Record<'first_seen' | 'last_seen', number> = { first_seen: 0, last_seen: 0 };
  for (const name of ['first_seen', 'last_seen'] as const) {
    const raw = value[name];
    if (raw === undefined) {
      errors[name] = [MESSAGES.required];
      continue;
    }
    const checked = checkDateTime(raw);
    if ('errors' in checked) errors[name] = checked.errors;
    else seen[name] = checked.value;
  }
  let data = value;
  if (value.in_home_net !== undefined) {
    const checked = value.in_home_net === null ? { errors: [MESSAGES.null] } : attempt(() => toBoolean(value.in_home_net!));
    if ('errors' in checked) errors.in_home_net = checked.errors;
    else data = { ...value, in_home_net: checked.value };
  }
  for (const list of HOST_LISTS) {
    if (value[list] === undefined) continue;
    const listErrors = checkDictList(value[list]!);
    if (listErrors !== undefined) errors[list] = listErrors;
  }
  if (Object.keys(errors).length > 0) return { errors };
  return { value: { data, firstSeen: seen.first_seen, lastSeen: seen.last_seen } };
}

/**
 * host_id completed to api.md §7's full shape: first_seen, last_seen, in_home_net (default: is
 * the ip in a default home net), every list (empty when absent) followed by its count, then any
 * other keys as given. An empty net_info gets one item: the home net holding the ip, else
 * "internet", with the host's times.
 */
export function completeHostId(ip: IpAddress, data: JsonObject): JsonObject {
  const net = homeNetOf(ip);
  const shape: JsonObject = {
    first_seen: data.first_seen ?? null,
    last_seen: data.last_seen ?? null,
    in_home_net: typeof data.in_home_net === 'boolean' ? data.in_home_net : net !== undefined,
  };
  for (const list of HOST_LISTS) {
    const items = Array.isArray(data[list]) ? (data[list] as JsonValue[]) : [];
    shape[list] = items;
    shape[`${list}_count`] = items.length;
  }
  if ((shape.net_info as JsonValue[]).length === 0) {
    shape.net_info = [{ agg: net ?? 'internet', first_seen: shape.first_seen!, last_seen: shape.last_seen! }];
    shape.net_info_count = 1;
  }
  for (const [key, value] of Object.entries(data)) if (!(key in shape)) shape[key] = value;
  return normalHostId(shape);
}

/** A time of an identity in api.md's form, in UTC whatever offset it came with; as given when it is no time. */
function utcTime(value: JsonValue, format: (micros: number) => string): JsonValue {
  if (typeof value !== 'string') return value;
  const micros = parseIsoDateTimeInRange(value);
  return typeof micros === 'number' ? format(micros) : value;
}

/** An item of a list with its times in UTC, in `format`. */
function utcItem(item: JsonValue, format: (micros: number) => string): JsonValue {
  if (typeof item !== 'object' || item === null || Array.isArray(item)) return item;
  const out: JsonObject = { ...item };
  for (const name of ['first_seen', 'last_seen'] as const) if (out[name] !== undefined) out[name] = utcTime(out[name]!, format);
  return out;
}

/**
 * A host_id in the form the central server writes it, whatever form it came in (a host file, a
 * pull; the same instants, api.md §7): times in UTC (`+00:00`, `+0000` inside services' values),
 * each service's protocol in lower case (`tcp`). Values that are no time or no text stay as given.
 */
export function normalHostId(hostId: JsonObject): JsonObject {
  const out: JsonObject = { ...hostId };
  for (const name of ['first_seen', 'last_seen'] as const) if (out[name] !== undefined) out[name] = utcTime(out[name]!, hostTime);
  for (const list of HOST_LISTS) {
    const items = out[list];
    if (!Array.isArray(items)) continue;
    out[list] = list === 'services' ? items.map(normalService) : items.map((item) => utcItem(item, hostTime));
  }
  return out;
}

function normalService(service: JsonValue): JsonValue {
  if (typeof service !== 'object' || service === null || Array.isArray(service)) return service;
  const out: JsonObject = { ...service };
  if (typeof out.proto === 'string') out.proto = out.proto.toLowerCase();
  if (Array.isArray(out.values)) out.values = out.values.map((value) => utcItem(value, eveTime));
  return out;
}

/** One import entry, checked as the real server's serializer does, in its field order. */
export function checkHostEntry(entry: JsonObject): EntryCheck {
  const errors: JsonObject = {};
  const ip = checkIp(entry.ip);
  if ('errors' in ip) errors.ip = ip.errors;
  let hits: number | undefined;
  if (entry.hits !== undefined) {
    const checked = entry.hits === null ? { errors: [MESSAGES.null] } : attempt(() => toInteger(entry.hits!, { min: 0 }));
    if ('errors' in checked) errors.hits = checked.errors;
    else hits = checked.value;
  }
  const hostId = checkHostId(entry.host_id);
  if ('errors' in hostId) errors.host_id = hostId.errors;
  if ('errors' in ip || 'errors' in hostId || Object.keys(errors).length > 0) return { ok: false, errors };
  const checked: HostEntry = {
    ip: ip.value.text,
    hostId: completeHostId(ip.value, hostId.value.data),
    firstSeen: hostId.value.firstSeen,
    lastSeen: hostId.value.lastSeen,
    ...(hits === undefined ? {} : { hits }),
  };
  return { ok: true, entry: checked };
}

/** The hostnames of a completed host_id, as one text for `search`. */
export function hostnamesText(hostId: JsonObject): string {
  const items = Array.isArray(hostId.hostname) ? hostId.hostname : [];
  return items
    .map((item) => (item !== null && typeof item === 'object' && !Array.isArray(item) ? pyStr(item.host ?? '') : ''))
    .join(' ');
}

const DECIMAL = /^[+-]?(?:\d+(?:_\d+)*(?:\.(?:\d+(?:_\d+)*)?)?|\.\d+(?:_\d+)*)(?:[eE][+-]?\d+(?:_\d+)*)?$/;
/** The latest instant Python's datetime holds, in epoch seconds (9999-12-31T23:59:59Z). */
const MAX_EPOCH_SECONDS = 253402300799;

function roundHalfEven(x: number): number {
  const floor = Math.floor(x);
  const diff = x - floor;
  if (diff > 0.5) return floor + 1;
  if (diff < 0.5) return floor;
  return floor % 2 === 0 ? floor : floor + 1;
}

/** django-filter's NumberFilter refuses numbers above this. */
const MAX_NUMBER_FILTER = 1e50;

/**
 * `start_date` / `end_date`: epoch seconds (decimals allowed) as epoch microseconds, clamped to
 * the years 1970–9999; nothing for an empty value (no filter); else django-filter's message for
 * its NumberFilter.
 */
export function parseEpochSeconds(raw: string): { value?: number; error?: string } {
  const text = raw.trim();
  if (text === '') return {};
  if (!DECIMAL.test(text)) return { error: MESSAGES.enterNumber };
  const number = Number(text.replace(/_/g, ''));
  if (number > MAX_NUMBER_FILTER) return { error: message.maxValue(MAX_NUMBER_FILTER) };
  const seconds = Math.min(Math.max(number, 0), MAX_EPOCH_SECONDS);
  const whole = Math.trunc(seconds);
  return { value: whole * 1_000_000 + roundHalfEven((seconds - whole) * 1_000_000) };
}
