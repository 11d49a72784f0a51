/**
 * A value from a log made readable in a file meant to be read (a CSV cell, the site report): its
 * control characters (C0, DEL, C1, bidirectional controls, line separators, lone surrogates,
 * shared/text/visible.ts's `CONTROL`) written as the terminal shows them (`\n`, `\x1b`,
 * `\u{202e}`) but backslashes kept (`CORP\alice` stays as it is: a file is not a terminal), and a
 * value too long to read cut with what was left out said.
 */
import { CONTROL } from '../text/visible';

const SHORT: Readonly<Record<string, string>> = { '\t': '\\t', '\n': '\\n', '\r': '\\r' };

function shownChar(char: string): string {
  const short = SHORT[char];
  if (short !== undefined) return short;
  const code = char.charCodeAt(0);
  return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u{${code.toString(16).padStart(4, '0')}}`;
}

/** The value with its control characters visible. */
export function readable(value: string): string {
  return value.replace(CONTROL, shownChar);
}

/** How much of a value the report shows (the app's long-values rule: docs/decisions.md, issue 23). */
export const SHOWN_CHARS = 256;

/** The value readable and, past `limit` code points, cut, with how many were left out. */
export function shortened(value: string, limit = SHOWN_CHARS): string {
  const chars = [...value];
  if (chars.length <= limit) return readable(value);
  return `${readable(chars.slice(0, limit).join(''))}… (${chars.length - limit} more characters)`;
}
