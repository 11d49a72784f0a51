/**
 * What is synced with a central server, and how: the writable resources whose local changes go
 * through the outbox, and every mirrored endpoint pulled from the remote (app.md §3), in an order
 * where the objects a row refers to arrive first.
 */
import {
  engineProbe,
  type JsonValue,
  ruleset,
  source,
  vendorProbe,
  vendorProbeTemplate,
  type Resource,
} from '../../shared/resources';

export interface SyncedResource {
  readonly resource: Resource;
  /** API path below /rest/. */
  readonly path: string;
  /** The field unique within the endpoint: how a create whose outcome is unknown is found again. */
  readonly unique: string;
  /** The local table (both probe families share `appliance`). */
  readonly table: string;
}

/** Resources whose local writes are pushed, by their endpoint name. */
export const PUSHED: Readonly<Record<string, SyncedResource>> = {
  source: { resource: source, path: 'rules/source', unique: 'name', table: 'source' },
  ruleset: { resource: ruleset, path: 'rules/ruleset', unique: 'name', table: 'ruleset' },
  vendor_probe_template: { resource: vendorProbeTemplate, path: 'appliances/vendor_probe_template', unique: 'name', table: 'vendor_probe_template' },
  vendor_probe: { resource: vendorProbe, path: 'appliances/vendor_probe', unique: 'name', table: 'appliance' },
  engine_probe: { resource: engineProbe, path: 'appliances/engine_probe', unique: 'name', table: 'appliance' },
};

export function isPushed(resource: string): boolean {
  return resource in PUSHED || resource === 'network_interface';
}

/** Every endpoint the pull mirrors, in dependency order. */
export const PULLED = [
  'vendor_device',
  'source',
  'ruleset',
  'vendor_probe_template',
  'vendor_probe',
  'engine_probe',
  'threat',
  'host_id',
  'history',
] as const;
export type PulledEndpoint = (typeof PULLED)[number];

export const PULL_PATHS: Readonly<Record<PulledEndpoint, string>> = {
  vendor_device: 'appliances/vendor_device',
  source: 'rules/source',
  ruleset: 'rules/ruleset',
  vendor_probe_template: 'appliances/vendor_probe_template',
  vendor_probe: 'appliances/vendor_probe',
  engine_probe: 'appliances/engine_probe',
  threat: 'appliances/threat',
  host_id: 'appliances/host_id',
  history: 'rules/history',
};

/**
 * What a pull asks each endpoint for besides the page: an order that stays put while the list is
 * read (a new object lands on the last page), and of the devices only the central server's (each
 * probe's device comes with its probe).
 */
export const PULL_QUERY: Readonly<Record<PulledEndpoint, Readonly<Record<string, string>>>> = {
  vendor_device: { ordering: 'pk', kind: 'central' },
  source: { ordering: 'pk' },
  ruleset: { ordering: 'pk' },
  vendor_probe_template: { ordering: 'pk' },
  vendor_probe: { ordering: 'pk' },
  engine_probe: { ordering: 'pk' },
  threat: { ordering: 'pk' },
  host_id: { ordering: 'ip' },
  history: { ordering: '-pk' },
};

/**
 * Columns referring to objects of a resource, by the resource's local table: what a re-key
 * (a local pk replaced by the central server's) must rewrite.
 */
export const REFERENCES: Readonly<Record<string, readonly { table: string; column: string }[]>> = {
  vendor_probe_template: [
    { table: 'vendor_probe_template', column: 'parent_tmpl' },
    { table: 'appliance', column: 'parent_tmpl' },
    { table: 'network_interface', column: 'template' },
    { table: 'protocol', column: 'template' },
  ],
  appliance: [
    { table: 'network_interface', column: 'probe' },
    { table: 'protocol', column: 'probe' },
    { table: 'vendor_device', column: 'probe' },
  ],
  ruleset: [
    { table: 'appliance', column: 'ruleset' },
    { table: 'ruleset_source', column: 'ruleset' },
  ],
  source: [{ table: 'ruleset_source', column: 'source' }],
};

/** Fields of outbox entries that refer to objects of a resource (rewritten by a re-key too). */
export const REFERENCE_FIELDS: Readonly<Record<string, readonly string[]>> = {
  vendor_probe_template: ['parent_tmpl'],
  ruleset: ['ruleset'],
  source: ['sources'],
};

/** Does an outbox field's value name object `pk`? */
export function refersTo(value: JsonValue | undefined, pk: number): boolean {
  return value === pk || (Array.isArray(value) && value.includes(pk));
}
