/**
 * A host identity (api.md §7) made of what the central server knows and what the local EVE
 * import saw, with no I/O. The two are kept apart in storage and read together: lists merged
 * item by item (first seen the earliest, last seen the latest), `in_home_net` and `net_info`
 * computed from the workspace's home networks, every count recomputed.
 */
import { hasHostBits, networkContains, networkText, parseIp, parseNetwork, type Network } from '../api/address';
import { parseIsoDateTime } from '../api/datetime';
import { hostnamesText } from '../api/hostIdentity';
import { HOME_NETS, HOST_LISTS, type HostListName } from '../resources/hosts';
import type { JsonObject, JsonValue } from '../resources/fields';
import type { EvidenceList } from './derive';
import { isObject } from './event';
import { localIdentityRecord } from './identityText';
import { eveTime, hostTime } from './times';

export { eveTime, hostTime };

/** Suricata's HOME_NET, the default of a workspace's home networks. */
export const DEFAULT_HOME_NETS: readonly string[] = HOME_NETS;

/** A list of CIDRs (`10.0.0.0/8,192.168.1.0/24`), checked; the networks, or the first bad item. */
export function parseHomeNets(text: string): { networks: Network[] } | { error: string } {
  const items = text
    .split(/[,\s]+/)
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (items.length === 0) return { error: 'give at least one network, as CIDR (10.0.0.0/8)' };
  const networks: Network[] = [];
  for (const item of items) {
    const network = parseNetwork(item);
    if (!network) return { error: `"${item}" is not a network in CIDR form (10.0.0.0/8, fd00::/8)` };
    const text = networkText(network);
    if (hasHostBits(network)) return { error: `"${item}" has bits set past its prefix: did you mean ${text}?` };
    // Kept as written canonically (`FD00:0::/8` is fd00::/8): it is what net_info shows.
    networks.push({ ...network, text });
  }
  return { networks };
}

/** One value the local import saw, as stored. */
export interface LocalValue {
  readonly list: EvidenceList;
  readonly key: string;
  readonly item: JsonObject;
  readonly first: number;
  readonly last: number;
}

export interface LocalHost {
  readonly hits: number;
  readonly first: number;
  readonly last: number;
  readonly values: readonly LocalValue[];
}

/** The field naming an item within its list (services are keyed by proto and port, then by app_proto). */
const ITEM_KEY: Readonly<Record<Exclude<HostListName, 'services' | 'net_info'>, string>> = {
  hostname: 'host',
  username: 'user',
  roles: 'name',
  client_service: 'name',
  'http.user_agent': 'agent',
  'tls.ja3': 'hash',
  'tls.ja4': 'hash',
  'ssh.client': 'software_version',
};

function micros(value: JsonValue | undefined): number | undefined {
  return typeof value === 'string' ? parseIsoDateTime(value) : undefined;
}

/** Merge two timed items: the earliest first seen, the latest last seen, details of the latest. */
function mergeTimed(a: JsonObject, b: JsonObject, format: (micros: number) => string): JsonObject {
  const [aFirst, aLast, bFirst, bLast] = [micros(a.first_seen), micros(a.last_seen), micros(b.first_seen), micros(b.last_seen)];
  const newer = (bLast ?? 0) >= (aLast ?? 0) ? b : a;
  const older = newer === b ? a : b;
  const first = Math.min(aFirst ?? Infinity, bFirst ?? Infinity);
  const last = Math.max(aLast ?? -Infinity, bLast ?? -Infinity);
  return {
    ...older,
    ...newer,
    ...(Number.isFinite(first) ? { first_seen: format(first) } : {}),
    ...(Number.isFinite(last) ? { last_seen: format(last) } : {}),
  };
}

function mergeList(list: HostListName, central: readonly JsonValue[], local: readonly JsonObject[]): JsonValue[] {
  // Nothing to merge with (most hosts of an import): the local items are one per key already.
  if (central.length === 0) return [...local];
  if (list === 'services') return mergeServices(central, local);
  const key = ITEM_KEY[list as keyof typeof ITEM_KEY];
  const out = new Map<string, JsonObject>();
  const extra: JsonValue[] = [];
  for (const item of central) {
    if (!isObject(item) || typeof item[key] !== 'string') extra.push(item);
    else out.set(item[key], item);
  }
  for (const item of local) {
    const id = String(item[key]);
    const known = out.get(id);
    out.set(id, known ? mergeTimed(known, item, hostTime) : item);
  }
  return [...extra, ...out.values()];
}

