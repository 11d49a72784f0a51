/**
 * shared/api/pythonJson.ts against the real Python: every document below goes through
 * `/usr/bin/python3` — `json.loads` for text, DRF's JSONParser path (a codecs StreamReader over the
 * body bytes, then `json.load`) for bytes, and `bytes.decode('utf-8')` for the codec errors — and
 * Outpost must fail with exactly the same words, or succeed with the same value.
 */
import { execFileSync } from 'node:child_process';
import { beforeAll, describe, expect, test } from 'vitest';
import { pythonInt } from '../../shared/api/python';
import { MAX_DEPTH, parseJsonBytes, parseJsonText, utf8Error } from '../../shared/api/pythonJson';

/** What Python said of one input: the value as compact JSON, or the error text. */
type PythonAnswer = { ok: true; value: string } | { ok: false; error: string };

interface Case {
  /** `text`: json.loads(str); `body`: DRF's parse of bytes in a charset; `decode`: bytes.decode('utf-8'). */
  readonly kind: 'text' | 'body' | 'decode';
  readonly input: Buffer;
  readonly charset?: string;
}

const PYTHON = `
import base64, codecs, io, json, sys

def strict_constant(c):  # DRF's: NaN and Infinity are refused
    raise ValueError('Out of range float values are not JSON compliant: ' + repr(c))

def plain(v):  # JavaScript has one number type: 3.0 and 3 are the same value there
    if isinstance(v, float) and v.is_integer():
        return int(v)
    if isinstance(v, list):
        return [plain(x) for x in v]
    if isinstance(v, dict):
        return {k: plain(x) for k, x in v.items()}
    return v

out = []
for case in json.load(sys.stdin):
    data = base64.b64decode(case['input'])
    try:
        if case['kind'] == 'text':
            value = json.loads(data.decode('utf-8'), parse_constant=strict_constant)
        elif case['kind'] == 'decode':
            value = data.decode('utf-8')
        else:
            reader = codecs.getreader(case.get('charset') or 'utf-8')(io.BytesIO(data))
            value = json.load(reader, parse_constant=strict_constant)
        out.append({'ok': True, 'value': json.dumps(plain(value), separators=(',', ':'), allow_nan=True, sort_keys=True)})
    except ValueError as exc:
        out.append({'ok': False, 'error': str(exc)})
print(json.dumps(out))
`;
import { prng } from '../helpers/prng';

function askPython(cases: readonly Case[]): PythonAnswer[] {
  const input = JSON.stringify(cases.map((c) => ({ kind: c.kind, input: c.input.toString('base64'), charset: c.charset })));
  return JSON.parse(execFileSync('/usr/bin/python3', ['-c', PYTHON], { input, maxBuffer: 64 * 1024 * 1024 }).toString('utf8'));
}

/** Outpost's answer in the same shape (values dumped as Python would, for the values used here). */
function askOutpost(c: Case): PythonAnswer {
  if (c.kind === 'decode') {
    const error = utf8Error(c.input);
    return error === undefined ? { ok: true, value: pythonDump(c.input.toString('utf8')) } : { ok: false, error };
  }
  const parsed = c.kind === 'text' ? parseJsonText(c.input.toString('utf8')) : parseJsonBytes(c.input, c.charset);
  return parsed.ok ? { ok: true, value: pythonDump(parsed.value) } : { ok: false, error: parsed.reason };
}

/**
 * json.dumps(compact, allow_nan=True, sort_keys=True) of a value (ASCII only; integers and finite
 * or infinite floats). Keys are sorted on both sides: a JavaScript object lists integer-like keys
 * first, which only matters for free JSON objects, not for these parse results.
 */
function pythonDump(value: unknown): string {
  if (value === Infinity) return 'Infinity';
  if (value === -Infinity) return '-Infinity';
  if (Array.isArray(value)) return `[${value.map(pythonDump).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.entries(value)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, v]) => `${pythonDump(k)}:${pythonDump(v)}`)
      .join(',')}}`;
  }
  if (typeof value === 'string') return JSON.stringify(value).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return JSON.stringify(value);
}


const VALID = '{"name": "ET \\u00e9 \\"open\\"", "list": [1, -2, 30, true, false, null, "x\\ny"], "o": {"k": {}}, "e": []}';

