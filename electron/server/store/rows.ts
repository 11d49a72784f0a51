/** Typed reads of SQL row columns: a wrong type is a bug in the schema or a query, so it throws. */
import type { Row } from './table';

export function int(row: Row, column: string): number {
  const value = row[column];
  if (typeof value === 'number') return value;
  if (typeof value === 'bigint') return Number(value);
  throw new TypeError(`column ${column}: expected an integer, got ${value === null ? 'null' : typeof value}`);
}

export function intOrNull(row: Row, column: string): number | null {
  return row[column] === null || row[column] === undefined ? null : int(row, column);
}

export function text(row: Row, column: string): string {
  const value = row[column];
  if (typeof value === 'string') return value;
  throw new TypeError(`column ${column}: expected text, got ${value === null ? 'null' : typeof value}`);
}

export function textOrNull(row: Row, column: string): string | null {
  return row[column] === null || row[column] === undefined ? null : text(row, column);
}
