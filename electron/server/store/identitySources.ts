/**
 * What the served identity of an address is made from (its central part and its local evidence),
 * read chunk by chunk in address order: the one way identities are read, whether they are made
 * here or on an import's helper thread, which reads them from a connection of its own opened
 * while the import's transaction holds the write lock (so that it reads that transaction's start).
 */
import type { EvidenceKind } from '../../../shared/eve/derive';
import type { EvidenceRow, IdentitySource } from '../../../shared/eve/identitySource';
import { CENTRAL_SQL } from './centralPart';
import type { Store } from './store';

/** Addresses read and made together. */
export const IDENTITY_CHUNK = 64;

type HostRow = [ip: string, hits: number, first: number, last: number];
type ValueRow = [ip: string, list: EvidenceKind, key: string, item: string, first: number, last: number];
type CentralRow = [ip: string, data: string | null, hits: number | null];

/** Where a chunk's addresses come from: those pending between two addresses, or a list. */
type Selection = { readonly first: string; readonly last: string } | { readonly ips: string };

export class IdentitySources {
  constructor(private readonly store: Store) {}

  /** The addresses whose identity waits to be written again, in order. */
  pendingIps(): string[] {
    return this.store.query('SELECT ip FROM host_identity_pending ORDER BY ip').pluck().all() as string[];
  }

  /**
   * The sources of the pending addresses, a chunk of IDENTITY_CHUNK at a time (those `taken`, by
   * their number): each chunk is a range of the pending table's key, its evidence read along the
   * evidence's key (no sort).
   */
  *pendingChunks(taken: (chunk: number) => boolean = () => true): Generator<IdentitySource[]> {
    const ips = this.pendingIps();
    for (let at = 0; at < ips.length; at += IDENTITY_CHUNK) if (taken(at / IDENTITY_CHUNK)) yield this.chunkOf(ips, at / IDENTITY_CHUNK);
  }

  /** Chunk `chunk` of these pending addresses (pendingIps). */
  chunkOf(ips: readonly string[], chunk: number): IdentitySource[] {
    const slice = ips.slice(chunk * IDENTITY_CHUNK, (chunk + 1) * IDENTITY_CHUNK);
    return this.read({ first: slice[0]!, last: slice[slice.length - 1]! });
  }

  /**
   * The same, all read in one read transaction (one snapshot), for a connection of another thread
   * opened while the writer holds the write lock: it reads the state the writer's transaction started from.
   */
  pendingSnapshot(taken: (chunk: number) => boolean): Generator<IdentitySource[]> {
    return this.store.inSnapshot(() => this.pendingChunks(taken));
  }

  /** The sources of these addresses (those with local evidence). */
  of(ips: readonly string[]): IdentitySource[] {
    return this.read({ ips: JSON.stringify(ips) });
  }

  private read(selection: Selection): IdentitySource[] {
    const pending = 'first' in selection;
    const params = pending ? [selection.first, selection.last] : [selection.ips];
    const hosts = this.store
      .query(
        pending
          ? 'SELECT h.ip, h.hits, h.first_seen, h.last_seen FROM host_identity_pending p JOIN host_local h ON h.ip = p.ip WHERE p.ip BETWEEN ? AND ? ORDER BY p.ip'
          : 'SELECT ip, hits, first_seen, last_seen FROM host_local WHERE ip IN (SELECT value FROM json_each(?)) ORDER BY ip',
      )
      .raw()
      .all(...params) as HostRow[];
    if (hosts.length === 0) return [];
    const values = this.store
      .query(
        pending
          ? `SELECT e.ip, e.list, e.key, e.item, e.first_seen, e.last_seen FROM host_identity_pending p JOIN host_evidence e ON e.ip = p.ip
             WHERE p.ip BETWEEN ? AND ? ORDER BY p.ip, e.list, e.key`
          : 'SELECT ip, list, key, item, first_seen, last_seen FROM host_evidence WHERE ip IN (SELECT value FROM json_each(?)) ORDER BY ip, list, key',
      )
      .raw()
      .all(...params) as ValueRow[];
    const byIp = new Map<string, EvidenceRow[]>();
    for (const [ip, list, key, item, first, last] of values) (byIp.get(ip) ?? byIp.set(ip, []).get(ip)!).push([list, key, item, first, last]);
    const central = new Map<string, CentralRow>();
    if (this.anyCentral()) {
      const list = JSON.stringify(hosts.map((host) => host[0]));
      const rows = this.store.query(`SELECT ip, ${CENTRAL_SQL}, central_hits FROM host_id WHERE ip IN (SELECT value FROM json_each(?))`).raw().all(list) as CentralRow[];
      for (const row of rows) central.set(row[0], row);
    }
    return hosts.map(([ip, hits, first, last]) => {
      const [, data, centralHits] = central.get(ip) ?? [ip, null, null];
      return { ip, central: data, centralHits, hits, first, last, values: byIp.get(ip) ?? [] };
    });
  }

  /** Does any host have a central part (a bound workspace, a host file imported)? Most import targets have none. */
  private anyCentral(): boolean {
    return this.store.cachedQuery('host_id any central', () => this.store.query('SELECT EXISTS (SELECT 1 FROM host_id WHERE central IS NOT NULL)').pluck().get() === 1);
  }
}
