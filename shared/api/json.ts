import type { JsonValue } from '../resources/fields';

/** Escape U+2028/U+2029, which end lines in JavaScript source (DRF's JSONRenderer does). */
export function escapeSeparators(text: string): string {
  if (!text.includes('\u2028') && !text.includes('\u2029')) return text;
  return text.replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}

/**
 * DRF's JSONRenderer: compact, UTF-8 unescaped, U+2028/U+2029 escaped, no NaN; `indent` (from
 * `Accept: application/json; indent=N`) pretty-prints.
 */
export function renderJson(data: JsonValue, indent?: number): string {
  return escapeSeparators(indent ? JSON.stringify(data, null, indent) : JSON.stringify(data));
}
