/** The binding's small state (sync_meta): the remote it is bound to, last sync times, the lease. */
import type { Db } from './database';
import { Store } from './store';
import { NEW_WORKSPACE_MODE_DEFAULT, pushModeOf, STORED_MODE_DEFAULT, type PushMode } from '../../../shared/sync/review';

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

  /** How changes leave (`push_mode`); a workspace bound before the setting existed sends automatically. */
  pushMode(): PushMode {
    return pushModeOf(this.get('push_mode')) ?? STORED_MODE_DEFAULT;
  }
}

/** Bind a new, empty workspace database to a central server; a new workspace sends after review unless told. */
export function bindRemote(db: Db, remote: { readonly name: string; readonly url: string }, pushMode: PushMode = NEW_WORKSPACE_MODE_DEFAULT): void {
  // The caller owns the connection and closes it: this store only times the statements.
  const store = new Store(db);
  const meta = new SyncMeta(store);
  store.write(() => {
    meta.set('remote', remote.name);
    meta.set('remote_url', remote.url);
    meta.set('push_mode', pushMode);
  });
}
