/**
 * What the model test knows about the synced objects, without I/O: the pushed endpoints, a
 * snapshot of one side's objects (API JSON by pk), the "atoms" an object is compared by (each
 * writable field, and each interface or protocol by name), and the inheritance rule that makes
 * a child's field follow its template.
 */
import { INHERITABLE } from '../../../shared/resources/probes';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type Obj = { [key: string]: Json };

/** The pushed endpoints, in the order their objects may refer to each other. */
export const ENDPOINTS = ['source', 'ruleset', 'vendor_probe_template', 'vendor_probe', 'engine_probe'] as const;
export type Endpoint = (typeof ENDPOINTS)[number];

export const PATHS: Readonly<Record<Endpoint, string>> = {
  source: '/rest/rules/source/',
  ruleset: '/rest/rules/ruleset/',
  vendor_probe_template: '/rest/appliances/vendor_probe_template/',
  vendor_probe: '/rest/appliances/vendor_probe/',
  engine_probe: '/rest/appliances/engine_probe/',
};

export const INTERFACE_PATH = '/rest/appliances/network_interface/';

/** One side's objects (the central server's, or a workspace's as its API shows them). */
export type Snapshot = Readonly<Record<Endpoint, ReadonlyMap<number, Obj>>>;

export function snapshotOf(lists: Readonly<Record<Endpoint, readonly Obj[]>>): Snapshot {
  const out = {} as Record<Endpoint, Map<number, Obj>>;
  for (const endpoint of ENDPOINTS) out[endpoint] = new Map(lists[endpoint].map((o) => [o.pk as number, o]));
  return out;
}

export function emptySnapshot(): Snapshot {
  return snapshotOf({ source: [], ruleset: [], vendor_probe_template: [], vendor_probe: [], engine_probe: [] });
}

/** Objects of an endpoint sorted by name: choices never depend on pks (a replay has other pks). */
export function byName(snapshot: Snapshot, endpoint: Endpoint): Obj[] {
  return [...snapshot[endpoint].values()].sort((a, b) => (String(a.name) < String(b.name) ? -1 : String(a.name) > String(b.name) ? 1 : 0));
}

export const ITEM_FLAGS: Readonly<Record<string, 'active' | 'detection'>> = { interfaces: 'active', protocols: 'detection' };

/** Fields naming other objects, and the endpoint they name. */
export const REFERENCES: Readonly<Record<string, Endpoint>> = { parent_tmpl: 'vendor_probe_template', ruleset: 'ruleset', sources: 'source' };

/** Lists whose order carries no meaning for an intent. */
const SET_FIELDS = new Set(['overriden_fields', 'sources']);

const READ_ONLY = new Set(['pk', 'created', 'updated', 'created_date', 'updated_date', 'rules_count', 'vendordevice_id']);

export function isReadOnly(endpoint: Endpoint, field: string): boolean {
  return READ_ONLY.has(field) || (endpoint === 'source' && field === 'version');
}

/** JSON with sorted keys: equal values give equal text. */
export function canonical(value: Json | undefined): string {
  if (value === undefined) return 'undefined';
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

export function same(a: Json | undefined, b: Json | undefined): boolean {
  return canonical(a) === canonical(b);
}

/** A field's value as an intent compares it (sets sorted). */
export function atomValue(field: string, value: Json | undefined): Json {
  if (value === undefined) return null;
  if (SET_FIELDS.has(field) && Array.isArray(value)) return [...value].sort((a, b) => (canonical(a) < canonical(b) ? -1 : 1));
  return value;
}

export function itemsOf(value: Json | undefined, flag: string): Map<string, boolean> {
  const out = new Map<string, boolean>();
  if (!Array.isArray(value)) return out;
  for (const item of value) {
    if (item && typeof item === 'object' && !Array.isArray(item) && typeof item.name === 'string') out.set(item.name, item[flag] !== false);
  }
  return out;
}

/** The pk of each interface (or protocol) of an object, by name. */
export function itemPks(value: Json | undefined): Map<string, number> {
  const out = new Map<string, number>();
  if (!Array.isArray(value)) return out;
  for (const item of value) {
    if (item && typeof item === 'object' && !Array.isArray(item) && typeof item.name === 'string' && typeof item.pk === 'number') out.set(item.name, item.pk);
  }
  return out;
}

/**
 * An object as the model compares it: every writable field (`descr`), and each interface or
 * protocol by name (`interfaces/eth0` → its flag). An item absent is an atom absent.
 */
export function atoms(endpoint: Endpoint, object: Obj): Map<string, Json> {
  const out = new Map<string, Json>();
  for (const [field, value] of Object.entries(object)) {
    if (isReadOnly(endpoint, field)) continue;
    const flag = ITEM_FLAGS[field];
    if (flag) for (const [name, on] of itemsOf(value, flag)) out.set(`${field}/${name}`, on);
    else out.set(field, atomValue(field, value));
  }
  return out;
}

/** The atom's value in an object (an absent item is null). */
export function atomOf(endpoint: Endpoint, object: Obj, atom: string): Json {
  return atoms(endpoint, object).get(atom) ?? null;
}

export function fieldOf(atom: string): string {
  return atom.split('/')[0]!;
}

/** Does the object take this field from its template (api.md §4.1)? */
export function inherits(object: Obj, field: string): boolean {
  if (object.parent_tmpl === null || object.parent_tmpl === undefined) return false;
  if (!(INHERITABLE as readonly string[]).includes(field)) return false;
  const overrides = Array.isArray(object.overriden_fields) ? object.overriden_fields : [];
  return !overrides.includes(field);
}

/** Both probe families share one pk sequence (and one local table). */
export function family(resource: string): string {
  return resource === 'vendor_probe' || resource === 'engine_probe' ? 'appliance' : resource;
}

export function describe(endpoint: Endpoint, object: Obj | undefined, pk: number): string {
  return `${endpoint} ${object ? JSON.stringify(object.name) : '?'} (pk ${pk})`;
}

/** The differences between two objects' full API JSON, for messages. */
export function differences(a: Obj, b: Obj): string[] {
  const out: string[] = [];
  for (const field of new Set([...Object.keys(a), ...Object.keys(b)])) {
    if (!same(a[field], b[field])) out.push(`${field}: ${canonical(a[field])} vs ${canonical(b[field])}`);
  }
  return out;
}
