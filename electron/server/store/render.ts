/**
 * JSON text of stored objects, written straight from raw SQL rows: one writer per resource,
 * compiled once from its declaration (field order, kinds). Fields a row does not hold
 * (interfaces, device ids, source lists) come in as JSON text fragments per pk.
 */
import { escapeSeparators } from '../../../shared/api/json';
import type { Resource } from '../../../shared/resources';
import { jsonTextWriter, type JsonTextWriter, type SqlValue } from './columns';

/** Computed field → pk → its JSON text. */
export type Fragments = Readonly<Record<string, ReadonlyMap<number, string>>>;

export type ObjectWriter = (row: readonly SqlValue[], pk: number, fragments: Fragments) => string;

/**
 * The writer of one resource's objects. `columns` are the row's columns, in order; every other
 * readable declared field is taken from the fragments (null when a fragment is missing).
 */
export function objectWriter(resource: Resource, columns: readonly string[]): ObjectWriter {
  const parts: { readonly key: string; readonly column: number; readonly write?: JsonTextWriter; readonly computed?: string }[] = [];
  let first = true;
  for (const [name, field] of Object.entries(resource.fields)) {
    if (field.writeOnly) continue;
    const key = `${first ? '' : ','}${JSON.stringify(name)}:`;
    first = false;
    const column = columns.indexOf(name);
    parts.push(column >= 0 ? { key, column, write: jsonTextWriter(field) } : { key, column, computed: name });
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
