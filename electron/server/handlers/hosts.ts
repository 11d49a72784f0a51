/** api.md §7 host identity: detail, list (with host_id_qfilter), import. */
import type { JsonObject } from '../../../shared/resources';
import type { Endpoint } from '../routing/endpoint';
import type { Services } from '../services';
import type { ImportKind } from './imports';

export interface HostEntry {
  readonly ip: string;
  readonly hits?: number;
  readonly hostId: JsonObject;
}

export const hostImport: ImportKind<HostEntry> = {
  actionType: 'import_host_id',
  validate() {
    throw new Error('host identity import: not written yet');
  },
  save() {
    throw new Error('host identity import: not written yet');
  },
};

export function hostIdEndpoint(services: Services): Endpoint {
  void services;
  throw new Error('host identity endpoint: not written yet');
}
