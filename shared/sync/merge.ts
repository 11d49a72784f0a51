/**
 * The three-way merge of one object's fields when a local change is pushed (app.md §3): for
 * each field changed locally, `base` is what the central server had when the change was made,
 * `mine` the local value, `theirs` what the central server has now. A field only the remote
 * changed is simply taken; a field changed on both sides to different values is a conflict.
 * Interfaces and protocols merge item by item, by name.
 */
import type { JsonObject, JsonValue } from '../resources/fields';

export function sameValue(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  return canonical(a ?? null) === canonical(b ?? null);
}

/** JSON with object keys sorted, so that equal values compare equal. */
export function canonical(value: JsonValue): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(value[k]!)}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

/** An interface or protocol as merged: its name and its flag (`active` / `detection`). */
export interface NamedItem {
  readonly name: string;
  readonly flag: boolean;
}

/** Items of a list field as name → flag (pks are the servers' own business). */
export function itemsByName(value: JsonValue | undefined, flag: string): Map<string, boolean> {
  const out = new Map<string, boolean>();
  if (!Array.isArray(value)) return out;
  for (const item of value) {
    if (item && typeof item === 'object' && !Array.isArray(item) && typeof item.name === 'string') {
      out.set(item.name, item[flag] !== false);
    }
  }
  return out;
}

/** Three-way merge of two sets of items by name; undefined when both sides changed one name differently. */
export function mergeItems(base: Map<string, boolean>, mine: Map<string, boolean>, theirs: Map<string, boolean>): Map<string, boolean> | undefined {
  const merged = new Map<string, boolean>();
  const names = new Set([...base.keys(), ...mine.keys(), ...theirs.keys()]);
  for (const name of [...names].sort()) {
    const b = base.get(name);
    const m = mine.get(name);
    const t = theirs.get(name);
    let result: boolean | undefined;
    if (m === t) result = m;
    else if (t === b) result = m;
    else if (m === b) result = t;
    else return undefined;
    if (result !== undefined) merged.set(name, result);
  }
  return merged;
}

const ITEM_FLAGS: Readonly<Record<string, string>> = { interfaces: 'active', protocols: 'detection' };

/** A value as it is sent to the central server: interfaces and protocols without local pks, by name. */
export function pushValue(field: string, value: JsonValue | undefined): JsonValue {
  const flag = ITEM_FLAGS[field];
  if (flag === undefined) return value ?? null;
  return [...itemsByName(value, flag)].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([name, on]) => ({ name, [flag]: on }));
}

export function sameForSync(field: string, a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  return canonical(pushValue(field, a)) === canonical(pushValue(field, b));
}

export function itemsValue(items: Map<string, boolean>, flag: string): JsonValue {
  return [...items].map(([name, value]) => ({ name, [flag]: value }));
}

export interface FieldMerge {
  /** Fields to send to the central server (the merged value of each). */
  readonly patch: JsonObject;
  /** Fields in conflict: the central server's value of each. */
  readonly conflicts: JsonObject;
}

/**
 * Merge the locally changed `mine` fields against `base` and `theirs`. `itemFlags` names the
 * list fields merged by item name and their flag key.
 */
export function mergeFields(
  mine: JsonObject,
  base: JsonObject,
  theirs: JsonObject,
  itemFlags: Readonly<Record<string, string>> = { interfaces: 'active', protocols: 'detection' },
): FieldMerge {
  const patch: JsonObject = {};
  const conflicts: JsonObject = {};
  for (const [field, mineValue] of Object.entries(mine)) {
    const baseValue = base[field];
    const theirValue = theirs[field];
    const flag = itemFlags[field];
    if (flag !== undefined) {
      const merged = mergeItems(itemsByName(baseValue, flag), itemsByName(mineValue, flag), itemsByName(theirValue, flag));
      if (!merged) conflicts[field] = theirValue ?? null;
      else if (!sameItems(merged, itemsByName(theirValue, flag))) patch[field] = itemsValue(merged, flag);
      continue;
    }
    if (sameValue(theirValue, mineValue)) continue;
    if (sameValue(theirValue, baseValue)) patch[field] = mineValue;
    else conflicts[field] = theirValue ?? null;
  }
  return { patch, conflicts };
}

function sameItems(a: Map<string, boolean>, b: Map<string, boolean>): boolean {
  if (a.size !== b.size) return false;
  for (const [name, flag] of a) if (b.get(name) !== flag) return false;
  return true;
}
