/**
 * Evidence of many events gathered in memory, each value once per address with its first and
 * last time and its item, and each address with its alerts and its own first and last time: what
 * the import stages in one go every few tens of thousands of values. Every observation goes
 * through the one merge rule (merge.ts), so the order of events and the way a log is cut into
 * segments, batches or files do not change what is gathered.
 */
import type { JsonObject, JsonValue } from '../resources/fields';
import type { Derived, EvidenceKind } from './derive';
import { mergeAddress, mergeObservation, type AddressSeen, type Observation } from './merge';

export interface GatheredValue extends Observation {
  readonly ip: string;
  readonly list: EvidenceKind;
  readonly key: string;
}

export interface GatheredHost extends AddressSeen {
  readonly ip: string;
}

/** A value as it is staged: its item as JSON text. */
export interface StagedValue {
  readonly ip: string;
  readonly list: string;
  readonly key: string;
  readonly item: string;
  readonly first: number;
  readonly last: number;
}

export class EvidenceBatch {
  readonly hosts = new Map<string, GatheredHost>();
  /**
   * The values by address, list and key: an event's value is found without building an id for
   * it (the address and list strings are the same few, their hashes known; only the key is new).
   */
  private readonly byAddress = new Map<string, Map<string, Map<string, GatheredValue>>>();
  private valuesHeld = 0;
  /** Characters of the keys and items held, about: what bounds a batch of long values (a log may hold user agents of megabytes). */
  textHeld = 0;

  get size(): number {
    return this.valuesHeld + this.hosts.size;
  }

  /** Every value held, address by address. */
  *eachValue(): Generator<GatheredValue> {
    for (const lists of this.byAddress.values()) for (const keys of lists.values()) yield* keys.values();
  }

  /** Every value held as it is staged. */
  *staged(): Generator<StagedValue> {
    for (const v of this.eachValue()) yield { ip: v.ip, list: v.list, key: v.key, item: JSON.stringify(v.item), first: v.first, last: v.last };
  }

  /** The evidence of one event (the hot path of an import: no object made for a value known already). */
  add(derived: Derived): void {
    const from = derived.from ?? derived.at;
    const at = derived.at;
    for (const ip of derived.alerted) this.addHost(ip, 1, at, at);
    for (const { ip, list, key, item } of derived.evidence) {
      this.addHost(ip, 0, from, at);
      this.addValue(ip, list, key, item, from, at);
    }
  }

  /** Take evidence gathered elsewhere (another batch, a segment read on another thread). */
  merge(values: Iterable<GatheredValue>, hosts: Iterable<GatheredHost>): void {
    for (const v of values) this.addValue(v.ip, v.list, v.key, v.item, v.first, v.last);
    for (const h of hosts) this.addHost(h.ip, h.hits, h.first, h.last);
  }

  private addHost(ip: string, hits: number, first: number, last: number): void {
    const known = this.hosts.get(ip);
    if (known) mergeAddress(known, { hits, first, last });
    else this.hosts.set(ip, { ip, hits, first, last });
  }

  private addValue(ip: string, list: EvidenceKind, key: string, item: JsonObject, first: number, last: number): void {
    let lists = this.byAddress.get(ip);
    if (!lists) this.byAddress.set(ip, (lists = new Map()));
    let keys = lists.get(list);
    if (!keys) lists.set(list, (keys = new Map()));
    const known = keys.get(key);
    if (known) mergeObservation(known, { item, first, last });
    else {
      keys.set(key, { ip, list, key, item, first, last });
      this.valuesHeld++;
      this.textHeld += key.length + textLength(item);
    }
  }

  clear(): void {
    this.hosts.clear();
    this.byAddress.clear();
    this.valuesHeld = 0;
    this.textHeld = 0;
  }
}

/** The characters of the texts in a value (and 8 for anything else). */
function textLength(value: JsonValue): number {
  if (typeof value === 'string') return value.length;
  if (typeof value !== 'object' || value === null) return 8;
  let length = 0;
  for (const each of Array.isArray(value) ? value : Object.values(value)) length += textLength(each);
  return length;
}
