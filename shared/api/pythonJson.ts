/**
 * Request bodies are JSON decoded as the real server decodes them (Python's `json` behind DRF's
 * JSONParser), so that a malformed body gets the same `JSON parse error - <reason>` text:
 * UTF-8 errors as Python's codec words them, syntax errors with line, column and character.
 * Valid JSON is parsed by the engine's JSON.parse; the slow scanner only runs to word an error.
 */
import type { JsonValue } from '../resources/fields';

export const MAX_DEPTH = 256;

export type JsonParse = { readonly ok: true; readonly value: JsonValue } | { readonly ok: false; readonly reason: string };

/** The first invalid UTF-8 sequence: Python's codec error text, and whether the input merely ends inside a sequence. */
interface Utf8Fault {
  readonly reason: string;
  readonly start: number;
  readonly truncated: boolean;
}

function firstUtf8Fault(bytes: Uint8Array): Utf8Fault | undefined {
  const n = bytes.length;
  let i = 0;
  while (i < n) {
    const b = bytes[i]!;
    if (b < 0x80) {
      i++;
      continue;
    }
    let need: number;
    let min = 0x80;
    let max = 0xbf;
    if (b >= 0xc2 && b <= 0xdf) need = 1;
    else if (b >= 0xe0 && b <= 0xef) {
      need = 2;
      if (b === 0xe0) min = 0xa0;
      if (b === 0xed) max = 0x9f;
    } else if (b >= 0xf0 && b <= 0xf4) {
      need = 3;
      if (b === 0xf0) min = 0x90;
      if (b === 0xf4) max = 0x8f;
    } else return { reason: `'utf-8' codec can't decode byte 0x${hex(b)} in position ${i}: invalid start byte`, start: i, truncated: false };
    let j = 1;
    for (; j <= need; j++) {
      if (i + j >= n) {
        const reason =
          j === 1
            ? `'utf-8' codec can't decode byte 0x${hex(b)} in position ${i}: unexpected end of data`
            : `'utf-8' codec can't decode bytes in position ${i}-${i + j - 1}: unexpected end of data`;
        return { reason, start: i, truncated: true };
      }
      const c = bytes[i + j]!;
      const lo = j === 1 ? min : 0x80;
      const hi = j === 1 ? max : 0xbf;
      if (c < lo || c > hi) {
        const reason =
          j === 1
            ? `'utf-8' codec can't decode byte 0x${hex(b)} in position ${i}: invalid continuation byte`
            : `'utf-8' codec can't decode bytes in position ${i}-${i + j - 1}: invalid continuation byte`;
        return { reason, start: i, truncated: false };
      }
    }
    i += need + 1;
  }
  return undefined;
}

/** Python's `bytes.decode('utf-8')` error text for the first invalid sequence, or undefined when valid. */
export function utf8Error(bytes: Uint8Array): string | undefined {
  return firstUtf8Fault(bytes)?.reason;
}

/**
 * The text DRF's JSONParser reads from a UTF-8 body: it decodes through a codecs StreamReader,
 * which keeps an unfinished sequence at the very end for a next read that never comes, so those
 * bytes are silently dropped; any other invalid sequence is an error.
 */
export function utf8StreamText(bytes: Uint8Array): { readonly text: string } | { readonly reason: string } {
  const fault = firstUtf8Fault(bytes);
  if (fault && !fault.truncated) return { reason: fault.reason };
  const decoded = fault ? bytes.subarray(0, fault.start) : bytes;
  return { text: new TextDecoder('utf-8', { ignoreBOM: true }).decode(decoded) };
}

function hex(b: number): string {
  return b.toString(16).padStart(2, '0');
}

class SyntaxFault {
  constructor(
    readonly message: string,
    readonly pos: number,
  ) {}
}

/** Scanner over code points, used only to find and word the first error as Python does. */
class Scanner {
  private readonly s: string[];
  constructor(text: string) {
    this.s = Array.from(text);
  }

