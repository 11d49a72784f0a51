/**
 * The pure part of ResourceForm and ItemsTable: what a form starts from, what a save sends, and
 * where the API's errors go. No DOM, no React: tested directly.
 */
import { valueKey } from '../../../shared/api/inheritedValues';
import { INHERITABLE, type Field, type ItemsField, type JsonObject, type JsonValue, type Resource } from '../../../shared/resources';

/** One row of an interfaces or protocols table. */
export interface ItemRow {
  readonly pk?: number;
  readonly name: string;
  readonly flag: boolean;
}

/** One choice of a reference field (parent_tmpl, ruleset, sources). */
export interface RefOption {
  readonly value: number;
  readonly label: string;
  /** Shown but not selectable (e.g. a template's own descendants as its parent). */
  readonly disabled?: boolean;
}

/** The choices of a reference field, and why they could not be read if so (shown by the field). */
export interface RefChoices {
  readonly options: readonly RefOption[];
  readonly error?: string | undefined;
}

export const INHERITABLE_NAMES: readonly string[] = INHERITABLE;

/** Every message in an error value (strings, lists, dicts; items of a list named by position). */
export function messagesOf(value: JsonValue | undefined): string[] {
  if (value === undefined || value === null) return [];
  if (Array.isArray(value)) return value.flatMap((v) => (typeof v === 'string' ? [v] : messagesOf(v)));
  if (typeof value === 'object') return Object.entries(value).flatMap(([k, v]) => messagesOf(v).map((m) => (/^\d+$/.test(k) ? `item ${Number(k) + 1}: ${m}` : m)));
  return [String(value)];
}

/** The API's address message, said of a field that also takes host names (api.md §3.3). */
const ADDRESS_ONLY = 'Enter a valid IPv4 or IPv6 address.';
const ADDRESS_OR_HOST = 'Enter a valid IPv4 or IPv6 address, or a host name (probe-1.example.com).';

/**
 * A field's messages as its form shows them: the API words an address field's refusal as if only
 * IP addresses were taken (DRF's wording, kept by the server); the form says what the field takes.
 */
export function fieldMessages(field: Pick<Field, 'kind'> & { readonly format?: string }, value: JsonValue | undefined): string[] {
  return messagesOf(value).map((message) => (field.format === 'address' && message === ADDRESS_ONLY ? ADDRESS_OR_HOST : message));
}

/** An error value's messages as one line for a control; undefined when there are none. */
export function errorLineOf(value: JsonValue | undefined): string | undefined {
  const messages = messagesOf(value);
  return messages.length > 0 ? messages.join(' ') : undefined;
}

/** The rows of an items field as the API shows it (`[{pk, name, active}]`). */
export function itemsOf(value: JsonValue | undefined, flag: string): ItemRow[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((item) =>
    typeof item === 'object' && item !== null && !Array.isArray(item)
      ? [{ ...(typeof item.pk === 'number' ? { pk: item.pk } : {}), name: String(item.name ?? ''), flag: item[flag] !== false }]
      : [],
  );
}

export function isWritableField(field: Field): boolean {
  return !field.readOnly && !field.writeOnly;
}

/** The values a form starts from: the object's, else `initial`, else each field's default. */
export function initialValues(resource: Resource, object: JsonObject | undefined, initial: JsonObject = {}): JsonObject {
  const values: JsonObject = {};
  for (const [name, field] of Object.entries(resource.fields)) {
    if (!isWritableField(field)) continue;
    values[name] = object?.[name] ?? (object ? undefined : initial[name]) ?? field.default ?? (field.kind === 'string' ? '' : null);
  }
  return values;
}

function sameJson(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  return JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
}

/** A value as the API compares it: items by (name, flag), whatever their pks and order. */
export const comparable = valueKey;

export function overridesIn(value: JsonValue | undefined): string[] {
  return Array.isArray(value) ? value.map(String) : [];
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x) => b.includes(x));
}

function itemsPayload(value: JsonValue, flag: string): JsonValue {
  if (!Array.isArray(value)) return value;
  return value.map((item) => (typeof item === 'object' && item !== null && !Array.isArray(item) ? { name: item.name ?? '', [flag]: item[flag] !== false } : item));
}

export interface PayloadInput {
  readonly resource: Resource;
  readonly values: JsonObject;
  readonly object: JsonObject | undefined;
  readonly hidden: readonly string[];
  /** Whether a field is inherited now (its value is the template's, never sent). */
  readonly inherited: (name: string) => boolean;
}

/**
 * What a save sends: on create every shown, non-inherited field; on edit only the fields whose
 * value differs from the object's. `overriden_fields` goes along whenever its set changed.
 */
