/**
 * The outbox as the Sync screen and `outpost sync --status` show it: each waiting change with a
 * label a person recognises (the object's name), and each conflicting field with the base, the
 * local value and the central server's.
 */
import { formatDateTime } from '../../shared/api/datetime';
import { entryState, type ConflictField, type EntryView } from '../../shared/app/sync';
import type { OutboxEntry } from '../server/store/outbox';
import type { Services } from '../server/store/services';
import { pushed } from './synced';

export class OutboxView {
  constructor(private readonly services: Services) {}

  private label(entry: OutboxEntry): string {
    const name = entry.fields.name;
    if (typeof name === 'string') return name;
    const synced = pushed(entry.resource);
    if (synced) {
      const current = this.services.mirrorRows.value(synced.table, entry.pk, 'name');
      if (typeof current === 'string') return current;
    }
    if (typeof entry.base.name === 'string') return entry.base.name;
    return `${entry.resource.replace(/_/g, ' ')} ${entry.pk}`;
  }

  /** `inFlight`: the entry a running push is sending now. */
  view(entry: OutboxEntry, inFlight?: number): EntryView {
    const theirs = entry.theirs ?? {};
    const conflicts: ConflictField[] =
      entry.state !== 'conflict'
        ? []
        : Object.keys(theirs).map((field) => ({
            field,
            base: entry.base[field] ?? null,
            mine: entry.op === 'delete' ? null : (entry.fields[field] ?? null),
            theirs: theirs[field] ?? null,
          }));
    return {
      seq: entry.seq,
      op: entry.op,
      resource: entry.resource,
      pk: entry.pk,
      label: this.label(entry),
      state: entryState(entry.state, entry.seq === inFlight),
      message: entry.message,
      comment: entry.comment,
      fields: entry.fields,
      created: formatDateTime(entry.created),
      conflicts,
    };
  }

  entries(inFlight?: number): EntryView[] {
    return this.services.outbox.entries().map((e) => this.view(e, inFlight));
  }

  conflicts(): EntryView[] {
    return this.services.outbox
      .entries()
      .filter((e) => e.state === 'conflict')
      .map((e) => this.view(e));
  }
}
