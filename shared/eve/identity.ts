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
import { detailOf, SERVICE_DETAILS, type EvidenceKind, type ServiceDetail } from './derive';
import { isObject } from './event';
import type { IdentityRecord, IdentitySource } from './identitySource';
import { localIdentityRecord } from './identityText';
import { replacesText } from './merge';
import { eveTime, hostTime } from './times';

export type { EvidenceRow, IdentityRecord, IdentitySource } from './identitySource';
export { eveTime, hostTime };

/** Suricata's HOME_NET, the default of a workspace's home networks. */
export const DEFAULT_HOME_NETS: readonly string[] = HOME_NETS;

/** A list of CIDRs (`10.0.0.0/8,192.168.1.0/24`), checked; the networks, or the first bad item. */
export function parseHomeNets(text: string): { networks: Network[] } | { error: string } {
  const items = text.split(/[,\s]+/).filter((s) => s !== '');
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

/** One value the local import saw, as stored (its item parsed). */
export interface LocalValue {
  readonly list: EvidenceKind;
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
export const ITEM_KEY: Readonly<Record<Exclude<HostListName, 'services' | 'net_info'>, string>> = {
  hostname: 'host', username: 'user', roles: 'name', client_service: 'name', 'http.user_agent': 'agent', 'tls.ja3': 'hash', 'tls.ja4': 'hash', 'ssh.client': 'software_version',
};

function micros(value: JsonValue | undefined): number | undefined {
  return typeof value === 'string' ? parseIsoDateTime(value) : undefined;
}

/** An item without its times. */
function untimed(item: JsonObject): JsonObject {
  const { first_seen: _first, last_seen: _last, ...rest } = item;
  return rest;
}

/**
 * A timed item of the central server's and the local one of the same value, by the merge rule:
 * the earliest first seen, the latest last seen, and the fields of the one last seen later (on a
 * tie, of the greater, byte-wise).
 */
function mergeTimed(central: JsonObject, local: JsonObject, format: (micros: number) => string): JsonObject {
  const [cFirst, cLast, lFirst, lLast] = [micros(central.first_seen), micros(central.last_seen), micros(local.first_seen), micros(local.last_seen)];
  const localWins = replacesText(lLast ?? -Infinity, JSON.stringify(untimed(local)), cLast ?? -Infinity, JSON.stringify(untimed(central)));
  const first = Math.min(cFirst ?? Infinity, lFirst ?? Infinity);
  const last = Math.max(cLast ?? -Infinity, lLast ?? -Infinity);
  const [older, newer] = localWins ? [central, local] : [local, central];
  return { ...older, ...newer, ...(Number.isFinite(first) ? { first_seen: format(first) } : {}), ...(Number.isFinite(last) ? { last_seen: format(last) } : {}) };
}

/** A local service value and the time each of its details was last seen. */
interface LocalServiceValue {
  readonly value: JsonObject;
  readonly detailSeen: Partial<Record<ServiceDetail, number>>;
}

/**
 * A service value of the central server's and the local one: times merged, and each detail (a
 * certificate, a server header…) from whichever saw it later, the central one as of its value's
 * last seen, the local one as of its own.
 */
function mergeServiceValue(central: JsonObject, local: LocalServiceValue): JsonObject {
  const times = mergeTimed({ first_seen: central.first_seen ?? null, last_seen: central.last_seen ?? null }, { first_seen: local.value.first_seen!, last_seen: local.value.last_seen! }, eveTime);
  const merged: JsonObject = { ...central, ...times };
  const centralLast = micros(central.last_seen) ?? -Infinity;
  for (const detail of SERVICE_DETAILS) {
    const mine = local.value[detail];
    if (mine === undefined) continue;
    const theirs = central[detail];
    if (theirs === undefined || replacesText(local.detailSeen[detail]!, JSON.stringify(mine), centralLast, JSON.stringify(theirs))) merged[detail] = mine;
  }
  return merged;
}

function mergeList(list: Exclude<HostListName, 'services' | 'net_info'>, central: readonly JsonValue[], local: readonly JsonObject[]): JsonValue[] {
  const key = ITEM_KEY[list];
  const out = new Map<string, JsonObject>();
  const extra: JsonValue[] = [];
  for (const item of central) {
    if (!isObject(item) || typeof item[key] !== 'string') extra.push(item);
    else out.set(item[key], item);
  }
  for (const item of local) {
    const known = out.get(String(item[key]));
    out.set(String(item[key]), known ? mergeTimed(known, item, hostTime) : item);
  }
  return [...extra, ...out.values()];
}

function mergeServices(central: readonly JsonValue[], local: readonly JsonObject[], detailSeen: ReadonlyMap<JsonObject, Partial<Record<ServiceDetail, number>>>): JsonValue[] {
  const byPort = new Map<string, { proto: JsonValue; port: JsonValue; values: Map<string, JsonObject>; rest: JsonObject }>();
  const extra: JsonValue[] = [];
  const take = (service: JsonValue, isLocal: boolean) => {
    if (!isObject(service) || !Array.isArray(service.values)) return void extra.push(service);
    const id = `${String(service.proto)}/${String(service.port)}`;
    const { values: _values, ...rest } = service;
    const entry = byPort.get(id) ?? byPort.set(id, { proto: service.proto ?? null, port: service.port ?? null, values: new Map(), rest }).get(id)!;
    for (const value of service.values) {
      if (!isObject(value)) continue;
      const app = String(value.app_proto);
      const known = entry.values.get(app);
      entry.values.set(app, known && isLocal ? mergeServiceValue(known, { value, detailSeen: detailSeen.get(value) ?? {} }) : value);
    }
  };
  for (const service of central) take(service, false);
  for (const service of local) take(service, true);
  return [...extra, ...[...byPort.values()].map((entry) => ({ ...entry.rest, proto: entry.proto, port: entry.port, values: [...entry.values.values()] }))];
}

/** The local values of a host as api.md §7 list items (details in their service values), and when each detail was seen. */
function localItems(values: readonly LocalValue[]): { items: Map<HostListName, JsonObject[]>; detailSeen: Map<JsonObject, Partial<Record<ServiceDetail, number>>> } {
  const items = new Map<HostListName, JsonObject[]>();
  const push = (list: HostListName, item: JsonObject) => void (items.get(list) ?? items.set(list, []).get(list)!).push(item);
  const services = new Map<string, JsonObject & { values: JsonObject[] }>();
  const serviceValues = new Map<string, JsonObject>();
  const detailSeen = new Map<JsonObject, Partial<Record<ServiceDetail, number>>>();
  for (const value of values) {
    if (value.list === 'services') {
      const { proto, port, app_proto } = value.item;
      const id = `${JSON.stringify(proto ?? null)}/${JSON.stringify(port ?? null)}`;
      const service = services.get(id) ?? services.set(id, { proto: proto ?? null, port: port ?? null, values: [] }).get(id)!;
      const item: JsonObject = { app_proto: app_proto ?? 'unknown', first_seen: eveTime(value.first), last_seen: eveTime(value.last) };
      service.values.push(item);
      serviceValues.set(value.key, item);
      continue;
    }
    const detail = detailOf(value.list);
    if (detail !== undefined) {
      const item = serviceValues.get(value.key);
      if (item) {
        item[detail] = value.item;
        detailSeen.set(item, { ...detailSeen.get(item), [detail]: value.last });
      }
      continue;
    }
    push(value.list as HostListName, { ...value.item, first_seen: hostTime(value.first), last_seen: hostTime(value.last) });
  }
  for (const service of services.values()) push('services', service);
  return { items, detailSeen };
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
  const { items, detailSeen } = localItems(local?.values ?? []);
  const shape: JsonObject = { first_seen: hostTime(first), last_seen: hostTime(last), in_home_net: home !== undefined };
  for (const list of HOST_LISTS) {
    if (list === 'net_info') continue;
    const centralItems = Array.isArray(central?.[list]) ? (central[list] as JsonValue[]) : [];
    const localList = items.get(list) ?? [];
    // Nothing to merge with (most hosts of an import): the local items are one per key already.
    shape[list] = centralItems.length === 0 ? localList : list === 'services' ? mergeServices(centralItems, localList, detailSeen) : mergeList(list, centralItems, localList);
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

/** The stored values of an address as the identity reads them. */
export function localHostOf(source: IdentitySource): LocalHost {
  const values = source.values.map(([list, key, item, first, last]) => ({ list, key, item: JSON.parse(item) as JsonObject, first, last }));
  return { hits: source.hits, first: source.first, last: source.last, values };
}

/** The row of an address: its central part and local evidence merged, under these home networks. */
export function identityRecord(source: IdentitySource, homeNets: readonly Network[]): IdentityRecord {
  // Local evidence only (most of a site import's addresses): written straight from the stored items.
  return source.central ? identityRecordOfObjects(source, homeNets) : localIdentityRecord(source, homeNets);
}

/** The row of an address made through the identity's objects (hostIdentity): any central part, any item. */
export function identityRecordOfObjects(source: IdentitySource, homeNets: readonly Network[]): IdentityRecord {
  const central = source.central ? (JSON.parse(source.central) as JsonObject) : undefined;
  const local = localHostOf(source);
  const span = hostSpan(central, local);
  const identity = hostIdentity({ ip: source.ip, central, local, homeNets });
  // Hits: the larger of the two counts, as the central server counts the alerts of this site's probe too (docs/decisions.md).
  const hits = Math.max(source.centralHits ?? 0, local.hits);
  return { ip: source.ip, hits, first_seen: span.first, last_seen: span.last, hostnames: hostnamesText(identity), data: JSON.stringify(identity) };
}

/** The home networks given as CIDR texts, those that parse. */
export function networksOf(homeNets: readonly string[]): Network[] {
  return homeNets.map((text) => parseNetwork(text)).filter((n): n is Network => n !== undefined);
}

/** The rows of a chunk of addresses, under these home networks. */
export function identityRecords(sources: readonly IdentitySource[], homeNets: readonly Network[]): IdentityRecord[] {
  return sources.map((source) => identityRecord(source, homeNets));
}