export function formPayload({ resource, values, object, hidden, inherited }: PayloadInput): JsonObject {
  const out: JsonObject = {};
  const inheriting = 'overriden_fields' in resource.fields;
  for (const [name, field] of Object.entries(resource.fields)) {
    if (!isWritableField(field) || hidden.includes(name) || name === 'overriden_fields' || inherited(name)) continue;
    const value = values[name];
    if (value === undefined) continue;
    if (object && (field.kind === 'items' ? comparable(value) === comparable(object[name]) : sameJson(value, object[name]))) continue;
    out[name] = field.kind === 'items' ? itemsPayload(value, (field as ItemsField).flag) : value;
  }
  if (inheriting) {
    const overrides = overridesIn(values.overriden_fields);
    if (!object || !sameSet(overrides, overridesIn(object.overriden_fields))) out.overriden_fields = INHERITABLE_NAMES.filter((f) => overrides.includes(f));
  }
  return out;
}

/**
 * The messages of a refusal that no field of the form shows: errors not tied to a field, and
 * errors of fields the form does not display; or a pointer to the fields that need attention.
 */
export function generalMessages(errors: Record<string, JsonValue>, shown: readonly string[], labelOf: (name: string) => string, fallback: string): string[] {
  const general = [...messagesOf(errors.non_field_errors), ...messagesOf(errors.detail)];
  const placed: string[] = [];
  for (const [name, value] of Object.entries(errors)) {
    if (name === 'non_field_errors' || name === 'detail') continue;
    if (shown.includes(name)) placed.push(labelOf(name));
    else general.push(`${labelOf(name)}: ${messagesOf(value).join(' ')}`);
  }
  if (general.length === 0 && placed.length > 0) general.push(`Not saved: ${placed.join(', ')} ${placed.length === 1 ? 'needs' : 'need'} attention.`);
  if (general.length === 0) general.push(fallback);
  return general;
}

/**
 * Splits the API's errors of a list-of-dicts field: DRF answers one entry per item (`{}` for a
 * valid one) when items are wrong, and a list of messages when the list as a whole is refused
 * (e.g. an inherited field). An object keyed by index is read as per item too.
 */
export function splitItemErrors(errors: JsonValue | undefined): { perRow: Map<number, string[]>; list: string[] } {
  const perRow = new Map<number, string[]>();
  const list: string[] = [];
  const addRow = (index: number, value: JsonValue) => {
    const messages = messagesOf(value);
    if (messages.length > 0) perRow.set(index, messages);
  };
  if (Array.isArray(errors)) {
    errors.forEach((entry, index) => {
      if (typeof entry === 'string') list.push(entry);
      else addRow(index, entry);
    });
  } else if (typeof errors === 'object' && errors !== null) {
    for (const [key, value] of Object.entries(errors)) {
      if (/^\d+$/.test(key)) addRow(Number(key), value);
      else list.push(...messagesOf(value));
    }
  } else {
    list.push(...messagesOf(errors));
  }
  return { perRow, list };
}

export interface ChangedInput {
  /** The fields the form shows. */
  readonly names: readonly string[];
  /** The value each field shows now (an inherited field: its template's). */
  readonly shown: (name: string) => JsonValue;
  /** The values the form started from. */
  readonly start: JsonObject;
  readonly overrides: readonly string[];
}

/**
 * The fields a user has changed (highlighted, and what leaving would lose): a value other than
 * the one the form started from, or a field overridden or given back to its template.
 */
export function changedFieldNames({ names, shown, start, overrides }: ChangedInput): string[] {
  const before = overridesIn(start.overriden_fields);
  return names.filter((name) => valueKey(shown(name)) !== valueKey(start[name]) || before.includes(name) !== overrides.includes(name));
}

/** A value in a sentence: items as their names (switched-off ones said so), empty values named. */
export function displayValue(value: JsonValue | undefined): string {
  if (value === null || value === undefined) return '(none)';
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (typeof value === 'string') return value === '' ? '(empty)' : value;
  if (typeof value === 'number') return String(value);
  if (Array.isArray(value)) {
    if (value.length === 0) return '(none)';
    return value
      .map((item) => {
        if (typeof item !== 'object' || item === null || Array.isArray(item)) return displayValue(item);
        const flag = Object.entries(item).find(([key]) => key !== 'pk' && key !== 'name')?.[1];
        return `${String(item.name ?? '')}${flag === false ? ' (off)' : ''}`;
      })
      .join(', ');
  }
  return JSON.stringify(value);
}
