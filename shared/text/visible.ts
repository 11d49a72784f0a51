/**
 * Text from data (a file name, a host name, a central server's answer) shown on a terminal with
 * every character that could act on the terminal made visible (issue 23 §4): a file named
 * `ESC[2J` must not clear the screen, an OSC 52 must not write the clipboard, a U+202E must not
 * turn the rest of the line around. README.md ("Control characters in output") describes the forms.
 *
 * The characters made visible, as `CONTROL` matches them:
 * - C0 (U+0000–U+001F), DEL (U+007F) and C1 (U+0080–U+009F: U+009B is a CSI on many terminals);
 * - Unicode's Bidi_Control characters (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069),
 *   which reorder what follows them;
 * - the line and paragraph separators U+2028 and U+2029, which end a line on some terminals;
 * - a lone surrogate (half of a UTF-16 pair), which no encoding can write as it is.
 */

/** Every character `visible` and `visibleJson` escape (but the backslash, which only `visible` doubles); for `replace`. */
export const CONTROL = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]/gu;

const SHORT: Readonly<Record<string, string>> = { '\t': '\\t', '\n': '\\n', '\r': '\\r' };

function hex(code: number, digits: number): string {
  return code.toString(16).padStart(digits, '0');
}

/** One character of `CONTROL` in the terminal form. */
function escaped(char: string): string {
  const short = SHORT[char];
  if (short !== undefined) return short;
  const code = char.charCodeAt(0);
  return code < 0x100 ? `\\x${hex(code, 2)}` : `\\u{${hex(code, 4)}}`;
}

/**
 * `text` for a terminal: `\t`, `\n`, `\r`; `\xHH` for the other C0, DEL and C1 characters;
 * `\u{HHHH}` for the others of `CONTROL`; and a backslash doubled, so that a name holding the four
 * characters `\x1b` reads `\\x1b` and never as an escape. Lower-case hex. Everything else,
 * non-ASCII letters included, is kept as it is.
 */
export function visible(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(CONTROL, escaped);
}

/** One character of `CONTROL` as a JSON escape. */
function jsonEscaped(char: string): string {
  return `\\u${hex(char.charCodeAt(0), 4)}`;
}

/**
 * `JSON.stringify`, with every character of `CONTROL` a `\uHHHH` escape. JSON.stringify escapes
 * C0 and lone surrogates in strings itself (the C0 left raw are the indentation's newlines) and
 * leaves DEL, C1 and the others raw. Outside its strings JSON text is ASCII, so each of those is
 * inside a string, where the escape means the same character: the text parses back to the same value.
 */
export function visibleJson(value: unknown, indent?: number): string {
  // undefined for a value JSON cannot hold (undefined itself, a function): written as null.
  const text: string | undefined = JSON.stringify(value, null, indent);
  return text === undefined ? 'null' : text.replace(CONTROL, (char) => (char < ' ' ? char : jsonEscaped(char)));
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * `text` with each lone surrogate written `\u{HHHH}`, the rest as it is: what can be stored in
 * SQLite (which would write a lone surrogate as U+FFFD, losing it) and shown later, e.g. a
 * central server's error message kept as the last sync error.
 */
export function wellFormed(text: string): string {
  return text.replace(LONE_SURROGATE, (char) => `\\u{${hex(char.charCodeAt(0), 4)}}`);
}
