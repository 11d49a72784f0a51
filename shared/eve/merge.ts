/**
 * The one rule by which two observations of the same piece of evidence merge, whatever the order
 * they come in and however a log is cut into batches, files or imports (docs/eve.md, "One merge
 * rule"). A value (a host name, a service, one detail of a service) keeps its earliest first seen,
 * its latest last seen, and the item of its latest-timestamped observation; on equal timestamps
 * the greater item wins, compared byte-wise as UTF-8 (as SQLite compares text). An address adds
 * up its alerts and keeps its earliest and latest times.
 *
 * The rule is a join: commutative, associative and (but for the alert count) idempotent. The SQL
 * that merges staged rows into the evidence (store/evidence.ts) states the same rule and is tested
 * equal to these functions on random observations (test/workspaces/eveMerge.test.ts).
 */
import type { JsonObject } from '../resources/fields';

/**
 * Compare two strings as SQLite compares text (memcmp of their UTF-8 bytes, a prefix first):
 * the order of code points. JavaScript's `<` compares UTF-16 units, which differ from it only
 * where a surrogate meets a unit from U+E000 up.
 */
export function compareUtf8(a: string, b: string): number {
  if (a === b) return 0;
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    if (x >= 0xd800 && y >= 0xd800) {
      // Surrogates (U+10000 and up) come after U+E000–U+FFFF in code point order.
      x += x < 0xe000 ? 0x2000 : -0x800;
      y += y < 0xe000 ? 0x2000 : -0x800;
    }
    return x - y;
  }
  return a.length - b.length;
}

/** Does an observation last seen at `last` with `item` replace the item of one last seen at `knownLast`? */
export function replacesText(last: number, item: string, knownLast: number, knownItem: string): boolean {
  return last > knownLast || (last === knownLast && compareUtf8(item, knownItem) > 0);
}

/** One value as observed: its times and item. */
export interface Observation {
  item: JsonObject;
  first: number;
  last: number;
}

/** Merge `seen` into `known` (in place), by the rule (JSON texts compared only on a tie). */
export function mergeObservation(known: Observation, seen: Observation): void {
  if (seen.last !== known.last ? seen.last > known.last : seen.item !== known.item && compareUtf8(JSON.stringify(seen.item), JSON.stringify(known.item)) > 0) known.item = seen.item;
  if (seen.first < known.first) known.first = seen.first;
  if (seen.last > known.last) known.last = seen.last;
}

/** An address as observed: the alerts it was in, its times. */
export interface AddressSeen {
  hits: number;
  first: number;
  last: number;
}

/** Merge `seen` into `known` (in place): alerts added up, the earliest first seen, the latest last seen. */
export function mergeAddress(known: AddressSeen, seen: AddressSeen): void {
  known.hits += seen.hits;
  if (seen.first < known.first) known.first = seen.first;
  if (seen.last > known.last) known.last = seen.last;
}
