/** Python's `str()` of a parsed JSON value: DRF puts it in messages such as `"x" is not a valid choice.` */
export function pyStr(value: unknown): string {
  return typeof value === 'string' ? value : pyRepr(value);
}

export function pyRepr(value: unknown): string {
  if (value === null || value === undefined) return 'None';
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return Number.isNaN(value) ? 'nan' : value > 0 ? 'inf' : '-inf';
    if (Number.isInteger(value) && Math.abs(value) < 1e16) return String(value);
    const text = String(value);
    return text.replace(/e\+?(-?)(\d)$/, 'e$1+0$2').replace('e+-', 'e-');
  }
  if (typeof value === 'string') {
    const quote = value.includes("'") && !value.includes('"') ? '"' : "'";
    const body = value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/\r/g, '\\r').replace(/\t/g, '\\t');
    return quote + (quote === "'" ? body.replace(/'/g, "\\'") : body) + quote;
  }
  if (Array.isArray(value)) return `[${value.map(pyRepr).join(', ')}]`;
  if (typeof value === 'object') {
    return `{${Object.entries(value as Record<string, unknown>)
      .map(([k, v]) => `${pyRepr(k)}: ${pyRepr(v)}`)
      .join(', ')}}`;
  }
  return String(value);
}

/** Characters Python's `int()` skips around a number: ASCII spaces, and Unicode ones beyond ASCII. */
const PY_SPACE = '\\t\\n\\v\\f\\r \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';
const PY_INT = new RegExp(`^[${PY_SPACE}]*([+-]?)(\\p{Nd}+(?:_\\p{Nd}+)*)[${PY_SPACE}]*$`, 'u');
const DIGIT = /\p{Nd}/u;

/** Value of a Unicode decimal digit: digits come in runs of ten starting at zero. */
function digitValue(char: string): number {
  const code = char.codePointAt(0)!;
  if (code < 0x80) return code - 48;
  let start = code;
  while (DIGIT.test(String.fromCodePoint(start - 1))) start--;
  return (code - start) % 10;
}

/**
 * Python's `int(text)` for a string: surrounding whitespace, a sign, decimal digits of any script
 * with single underscores between them. Undefined where Python raises ValueError. Django reads
 * pks, page numbers and page sizes this way.
 */
export function pythonInt(text: string): bigint | undefined {
  const match = PY_INT.exec(text);
  if (!match) return undefined;
  let value = 0n;
  for (const char of match[2]!) if (char !== '_') value = value * 10n + BigInt(digitValue(char));
  return match[1] === '-' ? -value : value;
}
