/**
 * Request bodies are JSON decoded as the real server decodes them (Python's `json` behind DRF's
 * JSONParser), so that a malformed body gets the same `JSON parse error - <reason>` text:
 * UTF-8 errors as Python's codec words them, syntax errors with line, column and character.
 * Valid JSON is parsed by the engine's JSON.parse; the slow scanner only runs to word an error.
 */
import type { JsonValue } from '../resources/fields';

export const MAX_DEPTH = 256;

export type JsonParse = { readonly ok: true; readonly value: JsonValue } | { readonly ok: false; readonly reason: string };

/** Python's UTF-8 codec error text for the first invalid sequence, or undefined when valid. */
export function utf8Error(bytes: Uint8Array): string | undefined {
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
    } else return `'utf-8' codec can't decode byte 0x${hex(b)} in position ${i}: invalid start byte`;
    let j = 1;
    for (; j <= need; j++) {
      if (i + j >= n) {
        return j === 1
          ? `'utf-8' codec can't decode byte 0x${hex(b)} in position ${i}: unexpected end of data`
          : `'utf-8' codec can't decode bytes in position ${i}-${i + j - 1}: unexpected end of data`;
      }
      const c = bytes[i + j]!;
      const lo = j === 1 ? min : 0x80;
      const hi = j === 1 ? max : 0xbf;
      if (c < lo || c > hi) {
        return j === 1
          ? `'utf-8' codec can't decode byte 0x${hex(b)} in position ${i}: invalid continuation byte`
          : `'utf-8' codec can't decode bytes in position ${i}-${i + j - 1}: invalid continuation byte`;
      }
    }
    i += need + 1;
  }
  return undefined;
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
          const digits = this.s.slice(i + 2, i + 6).join('');
          if (!/^[0-9a-fA-F]{4}$/.test(digits)) throw new SyntaxFault('Invalid \\uXXXX escape', i + 1);
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

function hasNonFinite(value: JsonValue): boolean {
  if (typeof value === 'number') return !Number.isFinite(value);
  if (Array.isArray(value)) return value.some(hasNonFinite);
  if (value !== null && typeof value === 'object') return Object.values(value).some(hasNonFinite);
  return false;
}

export function parseJsonText(text: string): JsonParse {
  if (nestingDepth(text) <= MAX_DEPTH && !text.startsWith('\ufeff')) {
    try {
      const value = JSON.parse(text) as JsonValue;
      if (hasNonFinite(value)) return { ok: false, reason: 'Out of range float values are not JSON compliant' };
      return { ok: true, value };
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

const LATIN1 = new Set(['latin-1', 'latin1', 'iso-8859-1', 'iso8859-1', 'l1', 'cp819']);

/** Decode a body in its declared charset (UTF-8 by default) and parse it. */
export function parseJsonBytes(bytes: Uint8Array, charset = 'utf-8'): JsonParse {
  const name = charset.trim().toLowerCase();
  let text: string;
  if (LATIN1.has(name)) {
    text = new TextDecoder('latin1').decode(bytes);
  } else if (name === 'utf-8' || name === 'utf8' || name === '' || name === 'ascii' || name === 'us-ascii') {
    const error = utf8Error(bytes);
    if (error) return { ok: false, reason: error };
    text = new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes);
  } else {
    return { ok: false, reason: `unknown encoding: ${charset}` };
  }
  return parseJsonText(text);
}
