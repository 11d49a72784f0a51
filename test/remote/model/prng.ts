/**
 * The model test's seeded pseudo-random numbers (mulberry32): the same seed always gives the
 * same operations, so that a failing seed can be replayed alone.
 */
export interface Rng {
  /** A float in [0, 1). */
  next(): number;
  /** An integer in [lo, hi]. */
  int(lo: number, hi: number): number;
  chance(p: number): boolean;
  pick<T>(items: readonly T[]): T;
  /** Each item kept with probability p, order kept. */
  subset<T>(items: readonly T[], p?: number): T[];
  shuffle<T>(items: readonly T[]): T[];
  /** One of the choices, with probability proportional to its weight. */
  weighted<T>(choices: readonly (readonly [T, number])[]): T;
}

export function mulberry32(seed: number): Rng {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (lo: number, hi: number): number => lo + Math.floor(next() * (hi - lo + 1));
  const rng: Rng = {
    next,
    int,
    chance: (p) => next() < p,
    pick: (items) => {
      if (items.length === 0) throw new Error('pick from nothing');
      return items[int(0, items.length - 1)]!;
    },
    subset: (items, p = 0.5) => items.filter(() => next() < p),
    shuffle: (items) => {
      const out = [...items];
      for (let i = out.length - 1; i > 0; i--) {
        const j = int(0, i);
        [out[i], out[j]] = [out[j]!, out[i]!];
      }
      return out;
    },
    weighted: (choices) => {
      const total = choices.reduce((sum, [, w]) => sum + w, 0);
      let at = next() * total;
      for (const [choice, weight] of choices) {
        if (at < weight) return choice;
        at -= weight;
      }
      return choices[choices.length - 1]![0];
    },
  };
  return rng;
}
