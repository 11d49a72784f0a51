/**
 * The outbox (app.md §3): local changes not yet pushed, in order, each with the fields it
 * changed, the values they had (the base of the later merge), and its comment. The recorder
 * appends entries from the API's write paths, inside their transactions.
 */
import { ITEM_FIELDS } from '../../shared/api/inheritance';
import type { JsonObject, JsonValue } from '../../shared/resources';
import { canonical, itemsByName } from '../../shared/sync/merge';
import type { ChangeRecorder } from '../server/changeRecorder';
import { int, text, textOrNull } from '../server/store/rows';
import type { Store } from '../server/store/store';
import type { Row } from '../server/store/table';
import { isPushed } from './synced';

export type EntryState = 'pending' | 'sending' | 'parked' | 'conflict';
export type EntryOp = 'create' | 'update' | 'delete';

export interface OutboxEntry {
  readonly seq: number;
  readonly op: EntryOp;
  readonly resource: string;
  readonly pk: number;
  readonly fields: JsonObject;
  readonly base: JsonObject;
  readonly comment: string | null;
  readonly state: EntryState;
  readonly message: string | null;
  readonly theirs: JsonObject | null;
  readonly attempts: number;
  readonly created: number;
}

const FLAGS: Readonly<Record<string, string>> = { interfaces: 'active', protocols: 'detection' };

/** A value as it is sent to the central server: interfaces and protocols without local pks. */
export function pushValue(field: string, value: JsonValue | undefined): JsonValue {
  const flag = FLAGS[field];
  if (flag === undefined) return value ?? null;
  return [...itemsByName(value, flag)].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([name, on]) => ({ name, [flag]: on }));
}

export function sameForSync(field: string, a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  return canonical(pushValue(field, a)) === canonical(pushValue(field, b));
}

function entryOf(row: Row): OutboxEntry {
  return {
    seq: int(row, 'seq'),
    op: text(row, 'op') as EntryOp,
    resource: text(row, 'resource'),
    pk: int(row, 'pk'),
    fields: JSON.parse(text(row, 'fields')) as JsonObject,
    base: JSON.parse(text(row, 'base')) as JsonObject,
    comment: textOrNull(row, 'comment'),
    state: text(row, 'state') as EntryState,
    message: textOrNull(row, 'message'),
    theirs: row.theirs === null ? null : (JSON.parse(text(row, 'theirs')) as JsonObject),
    attempts: int(row, 'attempts'),
    created: int(row, 'created'),
  };
}

export class Outbox {
  constructor(private readonly store: Store) {}

  entries(): OutboxEntry[] {
    return (this.store.prepare('SELECT * FROM outbox ORDER BY seq').all() as Row[]).map(entryOf);
  }

  get(seq: number): OutboxEntry | undefined {
    const row = this.store.prepare('SELECT * FROM outbox WHERE seq = ?').get(seq) as Row | undefined;
    return row ? entryOf(row) : undefined;
  }

  of(resource: string, pk: number): OutboxEntry[] {
    return (this.store.prepare('SELECT * FROM outbox WHERE resource = ? AND pk = ? ORDER BY seq').all(resource, pk) as Row[]).map(entryOf);
  }

  append(op: EntryOp, resource: string, pk: number, fields: JsonObject, base: JsonObject, comment: string | null | undefined): number {
    const now = this.store.now();
    return Number(
      this.store
        .prepare('INSERT INTO outbox (op, resource, pk, fields, base, comment, created, updated) VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
        .run(op, resource, pk, JSON.stringify(fields), JSON.stringify(base), comment ?? null, now, now).lastInsertRowid,
    );
  }

  change(seq: number, changes: { state?: EntryState; message?: string | null; theirs?: JsonObject | null; fields?: JsonObject; base?: JsonObject; attempts?: number }): void {
    const sets: string[] = ['updated = ?'];
    const params: (string | number | null)[] = [this.store.now()];
    if (changes.state !== undefined) (sets.push('state = ?'), params.push(changes.state));
    if (changes.message !== undefined) (sets.push('message = ?'), params.push(changes.message));
    if (changes.theirs !== undefined) (sets.push('theirs = ?'), params.push(changes.theirs === null ? null : JSON.stringify(changes.theirs)));
    if (changes.fields !== undefined) (sets.push('fields = ?'), params.push(JSON.stringify(changes.fields)));
    if (changes.base !== undefined) (sets.push('base = ?'), params.push(JSON.stringify(changes.base)));
    if (changes.attempts !== undefined) (sets.push('attempts = ?'), params.push(changes.attempts));
    this.store.prepare(`UPDATE outbox SET ${sets.join(', ')} WHERE seq = ?`).run(...params, seq);
  }

  remove(seq: number): void {
    this.store.prepare('DELETE FROM outbox WHERE seq = ?').run(seq);
  }

  counts(): { pending: number; parked: number; conflicts: number } {
    const rows = this.store.prepare('SELECT state, count(*) AS n FROM outbox GROUP BY state').all() as Row[];
    const by = Object.fromEntries(rows.map((r) => [text(r, 'state'), int(r, 'n')]));
    return { pending: (by.pending ?? 0) + (by.sending ?? 0), parked: by.parked ?? 0, conflicts: by.conflict ?? 0 };
  }
}

/** Reads and writes the binding's small state in sync_meta. */
export class SyncMeta {
  constructor(private readonly store: Store) {}

  get(key: string): string | undefined {
    return (this.store.prepare('SELECT value FROM sync_meta WHERE key = ?').pluck().get(key) as string | undefined) ?? undefined;
  }

  set(key: string, value: string): void {
    this.store.prepare('INSERT INTO sync_meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value').run(key, value);
  }

  delete(key: string): void {
    this.store.prepare('DELETE FROM sync_meta WHERE key = ?').run(key);
  }
}

/** The recorder of a bound workspace: outbox entries from the API's write paths. */
export class OutboxRecorder implements ChangeRecorder {
  private readonly outbox: Outbox;
  private readonly meta: SyncMeta;
  private readonly listeners = new Set<() => void>();

  constructor(private readonly store: Store) {
    this.outbox = new Outbox(store);
    this.meta = new SyncMeta(store);
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
      if (pk > 0 && this.outbox.of(resource, pk).length === 0) this.store.prepare('DELETE FROM sync_base WHERE resource = ? AND pk = ?').run(resource, pk);
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
    this.store
      .prepare(
        `WITH RECURSIVE tree(pk) AS (
           SELECT pk FROM vendor_probe_template WHERE parent_tmpl = @template
           UNION SELECT t.pk FROM vendor_probe_template t JOIN tree ON t.parent_tmpl = tree.pk)
         DELETE FROM sync_base
         WHERE (resource = 'vendor_probe_template' AND pk IN (SELECT pk FROM tree))
            OR (resource = 'vendor_probe' AND pk IN (SELECT pk FROM appliance WHERE parent_tmpl = @template OR parent_tmpl IN (SELECT pk FROM tree)))`,
      )
      .run({ template });
  }
}

