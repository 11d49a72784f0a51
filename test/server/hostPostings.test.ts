/**
 * The postings the survey counts facets with (store/hostPostings.ts): whatever form a value's
 * hosts take (sorted pks or a bitset), a count under a set of hosts equals the plain count of the
 * same sets (random sets, replayable by seed).
 */
import { describe, expect, test } from 'vitest';
import { bitsetOf, countIn, countUnionIn, pkSetOf, pksOf } from '../../electron/server/store/hostPostings';
import { prng } from '../helpers/prng';

function randomPks(random: () => number, maxPk: number, density: number): Int32Array {
  const out: number[] = [];
  for (let pk = 1; pk <= maxPk; pk++) if (random() < density) out.push(pk);
  return Int32Array.from(out);
}

describe('counting hosts of postings under a set', () => {
  test('sparse and dense postings count as a plain intersection and union do', () => {
    const random = prng(2024);
    for (let round = 0; round < 200; round++) {
      const maxPk = 1 + Math.floor(random() * 3000);
      const densities = [0.001, 0.01, 0.05, 0.3, 0.9];
      const postings = Array.from({ length: 1 + Math.floor(random() * 4) }, () => randomPks(random, maxPk, densities[Math.floor(random() * densities.length)]!));
      const within = randomPks(random, maxPk, densities[Math.floor(random() * densities.length)]!);
      const of = bitsetOf(within, maxPk);
      const inSet = new Set(within);
      const sets = postings.map((pks) => pkSetOf(pks, maxPk));
      postings.forEach((pks, i) => {
        expect(sets[i]!.size).toBe(pks.length);
        expect(countIn(sets[i]!, of)).toBe([...pks].filter((pk) => inSet.has(pk)).length);
      });
      const union = new Set(postings.flatMap((pks) => [...pks]));
      expect(pksOf(bitsetOf([...postings.flatMap((pks) => [...pks])].reverse(), maxPk))).toEqual([...union].sort((a, b) => a - b));
      expect(countUnionIn(sets, of)).toBe([...union].filter((pk) => inSet.has(pk)).length);
    }
  });

  test('a value of many hosts is kept as a bitset, one of few as its pks (whichever is smaller)', () => {
    expect(pkSetOf(Int32Array.from([1, 2, 3]), 1000).pks).toBeDefined();
    expect(pkSetOf(Int32Array.from({ length: 100 }, (_, i) => i), 1000).bits).toBeDefined();
    // A pk past the bitset's end is in no set (a host written after the postings were read).
    expect(countIn(pkSetOf(Int32Array.from([5, 5000]), 10_000), bitsetOf([5, 5000], 100))).toBe(1);
  });
});
