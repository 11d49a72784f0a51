/**
 * The local view of an object while local changes to it wait in the outbox (app.md §3: "local
 * changes not yet pushed are re-applied on top" of what a pull brings). Scalars take the local
 * value; interfaces and protocols are merged item by item, so that items the central server
 * added meanwhile show up beside the local ones; an item changed differently on both sides
 * shows the local flag until the conflict is resolved.
 */
import type { JsonObject } from '../resources/fields';
import { itemsByName, itemsValue, mergeItems } from './merge';

export interface PendingChange {
  readonly fields: JsonObject;
  readonly base: JsonObject;
}

const ITEM_FLAGS: Readonly<Record<string, string>> = { interfaces: 'active', protocols: 'detection' };

export function overlay(remote: JsonObject, changes: readonly PendingChange[]): JsonObject {
  const out: JsonObject = { ...remote };
  for (const change of changes) {
    for (const [field, mine] of Object.entries(change.fields)) {
      const flag = ITEM_FLAGS[field];
      if (flag === undefined) {
        out[field] = mine;
        continue;
      }
      const base = itemsByName(change.base[field], flag);
      const local = itemsByName(mine, flag);
      const merged = mergeItems(base, local, itemsByName(out[field], flag)) ?? local;
      out[field] = itemsValue(merged, flag);
    }
  }
  return out;
}

/** The first of `wanted`, `wanted 2`, `wanted 3`, … that `taken` does not hold. */
export function freeName(wanted: string, taken: (name: string) => boolean): string {
  if (!taken(wanted)) return wanted;
  for (let n = 2; ; n++) {
    const candidate = `${wanted} ${n}`;
    if (!taken(candidate)) return candidate;
  }
}
