/**
 * A value from data is held in the page bounded (renderer/src/components/bounded.ts, issue 23
 * §5): at most 256 characters until the engineer asks for all of it; shown whole, in pieces a
 * line breaker lays out quickly. Expected values are built here from the inputs' own parts.
 */
import { describe, expect, test } from 'vitest';
import { bounded, boundedText, CUT_MARKER, pieces, SHOWN_CHARS } from '../../renderer/src/components/bounded';

/** U+1F512 (a lock), two UTF-16 code units. */
const PAIR = '\u{1F512}';

describe('a value bounded for the page', () => {
  test('the page holds at most 256 characters of a value', () => {
    expect(SHOWN_CHARS).toBe(256);
    const subject = `CN=${'A'.repeat(100_000 - 3)}`;
    expect(bounded(subject)).toEqual({ shown: `CN=${'A'.repeat(253)}`, cut: true, length: 100_000 });
  });

  test('a value of 256 characters or fewer is held whole and not marked', () => {
    const exact = 'x'.repeat(256);
    expect(bounded(exact)).toEqual({ shown: exact, cut: false, length: 256 });
    expect(bounded('')).toEqual({ shown: '', cut: false, length: 0 });
    expect(boundedText('nginx/1.22.1')).toBe('nginx/1.22.1');
  });

  test('a cut value ends with the marker, so the page says there is more', () => {
    const value = 'B'.repeat(300);
    expect(boundedText(value)).toBe(`${'B'.repeat(256)}${CUT_MARKER}`);
    expect(boundedText(value, 10)).toBe(`BBBBBBBBBB${CUT_MARKER}`);
  });

  test('a cut never splits a surrogate pair: the pair goes whole or not at all', () => {
    // 255 ASCII characters, then a pair over positions 255 and 256: 256 would end on its first half.
    const value = `${'a'.repeat(255)}${PAIR}tail`;
    const { shown, cut } = bounded(value);
    expect(cut).toBe(true);
    expect(shown).toBe('a'.repeat(255));
    // A pair ending exactly at the limit is kept.
    expect(bounded(`${'a'.repeat(254)}${PAIR}tail`).shown).toBe(`${'a'.repeat(254)}${PAIR}`);
    // Only pairs: the cut lands between two of them.
    const pairs = PAIR.repeat(200);
    expect(bounded(pairs).shown).toBe(PAIR.repeat(128));
    expect(bounded(pairs, 255).shown).toBe(PAIR.repeat(127));
  });
});

describe('a value shown whole', () => {
  test('comes in pieces of at most 64 characters that join back to the value', () => {
    const value = `C=US,O=${'B'.repeat(1000)}`;
    const parts = pieces(value);
    expect(parts.join('')).toBe(value);
    expect(parts.length).toBe(Math.ceil(value.length / 64));
    expect(parts.every((p) => p.length <= 64)).toBe(true);
    expect(pieces('')).toEqual([]);
  });

  test('no piece ends on half of a surrogate pair', () => {
    const value = `${'a'.repeat(63)}${PAIR}${'b'.repeat(70)}`;
    const parts = pieces(value);
    expect(parts.join('')).toBe(value);
    expect(parts[0]).toBe('a'.repeat(63));
    expect(parts[1]!.startsWith(PAIR)).toBe(true);
    // Pieces of one character still keep each pair whole.
    expect(pieces(`x${PAIR}y`, 1)).toEqual(['x', PAIR, 'y']);
  });
});
