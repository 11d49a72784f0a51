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

/** Character codes of JSON's grammar (all ASCII). */
const TAB = 9;
const NEWLINE = 10;
const RETURN = 13;
const SPACE = 32;
const QUOTE = 34;
const PLUS = 43;
const COMMA = 44;
const MINUS = 45;
const DOT = 46;
const ZERO = 48;
const ONE = 49;
const NINE = 57;
const COLON = 58;
const UPPER_E = 69;
const OPEN_BRACKET = 91;
const BACKSLASH = 92;
const CLOSE_BRACKET = 93;
const LOWER_E = 101;
const LOWER_U = 117;
const OPEN_BRACE = 123;
const CLOSE_BRACE = 125;

const WORDS = ['null', 'true', 'false'];
const OUT_OF_RANGE = ['NaN', 'Infinity', '-Infinity'];

const isDigit = (code: number) => code >= ZERO && code <= NINE;
const isHex = (code: number) => isDigit(code) || (code >= 65 && code <= 70) || (code >= 97 && code <= 102);
const isLowSurrogate = (code: number) => code >= 0xdc00 && code <= 0xdfff;
const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;

/**
 * Scanner used only to find and word the first error as Python does. It walks UTF-16 code units
 * (every character that matters to JSON's grammar is ASCII) in one pass, and turns the error's
 * position into code points, Python's unit, once at the end: a document of millions of values
 * is scanned in milliseconds.
 */
class Scanner {
  constructor(private readonly s: string) {}

  private ws(i: number): number {
    const s = this.s;
    for (;;) {
      const c = s.charCodeAt(i);
      if (c !== SPACE && c !== TAB && c !== NEWLINE && c !== RETURN) return i;
      i++;
    }
  }

  /** The whole document: one value, then only whitespace. */
  document(): void {
    if (this.s.charCodeAt(0) === 0xfeff) throw new SyntaxFault('Unexpected UTF-8 BOM (decode using utf-8-sig)', 0);
    let i = this.ws(0);
    i = this.value(i, 0);
    i = this.ws(i);
    if (i !== this.s.length) throw new SyntaxFault('Extra data', i);
  }

  private value(i: number, depth: number): number {
    if (depth > MAX_DEPTH) throw new SyntaxFault('maximum nesting depth exceeded', i);
    const c = this.s.charCodeAt(i);
    if (c === QUOTE) return this.string(i + 1);
    if (c === OPEN_BRACE) return this.object(i + 1, depth + 1);
    if (c === OPEN_BRACKET) return this.array(i + 1, depth + 1);
    // No word is a number's prefix, so the number can be tried first (the common case).
    const end = this.number(i);
    if (end > i) return end;
    for (const word of WORDS) if (this.s.startsWith(word, i)) return i + word.length;
    for (const word of OUT_OF_RANGE) {
      if (this.s.startsWith(word, i)) throw new SyntaxFault(`Out of range float values are not JSON compliant: '${word}'`, -1);
    }
    throw new SyntaxFault('Expecting value', i);
  }

  /**
   * The end of the number at `i` (`i` itself when there is none), as Python's NUMBER_RE
   * `-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?` matches it (ASCII digits, however many).
   */
  private number(i: number): number {
    const s = this.s;
    const at = (k: number) => (k < s.length ? s.charCodeAt(k) : -1);
    let j = i;
    if (at(j) === MINUS) j++;
    if (at(j) === ZERO) j++;
    else if (at(j) >= ONE && at(j) <= NINE) {
      j++;
      while (isDigit(at(j))) j++;
    } else return i;
    if (at(j) === DOT && isDigit(at(j + 1))) {
      j += 2;
      while (isDigit(at(j))) j++;
    }
    if (at(j) === LOWER_E || at(j) === UPPER_E) {
      let k = j + 1;
      if (at(k) === PLUS || at(k) === MINUS) k++;
      if (isDigit(at(k))) {
        while (isDigit(at(k))) k++;
        j = k;
      }
    }
    return j;
  }

  private string(i: number): number {
    const s = this.s;
    const begin = i - 1;
    for (;;) {
      if (i >= s.length) throw new SyntaxFault('Unterminated string starting at', begin);
      const c = s.charCodeAt(i);
      if (c === QUOTE) return i + 1;
      if (c < SPACE) throw new SyntaxFault('Invalid control character at', i);
      if (c === BACKSLASH) {
        if (i + 1 >= s.length) throw new SyntaxFault('Unterminated string starting at', begin);
        const e = s.charCodeAt(i + 1);
        if (e === LOWER_U) {
          // Python wants the four digits and at least one character after them.
          let hex = i + 6 < s.length;
          for (let k = i + 2; hex && k < i + 6; k++) hex = isHex(s.charCodeAt(k));
          if (!hex) throw new SyntaxFault('Invalid \\uXXXX escape', i + 1);
          i += 6;
          continue;
        }
        if (!'"\\/bfnrt'.includes(s.charAt(i + 1))) throw new SyntaxFault('Invalid \\escape', i);
        i += 2;
        continue;
      }
      i++;
    }
  }

