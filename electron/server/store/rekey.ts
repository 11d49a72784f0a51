/**
 * Once the central server has created an object made here, its negative local pk becomes the
 * remote pk everywhere it is referenced (app.md §3): the row, the rows pointing at it, the
 * full-text index, the outbox entries still to push, the bases and the local history's links.
 * Which columns and fields refer to what comes from the resource declarations.
 */
import type { JsonObject, JsonValue } from '../../../shared/resources';
import { columnsReferringTo, fieldsReferringTo, ftsColumns, pushedResource, resourcesIn } from '../../../shared/resources/derived';
import type { Row } from './columns';
import { Outbox } from './outbox';
import { int, text } from './rows';
import type { Store } from './store';
import { SyncBases } from './syncBases';

function rewrite(value: JsonValue | undefined, from: number, to: number): JsonValue | undefined {
  if (value === from) return to;
  if (Array.isArray(value)) return value.map((v) => (v === from ? to : v));
  return value;
}

/** Rewrite `from` to `to` in the object's reference fields, in place; true if any changed. */
function rewriteReferences(object: JsonObject, fields: readonly string[], from: number, to: number): boolean {
  let changed = false;
  for (const field of fields) {
    if (!(field in object)) continue;
    const next = rewrite(object[field], from, to);
    if (JSON.stringify(next) !== JSON.stringify(object[field])) {
      object[field] = next ?? null;
      changed = true;
    }
  }
  return changed;
}

/** Re-key inside the caller's transaction (foreign keys are checked at its commit). */
export function rekey(store: Store, resource: string, from: number, to: number): void {
  const declared = pushedResource(resource);
  if (!declared) throw new Error(`${resource} is not pushed`);
  const { table, fts } = declared.storage;
  store.deferForeignKeys();
  // The full-text index is keyed by rowid = pk: its entry moves with the row.
  const searched = fts === undefined ? '' : ftsColumns(fts).join(', ');
  if (fts !== undefined) store.command(`INSERT INTO ${fts}(${fts}, rowid, ${searched}) SELECT 'delete', pk, ${searched} FROM "${table}" WHERE pk = ?`).run(from);
  store.command(`UPDATE "${table}" SET pk = ? WHERE pk = ?`).run(to, from);
  if (fts !== undefined) store.command(`INSERT INTO ${fts}(rowid, ${searched}) SELECT pk, ${searched} FROM "${table}" WHERE pk = ?`).run(to);
  for (const ref of columnsReferringTo(table)) {
    store.command(`UPDATE "${ref.table}" SET "${ref.column}" = ? WHERE "${ref.column}" = ?`).run(to, from);
  }
  // Endpoint names sharing the table (both probe families share `appliance`).
  const family = resourcesIn(table)
    .filter((r) => pushedResource(r.name))
    .map((r) => r.name);
  const outbox = new Outbox(store);
  outbox.rekey(family, from, to);
  new SyncBases(store).rekey(family, from, to);

  // Pending changes that refer to the object (a probe whose template was made here): the values
  // they set, the values they were based on and the central server's values a conflict keeps, so
  // a later change of the reference meets its first change under the same pk.
  const fields = fieldsReferringTo(resource);
  if (fields.length > 0) {
    for (const entry of outbox.mentioning(from)) {
      const changes: { fields?: JsonObject; base?: JsonObject; theirs?: JsonObject } = {};
      for (const column of ['fields', 'base', 'theirs'] as const) {
        const value = entry[column];
        if (value === null) continue;
        const object = structuredClone(value);
        if (rewriteReferences(object, fields, from, to)) changes[column] = object;
      }
      if (Object.keys(changes).length > 0) outbox.rewrite(entry.seq, changes);
    }
  }

  // The local history links to the object by its new pk.
  const pattern = `%"pk":${from}%`;
  for (const row of store.query('SELECT pk, ua_objects FROM user_action WHERE ua_objects LIKE ?').all(pattern) as Row[]) {
    const objects = JSON.parse(text(row, 'ua_objects')) as Record<string, { type?: string; pk?: number; value: JsonValue }>;
    let changed = false;
    for (const entry of Object.values(objects)) {
      if (entry.pk === from && entry.type !== undefined && family.includes(entry.type)) {
        entry.pk = to;
        changed = true;
      }
    }
    if (changed) store.command('UPDATE user_action SET ua_objects = ? WHERE pk = ?').run(JSON.stringify(objects), int(row, 'pk'));
  }
}
