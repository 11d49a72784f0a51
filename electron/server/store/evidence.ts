/**
 * What the local EVE imports saw (host_evidence, host_local), the files read so far (eve_file),
 * the imports themselves (eve_import: who runs one, which files it claims, its staging tables)
 * and the workspace's home networks. An import stages its evidence batch by batch and moves it
 * into the evidence in one transaction at the end (`commit`), marking the addresses it changed
 * as pending; their identities are written next (store/hosts.ts). `discard` leaves nothing.
 */
import os from 'node:os';
import type { GatheredHost, StagedValue } from '../../../shared/eve/accumulate';
import { DEFAULT_HOME_NETS } from '../../../shared/eve/identity';
import type { Store } from './store';

/** This process, as the owner of the imports it runs: `host:pid`. */
export const IMPORT_OWNER = `${os.hostname()}:${process.pid}`;
/** An import that has not staged for this long is over, whoever runs it (epoch microseconds). */
const IMPORT_STALE_MICROS = 24 * 3600 * 1_000_000;

/** Is the import of this owner, which last staged at `touched`, still running? */
function stillRunning(owner: string, touched: number, now: number): boolean {
  if (owner === '' || now - touched > IMPORT_STALE_MICROS) return false;
  const at = owner.lastIndexOf(':');
  const pid = Number(owner.slice(at + 1));
  // Another machine's process cannot be asked: its import is kept until it is stale.
  return owner.slice(0, at) !== os.hostname() || !Number.isInteger(pid) || pid <= 0 || processRuns(pid);
}

