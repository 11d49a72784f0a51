/**
 * What the local EVE imports saw (host_evidence, host_local), the files read so far (eve_file),
 * each import's own staging tables and the workspace's home networks. An import stages its evidence
 * batch by batch and moves it in one transaction at the end (`commit`), which also writes the
 * merged identity of every address it touched into host_id; `discard` leaves nothing of it.
 */
import os from 'node:os';
import type { GatheredHost, GatheredValue } from '../../../shared/eve/accumulate';
import type { EvidenceList } from '../../../shared/eve/derive';
import { DEFAULT_HOME_NETS, localHostOf, type EvidenceRow, type LocalHost } from '../../../shared/eve/identity';
import type { Store } from './store';

/** This process, as the owner of the imports it runs: `host:pid`. */
const OWNER = `${os.hostname()}:${process.pid}`;
/** An import that has not staged for this long is over, whoever runs it (epoch microseconds). */
const IMPORT_STALE_MICROS = 24 * 3600 * 1_000_000;

/** Is the import of this owner, which last staged at `touched`, still running? */
function stillRunning(owner: string, touched: number, now: number): boolean {
  if (owner === '' || now - touched > IMPORT_STALE_MICROS) return false;
  const at = owner.lastIndexOf(':');
  const pid = Number(owner.slice(at + 1));
  // Another machine's process cannot be asked: its import is kept until it is stale.
  if (owner.slice(0, at) !== os.hostname() || !Number.isInteger(pid) || pid <= 0) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: a process of another user holds that pid; it runs.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * The staging tables of an import: its own, named by its pk (a positive integer, so the names are
 * safe in SQL), made when it begins and dropped when it ends.
 */
export function stagingOf(importPk: number): { readonly values: string; readonly hosts: string } {
  if (!Number.isSafeInteger(importPk) || importPk <= 0) throw new Error(`no EVE import ${importPk}`);
  return { values: `eve_staged_value_${importPk}`, hosts: `eve_staged_host_${importPk}` };
}

/** An EVE file as read so far: its first bytes' hash, how far, and the hash of the bytes before that point. */
export interface EveFileRecord {
  readonly head: string;
  readonly path: string;
  readonly bytes: number;
  readonly lines: number;
  readonly tail: string;
}

const HOME_NETS_KEY = 'home_nets';

/** How a value seen again merges into `table`'s row of it: the earliest first seen, the latest last seen, the details of the latest. */
const mergeValue = (table: string) => `ON CONFLICT DO UPDATE SET
  item = CASE WHEN excluded.last_seen >= ${table}.last_seen THEN excluded.item ELSE ${table}.item END,
  first_seen = min(${table}.first_seen, excluded.first_seen),
  last_seen = max(${table}.last_seen, excluded.last_seen)`;

/** How an address seen again merges into `table`'s row of it: alerts added up, the earliest first seen, the latest last seen. */
const mergeHost = (table: string) => `ON CONFLICT DO UPDATE SET
  hits = ${table}.hits + excluded.hits,
  first_seen = min(${table}.first_seen, excluded.first_seen),
  last_seen = max(${table}.last_seen, excluded.last_seen)`;

/** Evidence gathered in memory: values and addresses. */
export interface GatheredBatch {
  readonly values: Iterable<GatheredValue>;
  readonly hosts: Iterable<GatheredHost>;
}

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

  /**
   * Start an import: its staging id, and its staging tables made. The staging of imports that are
   * over (their process has ended, or they have not staged for a day) is dropped first; that of
   * imports still running (another import in this process, the command beside the app) is theirs
   * to keep.
   */
  begin(): number {
    return this.store.write(() => {
      const now = this.store.now();
      const imports = this.store.query('SELECT pk, owner, touched FROM eve_import').all() as { pk: number; owner: string; touched: number }[];
      for (const other of imports) if (!stillRunning(other.owner, other.touched, now)) this.discard(other.pk);
      const importPk = Number(this.store.command('INSERT INTO eve_import (started, owner, touched) VALUES (?, ?, ?)').run(now, OWNER, now).lastInsertRowid);
      const staging = stagingOf(importPk);
      this.store.exec(`${this.tableLike('host_evidence', staging.values)}; ${this.tableLike('host_local', staging.hosts)};`);
      return importPk;
    });
  }

  /**
   * The statement that makes a table as `table` is now (its columns, types, defaults and key, read
   * from the schema itself), named `name`: an import's staging tables are the evidence tables'
   * twins, so that the staging of a workspace's first import becomes its evidence by being renamed.
   */
  private tableLike(table: 'host_evidence' | 'host_local', name: string): string {
    const sql = this.store.query("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?").pluck().get(table) as string;
    const made = /^CREATE TABLE\s+(?:"[^"]+"|\w+)\s*\(/i.exec(sql);
    if (!made) throw new Error(`cannot read the definition of ${table}`);
    return `CREATE TABLE ${name} (${sql.slice(made[0].length)}`;
  }

  /** Add a batch to an import's staging (values merged as the final tables merge them). */
  stage(importPk: number, batch: GatheredBatch): void {
    const staging = stagingOf(importPk);
    this.store.write(() => {
      const live = this.store.command('UPDATE eve_import SET touched = ? WHERE pk = ?').run(this.store.now(), importPk).changes;
      if (live === 0) throw new Error(`the staging of EVE import ${importPk} is gone`);
      // An import's own statements are not kept: its tables go with it.
      const value = this.store.commandOnce(
        `INSERT INTO ${staging.values} (ip, list, key, item, first_seen, last_seen) VALUES (?, ?, ?, ?, ?, ?) ${mergeValue(staging.values)}`,
        'insert eve_staged_value',
      );
      for (const v of batch.values) value.run(v.ip, v.list, v.key, JSON.stringify(v.item), v.first, v.last);
      const host = this.store.commandOnce(`INSERT INTO ${staging.hosts} (ip, hits, first_seen, last_seen) VALUES (?, ?, ?, ?) ${mergeHost(staging.hosts)}`, 'insert eve_staged_host');
      for (const h of batch.hosts) host.run(h.ip, h.hits, h.first, h.last);
    });
  }

  /** Addresses an import has staged so far. */
  stagedHosts(importPk: number): number {
    return this.store.queryOnce(`SELECT count(*) FROM ${stagingOf(importPk).hosts}`, 'select eve_staged_host').pluck().get() as number;
  }

  /**
   * The addresses whose identities a staged import's commit writes again, in order: those it
   * staged, and every other one with local evidence when `everyLocal` (the home networks change).
   */
  stagedAddresses(importPk: number, everyLocal: boolean): string[] {
    const staging = stagingOf(importPk);
    const sql = everyLocal ? `SELECT ip FROM host_local UNION SELECT ip FROM ${staging.hosts} ORDER BY ip` : `SELECT ip FROM ${staging.hosts} ORDER BY ip`;
    return this.store.queryOnce(sql, 'select eve_staged_host').pluck().all() as string[];
  }

  /** Addresses staged by an import or in its last batch that have an identity already (the others will be new hosts). */
  knownOf(importPk: number, last: GatheredBatch): number {
    const ips = JSON.stringify([...last.hosts].map((h) => h.ip));
    return this.store
      .queryOnce(`SELECT count(*) FROM host_id WHERE ip IN (SELECT ip FROM ${stagingOf(importPk).hosts} UNION SELECT value FROM json_each(?))`, 'select host_id')
      .pluck()
      .get(ips) as number;
  }

  /** Drop an import's staging: nothing of it stays. */
  discard(importPk: number): void {
    const staging = stagingOf(importPk);
    this.store.write(() => {
      this.store.exec(`DROP TABLE IF EXISTS ${staging.values}; DROP TABLE IF EXISTS ${staging.hosts};`);
      this.store.command('DELETE FROM eve_import WHERE pk = ?').run(importPk);
    });
  }

  /**
   * Move a staged import and its last batch, still in memory, into the evidence (inside the
   * caller's transaction), and record the files it read; the addresses it touched. A log whose
   * evidence fits one batch (most do) is never staged: it goes straight to the evidence here.
   * Into a workspace with no local evidence yet, the staging tables are renamed to be the evidence.
   */
  commit(importPk: number, files: readonly EveFileRecord[], last: GatheredBatch): string[] {
    const staging = stagingOf(importPk);
    const touched = new Set(this.store.queryOnce(`SELECT ip FROM ${staging.hosts}`, 'select eve_staged_host').pluck().all() as string[]);
    const first = this.store.query('SELECT NOT EXISTS (SELECT 1 FROM host_local) AND NOT EXISTS (SELECT 1 FROM host_evidence)').pluck().get() === 1;
    if (first) {
      // Nothing to merge with: the staging, made as the evidence's tables are, becomes them
      // (not copied row by row, then dropped: a large first import's tables are written once).
      this.store.exec(`
        DROP TABLE host_evidence;
        DROP TABLE host_local;
        ALTER TABLE ${staging.values} RENAME TO host_evidence;
        ALTER TABLE ${staging.hosts} RENAME TO host_local;`);
    } else {
      this.store
        .commandOnce(
          `INSERT INTO host_evidence (ip, list, key, item, first_seen, last_seen)
           SELECT ip, list, key, item, first_seen, last_seen FROM ${staging.values} WHERE true
           ${mergeValue('host_evidence')}`,
          'insert host_evidence',
        )
        .run();
      this.store
        .commandOnce(
          `INSERT INTO host_local (ip, hits, first_seen, last_seen)
           SELECT ip, hits, first_seen, last_seen FROM ${staging.hosts} WHERE true
           ${mergeHost('host_local')}`,
          'insert host_local',
        )
        .run();
    }
    const value = this.store.command(`INSERT INTO host_evidence (ip, list, key, item, first_seen, last_seen) VALUES (?, ?, ?, ?, ?, ?) ${mergeValue('host_evidence')}`);
    for (const v of last.values) value.run(v.ip, v.list, v.key, JSON.stringify(v.item), v.first, v.last);
    const host = this.store.command(`INSERT INTO host_local (ip, hits, first_seen, last_seen) VALUES (?, ?, ?, ?) ${mergeHost('host_local')}`);
    for (const h of last.hosts) {
      host.run(h.ip, h.hits, h.first, h.last);
      touched.add(h.ip);
    }
    const now = this.store.now();
    for (const file of files) {
      this.store.command('DELETE FROM eve_file WHERE head = ? AND path = ?').run(file.head, file.path);
      this.store
        .command('INSERT INTO eve_file (head, path, bytes, lines, tail, updated) VALUES (?, ?, ?, ?, ?, ?)')
        .run(file.head, file.path, file.bytes, file.lines, file.tail, now);
    }
    this.discard(importPk);
    return [...touched].sort();
  }

  /** What the local imports saw of an address (undefined: nothing). */
  local(ip: string): LocalHost | undefined {
    const stored = this.localRows([ip]).get(ip);
    return stored && localHostOf({ ip, central: null, centralHits: null, ...stored });
  }

  /**
   * What the local imports saw of each of these addresses, as stored (those with nothing are left
   * out), in two statements whatever their number: a refresh of a large import reads hosts a
   * chunk at a time.
   */
  localRows(ips: readonly string[]): Map<string, { hits: number; first: number; last: number; values: EvidenceRow[] }> {
    const list = JSON.stringify(ips);
    const hosts = this.store.query('SELECT ip, hits, first_seen, last_seen FROM host_local WHERE ip IN (SELECT value FROM json_each(?))').raw().all(list) as [
      string,
      number,
      number,
      number,
    ][];
    const out = new Map<string, { hits: number; first: number; last: number; values: EvidenceRow[] }>();
    for (const [ip, hits, first, last] of hosts) out.set(ip, { hits, first, last, values: [] });
    if (out.size === 0) return out;
    const rows = this.store
      .query('SELECT ip, list, key, item, first_seen, last_seen FROM host_evidence WHERE ip IN (SELECT value FROM json_each(?)) ORDER BY ip, list, key')
      .raw()
      .all(list) as [string, EvidenceList, string, string, number, number][];
    for (const [ip, list, key, item, first, last] of rows) out.get(ip)?.values.push([list, key, item, first, last]);
    return out;
  }

  /** Every address the local imports saw. */
  localIps(): string[] {
    return this.store.query('SELECT ip FROM host_local').pluck().all() as string[];
  }
}
