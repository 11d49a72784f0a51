/** Python's `str()` of a parsed JSON value: DRF puts it in messages such as `"x" is not a valid choice.` */
export function pyStr(value: unknown): string {
  return typeof value === 'string' ? value : pyRepr(value);
}

export function pyRepr(value: unknown): string {
  if (value === null || value === undefined) return 'None';
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (typeof value === 'number') {
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
