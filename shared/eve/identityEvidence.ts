/**
 * A host identity (api.md §7, an imported host file's or the central server's) taken apart into
 * local evidence, the rows an EVE import would have left (identity.ts puts them together again):
 * how a standalone workspace's imported hosts become local evidence when it is connected to a
 * central server, so that no pull erases them (docs/sync.md, "Connecting a standalone workspace").
 */
import { parseIsoDateTime } from '../api/datetime';
import { HOST_LISTS, type HostListName } from '../resources/hosts';
import type { JsonObject, JsonValue } from '../resources/fields';
import { SERVICE_DETAILS, type EvidenceKind } from './derive';
import { isObject } from './event';
import type { EvidenceRow } from './identitySource';
import { ITEM_KEY } from './identity';

export interface LocalEvidence {
  readonly first: number;
  readonly last: number;
  readonly values: readonly EvidenceRow[];
}

function micros(value: JsonValue | undefined): number | undefined {
  return typeof value === 'string' ? parseIsoDateTime(value) : undefined;
}

function untimed(item: JsonObject): JsonObject {
  const { first_seen: _first, last_seen: _last, ...rest } = item;
  return rest;
}

/** Every item of the identity's lists as an evidence row, with its own times (else the host's). */
export function evidenceOfIdentity(identity: JsonObject): LocalEvidence {
  const first = micros(identity.first_seen) ?? 0;
  const last = micros(identity.last_seen) ?? first;
  const values: EvidenceRow[] = [];
  const span = (item: JsonObject): [number, number] => [micros(item.first_seen) ?? first, micros(item.last_seen) ?? last];
  for (const list of HOST_LISTS) {
    if (list === 'net_info' || list === 'services') continue;
    const keyField = ITEM_KEY[list as Exclude<HostListName, 'services' | 'net_info'>];
    for (const item of Array.isArray(identity[list]) ? (identity[list] as JsonValue[]) : []) {
      if (!isObject(item)) continue;
      const value = untimed(item);
      const key = typeof item[keyField] === 'string' ? item[keyField] : JSON.stringify(value);
      values.push([list as EvidenceKind, key, JSON.stringify(value), ...span(item)]);
    }
  }
  for (const service of Array.isArray(identity.services) ? identity.services : []) {
    if (!isObject(service) || !Array.isArray(service.values)) continue;
    const proto = typeof service.proto === 'string' ? service.proto.toLowerCase() : service.proto ?? null;
    for (const value of service.values) {
      if (!isObject(value)) continue;
      const app = typeof value.app_proto === 'string' ? value.app_proto : 'unknown';
      const key = `${String(proto)}/${String(service.port)}/${app}`;
      const times = span(value);
      values.push(['services', key, JSON.stringify({ proto, port: service.port ?? null, app_proto: app }), ...times]);
      for (const detail of SERVICE_DETAILS) {
        const found = value[detail];
        if (isObject(found)) values.push([`services.${detail}`, key, JSON.stringify(found), ...times]);
      }
    }
  }
  return { first, last, values };
}
