/**
 * The identity sources of a staged EVE import as they will be once it is committed, read on
 * another thread (the import's identity thread, electron/workspaces/identityThread.ts) from a
 * connection of its own, while the import's transaction moves the staging into the evidence.
 * Opened while that transaction holds the write lock, its snapshot is the state the transaction
 * starts from; the evidence staged is merged here as the commit merges it (evidence.ts): a value's
 * earliest first seen, latest last seen and the details of the latest (the staged one on a tie);
 * an address's alerts added up.
 */
import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';
import type { EvidenceList } from '../../../shared/eve/derive';
import type { EvidenceRow, IdentitySource } from '../../../shared/eve/identity';
import { CENTRAL_SQL } from './centralPart';
import type { DatabaseSource } from './database';
import { stagingOf } from './evidence';

/** The page cache of the reading connection, in MB: each chunk is read once, in key order. */
const PAGE_CACHE_MB = 4;

type ValueRow = [ip: string, list: EvidenceList, key: string, item: string, first: number, last: number, staged: 0 | 1];

export class StagedEvidence {
  private constructor(private readonly db: BetterSqlite3.Database) {}

  /** A read-only connection to the database `source` names. */
  static open(source: DatabaseSource): StagedEvidence {
    const Database = createRequire(source.module)(source.module) as typeof BetterSqlite3;
    const db = new Database(source.file, { readonly: true, fileMustExist: true, ...(source.nativeBinding ? { nativeBinding: source.nativeBinding } : {}) });
    db.pragma(`cache_size = -${PAGE_CACHE_MB * 1024}`);
    return new StagedEvidence(db);
  }

  /**
   * The sources of `ips` (the addresses import `importPk` staged, in order, and every other one
   * with local evidence when the home networks change with it: Evidence.stagedAddresses), `size`
   * at a time: of each chunk `claim` grants, by its number; all read from one snapshot.
   */
  *sources(importPk: number, ips: readonly string[], size: number, claim: (chunk: number) => boolean): Generator<{ chunk: number; sources: IdentitySource[] }> {
    const { db } = this;
    const staging = stagingOf(importPk);
    db.exec('BEGIN');
    try {
      // A workspace with no local evidence before this import (its first) has nothing to merge
      // the staging with: each chunk is one range of the staging, read in its key's order.
      const before = db.prepare('SELECT EXISTS (SELECT 1 FROM host_local), EXISTS (SELECT 1 FROM host_id)').raw().get() as [0 | 1, 0 | 1];
      const anyLocal = before[0] === 1;
      const anyHost = before[1] === 1;
      const hosts = db
        .prepare(
          anyLocal
            ? `SELECT ip, sum(hits), min(first_seen), max(last_seen) FROM (
                 SELECT ip, hits, first_seen, last_seen FROM host_local WHERE ip IN (SELECT value FROM json_each(@ips))
                 UNION ALL
                 SELECT ip, hits, first_seen, last_seen FROM ${staging.hosts} WHERE ip BETWEEN @first AND @last
               ) GROUP BY ip`
            : `SELECT ip, hits, first_seen, last_seen FROM ${staging.hosts} WHERE ip BETWEEN @first AND @last`,
        )
        .raw();
      const values = db
        .prepare(
          anyLocal
            ? `SELECT ip, list, key, item, first_seen, last_seen, 0 FROM host_evidence WHERE ip IN (SELECT value FROM json_each(@ips))
               UNION ALL
               SELECT ip, list, key, item, first_seen, last_seen, 1 FROM ${staging.values} WHERE ip BETWEEN @first AND @last
               ORDER BY 1, 2, 3, 7`
            : `SELECT ip, list, key, item, first_seen, last_seen, 1 FROM ${staging.values} WHERE ip BETWEEN @first AND @last
               ORDER BY ip, list, key`,
        )
        .raw();
      const centrals = anyHost ? db.prepare(`SELECT ip, ${CENTRAL_SQL}, central_hits FROM host_id WHERE ip IN (SELECT value FROM json_each(?))`).raw() : undefined;
      for (let at = 0; at < ips.length; at += size) {
        if (!claim(at / size)) continue;
        const slice = ips.slice(at, at + size);
        const list = JSON.stringify(slice);
        // The staging holds this import's addresses only, each of them in `ips`: those between
        // the slice's first and last are the slice's, read as one range of the staging's key.
        const chunkOf = { ips: list, first: slice[0]!, last: slice[slice.length - 1]! };
        const evidence = new Map<string, EvidenceRow[]>();
        let previous: ValueRow | undefined;
        for (const row of values.all(chunkOf) as ValueRow[]) {
          const [ip, kind, key, item, first, last] = row;
          let rows = evidence.get(ip);
          if (!rows) evidence.set(ip, (rows = []));
          if (previous && previous[0] === ip && previous[1] === kind && previous[2] === key) {
            // The value known before and the one staged: merged as the commit merges them.
            const known = rows.pop()!;
            rows.push([kind, key, last >= known[4] ? item : known[2], Math.min(first, known[3]), Math.max(last, known[4])]);
          } else rows.push([kind, key, item, first, last]);
          previous = row;
        }
        const central = new Map<string, [string | null, number | null]>();
        for (const [ip, data, hits] of (centrals?.all(list) ?? []) as [string, string | null, number | null][]) central.set(ip, [data, hits]);
        const local = new Map<string, [number, number, number]>();
        for (const [ip, hits, first, last] of hosts.all(chunkOf) as [string, number, number, number][]) local.set(ip, [hits, first, last]);
        const chunk: IdentitySource[] = [];
        for (const ip of slice) {
          const seen = local.get(ip);
          if (!seen) continue;
          const [data, centralHits] = central.get(ip) ?? [null, null];
          chunk.push({ ip, central: data, centralHits, hits: seen[0], first: seen[1], last: seen[2], values: evidence.get(ip) ?? [] });
        }
        yield { chunk: at / size, sources: chunk };
      }
    } finally {
      db.exec('COMMIT');
    }
  }

  close(): void {
    this.db.close();
  }
}
