/**
 * The owners of inheritable parameters: templates and first-family probes. Each holds its own
 * copy of every parameter and its own interface and protocol rows; this module reads them,
 * replaces item sets by name, copies fields from a parent and propagates a template's changes
 * down the tree (api.md §4), applying what shared/api/inheritance.ts decides.
 */
import {
  diffItems,
  fieldsReachingChild,
  hasItemChanges,
  isItemField,
  itemsKey,
  type ItemFieldName,
  type ItemPair,
  type Snapshot,
  type StoredItem,
} from '../../../shared/api/inheritance';
import { INHERITABLE, vendorProbe, vendorProbeTemplate, type InheritableName, type Resource } from '../../../shared/resources';
import { itemFieldsOf } from '../../../shared/resources/derived';
import { int, intOrNull, text } from './rows';
import type { Store } from './store';
import { scopeSql, type Row, type SqlValue } from './table';

export type OwnerKind = 'template' | 'probe';

export interface OwnerRef {
  readonly kind: OwnerKind;
  readonly pk: number;
}

export const SCALARS = INHERITABLE.filter((f) => !isItemField(f)) as Exclude<InheritableName, ItemFieldName>[];
type ScalarName = (typeof SCALARS)[number];

export interface OwnerState {
  readonly name: string;
  readonly parent: number | null;
  readonly overrides: readonly string[];
  readonly scalars: Readonly<Record<ScalarName, SqlValue>>;
}

const RESOURCE: Record<OwnerKind, Resource> = { template: vendorProbeTemplate, probe: vendorProbe };
const TABLE = { template: vendorProbeTemplate.storage.table, probe: vendorProbe.storage.table };
const SCOPE = { template: scopeSql(vendorProbeTemplate), probe: scopeSql(vendorProbe) };
/** The owner column of each kind in the item tables. */
const OWNER_COLUMN = { template: vendorProbeTemplate.storage.itemOwner!, probe: vendorProbe.storage.itemOwner! };
const ITEM_TABLE = Object.fromEntries(
  itemFieldsOf(RESOURCE.template).map(({ field, declared }) => [field, { table: declared.table, flag: declared.flag }]),
) as Record<ItemFieldName, { table: string; flag: string }>;

/** Comparable key of a stored scalar (the same form validated input takes through toSql). */
export function scalarKey(value: SqlValue | undefined): string {
  return JSON.stringify(typeof value === 'bigint' ? Number(value) : (value ?? null));
}

export class Owners {
  constructor(
    private readonly store: Store,
    private readonly now: () => number,
  ) {}

  private stateOf(row: Row): OwnerState {
    const scalars = {} as Record<ScalarName, SqlValue>;
    for (const field of SCALARS) scalars[field] = row[field] ?? null;
    return {
      name: text(row, 'name'),
      parent: intOrNull(row, 'parent_tmpl'),
      overrides: JSON.parse(text(row, 'overriden_fields')) as string[],
      scalars,
    };
  }

  private selectColumns = ['pk', 'name', 'parent_tmpl', 'overriden_fields', ...SCALARS].join(', ');

  state(ref: OwnerRef): OwnerState | undefined {
    const row = this.store
      .query(`SELECT ${this.selectColumns} FROM ${TABLE[ref.kind]} WHERE pk = ? AND ${SCOPE[ref.kind]}`)
      .get(ref.pk) as Row | undefined;
    return row ? this.stateOf(row) : undefined;
  }

  items(field: ItemFieldName, ref: OwnerRef): StoredItem[] {
    return this.itemsOf(field, ref.kind, [ref.pk]).get(ref.pk) ?? [];
  }

