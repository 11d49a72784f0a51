/** The central server's history, mirrored for reading offline (remote_user_action), newest first. */
import type { JsonObject } from '../../../shared/resources';
import type { Row } from './columns';
import { int, text } from './rows';
import type { Store } from './store';

export class RemoteHistory {
  constructor(private readonly store: Store) {}

  put(pk: number, date: string, entry: JsonObject): void {
    this.store
      .command('INSERT INTO remote_user_action (pk, date, data) VALUES (?, ?, ?) ON CONFLICT(pk) DO UPDATE SET date = excluded.date, data = excluded.data')
      .run(pk, date, JSON.stringify(entry));
  }

  remove(pk: number): void {
    this.store.command('DELETE FROM remote_user_action WHERE pk = ?').run(pk);
  }

  /** The highest pk mirrored (0 when none): the pull asks only for newer entries. */
  newestPk(): number {
    return Number(this.store.query('SELECT coalesce(max(pk), 0) FROM remote_user_action').pluck().get());
  }

  pks(): number[] {
    return this.store.query('SELECT pk FROM remote_user_action').pluck().all() as number[];
  }

  /** One page of entries, newest first, with the count of all. */
  page(page: number, size: number): { count: number; results: JsonObject[] } {
    const count = Number(this.store.query('SELECT count(*) FROM remote_user_action').pluck().get());
    const rows = this.store.query('SELECT pk, data FROM remote_user_action ORDER BY pk DESC LIMIT ? OFFSET ?').all(size, (page - 1) * size) as Row[];
    return { count, results: rows.map((r) => ({ ...(JSON.parse(text(r, 'data')) as JsonObject), pk: int(r, 'pk') })) };
  }
}
