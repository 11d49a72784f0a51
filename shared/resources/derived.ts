/**
 * Facts derived from the resource declarations, for storage and sync: nothing here is declared
 * twice. Which resources are pushed and pulled, in what order, which columns and fields refer to
 * the objects of a resource, and the item tables of templates and probes.
 */
import type { Field, ItemsField, RefField, RefListField } from './fields';
import { RESOURCES, resourceNamed } from './index';
import type { Resource } from './resource';

/** Declared fields stored as columns of the resource's table, in declaration order. */
export function columnsOf(resource: Resource): string[] {
  const computed = new Set(resource.storage.computed ?? []);
  return Object.entries(resource.fields)
    .filter(([name, field]) => !computed.has(name) && !field.writeOnly)
    .map(([name]) => name);
}

/** Resources whose local writes go through the outbox (creates, updates and deletes). */
export const PUSHED: readonly Resource[] = RESOURCES.filter((r) => r.sync?.push === 'writes');

const pushedByName = new Map(PUSHED.map((r) => [r.name, r]));

/** A pushed resource by endpoint name (undefined for the others). */
export function pushedResource(name: string): Resource | undefined {
  return pushedByName.get(name);
}

/** Is a local change to objects of this resource recorded for the central server? */
export function isPushed(name: string): boolean {
  const sync = RESOURCES.find((r) => r.name === name)?.sync;
  return sync?.push === 'writes' || sync?.push === 'deletes';
}

/** Every endpoint a pull mirrors, in pull order (what an object refers to comes first). */
export const PULLED: readonly Resource[] = RESOURCES.filter((r) => r.sync?.pull).sort((a, b) => a.sync!.pull!.order - b.sync!.pull!.order);

const pulledByName = new Map(PULLED.map((r) => [r.name, r]));

export function isPulled(name: string): boolean {
  return pulledByName.has(name);
}

export function pulledResource(name: string): Resource {
  const found = pulledByName.get(name);
  if (!found) throw new Error(`${name} is not pulled`);
  return found;
}

/** The field identifying a pulled object across servers: `pk`, or a host's `ip`. */
export function pullKeyOf(name: string): string {
  return pulledResource(name).sync!.pull!.key ?? 'pk';
}

type Reference = RefField | RefListField;

function isReference(field: Field): field is Reference {
  return field.kind === 'ref' || field.kind === 'refList';
}

/**
 * Writable fields of `resource` naming objects of other resources (`parent_tmpl`, `ruleset`,
 * `sources`), with the resource they name. Read-only references (a device's probe) come with
 * the object they belong to.
 */
export function referenceFields(resource: Resource): { field: string; target: Resource }[] {
  return Object.entries(resource.fields)
    .filter((entry): entry is [string, Reference] => isReference(entry[1]) && !entry[1].readOnly)
    .map(([field, declared]) => ({ field, target: resourceNamed(declared.target) }));
}

/** Fields of pushed objects that name objects of `resource` (what a re-key rewrites in the outbox). */
export function fieldsReferringTo(resource: string): string[] {
  const out = new Set<string>();
  for (const pushed of PUSHED) for (const ref of referenceFields(pushed)) if (ref.target.name === resource) out.add(ref.field);
  return [...out];
}

/** Every writable reference field of pushed objects. */
export const REFERENCE_FIELD_NAMES: readonly string[] = [...new Set(PUSHED.flatMap((r) => referenceFields(r).map((ref) => ref.field)))];

/** The item fields of templates and probes (interfaces, protocols), with their tables. */
export function itemFieldsOf(resource: Resource): { field: string; declared: ItemsField }[] {
  return Object.entries(resource.fields)
    .filter((entry): entry is [string, ItemsField] => entry[1].kind === 'items')
    .map(([field, declared]) => ({ field, declared }));
}

/**
 * Columns holding the pk of a row of `table`: plain reference columns, the owner columns of
 * item tables and the columns of join tables. What a re-key (a local pk replaced by the central
 * server's) rewrites.
 */
export function columnsReferringTo(table: string): { table: string; column: string }[] {
  const out = new Map<string, { table: string; column: string }>();
  const add = (t: string, column: string) => out.set(`${t}.${column}`, { table: t, column });
  for (const resource of RESOURCES) {
    const columns = new Set(columnsOf(resource));
    for (const [name, field] of Object.entries(resource.fields)) {
      if (field.kind === 'ref' && columns.has(name) && resourceNamed(field.target).storage.table === table) add(resource.storage.table, name);
      if (field.kind === 'refList') {
        if (resourceNamed(field.target).storage.table === table) add(field.through.table, field.through.target);
        if (resource.storage.table === table) add(field.through.table, field.through.owner);
      }
      if (field.kind === 'items' && resource.storage.table === table && resource.storage.itemOwner) add(field.table, resource.storage.itemOwner);
    }
  }
  return [...out.values()];
}

/** Resources kept in `table` (both probe families share `appliance`). */
export function resourcesIn(table: string): Resource[] {
  return RESOURCES.filter((r) => r.storage.table === table);
}

/** Columns of the full-text table `fts`: every search field of the resources it indexes. */
export function ftsColumns(fts: string): string[] {
  return [...new Set(RESOURCES.filter((r) => r.storage.fts === fts).flatMap((r) => r.search))];
}

/** Endpoint paths of the resources, for clients: `/rest/appliances/vendor_probe/`. */
export function listPath(resource: Resource): string {
  return `/rest/${resource.path}/`;
}
