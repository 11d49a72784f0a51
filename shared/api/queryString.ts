/**
 * Query strings as Django and DRF read and write them: `parse` follows Python's
 * `parse_qsl(keep_blank_values=True)` (later values of a repeated key win in `get`), and
 * `encode` follows `urlencode(sorted(...), doseq=True)`, which DRF uses for `next`/`previous`.
 */

export type QueryPairs = readonly (readonly [string, string])[];

const utf8 = new TextDecoder('utf-8', { fatal: false });

/** Percent-decoding with `+` as space; invalid escapes stay as written, invalid UTF-8 becomes U+FFFD. */
export function unquotePlus(text: string): string {
  const source = text.replace(/\+/g, ' ');
  if (!source.includes('%')) return source;
  let out = '';
  let i = 0;
  while (i < source.length) {
    const start = source.indexOf('%', i);
    if (start < 0) {
      out += source.slice(i);
      break;
    }
    out += source.slice(i, start);
    const bytes: number[] = [];
    let j = start;
    while (j + 2 < source.length && source[j] === '%' && /^[0-9A-Fa-f]{2}$/.test(source.slice(j + 1, j + 3))) {
      bytes.push(parseInt(source.slice(j + 1, j + 3), 16));
      j += 3;
    }
    if (bytes.length === 0) {
      out += '%';
      i = start + 1;
    } else {
      out += utf8.decode(new Uint8Array(bytes));
      i = j;
    }
  }
  return out;
}

export function parseQuery(raw: string): QueryPairs {
  const pairs: [string, string][] = [];
  for (const part of raw.split('&')) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    const key = eq < 0 ? part : part.slice(0, eq);
    const value = eq < 0 ? '' : part.slice(eq + 1);
    pairs.push([unquotePlus(key), unquotePlus(value)]);
  }
  return pairs;
}

/** The last value given for `key`, as Django's `QueryDict.get`. */
export function queryGet(pairs: QueryPairs, key: string): string | undefined {
  for (let i = pairs.length - 1; i >= 0; i--) {
    const pair = pairs[i]!;
    if (pair[0] === key) return pair[1];
  }
  return undefined;
}

const SAFE = /[A-Za-z0-9_.\-~]/;
const encoder = new TextEncoder();

/** Python's `quote_plus`. */
export function quotePlus(text: string): string {
  let out = '';
  for (const char of text) {
    if (char === ' ') out += '+';
    else if (SAFE.test(char)) out += char;
    else for (const byte of encoder.encode(char)) out += '%' + byte.toString(16).toUpperCase().padStart(2, '0');
  }
  return out;
}

/** Keys sorted (stable for repeated keys), each pair encoded with `quotePlus`. */
export function encodeQuery(pairs: QueryPairs): string {
  const sorted = [...pairs].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  return sorted.map(([k, v]) => `${quotePlus(k)}=${quotePlus(v)}`).join('&');
}

/** `pairs` with every `key` replaced by one `key=value` (DRF `replace_query_param`). */
export function replaceParam(pairs: QueryPairs, key: string, value: string): QueryPairs {
  const kept = pairs.filter(([k]) => k !== key);
  // parse_qs groups a repeated key at its first position; sorting by key makes order moot.
  return [...kept, [key, value]];
}

export function removeParam(pairs: QueryPairs, key: string): QueryPairs {
  return pairs.filter(([k]) => k !== key);
}

/** Percent-decoding of a URL path (no `+` rule), as Django decodes `PATH_INFO`. */
export function unquotePath(text: string): string {
  return unquotePlus(text.replace(/\+/g, '%2B'));
}
