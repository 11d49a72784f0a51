/**
 * The outbox table (app.md §3): local changes not yet pushed, in order, each with the fields it
 * changed, the values they had (the base of the later merge), its comment and its state.
 */
import type { JsonObject } from '../../../shared/resources';
import type { Row } from './columns';
import { int, text, textOrNull } from './rows';
import type { Store } from './store';

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

export interface EntryChange {
  readonly state?: EntryState;
  readonly message?: string | null;
  readonly theirs?: JsonObject | null;
  readonly fields?: JsonObject;
  readonly base?: JsonObject;
  readonly attempts?: number;
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
    return (this.store.query('SELECT * FROM outbox ORDER BY seq').all() as Row[]).map(entryOf);
  }

  get(seq: number): OutboxEntry | undefined {
    const row = this.store.query('SELECT * FROM outbox WHERE seq = ?').get(seq) as Row | undefined;
    return row ? entryOf(row) : undefined;
  }

  of(resource: string, pk: number): OutboxEntry[] {
    return (this.store.query('SELECT * FROM outbox WHERE resource = ? AND pk = ? ORDER BY seq').all(resource, pk) as Row[]).map(entryOf);
  }

  /** Entries whose JSON (fields, base or theirs) holds this number: those that may refer to an object. */
  mentioning(pk: number): OutboxEntry[] {
    return (this.store.query("SELECT * FROM outbox WHERE instr(fields || base || coalesce(theirs, ''), ?) > 0 ORDER BY seq").all(String(pk)) as Row[]).map(entryOf);
  }

  /** pks of the objects of a resource whose delete waits here. */
  deletedPks(resource: string): Set<number> {
    return new Set(this.store.query("SELECT pk FROM outbox WHERE resource = ? AND op = 'delete'").pluck().all(resource) as number[]);
  }

  append(op: EntryOp, resource: string, pk: number, fields: JsonObject, base: JsonObject, comment: string | null | undefined): number {
    const now = this.store.now();
    return Number(
      this.store
        .command('INSERT INTO outbox (op, resource, pk, fields, base, comment, created, updated) VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
        .run(op, resource, pk, JSON.stringify(fields), JSON.stringify(base), comment ?? null, now, now).lastInsertRowid,
    );
  }

  change(seq: number, changes: EntryChange): void {
    const sets: string[] = ['updated = ?'];
    const params: (string | number | null)[] = [this.store.now()];
    if (changes.state !== undefined) (sets.push('state = ?'), params.push(changes.state));
    if (changes.message !== undefined) (sets.push('message = ?'), params.push(changes.message));
    if (changes.theirs !== undefined) (sets.push('theirs = ?'), params.push(changes.theirs === null ? null : JSON.stringify(changes.theirs)));
    if (changes.fields !== undefined) (sets.push('fields = ?'), params.push(JSON.stringify(changes.fields)));
    if (changes.base !== undefined) (sets.push('base = ?'), params.push(JSON.stringify(changes.base)));
    if (changes.attempts !== undefined) (sets.push('attempts = ?'), params.push(changes.attempts));
    this.store.command(`UPDATE outbox SET ${sets.join(', ')} WHERE seq = ?`).run(...params, seq);
  }

  /** Set an entry's JSON columns as they are, its `updated` time unchanged (a re-key). */
  rewrite(seq: number, columns: { fields?: JsonObject; base?: JsonObject; theirs?: JsonObject }): void {
    for (const [column, value] of Object.entries(columns)) {
      this.store.command(`UPDATE outbox SET "${column}" = ? WHERE seq = ?`).run(JSON.stringify(value), seq);
    }
  }

  remove(seq: number): void {
    this.store.command('DELETE FROM outbox WHERE seq = ?').run(seq);
  }

  /** Move the entries of an object to its new pk (a re-key); `resources` share one pk sequence. */
  rekey(resources: readonly string[], from: number, to: number): void {
    this.store.command('UPDATE outbox SET pk = ? WHERE pk = ? AND resource IN (SELECT value FROM json_each(?))').run(to, from, JSON.stringify(resources));
  }

  counts(): { pending: number; parked: number; conflicts: number } {
    const rows = this.store.query('SELECT state, count(*) AS n FROM outbox GROUP BY state').all() as Row[];
    const by = Object.fromEntries(rows.map((r) => [text(r, 'state'), int(r, 'n')]));
    return { pending: (by.pending ?? 0) + (by.sending ?? 0), parked: by.parked ?? 0, conflicts: by.conflict ?? 0 };
  }
}
