/**
 * The hosts of each value of the facets' fields (store/hostSurvey.ts), read from `host_term` once
 * and kept in memory until the next write, so that the counts under any set of hosts are a walk of
 * those lists (or an AND of bitsets) rather than a probe per index entry: at 1,000,000 hosts the
 * counts under a facet's chip of 400,000 hosts take milliseconds instead of a second. A value with
 * many hosts is kept as a bitset over pk, one with few as its sorted pks (whichever is smaller), so
 * that the memory is at most 4 bytes per (value, host) pair.
 */

/** The pks of some hosts: sorted pks, or a bitset over pk. */
export interface PkSet {
  readonly size: number;
  readonly pks?: Int32Array;
  readonly bits?: Uint32Array;
}

/** A bitset over pk up to `maxPk`. */
export function bitsetOf(pks: Iterable<number>, maxPk: number): Uint32Array {
  const bits = new Uint32Array((maxPk >>> 5) + 1);
  for (const pk of pks) if (pk >= 0 && pk <= maxPk) bits[pk >>> 5]! |= 1 << (pk & 31);
  return bits;
}

/** The pks of a bitset, in order. */
export function pksOf(bits: Uint32Array): number[] {
  const out: number[] = [];
  for (let word = 0; word < bits.length; word++) {
    let x = bits[word]!;
    while (x !== 0) {
      const low = x & -x;
      out.push(word * 32 + 31 - Math.clz32(low));
      x ^= low;
    }
  }
  return out;
}

/** Sorted pks as a set, dense (a bitset) when that is smaller. */
export function pkSetOf(pks: readonly number[] | Int32Array, maxPk: number): PkSet {
  if (pks.length * 32 > maxPk) return { size: pks.length, bits: bitsetOf(pks, maxPk) };
  return { size: pks.length, pks: pks instanceof Int32Array ? pks : Int32Array.from(pks) };
}

function popcount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return (((x + (x >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

/** Add a set's hosts to a bitset (pks past its end are left out). */
export function addTo(bits: Uint32Array, set: PkSet): void {
  if (set.pks) {
    for (const pk of set.pks) if (pk >>> 5 < bits.length) bits[pk >>> 5]! |= 1 << (pk & 31);
    return;
  }
  const words = Math.min(bits.length, set.bits!.length);
  for (let i = 0; i < words; i++) bits[i]! |= set.bits![i]!;
}

/** How many pks a bitset holds. */
export function bitCount(bits: Uint32Array): number {
  let count = 0;
  for (const word of bits) if (word !== 0) count += popcount(word);
  return count;
}

/** How many of the set's hosts are in the bitset `of`. */
export function countIn(set: PkSet, of: Uint32Array): number {
  let count = 0;
  if (set.pks) {
    for (const pk of set.pks) {
      const word = of[pk >>> 5];
      if (word !== undefined && (word & (1 << (pk & 31))) !== 0) count++;
    }
    return count;
  }
  const bits = set.bits!;
  const words = Math.min(bits.length, of.length);
  for (let i = 0; i < words; i++) {
    const both = bits[i]! & of[i]!;
    if (both !== 0) count += popcount(both);
  }
  return count;
}

/** How many hosts of the bitset `of` are in at least one of the sets. */
export function countUnionIn(sets: readonly PkSet[], of: Uint32Array): number {
  const seen = new Uint32Array(of.length);
  let count = 0;
  for (const set of sets) {
    const mark = (word: number, bits: number) => {
      const fresh = bits & of[word]! & ~seen[word]!;
      if (fresh !== 0) {
        seen[word]! |= fresh;
        count += popcount(fresh);
      }
    };
    if (set.pks) {
      for (const pk of set.pks) if (pk >>> 5 < of.length) mark(pk >>> 5, 1 << (pk & 31));
    } else {
      const words = Math.min(set.bits!.length, of.length);
      for (let i = 0; i < words; i++) if (set.bits![i] !== 0) mark(i, set.bits![i]!);
    }
  }
  return count;
}

/** The postings of the fields read so far; emptied by any write (store.register). */
export class PostingsCache {
  /** The hosts of each value id, by field. */
  readonly values = new Map<string, ReadonlyMap<number, PkSet>>();
  /** The hosts with any value, by field. */
  readonly any = new Map<string, PkSet>();
  /** The hosts of values a search found that many hosts have, by value id, and how many pks they hold in all. */
  readonly searched = new Map<number, PkSet>();
  searchedPks = 0;
  /** The largest pk when they were read: every bitset spans it (-1: not read yet). */
  maxPk = -1;

  clear(): void {
    this.values.clear();
    this.any.clear();
    this.searched.clear();
    this.searchedPks = 0;
    this.maxPk = -1;
  }
}
