/**
 * Evidence of many events gathered in memory, each value once per address with its first and
 * last time, and each address with its alerts and its own first and last time: what the import
 * writes in one go every few thousand events. Gathering is commutative and, but for the alert
 * count, idempotent: the order of events and the way a log is cut into batches do not change it.
 */
import type { JsonObject } from '../resources/fields';
import type { Derived, EvidenceList } from './derive';

export interface GatheredValue {
  readonly ip: string;
  readonly list: EvidenceList;
  readonly key: string;
  item: JsonObject;
  first: number;
  last: number;
}

export interface GatheredHost {
  readonly ip: string;
  hits: number;
  first: number;
  last: number;
}

export class EvidenceBatch {
  readonly hosts = new Map<string, GatheredHost>();
  /**
   * The values by address, list and key: an event's value is found without building an id for
   * it (the address and list strings are the same few, their hashes known; only the key is new).
   */
  private readonly byAddress = new Map<string, Map<string, Map<string, GatheredValue>>>();
  private valuesHeld = 0;

  /** Distinct values held. */
  get valueCount(): number {
    return this.valuesHeld;
  }

  /** Every value held, address by address. */
  *eachValue(): Generator<GatheredValue> {
    for (const lists of this.byAddress.values()) for (const keys of lists.values()) yield* keys.values();
  }

  private host(ip: string, first: number, last: number): GatheredHost {
    let host = this.hosts.get(ip);
    if (!host) {
      host = { ip, hits: 0, first, last };
      this.hosts.set(ip, host);
    } else {
      if (first < host.first) host.first = first;
      if (last > host.last) host.last = last;
    }
    return host;
  }

  add(derived: Derived): void {
    const from = derived.from ?? derived.at;
    for (const ip of derived.alerted) this.host(ip, derived.at, derived.at).hits++;
    for (const evidence of derived.evidence) {
      this.host(evidence.ip, from, derived.at);
      const known = this.find(evidence.ip, evidence.list, evidence.key);
      if (!known) {
        this.put({ ip: evidence.ip, list: evidence.list, key: evidence.key, item: evidence.item, first: from, last: derived.at });
        continue;
      }
      if (from < known.first) known.first = from;
      if (derived.at >= known.last) {
        // The latest details win (a certificate renewed, a server upgraded).
        known.last = derived.at;
        known.item = evidence.item;
      }
    }
  }

  /** The values by address, list and key, and the addresses in order (the order of the evidence's keys in SQLite, for ASCII). */
  inKeyOrder(): { values: GatheredValue[]; hosts: GatheredHost[] } {
    const text = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
    return {
      values: [...this.eachValue()].sort((a, b) => text(a.ip, b.ip) || text(a.list, b.list) || text(a.key, b.key)),
      hosts: [...this.hosts.values()].sort((a, b) => text(a.ip, b.ip)),
    };
  }

  /** Take another batch's evidence (the same merge as adding its events one by one). */
  merge(other: EvidenceBatch): void {
    this.mergeGathered(other.eachValue(), other.hosts.values());
  }

  /**
   * Take evidence gathered elsewhere (a segment read in a worker thread) from events that come
   * after those of this batch.
   */
  mergeGathered(values: Iterable<GatheredValue>, hosts: Iterable<GatheredHost>): void {
    for (const value of values) {
      const known = this.find(value.ip, value.list, value.key);
      if (!known) this.put(value);
      else {
        known.first = Math.min(known.first, value.first);
        if (value.last >= known.last) {
          known.last = value.last;
          known.item = value.item;
        }
      }
    }
    for (const host of hosts) {
      const known = this.hosts.get(host.ip);
      if (!known) this.hosts.set(host.ip, host);
      else {
        known.hits += host.hits;
        known.first = Math.min(known.first, host.first);
        known.last = Math.max(known.last, host.last);
      }
    }
  }

  get size(): number {
    return this.valuesHeld + this.hosts.size;
  }

  clear(): void {
    this.hosts.clear();
    this.byAddress.clear();
    this.valuesHeld = 0;
  }

  private find(ip: string, list: string, key: string): GatheredValue | undefined {
    return this.byAddress.get(ip)?.get(list)?.get(key);
  }

  private put(value: GatheredValue): void {
    let lists = this.byAddress.get(value.ip);
    if (!lists) {
      lists = new Map();
      this.byAddress.set(value.ip, lists);
    }
    let keys = lists.get(value.list);
    if (!keys) {
      keys = new Map();
      lists.set(value.list, keys);
    }
    keys.set(value.key, value);
    this.valuesHeld++;
  }
}
