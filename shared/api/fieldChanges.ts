/**
 * The field-level changes a write made (issue 11, "history fit for an audit"): for each field
 * the user can write, its value before and after, kept with the write's history entry. They are
 * not part of the API's entry (api.md §5 keeps its shape); the app serves them under `/app/`.
 * A secret (a password, a token) is recorded as changed, never with its values.
 */
import type { JsonObject, JsonValue, Resource } from '../resources';
import { canonical } from '../sync/merge';

/** One field's change: `from` absent on a create, `to` absent on a delete, neither for a secret. */
export interface FieldChange {
  readonly field: string;
  readonly from?: JsonValue;
  readonly to?: JsonValue;
  readonly secret?: true;
}

const SECRET_NAME = /password|token|secret/i;

/** A field whose value must never be written into the history: write-only ones and any named like a secret. */
export function isSecretField(resource: Resource, name: string): boolean {
  const field = resource.fields[name];
  return SECRET_NAME.test(name) || (field !== undefined && field.writeOnly === true && name !== 'comment');
}

/** Fields whose values a change records: what a user writes, not the comment, pks or the server's times. */
function recordedFields(resource: Resource): string[] {
  return Object.entries(resource.fields)
    .filter(([name, field]) => name !== 'pk' && name !== 'comment' && !field.readOnly && field.kind !== 'datetime' && !isSecretField(resource, name))
    .map(([name]) => name);
}

/** A value as the history keeps it: interfaces and protocols without their pks (each server has its own). */
function recorded(value: JsonValue | undefined): JsonValue {
  if (value === undefined) return null;
  if (!Array.isArray(value)) return value;
  return value.map((item) => {
    if (item === null || typeof item !== 'object' || Array.isArray(item) || !('pk' in item)) return item;
    const { pk: _, ...rest } = item;
    return rest;
  });
}

/**
 * The changes of one write, in the declaration's field order. `before` is the object as the
 * API showed it before the write (undefined for a create), `after` after it (undefined for a
 * delete); `given` the fields the request carried. A create records the fields it was given,
 * an update the fields whose value differs, a delete every field's last value; a secret field
 * the request carried is recorded as changed, without values.
 */
export function fieldChanges(resource: Resource, before: JsonObject | undefined, after: JsonObject | undefined, given: readonly string[]): FieldChange[] {
  const changes: FieldChange[] = [];
  const asked = new Set(given);
  for (const name of recordedFields(resource)) {
    if (!before) {
      if (after && asked.has(name)) changes.push({ field: name, to: recorded(after[name]) });
    } else if (!after) {
      changes.push({ field: name, from: recorded(before[name]) });
    } else {
      const from = recorded(before[name]);
      const to = recorded(after[name]);
      if (canonical(from) !== canonical(to)) changes.push({ field: name, from, to });
    }
  }
  if (after) {
    for (const name of given) if (isSecretField(resource, name) && resource.fields[name]) changes.push({ field: name, secret: true });
  }
  return changes;
}

/** Changes as JSON: `from` and `to` only where the change has them, never beside `secret`. */
export function fieldChangesJson(changes: readonly FieldChange[]): FieldChange[] {
  return changes.map((change): FieldChange => {
    if (change.secret) return { field: change.field, secret: true };
    return { field: change.field, ...('from' in change ? { from: change.from ?? null } : {}), ...('to' in change ? { to: change.to ?? null } : {}) };
  });
}

/** A change of a secret outside a resource's fields (a token regenerated, a password set). */
export function secretChange(field: string): FieldChange {
  return { field, secret: true };
}

/** The stored form read back: the changes, keeping only well-formed entries (values of secrets dropped). */
export function parseFieldChanges(value: JsonValue): FieldChange[] {
  if (!Array.isArray(value)) return [];
  const out: FieldChange[] = [];
  for (const item of value) {
    if (item === null || typeof item !== 'object' || Array.isArray(item) || typeof item.field !== 'string') continue;
    if (item.secret === true) out.push({ field: item.field, secret: true });
    else out.push({ field: item.field, ...('from' in item ? { from: item.from! } : {}), ...('to' in item ? { to: item.to! } : {}) });
  }
  return out;
}