function mergeServices(central: readonly JsonValue[], local: readonly JsonObject[]): JsonValue[] {
  const byPort = new Map<string, { proto: JsonValue; port: JsonValue; values: Map<string, JsonObject>; rest: JsonObject }>();
  const extra: JsonValue[] = [];
  const take = (service: JsonValue) => {
    if (!isObject(service) || !Array.isArray(service.values)) {
      extra.push(service);
      return;
    }
    const id = `${String(service.proto)}/${String(service.port)}`;
    let entry = byPort.get(id);
    if (!entry) {
      const { values: _values, ...rest } = service;
      entry = { proto: service.proto ?? null, port: service.port ?? null, values: new Map(), rest };
      byPort.set(id, entry);
    }
    for (const value of service.values) {
      if (!isObject(value)) continue;
      const app = String(value.app_proto);
      const known = entry.values.get(app);
      entry.values.set(app, known ? mergeTimed(known, value, eveTime) : value);
    }
  };
  central.forEach(take);
  local.forEach(take);
  return [...extra, ...[...byPort.values()].map((entry) => ({ ...entry.rest, proto: entry.proto, port: entry.port, values: [...entry.values.values()] }))];
}

/** The local values of a host as api.md §7 list items. */
function localItems(values: readonly LocalValue[]): Map<HostListName, JsonObject[]> {
  const out = new Map<HostListName, JsonObject[]>();
  const push = (list: HostListName, item: JsonObject) => {
    const items = out.get(list);
    if (items) items.push(item);
    else out.set(list, [item]);
  };
  const services = new Map<string, JsonObject & { values: JsonObject[] }>();
  for (const value of values) {
    if (value.list === 'services') {
      const { proto, port, app_proto, ...details } = value.item;
      const id = `${String(proto)}/${String(port)}`;
      let service = services.get(id);
      if (!service) {
        service = { proto: proto ?? null, port: port ?? null, values: [] };
        services.set(id, service);
      }
      service.values.push({ app_proto: app_proto ?? 'unknown', first_seen: eveTime(value.first), last_seen: eveTime(value.last), ...details });
      continue;
    }
    push(value.list, { ...value.item, first_seen: hostTime(value.first), last_seen: hostTime(value.last) });
  }
  for (const service of services.values()) push('services', service);
  return out;
}

/** When an address was first and last seen (epoch microseconds), by the central server and the local imports together. */
export function hostSpan(central: JsonObject | undefined, local: LocalHost | undefined): { first: number; last: number } {
  const firsts = [micros(central?.first_seen), local?.first].filter((t): t is number => t !== undefined);
  const lasts = [micros(central?.last_seen), local?.last].filter((t): t is number => t !== undefined);
  const first = firsts.length > 0 ? Math.min(...firsts) : 0;
  return { first, last: lasts.length > 0 ? Math.max(...lasts) : first };
}

export interface IdentityInput {
  readonly ip: string;
  /** The host_id object the central server (or an imported host file) gives, if any. */
  readonly central?: JsonObject | undefined;
  readonly local?: LocalHost | undefined;
  readonly homeNets: readonly Network[];
}

/**
 * The host_id served for an address: first seen the earliest, last seen the latest, lists
 * merged, in_home_net and net_info from the home networks, every `<list>_count`.
 */
export function hostIdentity({ ip, central, local, homeNets }: IdentityInput): JsonObject {
  const address = parseIp(ip);
  const home = address ? homeNets.find((network) => networkContains(network, address)) : undefined;
  const { first, last } = hostSpan(central, local);
  const items = localItems(local?.values ?? []);
  const shape: JsonObject = { first_seen: hostTime(first), last_seen: hostTime(last), in_home_net: home !== undefined };
  for (const list of HOST_LISTS) {
    if (list === 'net_info') continue;
    const centralItems = Array.isArray(central?.[list]) ? (central[list] as JsonValue[]) : [];
    const merged = mergeList(list, centralItems, items.get(list) ?? []);
    shape[list] = merged;
  }
  shape.net_info = [{ agg: home?.text ?? 'internet', first_seen: shape.first_seen!, last_seen: shape.last_seen! }];
  const ordered: JsonObject = { first_seen: shape.first_seen!, last_seen: shape.last_seen!, in_home_net: shape.in_home_net! };
  for (const list of HOST_LISTS) {
    const value = shape[list] as JsonValue[];
    ordered[list] = value;
    ordered[`${list}_count`] = value.length;
  }
  // Keys the central server sends beyond §7's are kept as they are.
  for (const [key, value] of Object.entries(central ?? {})) if (!(key in ordered)) ordered[key] = value;
  return ordered;
}

