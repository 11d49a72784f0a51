/**
 * Control characters made visible (issue 23 §4, README "Control characters in output"): on each side of
 * every range's boundary, the expected forms written by hand from the rule — `\t` `\n` `\r`,
 * `\xHH` below U+0100, `\u{HHHH}` above, a backslash doubled, everything else as it is.
 */
import { describe, expect, test } from 'vitest';
import { visible, visibleJson, wellFormed } from '../../shared/text/visible';
import { prng } from '../helpers/prng';

describe('visible: text from data for a terminal line', () => {
  test.each([
    ['U+0000', '\u0000', '\\x00'],
    ['U+0007 (BEL, ends an OSC)', '\u0007', '\\x07'],
    ['U+0008 (backspace)', '\u0008', '\\x08'],
    ['U+0009 (tab)', '\t', '\\t'],
    ['U+000A (newline)', '\n', '\\n'],
    ['U+000D (carriage return)', '\r', '\\r'],
    ['U+001B (ESC)', '\u001b', '\\x1b'],
    ['U+001F, the last of C0', '\u001f', '\\x1f'],
    ['U+0020, the first printable', ' ', ' '],
    ['U+007E, the last printable of ASCII', '~', '~'],
    ['U+007F (DEL)', '\u007f', '\\x7f'],
    ['U+0080, the first of C1', '\u0080', '\\x80'],
    ['U+009B (CSI)', '\u009b', '\\x9b'],
    ['U+009F, the last of C1', '\u009f', '\\x9f'],
    ['U+00A0, the first after C1', '\u00a0', '\u00a0'],
    ['U+061B, before ALM', '\u061b', '\u061b'],
    ['U+061C (ARABIC LETTER MARK)', '\u061c', '\\u{061c}'],
    ['U+061D, after ALM', '\u061d', '\u061d'],
    ['U+200D, before LRM', '\u200d', '\u200d'],
    ['U+200E (LRM)', '\u200e', '\\u{200e}'],
    ['U+200F (RLM)', '\u200f', '\\u{200f}'],
    ['U+2010, after RLM', '\u2010', '\u2010'],
    ['U+2027, before the separators', '\u2027', '\u2027'],
    ['U+2028 (LINE SEPARATOR)', '\u2028', '\\u{2028}'],
    ['U+2029 (PARAGRAPH SEPARATOR)', '\u2029', '\\u{2029}'],
    ['U+202A (LRE)', '\u202a', '\\u{202a}'],
    ['U+202B (RLE)', '\u202b', '\\u{202b}'],
    ['U+202C (PDF)', '\u202c', '\\u{202c}'],
    ['U+202D (LRO)', '\u202d', '\\u{202d}'],
    ['U+202E (RLO)', '\u202e', '\\u{202e}'],
    ['U+202F, after the overrides', '\u202f', '\u202f'],
    ['U+2065, before the isolates', '\u2065', '\u2065'],
    ['U+2066 (LRI)', '\u2066', '\\u{2066}'],
    ['U+2067 (RLI)', '\u2067', '\\u{2067}'],
    ['U+2068 (FSI)', '\u2068', '\\u{2068}'],
    ['U+2069 (PDI)', '\u2069', '\\u{2069}'],
    ['U+206A, after the isolates', '\u206a', '\u206a'],
    ['a lone high surrogate', '\ud800', '\\u{d800}'],
    ['a lone low surrogate', '\udfff', '\\u{dfff}'],
    ['a surrogate pair (one character, U+1F600)', '\ud83d\ude00', '\ud83d\ude00'],
    ['a pair the wrong way round (two lone halves)', '\ude00\ud83d', '\\u{de00}\\u{d83d}'],
    ['a backslash', '\\', '\\\\'],
  ])('%s', (_name, input, expected) => {
    expect(visible(input)).toBe(expected);
  });

  test('the sequences of a hostile file name are shown, not run', () => {
    expect(visible('log\u001b[2J\u001b]0;owned\u0007\u001b]52;c;cHduZWQ=\u0007.json')).toBe('log\\x1b[2J\\x1b]0;owned\\x07\\x1b]52;c;cHduZWQ=\\x07.json');
    expect(visible('invoice\u202efdp.exe')).toBe('invoice\\u{202e}fdp.exe');
  });

  test('a name that spells an escape is told apart from one holding the character', () => {
    expect(visible('a\\x1b')).toBe('a\\\\x1b');
    expect(visible('a\u001b')).toBe('a\\x1b');
  });

  test('letters of every script stay as they are', () => {
    expect(visible('Lyon café — 東京 شبكة')).toBe('Lyon café — 東京 شبكة');
  });

  /** The rule read backwards, written here from the documentation alone. */
  function decode(shown: string): string {
    const short: Record<string, string> = { t: '\t', n: '\n', r: '\r', '\\': '\\' };
    return shown.replace(/\\(?:x([0-9a-f]{2})|u\{([0-9a-f]{4,6})\}|(.))/gsu, (_m, x?: string, u?: string, c?: string) => {
      if (x !== undefined) return String.fromCharCode(parseInt(x, 16));
      if (u !== undefined) return String.fromCharCode(parseInt(u, 16));
      const char = short[c!];
      if (char === undefined) throw new Error(`\\${c} is no escape`);
      return char;
    });
  }

  test('unambiguous: random strings of escapes, backslashes, controls and letters read back whole', () => {
    const random = prng(23);
    const alphabet = ['\\', 'x', '1', 'b', 'u', '{', '}', 'n', 'a', 'é', '\u001b', '\n', '\t', '\u007f', '\u009b', '\u202e', '\u2066', '\ud800', '\udc00', '\ud83d\ude00'];
    for (let i = 0; i < 2000; i++) {
      let text = '';
      const length = Math.floor(random() * 12);
      for (let j = 0; j < length; j++) text += alphabet[Math.floor(random() * alphabet.length)];
      const shown = visible(text);
      expect(shown, JSON.stringify(text)).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/);
      expect(decode(shown), JSON.stringify(text)).toBe(text);
    }
  });
});

