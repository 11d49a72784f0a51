/**
 * What is synced with a central server, and how, as the resource declarations say it (their
 * `sync` and `storage` sections): the writable resources whose local changes go through the
 * outbox, and every mirrored endpoint pulled from the remote (app.md §3), in an order where the
 * objects a row refers to arrive first.
 */
import type { JsonValue, Resource } from '../../shared/resources';
import { PULLED as PULLED_RESOURCES, pulledResource, pushedResource } from '../../shared/resources/derived';

export { columnsReferringTo, fieldsReferringTo as referenceFieldsTo, isPushed, isPulled, pullKeyOf, REFERENCE_FIELD_NAMES } from '../../shared/resources/derived';

export interface SyncedResource {
  readonly resource: Resource;
  /** API path below /rest/. */
  readonly path: string;
  /** The field unique within the endpoint: how a create whose outcome is unknown is found again. */
  readonly unique: string;
  /** The local table (both probe families share `appliance`). */
  readonly table: string;
}

/** A resource whose local writes are pushed, by its endpoint name (undefined for the others). */
export function pushed(name: string): SyncedResource | undefined {
  const resource = pushedResource(name);
  if (!resource) return undefined;
  return { resource, path: resource.path, unique: resource.unique!.field, table: resource.storage.table };
}

/** An endpoint the pull mirrors: its name (`vendor_probe`, `host_id`, …). */
export type PulledEndpoint = string;

/** Every endpoint the pull mirrors, in dependency order. */
export const PULLED: readonly PulledEndpoint[] = PULLED_RESOURCES.map((r) => r.name);

/** API path below /rest/ of a pulled endpoint. */
export function pullPath(endpoint: PulledEndpoint): string {
  return pulledResource(endpoint).path;
}

/** What a pull asks an endpoint for besides the page. */
export function pullQuery(endpoint: PulledEndpoint): Readonly<Record<string, string>> {
  return pulledResource(endpoint).sync!.pull!.query;
}

/** Does an outbox field's value name object `pk`? */
export function refersTo(value: JsonValue | undefined, pk: number): boolean {
  return value === pk || (Array.isArray(value) && value.includes(pk));
}