/** Does a process of this machine run with this pid (EPERM: one of another user does)? */
export function processRuns(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
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

/** An EVE file as read so far: its first line's hash, how far, and hashes of its bytes before that point. */
export interface EveFileRecord {
  readonly head: string;
  readonly path: string;
  readonly bytes: number;
  readonly lines: number;
  /** The 4 KiB before `bytes` (what a record from before `samples` is checked by). */
  readonly tail: string;
  /** Windows spread over [0, bytes) and the tail (eveFingerprint.ts); null in a record from before them. */
  readonly samples: string | null;
}

const HOME_NETS_KEY = 'home_nets';

/**
 * How a value seen again merges into `table`'s row of it: shared/eve/merge.ts's rule (the
 * earliest first seen, the latest last seen, the item of the latest, the greater on a tie;
 * tested equal to it). The import that brought it first stays.
 */
const mergeValue = (table: string) => `ON CONFLICT DO UPDATE SET
  item = CASE WHEN ${replaces('excluded', table)} THEN excluded.item ELSE ${table}.item END,
  first_seen = min(${table}.first_seen, excluded.first_seen),
  last_seen = max(${table}.last_seen, excluded.last_seen)`;

/** Does `seen`'s item replace `known`'s (the rule's test, in SQL: text compares byte-wise)? */
const replaces = (seen: string, known: string) => `(${seen}.last_seen > ${known}.last_seen OR (${seen}.last_seen = ${known}.last_seen AND ${seen}.item > ${known}.item))`;

/** How an address seen again merges into `table`'s row of it: alerts added up, the earliest first seen, the latest last seen. */
const mergeHost = (table: string) => `ON CONFLICT DO UPDATE SET
  hits = ${table}.hits + excluded.hits,
  first_seen = min(${table}.first_seen, excluded.first_seen),
  last_seen = max(${table}.last_seen, excluded.last_seen)`;

export class Evidence {
  constructor(private readonly store: Store) {}

  /** The home networks of the workspace (Suricata's HOME_NET unless set). */
  homeNets(): string[] {
    const text = this.store.query('SELECT value FROM workspace_setting WHERE key = ?').pluck().get(HOME_NETS_KEY) as string | undefined;
    return text === undefined ? [...DEFAULT_HOME_NETS] : (JSON.parse(text) as string[]);
  }

  /** Set the home networks: every address with local evidence is to be written again (inside the caller's write). */
  setHomeNets(networks: readonly string[]): void {
    this.store
      .command('INSERT INTO workspace_setting (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value')
      .run(HOME_NETS_KEY, JSON.stringify(networks));
    this.store.command('INSERT OR IGNORE INTO host_identity_pending (ip) SELECT ip FROM host_local WHERE true').run();
  }

  /** The files read before whose first line hashes to `head`, latest first. */
  filesWithHead(head: string): EveFileRecord[] {
    return this.store.query('SELECT head, path, bytes, lines, tail, samples FROM eve_file WHERE head = ? ORDER BY updated DESC, pk DESC').all(head) as EveFileRecord[];
  }

  /**
   * Start an import: its pk, and its staging tables made. The staging of imports that are over
   * (their process has ended, or they have not staged for a day) is dropped first; that of
   * imports still running (another import in this process, the command beside the app) is theirs
   * to keep.
   */
  begin(): number {
    return this.store.write(() => {
      const now = this.store.now();
      for (const other of this.unfinished()) if (!stillRunning(other.owner, other.touched, now)) this.discard(other.pk);
      const importPk = Number(this.store.command('INSERT INTO eve_import (started, owner, touched) VALUES (?, ?, ?)').run(now, IMPORT_OWNER, now).lastInsertRowid);
      const staging = stagingOf(importPk);
      this.store.exec(`${this.tableLike('host_evidence', staging.values)}; ${this.tableLike('host_local', staging.hosts)};`);
      return importPk;
    });
  }

  private unfinished(): { pk: number; owner: string; touched: number; heads: string }[] {
    return this.store.query('SELECT pk, owner, touched, heads FROM eve_import WHERE finished IS NULL').all() as { pk: number; owner: string; touched: number; heads: string }[];
  }

  /**
   * Claim the files of these first-line hashes for import `importPk`, unless another running
   * import claims one of them: then that import (its pk and owner), and nothing is claimed (an
   * import claims all its files at once, so two never wait for each other).
   */
  claim(importPk: number, heads: readonly string[]): { readonly importPk: number; readonly owner: string } | undefined {
    return this.store.write(() => {
      const now = this.store.now();
      const mine = new Set(heads);
      for (const other of this.unfinished()) {
        if (other.pk === importPk || !(JSON.parse(other.heads) as string[]).some((head) => mine.has(head))) continue;
        if (stillRunning(other.owner, other.touched, now)) return { importPk: other.pk, owner: other.owner };
      }
      this.store.command('UPDATE eve_import SET heads = ?, touched = ? WHERE pk = ?').run(JSON.stringify([...mine]), now, importPk);
      return undefined;
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

  /** Add a batch to an import's staging (values merged as the evidence merges them). */
  stage(importPk: number, batch: { readonly values: Iterable<StagedValue>; readonly hosts: Iterable<GatheredHost> }): void {
    const staging = stagingOf(importPk);
    this.store.write(() => {
      const live = this.store.command('UPDATE eve_import SET touched = ? WHERE pk = ?').run(this.store.now(), importPk).changes;
      if (live === 0) throw new Error(`the staging of EVE import ${importPk} is gone`);
      // An import's own statements are not kept: its tables go with it.
      const value = this.store.commandOnce(
        `INSERT INTO ${staging.values} (ip, list, key, item, first_seen, last_seen, import_pk) VALUES (?, ?, ?, ?, ?, ?, ?) ${mergeValue(staging.values)}`,
        'insert eve_staged_value',
      );
      for (const v of batch.values) value.run(v.ip, v.list, v.key, v.item, v.first, v.last, importPk);
      const host = this.store.commandOnce(
        `INSERT INTO ${staging.hosts} (ip, hits, first_seen, last_seen, import_pk) VALUES (?, ?, ?, ?, ?) ${mergeHost(staging.hosts)}`,
        'insert eve_staged_host',
      );
      for (const h of batch.hosts) host.run(h.ip, h.hits, h.first, h.last, importPk);
    });
  }

  /** Addresses an import has staged so far. */
  stagedHosts(importPk: number): number {
    return this.store.queryOnce(`SELECT count(*) FROM ${stagingOf(importPk).hosts}`, 'select eve_staged_host').pluck().get() as number;
  }

  /** Drop an import's staging and its row: nothing of it stays. */
  discard(importPk: number): void {
    const staging = stagingOf(importPk);
    this.store.write(() => {
      this.store.exec(`DROP TABLE IF EXISTS ${staging.values}; DROP TABLE IF EXISTS ${staging.hosts};`);
      this.store.command('DELETE FROM eve_import WHERE pk = ?').run(importPk);
    });
  }

  /**
   * Move an import's staging into the evidence (inside the caller's transaction), record the files
   * it read and end it; the addresses whose evidence changed are marked pending (their identities
   * to be written again), and their number returned. Into a workspace with no local evidence yet,
   * the staging tables are renamed to be the evidence: nothing to merge with, and a large first
   * import's rows are written once.
   */
  commit(importPk: number, files: readonly EveFileRecord[]): number {
    const staging = stagingOf(importPk);
    const pendingBefore = this.pendingCount();
    const first = this.store.query('SELECT NOT EXISTS (SELECT 1 FROM host_local) AND NOT EXISTS (SELECT 1 FROM host_evidence)').pluck().get() === 1;
    if (first) {
      this.store.commandOnce(`INSERT OR IGNORE INTO host_identity_pending (ip) SELECT ip FROM ${staging.hosts} WHERE true`, 'insert host_identity_pending').run();
      this.store.exec(`
        DROP TABLE host_evidence;
        DROP TABLE host_local;
        ALTER TABLE ${staging.values} RENAME TO host_evidence;
        ALTER TABLE ${staging.hosts} RENAME TO host_local;`);
    } else {
      // The addresses this import changes: a value new or merged into another, an address new, alerted or seen earlier or later.
      const run = (sql: string, name: string) => this.store.commandOnce(sql, name).run();
      run(
        `INSERT OR IGNORE INTO host_identity_pending (ip)
         SELECT s.ip FROM ${staging.values} s LEFT JOIN host_evidence e ON e.ip = s.ip AND e.list = s.list AND e.key = s.key
         WHERE e.ip IS NULL OR s.first_seen < e.first_seen OR ${replaces('s', 'e')}
         UNION
         SELECT s.ip FROM ${staging.hosts} s LEFT JOIN host_local h ON h.ip = s.ip
         WHERE h.ip IS NULL OR s.hits > 0 OR s.first_seen < h.first_seen OR s.last_seen > h.last_seen`,
        'insert host_identity_pending',
      );
      run(
        `INSERT INTO host_evidence (ip, list, key, item, first_seen, last_seen, import_pk)
         SELECT ip, list, key, item, first_seen, last_seen, import_pk FROM ${staging.values} WHERE true ${mergeValue('host_evidence')}`,
        'insert host_evidence',
      );
      run(
        `INSERT INTO host_local (ip, hits, first_seen, last_seen, import_pk)
         SELECT ip, hits, first_seen, last_seen, import_pk FROM ${staging.hosts} WHERE true ${mergeHost('host_local')}`,
        'insert host_local',
      );
      this.store.exec(`DROP TABLE ${staging.values}; DROP TABLE ${staging.hosts};`);
    }
    const now = this.store.now();
    for (const file of files) {
      this.store.command('DELETE FROM eve_file WHERE head = ? AND path = ?').run(file.head, file.path);
      this.store
        .command('INSERT INTO eve_file (head, path, bytes, lines, tail, samples, updated) VALUES (?, ?, ?, ?, ?, ?, ?)')
        .run(file.head, file.path, file.bytes, file.lines, file.tail, file.samples, now);
    }
    this.store.command("UPDATE eve_import SET finished = ?, heads = '[]' WHERE pk = ?").run(now, importPk);
    return this.pendingCount() - pendingBefore;
  }

  /** Addresses whose identity waits to be written again. */
  pendingCount(): number {
    return this.store.query('SELECT count(*) FROM host_identity_pending').pluck().get() as number;
  }

  /** Does the address have local evidence? */
  hasLocal(ip: string): boolean {
    // Most workspaces have no local evidence: one look (kept until the next change) spares a lookup per host of a large pull.
    const any = this.store.cachedQuery('host_local any', () => this.store.query('SELECT EXISTS (SELECT 1 FROM host_local)').pluck().get() === 1);
    return any && this.store.query('SELECT 1 FROM host_local WHERE ip = ?').get(ip) !== undefined;
  }
}