  /** Items of many owners at once, each list ordered by name. */
  itemsOf(field: ItemFieldName, kind: OwnerKind, pks: readonly number[]): Map<number, StoredItem[]> {
    const out = new Map<number, StoredItem[]>(pks.map((pk) => [pk, []]));
    if (pks.length === 0) return out;
    const { table, flag } = ITEM_TABLE[field];
    const column = OWNER_COLUMN[kind];
    const select = this.store
      .query(`SELECT pk, name, ${flag}, ${column} FROM ${table} WHERE ${column} IN (SELECT value FROM json_each(?))`)
      .raw();
    for (const [pk, name, value, owner] of select.all(JSON.stringify(pks)) as [number, string, number, number][]) {
      out.get(owner)?.push({ pk, name, flag: value === 1 });
    }
    // Each owner has a handful of items: sorting them here is cheaper than sorting in SQL.
    for (const items of out.values()) items.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.pk - b.pk));
    return out;
  }

  snapshot(ref: OwnerRef): Snapshot {
    const state = this.state(ref);
    if (!state) throw new Error(`no ${ref.kind} ${ref.pk}`);
    return this.snapshotOf(ref, state);
  }

  private snapshotOf(ref: OwnerRef, state: OwnerState): Snapshot {
    const snapshot = {} as Record<InheritableName, string>;
    for (const field of SCALARS) snapshot[field] = scalarKey(state.scalars[field]);
    for (const field of ['interfaces', 'protocols'] as const) {
      snapshot[field] = itemsKey(this.items(field, ref).map((i): ItemPair => [i.name, i.flag]));
    }
    return snapshot;
  }

  /** Replace an owner's items by name; true when anything changed. */
  setItems(field: ItemFieldName, ref: OwnerRef, wanted: readonly ItemPair[], current?: readonly StoredItem[]): boolean {
    const changes = diffItems(current ?? this.items(field, ref), wanted);
    if (!hasItemChanges(changes)) return false;
    const { table, flag } = ITEM_TABLE[field];
    const remove = this.store.command(`DELETE FROM ${table} WHERE pk = ?`);
    const update = this.store.command(`UPDATE ${table} SET ${flag} = ? WHERE pk = ?`);
    const add = this.store.command(`INSERT INTO ${table} (pk, name, ${flag}, ${OWNER_COLUMN[ref.kind]}) VALUES (?, ?, ?, ?)`);
    for (const pk of changes.remove) remove.run(pk);
    for (const { pk, flag: value } of changes.update) update.run(value ? 1 : 0, pk);
    for (const [name, value] of changes.add) add.run(this.store.localPk?.() ?? null, name, value ? 1 : 0, ref.pk);
    return true;
  }

  private setScalars(ref: OwnerRef, values: Partial<Record<ScalarName, SqlValue>>, touch: boolean): void {
    const names = Object.keys(values) as ScalarName[];
    if (names.length === 0 && !touch) return;
    const sets = [...names.map((n) => `${n} = ?`), ...(touch ? ['updated = ?'] : [])];
    const params = [...names.map((n) => values[n] ?? null), ...(touch ? [this.now()] : [])];
    this.store.command(`UPDATE ${TABLE[ref.kind]} SET ${sets.join(', ')} WHERE pk = ?`).run(...params, ref.pk);
  }

  /**
   * Copy `fields` from template `parentPk` into `ref`; returns the fields whose value changed
   * (and bumps `updated` when any did).
   */
  copyFrom(ref: OwnerRef, parentPk: number, fields: readonly InheritableName[]): InheritableName[] {
    if (fields.length === 0) return [];
    const parent = this.state({ kind: 'template', pk: parentPk });
    const child = this.state(ref);
    if (!parent || !child) return [];
    const changed: InheritableName[] = [];
    const scalars: Partial<Record<ScalarName, SqlValue>> = {};
    for (const field of fields) {
      if (isItemField(field)) {
        const wanted = this.items(field, { kind: 'template', pk: parentPk }).map((i): ItemPair => [i.name, i.flag]);
        if (this.setItems(field, ref, wanted)) changed.push(field);
      } else if (scalarKey(child.scalars[field]) !== scalarKey(parent.scalars[field])) {
        scalars[field] = parent.scalars[field];
        changed.push(field);
      }
    }
    if (changed.length > 0) this.setScalars(ref, scalars, true);
    return changed;
  }

  parentOf(templatePk: number): number | null {
    const row = this.store.query(`SELECT parent_tmpl FROM ${TABLE.template} WHERE pk = ?`).get(templatePk) as Row | undefined;
    return row ? intOrNull(row, 'parent_tmpl') : null;
  }

  hasProbeChildren(templatePk: number): boolean {
    return this.store.query(`SELECT 1 FROM ${TABLE.probe} WHERE ${SCOPE.probe} AND parent_tmpl = ? LIMIT 1`).get(templatePk) !== undefined;
  }

  /** Templates and probes whose parent is the template, each ordered by name (for messages). */
  children(templatePk: number): { templates: { pk: number; name: string }[]; probes: { pk: number; name: string }[] } {
    const named = (rows: Row[]) => rows.map((row) => ({ pk: int(row, 'pk'), name: text(row, 'name') }));
    return {
      templates: named(this.store.query(`SELECT pk, name FROM ${TABLE.template} WHERE parent_tmpl = ? ORDER BY name, pk`).all(templatePk) as Row[]),
      probes: named(
        this.store.query(`SELECT pk, name FROM ${TABLE.probe} WHERE ${SCOPE.probe} AND parent_tmpl = ? ORDER BY name, pk`).all(templatePk) as Row[],
      ),
    };
  }

  /**
   * Rule 2: push the changed `fields` of a template to every child, and through child templates
   * to theirs, in the caller's transaction. Probes are handled in batches: one query for their
   * parameters, one per item field for their items.
   */
  propagate(templatePk: number, fields: readonly InheritableName[], visited: Set<number> = new Set()): void {
    // Cycles are refused on write; the guard only keeps a damaged database from looping.
    if (fields.length === 0 || visited.has(templatePk)) return;
    visited.add(templatePk);
    const parentRef: OwnerRef = { kind: 'template', pk: templatePk };
    const parent = this.state(parentRef);
    if (!parent) return;
    const parentItems = new Map<ItemFieldName, ItemPair[]>();
    for (const field of fields) {
      if (isItemField(field)) parentItems.set(field, this.items(field, parentRef).map((i): ItemPair => [i.name, i.flag]));
    }

    const probes = (
      this.store
        .query(`SELECT ${this.selectColumns} FROM ${TABLE.probe} WHERE ${SCOPE.probe} AND parent_tmpl = ? ORDER BY pk`)
        .all(templatePk) as Row[]
    ).map((row) => ({ pk: int(row, 'pk'), state: this.stateOf(row) }));
    const probePks = probes.map((p) => p.pk);
    const probeItems = new Map<ItemFieldName, Map<number, StoredItem[]>>();
    for (const field of parentItems.keys()) probeItems.set(field, this.itemsOf(field, 'probe', probePks));

    for (const probe of probes) {
      const ref: OwnerRef = { kind: 'probe', pk: probe.pk };
      const reaching = fieldsReachingChild(fields, { overrides: probe.state.overrides, isTemplateWithProbes: false });
      const scalars: Partial<Record<ScalarName, SqlValue>> = {};
      let changed = false;
      for (const field of reaching) {
        if (isItemField(field)) {
          changed = this.setItems(field, ref, parentItems.get(field)!, probeItems.get(field)!.get(probe.pk)) || changed;
        } else if (scalarKey(probe.state.scalars[field]) !== scalarKey(parent.scalars[field])) {
          scalars[field] = parent.scalars[field];
          changed = true;
        }
      }
      if (changed) this.setScalars(ref, scalars, true);
    }

    const templates = this.store.query(`SELECT pk, overriden_fields FROM ${TABLE.template} WHERE parent_tmpl = ? ORDER BY pk`).all(templatePk) as Row[];
    for (const row of templates) {
      const pk = int(row, 'pk');
      const reaching = fieldsReachingChild(fields, {
        overrides: JSON.parse(text(row, 'overriden_fields')) as string[],
        isTemplateWithProbes: this.hasProbeChildren(pk),
      });
      const changed = this.copyFrom({ kind: 'template', pk }, templatePk, reaching);
      this.propagate(pk, changed, visited);
    }
  }
}
