/**
 * JSON text of stored objects, written straight from raw SQL rows: one writer per resource,
 * compiled once from its declaration (field order, kinds). Fields a row does not hold
 * (interfaces, device ids, source lists) come in as JSON text fragments per pk.
 */
import { formatDateTime } from '../../../shared/api/datetime';
import { escapeSeparators } from '../../../shared/api/json';
import type { Field, Resource } from '../../../shared/resources';
import type { SqlValue } from './table';

/** Computed field → pk → its JSON text. */
export type Fragments = Readonly<Record<string, ReadonlyMap<number, string>>>;

export type ObjectWriter = (row: readonly SqlValue[], pk: number, fragments: Fragments) => string;

type ValueWriter = (value: SqlValue | undefined) => string;

const nullable =
  (write: (value: SqlValue) => string): ValueWriter =>
  (value) =>
    value === null || value === undefined ? 'null' : write(value);

function valueWriter(field: Field): ValueWriter {
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

/**
 * The writer of one resource's objects. `columns` are the row's columns, in order; every other
 * readable declared field is taken from the fragments (null when a fragment is missing).
 */
export function objectWriter(resource: Resource, columns: readonly string[]): ObjectWriter {
  const parts: { readonly key: string; readonly column: number; readonly write?: ValueWriter; readonly computed?: string }[] = [];
  let first = true;
  for (const [name, field] of Object.entries(resource.fields)) {
    if (field.writeOnly) continue;
    const key = `${first ? '' : ','}${JSON.stringify(name)}:`;
    first = false;
    const column = columns.indexOf(name);
    parts.push(column >= 0 ? { key, column, write: valueWriter(field) } : { key, column, computed: name });
  }
  return (row, pk, fragments) => {
    let out = '{';
    for (const part of parts) {
      out += part.key;
      out += part.write ? part.write(row[part.column]) : (fragments[part.computed!]?.get(pk) ?? 'null');
    }
    return escapeSeparators(out + '}');
  };
}
