/**
 * Recording local changes for the central server (app.md §3): the recorder appends outbox
 * entries (store/outbox.ts) from the API's write paths, inside their transactions, each with the
 * fields it changed, the values they had (the base of the later merge), and its comment.
 */
import { ITEM_FIELDS } from '../../shared/api/inheritance';
import type { JsonObject } from '../../shared/resources';
import { pushValue, sameForSync } from '../../shared/sync/pushForm';
import type { ChangeRecorder } from '../server/store/changeRecorder';
import type { Outbox } from '../server/store/outbox';
import type { Services } from '../server/store/services';
import type { Store } from '../server/store/store';
import type { SyncBases } from '../server/store/syncBases';
import type { SyncMeta } from '../server/store/syncMeta';
import { isPushed } from './synced';

export type { EntryOp, EntryState, OutboxEntry } from '../server/store/outbox';

export { pushValue, sameForSync };

/** The recorder of a bound workspace: outbox entries from the API's write paths. */
export class OutboxRecorder implements ChangeRecorder {
  private readonly store: Store;
  private readonly outbox: Outbox;
  private readonly meta: SyncMeta;
  private readonly bases: SyncBases;
  private readonly listeners = new Set<() => void>();

  constructor(repositories: Pick<Services, 'store' | 'outbox' | 'syncMeta' | 'syncBases'>) {
    this.store = repositories.store;
    this.outbox = repositories.outbox;
    this.meta = repositories.syncMeta;
    this.bases = repositories.syncBases;
  }

  /** Be told (after the commit) whenever a write added to the outbox: time to push. */
  onRecorded(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private recorded(): void {
    this.store.afterCommit(() => {
      for (const listener of this.listeners) listener();
    });
  }

  newPk(): number {
    const next = Number(this.meta.get('next_local_pk') ?? '-1');
    this.meta.set('next_local_pk', String(next - 1));
    return next;
  }

  created(resource: string, pk: number, fields: JsonObject, comment: string | null | undefined): void {
    if (!isPushed(resource)) return;
    const sent: JsonObject = {};
    for (const [field, value] of Object.entries(fields)) sent[field] = pushValue(field, value);
    this.outbox.append('create', resource, pk, sent, {}, comment);
    this.recorded();
  }

  updated(resource: string, pk: number, before: JsonObject, after: JsonObject, given: readonly string[], comment: string | null | undefined): void {
    if (!isPushed(resource)) return;
    const changed = given.filter((field) => !sameForSync(field, before[field], after[field]));
    if (changed.length === 0) {
      // Nothing the central server keeps changed, but the row did (its `updated` time): its base
      // no longer describes it, and the next pull writes the central server's version again.
      // (With a change of it waiting, the push or the restore after a resolve rewrites it.)
      if (pk > 0 && this.outbox.of(resource, pk).length === 0) this.bases.drop(resource, pk);
      return;
    }
    const fields: JsonObject = {};
    const base: JsonObject = {};
    for (const field of changed) {
      fields[field] = pushValue(field, after[field]);
      base[field] = pushValue(field, before[field]);
    }
    if (resource === 'vendor_probe_template') this.forgetDescendants(pk);
    // An object not created on the central server yet: its create carries the change. A create
    // the central server refused is tried again with it (the edit is how the user fixes it).
    const create = this.outbox.of(resource, pk).find((e) => e.op === 'create' && (e.state === 'pending' || e.state === 'parked'));
    if (create) {
      this.outbox.change(create.seq, { fields: { ...create.fields, ...fields }, ...(create.state === 'parked' ? { state: 'pending', message: null } : {}) });
    } else {
      this.outbox.append('update', resource, pk, fields, base, comment);
    }
    this.recorded();
  }

  deleted(resource: string, pk: number, before: JsonObject, comment: string | null | undefined): void {
    if (!isPushed(resource)) return;
    const entries = this.outbox.of(resource, pk);
    const create = entries.find((e) => e.op === 'create');
    // Made here and never sent: nothing to tell the central server.
    if (pk < 0 && create && create.state !== 'sending') {
      for (const entry of entries) this.outbox.remove(entry.seq);
      this.recorded();
      return;
    }
    const base: JsonObject = {};
    for (const [field, value] of Object.entries(before)) base[field] = ITEM_FIELDS.includes(field as (typeof ITEM_FIELDS)[number]) ? pushValue(field, value) : value;
    // A template's interface goes from the children that inherit it too.
    if (resource === 'network_interface' && typeof before.template === 'number') this.forgetDescendants(before.template);
    this.outbox.append('delete', resource, pk, {}, base, comment);
    this.recorded();
  }

  /**
   * A template's change reached its children here by inheritance, with no entries of their own:
   * their bases no longer describe them, and the pull would not write them again where the
   * central server did not change them (it may not have made them inherit the change: its tree
   * may differ). Forgotten, the next pull writes each as the central server has it.
   */
  private forgetDescendants(template: number): void {
    this.bases.forgetTemplateDescendants(template);
  }
}