const HAND_WRITTEN = [
  '',
  ' ',
  '\n\t ',
  '{',
  '}',
  '[',
  ']',
  '{"a"}',
  '{"a":}',
  '{"a" 1}',
  '{"a": 1,}',
  '{"a": 1 "b": 2}',
  '{,}',
  '[,]',
  '[1,]',
  '[1 2]',
  '{a: 1}',
  "{'a': 1}",
  '{"a": 01}',
  '{"a": -}',
  '{"a": 1.}',
  '{"a": .5}',
  '{"a": 1e}',
  '{"a": 1e+}',
  '{"a": +1}',
  '{"a": 0x1F}',
  '{"a": NaN}',
  '{"a": Infinity}',
  '{"a": -Infinity}',
  '{"a": nan}',
  '{"a": tru}',
  '{"a": True}',
  '{"a": None}',
  '{"a": nulll}',
  '"abc',
  '"a\\',
  '"\\x41"',
  '"\\u12"',
  '"\\u12G4"',
  '"\\ud800"',
  '"\\ud83d\\ude00"',
  '"tab\there"',
  '"nl\nhere"',
  '"nul\u0000here"',
  '"del\u007fhere"',
  '{"a": 1} {"b": 2}',
  '{"a": 1}x',
  '{} ',
  ' {}',
  '\ufeff{}',
  '{"\ufeff": 1}',
  '{"a": "é"}  ,',
  'null',
  'true',
  '12',
  '-0',
  '1e400',
  '-1e400',
  '[1e400, {"x": -1e999}]',
  '\u00a0{}',
  '\u2028{}',
  '{"a":\r\n 1\r\n,}',
  '\n\n\n   [\n  1,\n  2\n  ,]',
  '{"😀": "😀", }',
  '["日本語", 1',
  '[' .repeat(MAX_DEPTH - 1) + ']'.repeat(MAX_DEPTH - 1),
  '[' .repeat(50) + '1,' + ']'.repeat(49),
  '{"a":' .repeat(40) + '1' + '}'.repeat(39),
];

const INVALID_UTF8: Buffer[] = [
  Buffer.from([0xff]),
  Buffer.from([0xfe, 0xff]),
  Buffer.from([0x80]),
  Buffer.from([0xbf]),
  Buffer.from([0xc0, 0x80]),
  Buffer.from([0xc1, 0xbf]),
  Buffer.from([0xc2]),
  Buffer.from([0xc2, 0x41]),
  Buffer.from([0xe0, 0x80, 0x80]),
  Buffer.from([0xe0, 0xa0]),
  Buffer.from([0xe0, 0xa0, 0x41]),
  Buffer.from([0xed, 0xa0, 0x80]),
  Buffer.from([0xed, 0x9f]),
  Buffer.from([0xef, 0xbf]),
  Buffer.from([0xf0, 0x80, 0x80, 0x80]),
  Buffer.from([0xf0, 0x90, 0x80]),
  Buffer.from([0xf0, 0x9f, 0x98, 0x41]),
  Buffer.from([0xf4, 0x90, 0x80, 0x80]),
  Buffer.from([0xf5, 0x80, 0x80, 0x80]),
  Buffer.from([0xf8, 0x88, 0x80, 0x80, 0x80]),
  Buffer.from([0xfc]),
  Buffer.from([0xc3, 0xa9, 0xc3]),
  Buffer.from([0xe2, 0x82, 0xac, 0xe2, 0x82]),
];

/** JSON bodies around the invalid sequences: at the start, in a string, and at the very end. */
function bodiesAround(bad: Buffer): Buffer[] {
  return [
    bad,
    Buffer.concat([bad, Buffer.from('{}')]),
    Buffer.concat([Buffer.from('{"name": "'), bad, Buffer.from('"}')]),
    Buffer.concat([Buffer.from('{"name": "x"}'), bad]),
    Buffer.concat([Buffer.from('{"name": "x'), bad]),
    Buffer.concat([Buffer.from('["é", '), bad, Buffer.from(']')]),
  ];
}

function mutations(count: number, random: () => number): string[] {
  const alphabet = ['{', '}', '[', ']', ',', ':', '"', '\\', ' ', '\n', 't', 'n', 'f', '0', '-', '.', 'e', 'E', '+', 'u', 'é', '\u0001'];
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    const chars = Array.from(VALID);
    const edits = 1 + Math.floor(random() * 3);
    for (let k = 0; k < edits; k++) {
      const at = Math.floor(random() * chars.length);
      const what = random();
      const char = alphabet[Math.floor(random() * alphabet.length)]!;
      if (what < 0.4) chars[at] = char;
      else if (what < 0.7) chars.splice(at, 1);
      else chars.splice(at, 0, char);
    }
    out.push(chars.join(''));
  }
  return out;
}

