/**
 * Once the central server has created an object made here, its negative local pk becomes the
 * remote pk everywhere it is referenced (app.md §3): the row, the rows pointing at it, the
 * full-text index, the outbox entries still to push and the local history's links.
 */
import type { JsonObject, JsonValue } from '../../shared/resources';
import type { Services } from '../server/services';
import { int, text } from '../server/store/rows';
import type { Row } from '../server/store/table';
import { PUSHED, REFERENCE_FIELDS, REFERENCES } from './synced';

const SEARCH_COLUMNS = 'name, descr, address, location, serial';

/** Endpoint names sharing a table (both probe families share `appliance`). */
function resourcesOf(table: string): string[] {
  return Object.entries(PUSHED)
    .filter(([, synced]) => synced.table === table)
    .map(([name]) => name);
}

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
export function rekey(services: Services, resource: string, from: number, to: number): void {
  const synced = PUSHED[resource];
  if (!synced) throw new Error(`${resource} is not pushed`);
  const { store } = services;
  const table = synced.table;
  store.db.pragma('defer_foreign_keys = ON');
  if (table === 'appliance') {
    store.db
      .prepare(`INSERT INTO appliance_search(appliance_search, rowid, ${SEARCH_COLUMNS}) SELECT 'delete', pk, ${SEARCH_COLUMNS} FROM appliance WHERE pk = ?`)
      .run(from);
  }
  store.prepare(`UPDATE "${table}" SET pk = ? WHERE pk = ?`).run(to, from);
  if (table === 'appliance') {
    store.db.prepare(`INSERT INTO appliance_search(rowid, ${SEARCH_COLUMNS}) SELECT pk, ${SEARCH_COLUMNS} FROM appliance WHERE pk = ?`).run(to);
  }
  for (const ref of REFERENCES[table === 'appliance' ? 'appliance' : resource] ?? []) {
    store.prepare(`UPDATE "${ref.table}" SET "${ref.column}" = ? WHERE "${ref.column}" = ?`).run(to, from);
  }
  const family = resourcesOf(table);
  store.prepare(`UPDATE outbox SET pk = ? WHERE pk = ? AND resource IN (SELECT value FROM json_each(?))`).run(to, from, JSON.stringify(family));
  store.prepare(`UPDATE sync_base SET pk = ? WHERE pk = ? AND resource IN (SELECT value FROM json_each(?))`).run(to, from, JSON.stringify(family));

  // Pending changes that refer to the object (a probe whose template was made here): the values
  // they set, the values they were based on and the central server's values a conflict keeps, so
  // a later change of the reference meets its first change under the same pk.
  const fields = REFERENCE_FIELDS[resource] ?? [];
  if (fields.length > 0) {
    // Only entries whose JSON has the number in it can refer to the object.
    const rows = store.prepare("SELECT seq, fields, base, theirs FROM outbox WHERE instr(fields || base || coalesce(theirs, ''), ?) > 0").all(String(from)) as Row[];
    for (const row of rows) {
      const changes: Record<string, string> = {};
      for (const column of ['fields', 'base', 'theirs'] as const) {
        if (row[column] === null) continue;
        const object = JSON.parse(text(row, column)) as JsonObject;
        if (rewriteReferences(object, fields, from, to)) changes[column] = JSON.stringify(object);
      }
      for (const [column, json] of Object.entries(changes)) store.prepare(`UPDATE outbox SET "${column}" = ? WHERE seq = ?`).run(json, int(row, 'seq'));
    }
  }

  // The local history links to the object by its new pk.
  const pattern = `%"pk":${from}%`;
  for (const row of store.prepare('SELECT pk, ua_objects FROM user_action WHERE ua_objects LIKE ?').all(pattern) as Row[]) {
    const objects = JSON.parse(text(row, 'ua_objects')) as Record<string, { type?: string; pk?: number; value: JsonValue }>;
    let changed = false;
    for (const entry of Object.values(objects)) {
      if (entry.pk === from && entry.type !== undefined && family.includes(entry.type)) {
        entry.pk = to;
        changed = true;
      }
    }
    if (changed) store.prepare('UPDATE user_action SET ua_objects = ? WHERE pk = ?').run(JSON.stringify(objects), int(row, 'pk'));
  }
}