  private ws(i: number): number {
    while (i < this.s.length && ' \t\n\r'.includes(this.s[i]!)) i++;
    return i;
  }

  /** The whole document: one value, then only whitespace. */
  document(): void {
    if (this.s[0] === '\ufeff') throw new SyntaxFault('Unexpected UTF-8 BOM (decode using utf-8-sig)', 0);
    let i = this.ws(0);
    i = this.value(i, 0);
    i = this.ws(i);
    if (i !== this.s.length) throw new SyntaxFault('Extra data', i);
  }

  private value(i: number, depth: number): number {
    if (depth > MAX_DEPTH) throw new SyntaxFault('maximum nesting depth exceeded', i);
    const c = this.s[i];
    if (c === '"') return this.string(i + 1);
    if (c === '{') return this.object(i + 1, depth + 1);
    if (c === '[') return this.array(i + 1, depth + 1);
    for (const word of ['null', 'true', 'false']) if (this.matches(i, word)) return i + word.length;
    for (const word of ['NaN', 'Infinity', '-Infinity']) {
      if (this.matches(i, word)) throw new SyntaxFault(`Out of range float values are not JSON compliant: '${word}'`, -1);
    }
    const number = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?/.exec(this.s.slice(i, i + 400).join(''));
    if (number) return i + number[0].length;
    throw new SyntaxFault('Expecting value', i);
  }

  private matches(i: number, word: string): boolean {
    for (let k = 0; k < word.length; k++) if (this.s[i + k] !== word[k]) return false;
    return true;
  }

  private string(i: number): number {
    const begin = i - 1;
    while (true) {
      const c = this.s[i];
      if (c === undefined) throw new SyntaxFault('Unterminated string starting at', begin);
      if (c === '"') return i + 1;
      if (c < ' ') throw new SyntaxFault('Invalid control character at', i);
      if (c === '\\') {
        const e = this.s[i + 1];
        if (e === undefined) throw new SyntaxFault('Unterminated string starting at', begin);
        if (e === 'u') {
          // Python wants the four digits and at least one character after them.
          const digits = this.s.slice(i + 2, i + 6).join('');
          if (i + 6 >= this.s.length || !/^[0-9a-fA-F]{4}$/.test(digits)) throw new SyntaxFault('Invalid \\uXXXX escape', i + 1);
          i += 6;
          continue;
        }
        if (!'"\\/bfnrt'.includes(e)) throw new SyntaxFault('Invalid \\escape', i);
        i += 2;
        continue;
      }
      i++;
    }
  }

  private object(i: number, depth: number): number {
    i = this.ws(i);
    if (this.s[i] === '}') return i + 1;
    while (true) {
      if (this.s[i] !== '"') throw new SyntaxFault('Expecting property name enclosed in double quotes', i);
      i = this.ws(this.string(i + 1));
      if (this.s[i] !== ':') throw new SyntaxFault("Expecting ':' delimiter", i);
      i = this.ws(this.value(this.ws(i + 1), depth));
      if (this.s[i] === '}') return i + 1;
      if (this.s[i] !== ',') throw new SyntaxFault("Expecting ',' delimiter", i);
      i = this.ws(i + 1);
    }
  }

  private array(i: number, depth: number): number {
    i = this.ws(i);
    if (this.s[i] === ']') return i + 1;
    while (true) {
      i = this.ws(this.value(i, depth));
      if (this.s[i] === ']') return i + 1;
      if (this.s[i] !== ',') throw new SyntaxFault("Expecting ',' delimiter", i);
      i = this.ws(i + 1);
    }
  }

  where(fault: SyntaxFault): string {
    if (fault.pos < 0) return fault.message;
    let line = 1;
    let lastNewline = -1;
    for (let k = 0; k < fault.pos; k++) {
      if (this.s[k] === '\n') {
        line++;
        lastNewline = k;
      }
    }
    return `${fault.message}: line ${line} column ${fault.pos - lastNewline} (char ${fault.pos})`;
  }
}

