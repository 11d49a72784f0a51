import type { Field } from './fields';
import { defineResource, field, fields, type FieldSpec } from './resource';

/** api.md §3.1: the parameters a template hands down to its children, in response order. */
export const INHERITABLE = [
  'home_net',
  'external_net',
  'capture_method',
  'capture_threads',
  'pcap_capture',
  'log_retention_days',
  'ntp_server',
  'dns_server',
  'timezone',
  'interfaces',
  'protocols',
] as const;
export type InheritableName = (typeof INHERITABLE)[number];

export const DEFAULT_HOME_NET = '[192.168.0.0/16,10.0.0.0/8,172.16.0.0/12]';
export const CAPTURE_METHODS = ['af_packet', 'pcap', 'netmap'] as const;

const inheritable: Record<InheritableName, FieldSpec> = {
  home_net: field.text(1024, DEFAULT_HOME_NET),
  external_net: field.text(1024, '!$HOME_NET'),
  capture_method: field.choice(CAPTURE_METHODS, 'af_packet'),
  capture_threads: field.integer({ min: 1, max: 64, default: 2 }),
  pcap_capture: field.boolean(false),
  log_retention_days: field.integer({ min: 1, max: 3650, default: 30 }),
  ntp_server: field.text(255),
  dns_server: field.text(255),
  timezone: field.string(64, { default: 'UTC' }),
  interfaces: { kind: 'items', flag: 'active', flagLabel: 'Active', nameMaxLength: 32, table: 'network_interface', default: [] },
  protocols: { kind: 'items', flag: 'detection', flagLabel: 'Detection', nameMaxLength: 32, table: 'protocol', default: [] },
};

const inheritance: Record<string, FieldSpec> = {
  parent_tmpl: field.ref('vendor_probe_template'),
  overriden_fields: { kind: 'choiceList', choices: INHERITABLE, default: [] },
  ...inheritable,
};

export const vendorProbeTemplate = defineResource({
  name: 'vendor_probe_template',
  path: 'appliances/vendor_probe_template',
  title: 'Vendor Probe Template',
  description:
    'Templates of first-family probes. A probe or template whose parent_tmpl names a template takes every inheritable parameter from it, except the fields listed in its overriden_fields.',
  fields: fields({
    pk: field.pk(),
    name: field.string(100, { required: true }),
    descr: field.text(1000),
    ...inheritance,
    created: field.datetime(),
    updated: field.datetime(),
    comment: field.comment(),
  }),
  access: 'read-write',
  filters: ['name', 'parent_tmpl', 'capture_method', 'pcap_capture'],
  search: ['name', 'descr'],
  ordering: ['pk', 'name', 'created', 'updated', 'capture_method'],
  defaultOrdering: ['name'],
  unique: { field: 'name', message: 'vendor probe template with this name already exists.' },
  display: 'name',
  history: { kind: 'template' },
  storage: { table: 'vendor_probe_template', computed: ['interfaces', 'protocols'], itemOwner: 'template' },
  sync: { push: 'writes', pull: { order: 4, query: { ordering: 'pk' } } },
});

const address = field.string(255, { required: true, format: 'address' });

export const vendorProbe = defineResource({
  name: 'vendor_probe',
  path: 'appliances/vendor_probe',
  title: 'Vendor Probe',
  description: 'Probes of the first family, with their capture parameters, interfaces and protocols.',
  fields: fields({
    pk: field.pk(),
    name: field.string(100, { required: true }),
    descr: field.text(1000),
    address,
    location: field.text(255),
    serial: field.text(64),
    version: field.text(32),
    enabled: field.boolean(true),
    ...inheritance,
    vendordevice_id: { kind: 'integer', readOnly: true },
    created: field.datetime(),
    updated: field.datetime(),
    comment: field.comment(),
  }),
  access: 'read-write',
  filters: ['name', 'address', 'location', 'enabled', 'parent_tmpl', 'capture_method', 'pcap_capture', 'version'],
  search: ['name', 'descr', 'address', 'location', 'serial'],
  ordering: ['pk', 'name', 'address', 'location', 'created', 'updated', 'version'],
  defaultOrdering: ['name'],
  unique: { field: 'name', message: 'vendor probe with this name already exists.' },
  display: 'name',
  history: { kind: 'appliance' },
  storage: {
    table: 'appliance',
    scope: { column: 'type', value: 'vendor' },
    computed: ['interfaces', 'protocols', 'vendordevice_id'],
    fts: 'appliance_search',
    itemOwner: 'probe',
  },
  sync: { push: 'writes', pull: { order: 5, query: { ordering: 'pk' } }, remoteOwned: ['version', 'vendordevice_id'] },
});

