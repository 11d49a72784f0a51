/**
 * The one place a field kind meets SQL: the column type it is stored in, how a value is written
 * (from validated input or from a central server's JSON), read back as the API shows it, and
 * written straight into JSON text from a raw row. Datetimes are integer microseconds (UTC),
 * booleans 0/1, lists and free JSON compact JSON text.
 */
import { parseJsonText } from '../../../shared/api/pythonJson';
import { formatDateTime, inDateTimeRange, parseIsoDateTime } from '../../../shared/api/datetime';
import type { Field, FieldKind, JsonValue } from '../../../shared/resources';

export type SqlValue = string | number | bigint | null | Buffer;
export type Row = Record<string, SqlValue>;

/** The declared type of the column holding a field of this kind (SQLite's type affinity). */
export const COLUMN_TYPE: Readonly<Record<FieldKind, 'INTEGER' | 'TEXT'>> = {
  integer: 'INTEGER',
  boolean: 'INTEGER',
  datetime: 'INTEGER',
  ref: 'INTEGER',
  string: 'TEXT',
  choice: 'TEXT',
  date: 'TEXT',
  choiceList: 'TEXT',
  json: 'TEXT',
  // Kept in tables of their own (item tables, join tables), never as a column.
  refList: 'TEXT',
  items: 'TEXT',
};

/**
 * A value as stored. Datetimes arrive as the API's ISO text (from a central server) or as
 * microseconds; a boolean is 0/1 wherever it arrives.
 */
export function toSql(field: Field, value: JsonValue): SqlValue {
  if (value === null) return null;
  switch (field.kind) {
    case 'boolean':
      return value === true || value === 1 ? 1 : 0;
    case 'datetime':
      return typeof value === 'string' ? (parseIsoDateTime(value) ?? null) : typeof value === 'number' ? value : null;
    case 'choiceList':
    case 'json':
      return JSON.stringify(value);
    default:
      if (typeof value === 'boolean') return value ? 1 : 0;
      return typeof value === 'object' ? JSON.stringify(value) : value;
  }
}

/** A stored value as the API shows it. */
export function fromSql(field: Field, value: SqlValue | undefined): JsonValue {
  if (value === null || value === undefined) return null;
  switch (field.kind) {
    case 'boolean':
      return value === 1 || value === 1n;
    case 'datetime':
      return formatDateTime(Number(value));
    case 'choiceList':
    case 'json':
      return JSON.parse(String(value)) as JsonValue;
    default:
      return typeof value === 'bigint' ? Number(value) : (value as string | number);
  }
}

/** A value from outside the database (a workspace bundle) as the column holds it, or what the column holds instead. */
export type ColumnRead = { readonly ok: true; readonly value: JsonValue } | { readonly ok: false; readonly expected: string };

/**
 * A column's value from outside the database (a workspace bundle's row), its type checked
 * strictly for the field's kind, then read as the API shows it (a datetime stays microseconds,
 * checked for Python's range). Nothing is converted that the database would not have written.
 */
export function readColumn(field: Field, value: unknown): ColumnRead {
  if (value === null) return { ok: true, value: null };
  switch (field.kind) {
    case 'integer':
    case 'ref':
      return Number.isSafeInteger(value) ? { ok: true, value: value as number } : { ok: false, expected: 'an integer' };
    case 'boolean':
      return value === 0 || value === 1 ? { ok: true, value: value === 1 } : { ok: false, expected: '0 or 1' };
    case 'datetime':
      return Number.isInteger(value) && inDateTimeRange(Math.floor((value as number) / 1000))
        ? { ok: true, value: value as number }
        : { ok: false, expected: 'a time in microseconds since 1970 within the years 1-9999' };
    case 'choiceList':
    case 'json':
      if (typeof value !== 'string') return { ok: false, expected: 'JSON text' };
      {
        // As the API parses a body: nested at most MAX_DEPTH levels (a deeper one would overflow what reads it).
        const parsed = parseJsonText(value);
        return parsed.ok ? { ok: true, value: parsed.value } : { ok: false, expected: `JSON text (${parsed.reason})` };
      }
    case 'refList':
    case 'items':
      return { ok: false, expected: 'nothing (kept in a table of its own)' };
    default:
      return typeof value === 'string' ? { ok: true, value } : { ok: false, expected: 'text' };
  }
}

/** A list filter's value as compared with the column. */
export function filterToSql(field: Field, value: string | number | boolean): SqlValue {
  if (typeof value === 'boolean') return value ? 1 : 0;
  return field.kind === 'string' || field.kind === 'choice' ? String(value) : value;
}

export type JsonTextWriter = (value: SqlValue | undefined) => string;

const nullable =
  (write: (value: SqlValue) => string): JsonTextWriter =>
  (value) =>
    value === null || value === undefined ? 'null' : write(value);

/** The JSON text of a stored value, written without building the value (the list writer's path). */
export function jsonTextWriter(field: Field): JsonTextWriter {
  switch (field.kind) {
    case 'boolean':
      return nullable((v) => (v === 1 || v === 1n ? 'true' : 'false'));
    case 'integer':
    case 'ref':
      return nullable((v) => String(v));
    case 'datetime':
      return nullable((v) => `"${formatDateTime(Number(v))}"`);
    case 'choiceList':
    case 'json':
    case 'refList':
      // Stored as the compact JSON text JSON.stringify wrote.
      return nullable((v) => String(v));
    default:
      return nullable((v) => JSON.stringify(typeof v === 'bigint' ? Number(v) : v));
  }
}
