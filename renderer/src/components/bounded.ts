/**
 * A value from data as the page holds it (no DOM): at most SHOWN_CHARS characters of it, until
 * the engineer asks for all of it (components/BoundedText.tsx). A 100 KB TLS subject laid out
 * whole froze the host page for a minute: Chromium breaks a long run without a break
 * opportunity (`overflow-wrap: anywhere`, or a table cell's min-content width) in time that
 * grows with the square of its length. 256 characters are laid out at once, whatever they are.
 */

/** The most characters (UTF-16 code units, as the DOM counts them) of one value in the page. */
export const SHOWN_CHARS = 256;

/** Appended where a value is cut. */
export const CUT_MARKER = '…';

export interface Bounded {
  /** The start of the value, at most `limit` characters, never half of a surrogate pair. */
  readonly shown: string;
  /** True when `shown` is not the whole value. */
  readonly cut: boolean;
  /** The whole value's length. */
  readonly length: number;
}

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;

/** Where to cut `value` at or before `at` without splitting a surrogate pair. */
function cutAt(value: string, at: number): number {
  return at > 0 && at < value.length && isHighSurrogate(value.charCodeAt(at - 1)) ? at - 1 : at;
}

/** The part of `value` the page may hold before the engineer asks for all of it. */
export function bounded(value: string, limit = SHOWN_CHARS): Bounded {
  if (value.length <= limit) return { shown: value, cut: false, length: value.length };
  return { shown: value.slice(0, cutAt(value, limit)), cut: true, length: value.length };
}

/** `value` bounded, with the marker where it was cut: for a title, an option, a list cell, a heading. */
export function boundedText(value: string, limit = SHOWN_CHARS): string {
  const { shown, cut } = bounded(value, limit);
  return cut ? shown + CUT_MARKER : shown;
}

/** Characters of one piece of a value shown whole. */
export const PIECE_CHARS = 64;

/**
 * A value shown whole, in pieces of at most `size` characters (never splitting a surrogate pair)
 * with a break opportunity between them: a line breaker then never meets a run longer than
 * `size`, and lays out 100 KB in a fraction of a second instead of a minute.
 */
export function pieces(value: string, size = PIECE_CHARS): string[] {
  const out: string[] = [];
  for (let start = 0; start < value.length; ) {
    const end = cutAt(value, Math.min(value.length, start + size));
    // A piece that would be one half of a pair (size 1) takes the pair.
    const next = end > start ? end : start + 2;
    out.push(value.slice(start, next));
    start = next;
  }
  return out;
}
