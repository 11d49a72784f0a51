/**
 * Hosts read a batch at a time, for what reads all of a list (the CSV and JSON exports, the site
 * report): the list's pks in its order are read once (8 bytes a host: 8 MB at a million), then the
 * rows a batch of pks at a time (the survey's `rows`), so that no more than a batch of identities
 * is ever in memory. A host written meanwhile is read as it is then; one removed meanwhile is left
 * out; one added meanwhile is not in the list.
 */
import type { HostOrderKey } from '../../../shared/app/hostSurvey';
import { ORDER_SQL as LIST_ORDER_SQL } from './hostSurvey';
import type { Store } from './store';

/** The SQL of each ordering key: the survey list's, and `pk`; identifiers from this table only. */
const ORDER_SQL: Readonly<Record<BatchOrderKey, string>> = { ...LIST_ORDER_SQL, pk: 'pk' };

/** The list's keys, and `pk`: the order rows were made in, which the JSON parts' pk ranges follow. */
export type BatchOrderKey = HostOrderKey | 'pk';

/** The pks of the hosts (all, or those of a set given as a JSON list), in the list's order; ties by pk. */
export function orderedHostPks(store: Store, ordering: { readonly key: BatchOrderKey; readonly descending: boolean }, among?: string): number[] {
  // Ties in the key's direction, as the survey list breaks them (the same order, and the order's index serves it).
  const direction = ordering.descending ? 'DESC' : 'ASC';
  const order = `${ORDER_SQL[ordering.key]} ${direction}, pk ${direction}`;
  const sql = among === undefined ? `SELECT pk FROM host_id ORDER BY ${order}` : `SELECT pk FROM host_id WHERE pk IN (SELECT value FROM json_each(?)) ORDER BY ${order}`;
  const statement = store.query(sql).pluck();
  return (among === undefined ? statement.all() : statement.all(among)) as number[];
}
