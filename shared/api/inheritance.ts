/**
 * Template inheritance (api.md §4) as pure decisions over comparable values; the storage layer
 * reads the values and applies what these functions decide.
 *
 * A field's value is compared through a "key": scalars as their stored form, interfaces and
 * protocols as their (name, flag) pairs sorted by name.
 */
import { INHERITABLE, type InheritableName } from '../resources/probes';
import type { JsonObject } from '../resources/fields';
import { message } from './messages';

export const ITEM_FIELDS = ['interfaces', 'protocols'] as const;
export type ItemFieldName = (typeof ITEM_FIELDS)[number];

export function isItemField(name: string): name is ItemFieldName {
  return name === 'interfaces' || name === 'protocols';
}

/** A (name, flag) pair of an interface or protocol. */
export type ItemPair = readonly [name: string, flag: boolean];

/** Comparable key of a set of items: order-insensitive, by name. */
export function itemsKey(items: Iterable<ItemPair>): string {
  return JSON.stringify([...items].map(([n, f]) => [n, f ? 1 : 0]).sort((a, b) => (a[0]! < b[0]! ? -1 : a[0]! > b[0]! ? 1 : 0)));
}

/** Every inheritable field's comparable key. */
export type Snapshot = Readonly<Record<InheritableName, string>>;

export interface ParentView {
  readonly name: string;
  readonly values: Snapshot;
}

export interface CurrentView {
  readonly parent: number | null;
  readonly overrides: readonly string[];
  readonly values: Snapshot;
}

/**
 * Rule 6: the inherited fields a write may not change. `given` holds the comparable keys of the
 * inheritable fields present in the write. Returns DRF-shaped errors, in field order.
 */
export function inheritedFieldErrors(
  given: Readonly<Partial<Record<InheritableName, string>>>,
  overrides: readonly string[],
  parentPk: number,
  parent: ParentView,
  current: CurrentView | undefined,
): JsonObject {
  const errors: JsonObject = {};
  const sameParent = current !== undefined && current.parent === parentPk;
  for (const field of INHERITABLE) {
    const value = given[field];
    if (value === undefined || overrides.includes(field)) continue;
    if (value === parent.values[field]) continue;
    // The child's own current value is accepted too, so that GET-modify-PUT works, also on a
    // child template whose protocols the protocol exception left behind.
    if (sameParent && !current.overrides.includes(field) && value === current.values[field]) continue;
    errors[field] = [message.inherited(parent.name)];
  }
  return errors;
}

/**
 * Rules 2–3: after a write, the fields the child takes from its parent now: every field not
 * overridden when the parent is new, else the fields just given back to inheritance.
 */
export function fieldsToInherit(
  parent: number | null,
  previousParent: number | null | undefined,
  overrides: readonly string[],
  previousOverrides: readonly string[],
): InheritableName[] {
  if (parent === null) return [];
  if (parent !== previousParent) return INHERITABLE.filter((f) => !overrides.includes(f));
  return INHERITABLE.filter((f) => previousOverrides.includes(f) && !overrides.includes(f));
}

/**
 * Rules 2 and 5: of the fields that changed on a template, those that reach one child. The
 * protocol exception: protocols do not reach a child template that is the parent of a probe.
 */
export function fieldsReachingChild(
  changed: Iterable<InheritableName>,
  child: { readonly overrides: readonly string[]; readonly isTemplateWithProbes: boolean },
): InheritableName[] {
  return [...changed].filter((f) => !child.overrides.includes(f) && !(f === 'protocols' && child.isTemplateWithProbes));
}

/** The fields whose keys differ between two snapshots. */
export function changedFields(before: Snapshot, after: Snapshot): InheritableName[] {
  return INHERITABLE.filter((f) => before[f] !== after[f]);
}

/** Rule 7: would making `parentPk` the parent of template `selfPk` close a cycle? */
export function closesCycle(selfPk: number, parentPk: number, parentOf: (pk: number) => number | null): boolean {
  const seen = new Set<number>();
  for (let at: number | null = parentPk; at !== null; at = parentOf(at)) {
    if (at === selfPk) return true;
    if (seen.has(at)) return true;
    seen.add(at);
  }
  return false;
}

export interface StoredItem {
  readonly pk: number;
  readonly name: string;
  readonly flag: boolean;
}

export interface ItemChanges {
  readonly remove: readonly number[];
  readonly update: readonly { readonly pk: number; readonly flag: boolean }[];
  readonly add: readonly ItemPair[];
}

/** Writing a list replaces the owner's set by name: kept names keep their pk (api.md §3.1). */
export function diffItems(current: readonly StoredItem[], wanted: readonly ItemPair[]): ItemChanges {
  const wantedByName = new Map(wanted);
  const currentByName = new Map(current.map((item) => [item.name, item]));
  return {
    remove: current.filter((item) => !wantedByName.has(item.name)).map((item) => item.pk),
    update: current
      .filter((item) => wantedByName.has(item.name) && wantedByName.get(item.name) !== item.flag)
      .map((item) => ({ pk: item.pk, flag: wantedByName.get(item.name)! })),
    add: wanted.filter(([name]) => !currentByName.has(name)),
  };
}

export function hasItemChanges(changes: ItemChanges): boolean {
  return changes.remove.length + changes.update.length + changes.add.length > 0;
}
