/**
 * What the local EVE imports saw (host_evidence, host_local), the files read so far (eve_file),
 * an import's staging tables and the workspace's home networks. An import stages its evidence
 * batch by batch and moves it in one transaction at the end (`commit`), which also writes the
 * merged identity of every address it touched into host_id; `discard` leaves nothing of it.
 */
import type { GatheredHost, GatheredValue } from '../../../shared/eve/accumulate';
import type { EvidenceList } from '../../../shared/eve/derive';
import { DEFAULT_HOME_NETS, type LocalHost, type LocalValue } from '../../../shared/eve/identity';
import type { JsonObject } from '../../../shared/resources';
import type { Store } from './store';

/** An EVE file as read so far: its first bytes' hash, how far, and the hash of the bytes before that point. */
export interface EveFileRecord {
  readonly head: string;
  readonly path: string;
  readonly bytes: number;
  readonly lines: number;
  readonly tail: string;
}

const HOME_NETS_KEY = 'home_nets';

export class Evidence {
  constructor(private readonly store: Store) {}

  /** The home networks of the workspace (Suricata's HOME_NET unless set). */
  homeNets(): string[] {
    const text = this.store.query('SELECT value FROM workspace_setting WHERE key = ?').pluck().get(HOME_NETS_KEY) as string | undefined;
    return text === undefined ? [...DEFAULT_HOME_NETS] : (JSON.parse(text) as string[]);
  }

  setHomeNets(networks: readonly string[]): void {
    this.store
      .command('INSERT INTO workspace_setting (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value')
      .run(HOME_NETS_KEY, JSON.stringify(networks));
  }

  /** The files read before whose first bytes hash to `head`, latest first. */
  filesWithHead(head: string): EveFileRecord[] {
    return this.store.query('SELECT head, path, bytes, lines, tail FROM eve_file WHERE head = ? ORDER BY updated DESC, pk DESC').all(head) as EveFileRecord[];
  }

  /** Start an import: its staging id (staging left by an import that died is dropped first). */
  begin(): number {
    return this.store.write(() => {
      this.store.command('DELETE FROM eve_import').run();
      return Number(this.store.command('INSERT INTO eve_import (started) VALUES (?)').run(this.store.now()).lastInsertRowid);
    });
  }

  /** Add a batch to an import's staging (values merged as the final tables merge them). */
  stage(importPk: number, values: Iterable<GatheredValue>, hosts: Iterable<GatheredHost>): void {
    this.store.write(() => {
      const value = this.store.command(
        `INSERT INTO eve_staged_value (import, ip, list, key, item, first_seen, last_seen) VALUES (?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT(import, ip, list, key) DO UPDATE SET
           item = CASE WHEN excluded.last_seen >= last_seen THEN excluded.item ELSE item END,
           first_seen = min(first_seen, excluded.first_seen),
           last_seen = max(last_seen, excluded.last_seen)`,
      );
      for (const v of values) value.run(importPk, v.ip, v.list, v.key, JSON.stringify(v.item), v.first, v.last);
      const host = this.store.command(
        `INSERT INTO eve_staged_host (import, ip, hits, first_seen, last_seen) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT(import, ip) DO UPDATE SET
           hits = hits + excluded.hits, first_seen = min(first_seen, excluded.first_seen), last_seen = max(last_seen, excluded.last_seen)`,
      );
      for (const h of hosts) host.run(importPk, h.ip, h.hits, h.first, h.last);
    });
  }

  /** Addresses an import has staged so far. */
  stagedHosts(importPk: number): number {
    return this.store.query('SELECT count(*) FROM eve_staged_host WHERE import = ?').pluck().get(importPk) as number;
  }

  /** Staged addresses that have an identity already (the others will be new hosts). */
  stagedKnown(importPk: number): number {
    return this.store.query('SELECT count(*) FROM host_id WHERE ip IN (SELECT ip FROM eve_staged_host WHERE import = ?)').pluck().get(importPk) as number;
  }

  /** Drop an import's staging: nothing of it stays. */
  discard(importPk: number): void {
    this.store.write(() => this.store.command('DELETE FROM eve_import WHERE pk = ?').run(importPk));
  }

  /**
   * Move a staged import into the evidence (inside the caller's transaction) and record the files
   * it read; the addresses it touched.
   */
  commit(importPk: number, files: readonly EveFileRecord[]): string[] {
    this.store
      .command(
        `INSERT INTO host_evidence (ip, list, key, item, first_seen, last_seen)
         SELECT ip, list, key, item, first_seen, last_seen FROM eve_staged_value WHERE import = ? AND true
         ON CONFLICT(ip, list, key) DO UPDATE SET
           item = CASE WHEN excluded.last_seen >= host_evidence.last_seen THEN excluded.item ELSE host_evidence.item END,
           first_seen = min(host_evidence.first_seen, excluded.first_seen),
           last_seen = max(host_evidence.last_seen, excluded.last_seen)`,
      )
      .run(importPk);
    this.store
      .command(
        `INSERT INTO host_local (ip, hits, first_seen, last_seen)
         SELECT ip, hits, first_seen, last_seen FROM eve_staged_host WHERE import = ? AND true
         ON CONFLICT(ip) DO UPDATE SET
           hits = host_local.hits + excluded.hits,
           first_seen = min(host_local.first_seen, excluded.first_seen),
           last_seen = max(host_local.last_seen, excluded.last_seen)`,
      )
      .run(importPk);
    const touched = this.store.query('SELECT ip FROM eve_staged_host WHERE import = ?').pluck().all(importPk) as string[];
    const now = this.store.now();
    for (const file of files) {
      this.store.command('DELETE FROM eve_file WHERE head = ? AND path = ?').run(file.head, file.path);
      this.store
        .command('INSERT INTO eve_file (head, path, bytes, lines, tail, updated) VALUES (?, ?, ?, ?, ?, ?)')
        .run(file.head, file.path, file.bytes, file.lines, file.tail, now);
    }
    this.store.command('DELETE FROM eve_import WHERE pk = ?').run(importPk);
    return touched;
  }

  /** What the local imports saw of an address (undefined: nothing). */
  local(ip: string): LocalHost | undefined {
    const host = this.store.query('SELECT hits, first_seen, last_seen FROM host_local WHERE ip = ?').get(ip) as
      | { hits: number; first_seen: number; last_seen: number }
      | undefined;
    if (!host) return undefined;
    const rows = this.store.query('SELECT list, key, item, first_seen, last_seen FROM host_evidence WHERE ip = ? ORDER BY list, key').all(ip) as {
      list: EvidenceList;
      key: string;
      item: string;
      first_seen: number;
      last_seen: number;
    }[];
    const values: LocalValue[] = rows.map((r) => ({ list: r.list, key: r.key, item: JSON.parse(r.item) as JsonObject, first: r.first_seen, last: r.last_seen }));
    return { hits: host.hits, first: host.first_seen, last: host.last_seen, values };
  }

  /** Every address the local imports saw. */
  localIps(): string[] {
    return this.store.query('SELECT ip FROM host_local').pluck().all() as string[];
  }
}
