/**
 * The host list as CSV (issue 24 §3, docs/report.md "CSV"), written so that Excel and LibreOffice
 * open it right and a value from a hostile log stays text:
 *
 * - UTF-8 with a byte order mark (Excel reads UTF-8 only with it), CRLF line ends, RFC 4180
 *   quoting (a cell with the delimiter, a quote, CR or LF is quoted, its quotes doubled);
 * - a list column's values in one cell, one value a line (LF inside the quoted cell: a spreadsheet
 *   shows them stacked);
 * - a value's control characters (C0, DEL, C1, bidirectional controls, line separators, lone
 *   surrogates) written visibly, as the terminal shows them (`\n`, `\x1b`, `\u{202e}`;
 *   ./readable.ts) but with backslashes kept as they are (`CORP\alice` stays): so no value
 *   can break a row, fake a second value of its list or turn a line around. The JSON export keeps
 *   every value exact;
 * - no formula injection: a value starting with `=`, `+`, `-`, `@`, a tab or a carriage return
 *   gets a leading `'`, which spreadsheets take as "this is text".
 *
 * No I/O: the server and the CLI stream these strings.
 */
import { readable } from './readable';
import { columnValues, hostColumn, type HostColumnId, type HostRow } from '../app/hostSurvey';

export const CSV_BOM = '\ufeff';
export const CSV_LINE_END = '\r\n';
/** Between the values of a list column inside its cell. */
export const CSV_LIST_SEPARATOR = '\n';

/** `,` by default; `;` for a spreadsheet set to a language whose list separator it is (French, German…). */
export type CsvDelimiter = ',' | ';';

export function parseCsvDelimiter(text: string | undefined): CsvDelimiter | undefined {
  if (text === undefined || text === '' || text === ',' || text === 'comma') return ',';
  if (text === ';' || text === 'semicolon') return ';';
  return undefined;
}

/** The first characters a spreadsheet reads as the start of a formula (or of a cell's own control). */
const FORMULA_START = /^[=+\-@\t\r]/;

/** One value as a spreadsheet should get it: neutralised if it could start a formula, its control characters visible. */
export function csvValue(value: string): string {
  const prefix = FORMULA_START.test(value) ? "'" : '';
  return prefix + readable(value);
}

/** A cell of the row: quoted when it must be. */
export function csvCell(text: string, delimiter: CsvDelimiter = ','): string {
  return text.includes(delimiter) || /["\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** One line of cells, CRLF ended. */
export function csvLine(cells: readonly string[], delimiter: CsvDelimiter = ','): string {
  return cells.map((cell) => csvCell(cell, delimiter)).join(delimiter) + CSV_LINE_END;
}

/** The header line: the columns' labels. */
export function hostCsvHeader(columns: readonly HostColumnId[], delimiter: CsvDelimiter = ','): string {
  return csvLine(columns.map((id) => hostColumn(id)?.label ?? id), delimiter);
}

/** A host's line: each column's values, each made safe, a list's joined one a line. */
export function hostCsvLine(row: HostRow, columns: readonly HostColumnId[], delimiter: CsvDelimiter = ','): string {
  return csvLine(
    columns.map((id) => columnValues(row, id).map(csvValue).join(CSV_LIST_SEPARATOR)),
    delimiter,
  );
}
