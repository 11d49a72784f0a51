/** The JSON export's parts (docs/report.md "JSON"): each within the limit, entries in order, none lost. */
import { describe, expect, test } from 'vitest';
import { PART_CLOSE, PART_OPEN, PART_SEPARATOR, PartPlanner, partBytes, utf8Length } from '../../shared/report/jsonParts';

/** The text of a part, written as the exports write it. */
function partText(entries: readonly string[]): string {
  return entries.length === 0 ? '[]\n' : PART_OPEN + entries.join(PART_SEPARATOR) + PART_CLOSE;
}

describe('a part is an array, one entry a line', () => {
  test('its size is the entries + 2 a line + 3, as written', () => {
    for (const entries of [[], ['{"ip":"10.0.0.1"}'], ['{"a":1}', '{"b":"é"}', '{"c":"😀"}']]) {
      const text = partText(entries);
      expect(Buffer.byteLength(text)).toBe(partBytes(entries.reduce((sum, e) => sum + Buffer.byteLength(e), 0), entries.length));
      expect(JSON.parse(text)).toEqual(entries.map((e) => JSON.parse(e)));
    }
  });
});

describe('the planner', () => {
  test('fills each part up to the limit and no further, keeping the order', () => {
    const sizes = [10, 20, 30, 40, 5, 5, 50, 1];
    const limit = 60;
    const planner = new PartPlanner(limit);
    const parts: number[][] = [];
    for (const size of sizes) {
      const { part, starts } = planner.place(size);
      if (starts) parts[part] = [];
      parts[part]!.push(size);
    }
    // By hand: [10,20] = 30+4+3 = 37, +30 would be 60+6+3 = 69 > 60; [30] then +40 = 70+... > 60; [40,5,5] = 50+6+3 = 59; [50,1] = 51+4+3 = 58.
    expect(parts).toEqual([[10, 20], [30], [40, 5, 5], [50, 1]]);
    for (const part of parts) expect(partBytes(part.reduce((a, b) => a + b, 0), part.length)).toBeLessThanOrEqual(limit);
  });

  test('an entry larger than a part gets one of its own rather than being dropped', () => {
    const planner = new PartPlanner(50);
    expect(planner.place(10)).toEqual({ part: 0, starts: true });
    expect(planner.place(100)).toEqual({ part: 1, starts: true });
    expect(planner.place(10)).toEqual({ part: 2, starts: true });
  });
});

test('UTF-8 lengths are counted as Buffer encodes them, lone surrogates as U+FFFD', () => {
  for (const text of ['', 'abc', 'é', '€', '😀', 'a\ud800b', '\udc00', 'x😀y\u2028']) expect(utf8Length(text)).toBe(Buffer.byteLength(text));
});
