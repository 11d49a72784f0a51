/**
 * Hosts read a batch at a time, for what reads all of a list (the CSV and JSON exports, the site
 * report): the list's pks in its order are read once (8 bytes a host: 8 MB at a million), then the
 * rows a batch of pks at a time, so that no more than a batch of identities is ever in memory. A
 * host written meanwhile is read as it is then; one removed meanwhile is left out; one added
 * meanwhile is not in the list.
 */
import type { HostOrderKey, HostSource } from '../../../shared/app/hostSurvey';
import type { Store } from './store';

/** A stored host as an export reads it: the API's parts, and where its evidence came from. */
export interface StoredHost {
  readonly pk: number;
  readonly ip: string;
  readonly hits: number;
  /** The host_id object as JSON text. */
  readonly data: string;
  readonly source: HostSource;
  /** The import or pull that first brought it, and when that ended (epoch µs); null before imports were recorded. */
  readonly learned: number | null;
  readonly learned_at: number | null;
}

/** The SQL of each ordering key (the survey list's, store/hostSurvey.ts); identifiers from this table only. */
const ORDER_SQL: Readonly<Record<BatchOrderKey, string>> = { ip: 'ip', hits: 'hits', first_seen: 'first_seen', last_seen: 'last_seen', learned: 'learned', pk: 'pk' };

/** The list's keys, and `pk`: the order rows were made in, which the JSON parts' pk ranges follow. */
export type BatchOrderKey = HostOrderKey | 'pk';

/** Where a host's evidence came from, as the survey's list says it: local evidence, a central part (a pull or a host file), or both. */
const SOURCE_SQL = "CASE WHEN NOT EXISTS (SELECT 1 FROM host_local l WHERE l.ip = host_id.ip) THEN 'central' WHEN central IS NULL THEN 'local' ELSE 'both' END";

/** The pks of the hosts (all, or those of a set given as a JSON list), in the list's order; ties by pk. */
export function orderedHostPks(store: Store, ordering: { readonly key: BatchOrderKey; readonly descending: boolean }, among?: string): number[] {
  // Ties in the key's direction, as the survey list breaks them (the same order, and the order's index serves it).
  const direction = ordering.descending ? 'DESC' : 'ASC';
  const order = `${ORDER_SQL[ordering.key]} ${direction}, pk ${direction}`;
  const sql = among === undefined ? `SELECT pk FROM host_id ORDER BY ${order}` : `SELECT pk FROM host_id WHERE pk IN (SELECT value FROM json_each(?)) ORDER BY ${order}`;
  const statement = store.query(sql).pluck();
  return (among === undefined ? statement.all() : statement.all(among)) as number[];
}

/** The hosts of these pks, in the order given (those removed since are left out). */
export function hostsByPks(store: Store, pks: readonly number[]): StoredHost[] {
  const rows = store.query(`SELECT pk, ip, hits, data, ${SOURCE_SQL} AS source, learned, (SELECT v.finished FROM host_visit v WHERE v.pk = host_id.learned) AS learned_at FROM host_id WHERE pk IN (SELECT value FROM json_each(?))`).all(JSON.stringify(pks)) as StoredHost[];
  const byPk = new Map(rows.map((row) => [row.pk, row]));
  const out: StoredHost[] = [];
  for (const pk of pks) {
    const row = byPk.get(pk);
    if (row) out.push(row);
  }
  return out;
}
