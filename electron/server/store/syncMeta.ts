/** The binding's small state (sync_meta): the remote it is bound to, last sync times, the lease. */
import Database from 'better-sqlite3';
import type { Db, OpenOptions } from './database';
import type { Store } from './store';

export class SyncMeta {
  constructor(private readonly store: Store) {}

  get(key: string): string | undefined {
    return (this.store.query('SELECT value FROM sync_meta WHERE key = ?').pluck().get(key) as string | undefined) ?? undefined;
  }

  set(key: string, value: string): void {
    this.store.command('INSERT INTO sync_meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value').run(key, value);
  }

  delete(key: string): void {
    this.store.command('DELETE FROM sync_meta WHERE key = ?').run(key);
  }
}

/** The name of the central server a workspace database is bound to, if any (app.md §2). */
export function boundRemote(db: Db): string | undefined {
  return (db.prepare("SELECT value FROM sync_meta WHERE key = 'remote'").pluck().get() as string | undefined) ?? undefined;
}

/** The remote a workspace file is bound to, read without opening it for writing (throws when it cannot be read). */
export function boundRemoteOf(file: string, options: OpenOptions = {}): string | undefined {
  const db = new Database(file, { readonly: true, fileMustExist: true, ...(options.nativeBinding ? { nativeBinding: options.nativeBinding } : {}) });
  try {
    return boundRemote(db);
  } finally {
    db.close();
  }
}

/** Bind a new, empty workspace database to a central server. */
export function bindRemote(db: Db, remote: { readonly name: string; readonly url: string }): void {
  db.prepare("INSERT INTO sync_meta (key, value) VALUES ('remote', ?), ('remote_url', ?)").run(remote.name, remote.url);
}
