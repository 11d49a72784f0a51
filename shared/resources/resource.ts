import type { Field, JsonValue } from './fields';

/** Which methods an endpoint answers (api.md §3, §6). */
export type Access = 'read-write' | 'read-only' | 'read-delete';

export type Verb = 'create' | 'edit' | 'delete';

/**
 * One endpoint family, declared once. Validation, SQL, list parameters, OPTIONS, the browsable
 * page and the renderer's forms are all derived from this declaration.
 */
export interface Resource {
  /** Endpoint name, also the `type` of its history `ua_objects` entries: `vendor_probe`. */
  readonly name: string;
  /** Path below `/rest/`: `appliances/vendor_probe`. */
  readonly path: string;
  /** `Vendor Probe`: OPTIONS answers "Vendor Probe List" / "Vendor Probe Instance". */
  readonly title: string;
  /** OPTIONS `description` and the browsable page's lead paragraph. */
  readonly description: string;
  /** Fields in response order; validation errors come in this order too. */
  readonly fields: Readonly<Record<string, Field>>;
  readonly access: Access;
  readonly filters: readonly string[];
  readonly search: readonly string[];
  readonly ordering: readonly string[];
  readonly defaultOrdering: readonly string[];
  /** A field unique within the endpoint and the DRF message naming it. */
  readonly unique?: { readonly field: string; readonly message: string };
  /** Field whose value names an object in history and in messages. */
  readonly display: string;
  /** History action types `<verb>_<kind>`; `keys` names the ua_objects key per verb. */
  readonly history?: { readonly kind: string; readonly keys?: Readonly<Record<Verb, string>> };
  /** Where the objects are kept (as a Django model owns its table). */
  readonly storage: Storage;
  /** How the objects travel between a bound workspace and its central server (app.md §3). */
  readonly sync?: SyncSpec;
}

/**
 * The SQLite table behind a resource. Every declared field that is neither computed nor
 * write-only is a column of `table`, converted by its kind (electron/server/store/columns.ts);
 * the schema test checks the live schema against these declarations.
 */
export interface Storage {
  readonly table: string;
  /** Rows of this resource within a shared table: `type = 'vendor'`. */
  readonly scope?: { readonly column: string; readonly value: string };
  /** Declared fields with no column of their own (the endpoint fills them in). */
  readonly computed?: readonly string[];
  /** FTS5 table indexing the table's rows by rowid = pk over the `search` fields. */
  readonly fts?: string;
  /** Column naming this resource's objects in the tables of its `items` fields. */
  readonly itemOwner?: string;
  /** Columns of the table that no field of this resource shows (secrets, copies for indexes). */
  readonly internal?: readonly string[];
}

export interface SyncSpec {
  /**
   * Local changes recorded in the outbox and pushed: every write (found again after a lost
   * answer by the resource's `unique` field), or deletes only (interfaces).
   */
  readonly push?: 'writes' | 'deletes';
  /** Mirrored by a pull: its place in the pull (what an object refers to comes first) and query. */
  readonly pull?: {
    readonly order: number;
    /** What the pull asks besides the page: an order that stays put while the list is read. */
    readonly query: Readonly<Record<string, string>>;
    /** The field identifying an object across servers (`pk` unless told). */
    readonly key?: string;
  };
  /** Fields the central server changes on its own: deleting an object does not conflict on them. */
  readonly remoteOwned?: readonly string[];
}

export type FieldSpec = Field extends infer F ? (F extends Field ? Omit<F, 'label'> & { label?: string } : never) : never;

/** Django's verbose-name label: `parent_tmpl` → `Parent tmpl`. */
export function labelOf(name: string): string {
  const words = name.replace(/_/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

export function fields(specs: Record<string, FieldSpec>): Record<string, Field> {
  const out: Record<string, Field> = {};
  for (const [name, spec] of Object.entries(specs)) {
    out[name] = { ...spec, label: spec.label ?? labelOf(name) } as Field;
  }
  return out;
}

export function defineResource(resource: Resource): Resource {
  for (const list of [resource.filters, resource.search]) {
    for (const name of list) {
      if (!(name in resource.fields) && !name.includes('.')) {
        throw new Error(`${resource.name}: list parameter names unknown field "${name}"`);
      }
    }
  }
  for (const name of resource.storage.computed ?? []) {
    if (!(name in resource.fields)) throw new Error(`${resource.name}: computed field "${name}" is not declared`);
  }
  if (resource.sync?.push === 'writes' && !resource.unique) throw new Error(`${resource.name}: a pushed resource needs a unique field`);
  return resource;
}

/** Field builders; each returns a spec whose label is derived from its key unless given. */
export const field = {
  pk: (): FieldSpec => ({ kind: 'integer', readOnly: true, label: 'ID' }),
  string: (maxLength: number | undefined, options: Partial<Omit<Extract<Field, { kind: 'string' }>, 'kind'>> = {}): FieldSpec => ({
    kind: 'string',
    ...(maxLength === undefined ? {} : { maxLength }),
    ...options,
  }),
  text: (maxLength: number, defaultValue = ''): FieldSpec => ({
    kind: 'string',
    maxLength,
    allowBlank: true,
    default: defaultValue,
  }),
  integer: (options: Partial<Omit<Extract<Field, { kind: 'integer' }>, 'kind'>> = {}): FieldSpec => ({ kind: 'integer', ...options }),
  boolean: (defaultValue: boolean, options: Partial<Omit<Extract<Field, { kind: 'boolean' }>, 'kind'>> = {}): FieldSpec => ({
    kind: 'boolean',
    default: defaultValue,
    ...options,
  }),
  choice: (choices: readonly string[], defaultValue?: string): FieldSpec => ({
    kind: 'choice',
    choices,
    ...(defaultValue === undefined ? { required: true } : { default: defaultValue }),
  }),
  datetime: (): FieldSpec => ({ kind: 'datetime', readOnly: true }),
  ref: (target: string, options: Partial<Omit<Extract<Field, { kind: 'ref' }>, 'kind' | 'target'>> = {}): FieldSpec => ({
    kind: 'ref',
    target,
    nullable: true,
    default: null,
    ...options,
  }),
  comment: (): FieldSpec => ({ kind: 'string', writeOnly: true, nullable: true, allowBlank: true }),
  json: (defaultValue: JsonValue): FieldSpec => ({ kind: 'json', default: defaultValue }),
};

