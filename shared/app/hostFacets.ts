/**
 * The facets of the host list (issue 24 §1), declared once with no I/O: which identity field each
 * counts, how a bucket reads, and the `host_id_qfilter` text that selects exactly its hosts (what
 * the chip teaches; test/app/hostSurvey.test.ts checks each against the API).
 */
import type { FacetId } from './hostSurvey';
import { qfilterTerm } from './queryAssist';
import type { JsonValue } from '../resources/fields';

export type FacetDeclaration =
  /** One bucket per value of the field (values equal once folded are one, as `:` matches). */
  | { readonly id: FacetId; readonly label: string; readonly kind: 'values'; readonly field: string }
  /** One bucket: the hosts with any value at the field. */
  | { readonly id: FacetId; readonly label: string; readonly kind: 'present'; readonly field: string; readonly bucket: string }
  /** One bucket: the hosts with this value at the field. */
  | { readonly id: FacetId; readonly label: string; readonly kind: 'value'; readonly field: string; readonly value: string; readonly bucket: string };

export const HOST_FACETS: readonly FacetDeclaration[] = [
  { id: 'roles', label: 'Roles', kind: 'values', field: 'roles.name' },
  { id: 'services', label: 'Services', kind: 'values', field: 'services.port' },
  { id: 'networks', label: 'Networks', kind: 'values', field: 'net_info.agg' },
  { id: 'in_home_net', label: 'In home net', kind: 'values', field: 'in_home_net' },
  { id: 'has_users', label: 'Users', kind: 'present', field: 'username.user', bucket: 'has users' },
  { id: 'tls_server', label: 'TLS', kind: 'value', field: 'services.values.app_proto', value: 'tls', bucket: 'TLS server' },
];

/** Buckets shown per facet (the most hosts first); the others are counted in `more`. */
export const FACET_BUCKETS = 12;

/** The query text of a facet's bucket of `value`. */
export function facetQuery(facet: FacetDeclaration, value: string): string {
  return facet.kind === 'present' ? `host_id.${facet.field}:*` : qfilterTerm(`host_id.${facet.field}`, value);
}

/** How a bucket of a `values` facet reads (`in home net`; a port with its protocols, from `labels`). */
export function bucketLabel(facet: FacetDeclaration, value: string, serviceLabel?: string): string {
  if (facet.id === 'in_home_net') return value === 'true' ? 'in home net' : value === 'false' ? 'outside home net' : value;
  if (facet.id === 'services' && serviceLabel !== undefined) return serviceLabel;
  return value;
}

/**
 * A port as the services of some of its hosts describe it: `443/tcp tls`, the protocols most
 * hosts write first (at most three application protocols); the port alone when none says more.
 */
export function portLabel(port: string, identities: readonly JsonValue[]): string {
  const protos = new Map<string, number>();
  const apps = new Map<string, number>();
  const bump = (map: Map<string, number>, key: string) => map.set(key, (map.get(key) ?? 0) + 1);
  for (const identity of identities) {
    if (identity === null || typeof identity !== 'object' || Array.isArray(identity)) continue;
    const services = identity.services;
    if (!Array.isArray(services)) continue;
    for (const service of services) {
      if (service === null || typeof service !== 'object' || Array.isArray(service) || String(service.port) !== port) continue;
      if (typeof service.proto === 'string' && service.proto !== '') bump(protos, service.proto);
      const values = Array.isArray(service.values) ? service.values : [service];
      for (const value of values) {
        if (value !== null && typeof value === 'object' && !Array.isArray(value) && typeof value.app_proto === 'string' && value.app_proto !== '') bump(apps, value.app_proto);
      }
    }
  }
  const top = (map: Map<string, number>, n: number) => [...map.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, n).map(([key]) => key);
  const proto = top(protos, 1)[0];
  const app = top(apps, 3).join(', ');
  return `${port}${proto ? `/${proto}` : ''}${app ? ` ${app}` : ''}`;
}