/** One evidence row of an address as stored: list, key, item (JSON text), first and last seen. */
export type EvidenceRow = readonly [list: EvidenceList, key: string, item: string, first: number, last: number];

/** What a refresh reads of an address: its central part as stored, and what the local imports saw. */
export interface IdentitySource {
  readonly ip: string;
  /** The central part (host_id JSON text), if any. */
  readonly central: string | null;
  readonly centralHits: number | null;
  readonly hits: number;
  readonly first: number;
  readonly last: number;
  readonly values: readonly EvidenceRow[];
}

/** The host_id row a refresh writes for an address. */
export interface IdentityRecord {
  readonly ip: string;
  readonly hits: number;
  readonly first_seen: number;
  readonly last_seen: number;
  readonly hostnames: string;
  /** The identity served, as JSON text. */
  readonly data: string;
}

/** The stored values of an address as the identity reads them. */
export function localHostOf(source: IdentitySource): LocalHost {
  return {
    hits: source.hits,
    first: source.first,
    last: source.last,
    values: source.values.map(([list, key, item, first, last]) => ({ list, key, item: JSON.parse(item) as JsonObject, first, last })),
  };
}

/** The row of an address: its central part and local evidence merged, under these home networks. */
export function identityRecord(source: IdentitySource, homeNets: readonly Network[]): IdentityRecord {
  // Local evidence only (most of a site import's addresses): written straight from the stored items.
  return (source.central ? undefined : localIdentityRecord(source, homeNets)) ?? identityRecordOfObjects(source, homeNets);
}

/** The row of an address made through the identity's objects (hostIdentity): any central part, any item. */
export function identityRecordOfObjects(source: IdentitySource, homeNets: readonly Network[]): IdentityRecord {
  const central = source.central ? (JSON.parse(source.central) as JsonObject) : undefined;
  const local = localHostOf(source);
  const span = hostSpan(central, local);
  const identity = hostIdentity({ ip: source.ip, central, local, homeNets });
  return {
    ip: source.ip,
    // The larger of the two counts: the central server counts the alerts of this site's probe too (docs/decisions.md).
    hits: Math.max(source.centralHits ?? 0, local.hits),
    first_seen: span.first,
    last_seen: span.last,
    hostnames: hostnamesText(identity),
    data: JSON.stringify(identity),
  };
}

/** The rows of a chunk of addresses, under the home networks given as CIDR texts (those that parse). */
export function identityRecords(sources: readonly IdentitySource[], homeNets: readonly string[]): IdentityRecord[] {
  const networks = homeNets.map((text) => parseNetwork(text)).filter((n): n is Network => n !== undefined);
  return sources.map((source) => identityRecord(source, networks));
}

/**
 * Turns chunks of sources into rows, in the order they were given: here, as they come, or on
 * another thread while the caller reads the next chunk (electron/workspaces/identityThread.ts).
 */
export interface IdentityBuilder {
  submit(sources: readonly IdentitySource[], homeNets: readonly string[]): void;
  /** The rows of the oldest chunk submitted and not yet taken. */
  take(): IdentityRecord[];
  /** Chunks submitted and not yet taken. */
  readonly pending: number;
}

/** The builder that makes each chunk's rows at once, on the caller's thread. */
export class InlineIdentities implements IdentityBuilder {
  private readonly done: IdentityRecord[][] = [];

  submit(sources: readonly IdentitySource[], homeNets: readonly string[]): void {
    this.done.push(identityRecords(sources, homeNets));
  }

  take(): IdentityRecord[] {
    const rows = this.done.shift();
    if (!rows) throw new Error('no chunk of identities is pending');
    return rows;
  }

  get pending(): number {
    return this.done.length;
  }
}