describe('visibleJson: --json output', () => {
  test.each([
    ['U+001B (JSON.stringify escapes C0 itself)', '\u001b', '"\\u001b"'],
    ['U+0020', ' ', '" "'],
    ['U+007E', '~', '"~"'],
    ['U+007F', '\u007f', '"\\u007f"'],
    ['U+0080', '\u0080', '"\\u0080"'],
    ['U+009B', '\u009b', '"\\u009b"'],
    ['U+009F', '\u009f', '"\\u009f"'],
    ['U+00A0', '\u00a0', '"\u00a0"'],
    ['U+061C', '\u061c', '"\\u061c"'],
    ['U+200E', '\u200e', '"\\u200e"'],
    ['U+200F', '\u200f', '"\\u200f"'],
    ['U+2028', '\u2028', '"\\u2028"'],
    ['U+2029', '\u2029', '"\\u2029"'],
    ['U+202A', '\u202a', '"\\u202a"'],
    ['U+202E', '\u202e', '"\\u202e"'],
    ['U+202F', '\u202f', '"\u202f"'],
    ['U+2066', '\u2066', '"\\u2066"'],
    ['U+2069', '\u2069', '"\\u2069"'],
    ['U+206A', '\u206a', '"\u206a"'],
    ['a lone surrogate', '\ud800', '"\\ud800"'],
    ['a surrogate pair', '\ud83d\ude00', '"\ud83d\ude00"'],
    ['a backslash', '\\', '"\\\\"'],
  ])('%s', (_name, input, expected) => {
    expect(visibleJson(input)).toBe(expected);
  });

  test('indented JSON keeps its own line breaks; keys are escaped as values are', () => {
    expect(visibleJson({ 'k\u009b': ['v\u202e'] }, 2)).toBe('{\n  "k\\u009b": [\n    "v\\u202e"\n  ]\n}');
  });

  test('parses back to the same value', () => {
    const value = { name: 'a\u001b[2J\u009b1m\u202e\u2066\u007f\ud800z', list: ['\u2028', '\\x1b'], n: 3, none: null };
    const text = visibleJson(value, 2);
    expect(text).not.toMatch(/[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/);
    expect(JSON.parse(text)).toEqual(value);
  });
});

describe('wellFormed: text to store', () => {
  test('a lone surrogate, high or low, is written \\u{HHHH}; a pair, control characters and the rest stay as they are', () => {
    expect(wellFormed('a\ud83db')).toBe('a\\u{d83d}b');
    expect(wellFormed('a\ude00')).toBe('a\\u{de00}');
    expect(wellFormed('\ud83d\ude00 \x1b[2J é')).toBe('\ud83d\ude00 \x1b[2J é');
    expect(wellFormed('\ude00\ud83d')).toBe('\\u{de00}\\u{d83d}');
  });
});