/** Deepest bracket nesting, strings skipped; cheap guard before handing text to JSON.parse. */
function nestingDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++;
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 91 || c === 123) {
      depth++;
      if (depth > deepest) deepest = depth;
    } else if (c === 93 || c === 125) depth--;
  }
  return deepest;
}

export function parseJsonText(text: string): JsonParse {
  if (nestingDepth(text) <= MAX_DEPTH && !text.startsWith('\ufeff')) {
    try {
      // A number too large for a double is infinite, as Python's float() makes it; only the
      // literals NaN and Infinity are refused (the scanner words that).
      return { ok: true, value: JSON.parse(text) as JsonValue };
    } catch {
      // worded below
    }
  }
  const scanner = new Scanner(text);
  try {
    scanner.document();
  } catch (fault) {
    if (fault instanceof SyntaxFault) return { ok: false, reason: scanner.where(fault) };
    throw fault;
  }
  return { ok: false, reason: 'maximum nesting depth exceeded' };
}

/** Python's codec names (and aliases) of the charsets decoded here, as `codecs.lookup` normalises them. */
const CODECS: Readonly<Record<string, 'utf-8' | 'latin-1' | 'ascii'>> = Object.fromEntries([
  ...['utf_8', 'utf8', 'u8', 'utf', 'utf8_ucs2', 'utf8_ucs4', 'cp65001'].map((name) => [name, 'utf-8'] as const),
  ...['latin_1', 'latin1', 'latin', 'l1', '8859', 'cp819', 'csisolatin1', 'ibm819', 'iso8859', 'iso8859_1', 'iso_8859_1', 'iso_8859_1_1987', 'iso_ir_100'].map(
    (name) => [name, 'latin-1'] as const,
  ),
  ...['ascii', '646', 'ansi_x3.4_1968', 'ansi_x3.4_1986', 'ansi_x3_4_1968', 'cp367', 'csascii', 'ibm367', 'iso646_us', 'iso_646.irv_1991', 'iso_ir_6', 'us', 'us_ascii'].map(
    (name) => [name, 'ascii'] as const,
  ),
]);

function codecOf(charset: string): 'utf-8' | 'latin-1' | 'ascii' {
  const normalised = charset
    .toLowerCase()
    .replace(/[^a-z0-9.]+/g, '_')
    .replace(/^_+|_+$/g, '');
  // Django ignores a charset Python does not know and reads the body as UTF-8; a known codec
  // other than these three is read as UTF-8 too (JSON is UTF-8; see docs/differences.md).
  return CODECS[normalised] ?? 'utf-8';
}

/** Python's latin-1: every byte is the code point of the same number. */
function latin1Text(bytes: Uint8Array): string {
  let text = '';
  for (let i = 0; i < bytes.length; i += 8192) text += String.fromCharCode(...bytes.subarray(i, i + 8192));
  return text;
}

/** Decode a body in its declared charset (UTF-8 by default) as DRF's JSONParser does, and parse it. */
export function parseJsonBytes(bytes: Uint8Array, charset = 'utf-8'): JsonParse {
  let text: string;
  switch (codecOf(charset)) {
    case 'latin-1':
      text = latin1Text(bytes);
      break;
    case 'ascii': {
      const bad = bytes.findIndex((b) => b >= 0x80);
      if (bad >= 0) return { ok: false, reason: `'ascii' codec can't decode byte 0x${hex(bytes[bad]!)} in position ${bad}: ordinal not in range(128)` };
      text = latin1Text(bytes);
      break;
    }
    case 'utf-8': {
      const decoded = utf8StreamText(bytes);
      if ('reason' in decoded) return { ok: false, reason: decoded.reason };
      text = decoded.text;
    }
  }
  return parseJsonText(text);
}
