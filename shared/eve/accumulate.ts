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
  readonly values = new Map<string, GatheredValue>();
  readonly hosts = new Map<string, GatheredHost>();

  private host(ip: string, at: number): GatheredHost {
    let host = this.hosts.get(ip);
    if (!host) {
      host = { ip, hits: 0, first: at, last: at };
      this.hosts.set(ip, host);
    } else {
      if (at < host.first) host.first = at;
      if (at > host.last) host.last = at;
    }
    return host;
  }

  add(derived: Derived): void {
    for (const ip of derived.alerted) this.host(ip, derived.at).hits++;
    for (const evidence of derived.evidence) {
      this.host(evidence.ip, derived.at);
      const id = `${evidence.ip}\u0000${evidence.list}\u0000${evidence.key}`;
      const known = this.values.get(id);
      if (!known) {
        this.values.set(id, { ip: evidence.ip, list: evidence.list, key: evidence.key, item: evidence.item, first: derived.at, last: derived.at });
        continue;
      }
      if (derived.at < known.first) known.first = derived.at;
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
      values: [...this.values.values()].sort((a, b) => text(a.ip, b.ip) || text(a.list, b.list) || text(a.key, b.key)),
      hosts: [...this.hosts.values()].sort((a, b) => text(a.ip, b.ip)),
    };
  }

  /** Take another batch's evidence (the same merge as adding its events one by one). */
  merge(other: EvidenceBatch): void {
    this.mergeGathered(other.values.values(), other.hosts.values());
  }

  /**
   * Take evidence gathered elsewhere (a segment read in a worker thread) from events that come
   * after those of this batch.
   */
  mergeGathered(values: Iterable<GatheredValue>, hosts: Iterable<GatheredHost>): void {
    for (const value of values) {
      const id = `${value.ip}\u0000${value.list}\u0000${value.key}`;
      const known = this.values.get(id);
      if (!known) this.values.set(id, value);
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
    return this.values.size + this.hosts.size;
  }

  clear(): void {
    this.values.clear();
    this.hosts.clear();
  }
}
