import type { JsonValue } from '../resources/fields';

/**
 * DRF's JSONRenderer: compact, UTF-8 unescaped, U+2028/U+2029 escaped (they end lines in
 * JavaScript), no NaN; `indent` (from `Accept: application/json; indent=N`) pretty-prints.
 */
export function renderJson(data: JsonValue, indent?: number): string {
  const text = indent ? JSON.stringify(data, null, indent) : JSON.stringify(data);
  return text.replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}