const cases: Case[] = [];
let python: PythonAnswer[];

const text = (doc: string): Case => ({ kind: 'text', input: Buffer.from(doc, 'utf8') });

beforeAll(() => {
  const docs = [...HAND_WRITTEN, ...Array.from(VALID, (_, i) => VALID.slice(0, i)), ...mutations(600, prng(20261121))];
  for (const doc of docs) cases.push(text(doc));
  for (const doc of [...HAND_WRITTEN.slice(0, 40), VALID]) cases.push({ kind: 'body', input: Buffer.from(doc, 'utf8') });
  for (const bad of INVALID_UTF8) {
    cases.push({ kind: 'decode', input: bad });
    for (const body of bodiesAround(bad)) {
      cases.push({ kind: 'decode', input: body });
      for (const charset of [undefined, 'utf-8', 'UTF8', 'latin-1', 'iso-8859-1', 'ascii', 'us-ascii']) {
        cases.push(charset === undefined ? { kind: 'body', input: body } : { kind: 'body', input: body, charset });
      }
    }
  }
  python = askPython(cases);
});

describe('parse errors are worded exactly as Python words them', () => {
  test('json.loads on hand-written, truncated and mutated documents', () => {
    let checked = 0;
    cases.forEach((c, i) => {
      if (c.kind !== 'text') return;
      expect(askOutpost(c), JSON.stringify(c.input.toString('utf8'))).toEqual(python[i]);
      checked++;
    });
    expect(checked).toBeGreaterThan(700);
    expect(python.filter((p, i) => cases[i]!.kind === 'text' && !p.ok).length).toBeGreaterThan(500);
  });

  test("bytes.decode('utf-8') errors: invalid start, continuation and unexpected end", () => {
    cases.forEach((c, i) => {
      if (c.kind === 'decode') expect(askOutpost(c), c.input.toString('hex')).toEqual(python[i]);
    });
  });

  test('request bodies as DRF reads them, in UTF-8, Latin-1 and ASCII (a truncated last sequence is dropped)', () => {
    cases.forEach((c, i) => {
      if (c.kind === 'body') expect(askOutpost(c), `${c.charset ?? '(none)'} ${c.input.toString('hex')}`).toEqual(python[i]);
    });
  });

  test('a nesting deeper than MAX_DEPTH is refused with a parse error instead of exhausting the stack', () => {
    const deep = '['.repeat(10_000) + ']'.repeat(10_000);
    // Python itself raises RecursionError there (a server error on DRF): Outpost's words are its own.
    expect(parseJsonText(deep)).toEqual({ ok: false, reason: `maximum nesting depth exceeded: line 1 column ${MAX_DEPTH + 2} (char ${MAX_DEPTH + 1})` });
    const objects = '{"a":'.repeat(10_000) + '1' + '}'.repeat(10_000);
    expect(parseJsonText(objects).ok).toBe(false);
  });
});

describe("Python's int(), as Django reads pks, page numbers and page sizes", () => {
  test('pythonInt agrees with int() on signs, spaces, underscores and digits of other scripts', () => {
    const inputs = [
      '7', '007', '+7', '-7', ' 7', '7 ', '\t7\n', '\u00a07\u3000', '\x1c7\x1f', '\ufeff7', '1_000', '1__000', '_1', '1_', '+_1',
      '', ' ', '+', '-', '--7', '+-7', '7.0', '7e0', '0x7', '0b1', '0o7', '١٢', '１２', '𝟕', '٣_٤', '7\u0000', '99999999999999999999999',
      '-0', '0_0', 'seven', '7a',
    ];
    const script = 'import json, sys\nout = []\nfor s in json.load(sys.stdin):\n    try:\n        out.append(str(int(s)))\n    except ValueError:\n        out.append(None)\nprint(json.dumps(out))';
    const expected = JSON.parse(execFileSync('/usr/bin/python3', ['-c', script], { input: JSON.stringify(inputs) }).toString('utf8')) as (string | null)[];
    expect(inputs.map((text) => pythonInt(text)?.toString() ?? null)).toEqual(expected);
  });
});
