/**
 * The SQL of connecting a standalone workspace to a central server (electron/remote/connect.ts):
 * counts the plan shows, the copy kept before, and the moves of rows that have no resource of
 * their own (interfaces, protocols, probe devices) out of the central server's pk range.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { JsonObject } from '../../../shared/resources';
import { evidenceOfIdentity } from '../../../shared/eve/identityEvidence';
import { CENTRAL_SQL } from './centralPart';
import type { Store } from './store';

/** An evidence row met again keeps the later item, the earliest first and the latest last seen (the merge rule). */
const ADD_EVIDENCE = `
INSERT INTO host_evidence (ip, list, key, item, first_seen, last_seen) VALUES (?, ?, ?, ?, ?, ?)
ON CONFLICT(ip, list, key) DO UPDATE SET
  item = CASE WHEN excluded.last_seen > host_evidence.last_seen THEN excluded.item ELSE host_evidence.item END,
  first_seen = min(host_evidence.first_seen, excluded.first_seen),
  last_seen = max(host_evidence.last_seen, excluded.last_seen)`;
const ADD_LOCAL = `
INSERT INTO host_local (ip, hits, first_seen, last_seen) VALUES (?, ?, ?, ?)
ON CONFLICT(ip) DO UPDATE SET
  hits = max(host_local.hits, excluded.hits),
  first_seen = min(host_local.first_seen, excluded.first_seen),
  last_seen = max(host_local.last_seen, excluded.last_seen)`;

export class ConnectRows {
  constructor(private readonly store: Store) {}

  private count(table: string): number {
    return this.store.query(`SELECT count(*) FROM "${table}"`).pluck().get() as number;
  }

  /** What stays local, counted for the plan. */
  localCounts(): { hosts: number; localHistory: number; localUsers: number } {
    return { hosts: this.count('host_id'), localHistory: this.count('user_action'), localUsers: this.count('user') };
  }

  /**
   * Interfaces, protocols and probe devices made here get negative pks, as in a bound workspace
   * (`allocate` gives them), so that none can hold a pk the central server gives its own. Inside
   * the caller's transaction; nothing refers to these rows by pk but the outbox, empty here.
   */
  moveItemsToLocalPks(allocate: () => number): number {
    let moved = 0;
    for (const [table, where] of [
      ['network_interface', 'pk > 0'],
      ['protocol', 'pk > 0'],
      ['vendor_device', "pk > 0 AND kind = 'probe'"],
    ] as const) {
      const pks = this.store.query(`SELECT pk FROM "${table}" WHERE ${where} ORDER BY pk`).pluck().all() as number[];
      const move = this.store.command(`UPDATE "${table}" SET pk = ? WHERE pk = ?`);
      for (const pk of pks) move.run(allocate(), pk);
      moved += pks.length;
    }
    return moved;
  }

  /** Connected objects still at a positive pk (once every planned one has moved, none should be). */
  positiveObjects(): number {
    return ['source', 'ruleset', 'vendor_probe_template', 'appliance'].reduce((total, table) => total + (this.store.query(`SELECT count(*) FROM "${table}" WHERE pk > 0`).pluck().get() as number), 0);
  }

  /** Give a local object its new name (a rename decided at connecting); the search index follows by its triggers. */
  rename(table: string, pk: number, name: string): void {
    this.store.command(`UPDATE "${table}" SET name = ? WHERE pk = ?`).run(name, pk);
  }

  /**
   * Remove an object left out that has no central counterpart: what referred to it refers to
   * nothing (api.md §4 rule 3 for `parent_tmpl`: children keep their values and overrides; an
   * engine probe loses its ruleset; a ruleset forgets the source).
   */
  removeLeftOut(resource: string, pk: number): void {
    const run = (sql: string) => this.store.command(sql).run(pk);
    switch (resource) {
      case 'vendor_probe_template':
        run('UPDATE appliance SET parent_tmpl = NULL WHERE parent_tmpl = ?');
        run('UPDATE vendor_probe_template SET parent_tmpl = NULL WHERE parent_tmpl = ?');
        run('DELETE FROM vendor_probe_template WHERE pk = ?');
        return;
      case 'ruleset':
        run('UPDATE appliance SET ruleset = NULL WHERE ruleset = ?');
        run('DELETE FROM ruleset_source WHERE ruleset = ?');
        run('DELETE FROM ruleset WHERE pk = ?');
        return;
      case 'source':
        run('DELETE FROM ruleset_source WHERE source = ?');
        run('DELETE FROM source WHERE pk = ?');
        return;
      case 'vendor_probe':
      case 'engine_probe':
        run('DELETE FROM appliance WHERE pk = ?');
        return;
      default:
        throw new Error(`${resource} is not connected`);
    }
  }

  /**
   * The identities a standalone workspace holds as its "central part" (host files imported) become
   * local evidence, as an EVE import's: a pull of a central server that does not know them then
   * neither erases them nor counts them as its own to delete. `refresh` writes the served
   * identities of the addresses again (Hosts.refreshAddresses). Inside the caller's transaction.
   */
  hostsToLocalEvidence(refresh: (ips: readonly string[]) => void): number {
    const rows = this.store.query(`SELECT ip, coalesce(central_hits, hits) AS hits, ${CENTRAL_SQL} AS part FROM host_id WHERE central IS NOT NULL`).all() as { ip: string; hits: number; part: string }[];
    const addEvidence = this.store.command(ADD_EVIDENCE);
    const addLocal = this.store.command(ADD_LOCAL);
    for (const row of rows) {
      const evidence = evidenceOfIdentity(JSON.parse(row.part) as JsonObject);
      addLocal.run(row.ip, row.hits, evidence.first, evidence.last);
      for (const [list, key, item, first, last] of evidence.values) addEvidence.run(row.ip, list, key, item, first, last);
    }
    this.store.command('UPDATE host_id SET central = NULL, central_hits = NULL WHERE central IS NOT NULL').run();
    const ips = rows.map((row) => row.ip);
    for (let at = 0; at < ips.length; at += 500) refresh(ips.slice(at, at + 500));
    return rows.length;
  }

  /** Copy the database as it is now into `file` (0600), whole, through SQLite's backup. */
  async backup(file: string): Promise<void> {
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    // Made first, empty and this user's only, so that the copy is never readable by others and never replaces a file.
    fs.writeFileSync(file, '', { mode: 0o600, flag: 'wx' });
    await this.store.db.backup(file);
    fs.chmodSync(file, 0o600);
  }
}