  private object(i: number, depth: number): number {
    const s = this.s;
    i = this.ws(i);
    if (s.charCodeAt(i) === CLOSE_BRACE) return i + 1;
    for (;;) {
      if (s.charCodeAt(i) !== QUOTE) throw new SyntaxFault('Expecting property name enclosed in double quotes', i);
      i = this.ws(this.string(i + 1));
      if (s.charCodeAt(i) !== COLON) throw new SyntaxFault("Expecting ':' delimiter", i);
      i = this.ws(this.value(this.ws(i + 1), depth));
      if (s.charCodeAt(i) === CLOSE_BRACE) return i + 1;
      if (s.charCodeAt(i) !== COMMA) throw new SyntaxFault("Expecting ',' delimiter", i);
      i = this.ws(i + 1);
    }
  }

  private array(i: number, depth: number): number {
    const s = this.s;
    i = this.ws(i);
    if (s.charCodeAt(i) === CLOSE_BRACKET) return i + 1;
    for (;;) {
      i = this.ws(this.value(i, depth));
      if (s.charCodeAt(i) === CLOSE_BRACKET) return i + 1;
      if (s.charCodeAt(i) !== COMMA) throw new SyntaxFault("Expecting ',' delimiter", i);
      i = this.ws(i + 1);
    }
  }

  /** The error in Python's words: line, column and character counted in code points. */
  where(fault: SyntaxFault): string {
    if (fault.pos < 0) return fault.message;
    const s = this.s;
    let line = 1;
    let char = 0;
    let lastNewline = -1;
    for (let k = 0; k < fault.pos; k++) {
      const c = s.charCodeAt(k);
      // The second half of a surrogate pair is the same character as the first.
      if (isLowSurrogate(c) && k > 0 && isHighSurrogate(s.charCodeAt(k - 1))) continue;
      if (c === NEWLINE) {
        line++;
        lastNewline = char;
      }
      char++;
    }
    return `${fault.message}: line ${line} column ${char - lastNewline} (char ${char})`;
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

/**
 * Python's words for the first syntax error of a document, or undefined when it is valid JSON —
 * the verdict of parseJsonText, found without building any value (a document of millions of
 * values costs one linear scan).
 */
export function jsonSyntaxError(text: string): string | undefined {
  const scanner = new Scanner(text);
  try {
    scanner.document();
  } catch (fault) {
    if (fault instanceof SyntaxFault) return scanner.where(fault);
    throw fault;
  }
  return nestingDepth(text) > MAX_DEPTH ? 'maximum nesting depth exceeded' : undefined;
}

/** The first character of a document that is not JSON whitespace ('' for none). */
export function firstSignificant(text: string): string {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c !== SPACE && c !== TAB && c !== NEWLINE && c !== RETURN) return text.charAt(i);
  }
  return '';
}

/**
 * The items of a document that is a valid JSON array (jsonSyntaxError found nothing), parsed one
 * at a time: a list of millions never exists whole, and a caller that stops early parses no more.
 */
export function* arrayItems(text: string): Generator<JsonValue> {
  let depth = 0;
  let start = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) inString = true;
    else if (c === OPEN_BRACKET || c === OPEN_BRACE) {
      if (++depth === 1) start = i + 1;
    } else if (c === CLOSE_BRACKET || c === CLOSE_BRACE) {
      if (--depth > 0) continue;
      // The last item; only an empty array has none.
      const last = text.slice(start, i);
      if (firstSignificant(last) !== '') yield JSON.parse(last) as JsonValue;
      return;
    } else if (c === COMMA && depth === 1) {
      yield JSON.parse(text.slice(start, i)) as JsonValue;
      start = i + 1;
    }
  }
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

/** A body's text in its declared charset (UTF-8 by default) as DRF's JSONParser decodes it, or the codec's error. */
export function decodeJsonBytes(bytes: Uint8Array, charset = 'utf-8'): { readonly text: string } | { readonly reason: string } {
  switch (codecOf(charset)) {
    case 'latin-1':
      return { text: latin1Text(bytes) };
    case 'ascii': {
      const bad = bytes.findIndex((b) => b >= 0x80);
      if (bad >= 0) return { reason: `'ascii' codec can't decode byte 0x${hex(bytes[bad]!)} in position ${bad}: ordinal not in range(128)` };
      return { text: latin1Text(bytes) };
    }
    case 'utf-8':
      return utf8StreamText(bytes);
  }
}

/** Decode a body in its declared charset (UTF-8 by default) as DRF's JSONParser does, and parse it. */
export function parseJsonBytes(bytes: Uint8Array, charset = 'utf-8'): JsonParse {
  const decoded = decodeJsonBytes(bytes, charset);
  return 'reason' in decoded ? { ok: false, reason: decoded.reason } : parseJsonText(decoded.text);
}