export const engineProbe = defineResource({
  name: 'engine_probe',
  path: 'appliances/engine_probe',
  title: 'Engine Probe',
  description: 'Probes of the second family. They have no templates, interfaces or protocols.',
  fields: fields({
    pk: field.pk(),
    name: field.string(100, { required: true }),
    descr: field.text(1000),
    address,
    location: field.text(255),
    version: field.text(32),
    enabled: field.boolean(true),
    home_net: field.text(1024, DEFAULT_HOME_NET),
    ruleset: field.ref('ruleset'),
    created: field.datetime(),
    updated: field.datetime(),
    comment: field.comment(),
  }),
  access: 'read-write',
  filters: ['name', 'address', 'location', 'enabled', 'ruleset', 'version'],
  search: ['name', 'descr', 'address', 'location'],
  ordering: ['pk', 'name', 'address', 'location', 'created', 'updated', 'version'],
  defaultOrdering: ['name'],
  unique: { field: 'name', message: 'engine probe with this name already exists.' },
  display: 'name',
  history: { kind: 'appliance' },
  storage: { table: 'appliance', scope: { column: 'type', value: 'engine' }, fts: 'appliance_search' },
  sync: { push: 'writes', pull: { order: 6, query: { ordering: 'pk' } }, remoteOwned: ['version'] },
});

export const APPLIANCE_TYPES = ['vendor', 'engine'] as const;

export const appliances = defineResource({
  name: 'appliances',
  path: 'appliances/appliances',
  title: 'Appliance',
  description:
    'Every probe of both families, with the fields they share. The pk and type name the full object at vendor_probe/<pk>/ or engine_probe/<pk>/.',
  fields: fields({
    pk: field.pk(),
    type: { kind: 'choice', choices: APPLIANCE_TYPES, readOnly: true },
    name: field.string(100, { readOnly: true }),
    descr: field.string(1000, { readOnly: true }),
    address: field.string(255, { readOnly: true }),
    location: field.string(255, { readOnly: true }),
    version: field.string(32, { readOnly: true }),
    enabled: { kind: 'boolean', readOnly: true },
    created: field.datetime(),
    updated: field.datetime(),
  }),
  access: 'read-only',
  filters: ['type', 'name', 'address', 'location', 'enabled', 'version'],
  search: ['name', 'descr', 'address', 'location'],
  ordering: ['pk', 'name', 'type', 'address', 'location', 'created', 'updated'],
  defaultOrdering: ['name'],
  display: 'name',
  storage: { table: 'appliance', fts: 'appliance_search' },
});

export const DEVICE_KINDS = ['central', 'probe'] as const;

export const vendorDevice = defineResource({
  name: 'vendor_device',
  path: 'appliances/vendor_device',
  title: 'Vendor Device',
  description: 'The central server itself (pk 1) and one device per first-family probe.',
  fields: fields({
    pk: field.pk(),
    kind: { kind: 'choice', choices: DEVICE_KINDS, readOnly: true },
    name: field.string(100, { readOnly: true }),
    address: field.string(255, { readOnly: true }),
    probe: { kind: 'ref', target: 'vendor_probe', readOnly: true },
    version: field.string(32, { readOnly: true }),
  }),
  access: 'read-only',
  filters: ['kind', 'name', 'probe'],
  search: ['name', 'address'],
  ordering: ['pk', 'name', 'kind'],
  defaultOrdering: ['pk'],
  display: 'name',
  storage: { table: 'vendor_device' },
  // Each probe's device comes with its probe: the pull asks for the central server's only.
  sync: { pull: { order: 1, query: { ordering: 'pk', kind: 'central' } } },
});

export const networkInterface = defineResource({
  name: 'network_interface',
  path: 'appliances/network_interface',
  title: 'Network Interface',
  description:
    'Network interfaces of first-family probes and templates. They are written through the interfaces field of their owner; DELETE removes one from its owner.',
  fields: fields({
    pk: field.pk(),
    name: field.string(32, { readOnly: true }),
    active: { kind: 'boolean', readOnly: true },
    probe: { kind: 'ref', target: 'vendor_probe', readOnly: true },
    template: { kind: 'ref', target: 'vendor_probe_template', readOnly: true },
  }),
  access: 'read-delete',
  filters: ['name', 'active', 'probe', 'template'],
  search: ['name'],
  ordering: ['pk', 'name'],
  defaultOrdering: ['pk'],
  display: 'name',
  history: { kind: 'network_interface' },
  storage: { table: 'network_interface' },
  sync: { push: 'deletes' },
});

export function inheritableField(name: InheritableName): Field {
  const found = vendorProbeTemplate.fields[name];
  if (!found) throw new Error(`no inheritable field ${name}`);
  return found;
}
