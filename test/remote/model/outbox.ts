/**
 * The outbox as the model test reads it (GET /app/sync), without I/O: which pending entries a
 * push legitimately holds back (behind a refused or conflicting entry of the same object, or
 * waiting for the creation of an object made here), and what a completed sync must never
 * leave behind (an entry still "sending", a pending entry nothing holds, an entry waiting for a
 * creation that is no longer in the outbox: a stuck queue).
 */
import type { EntryView } from '../../../shared/app/sync';
import { family, type Json, REFERENCES } from './objects';

export type Entry = Pick<EntryView, 'seq' | 'op' | 'resource' | 'pk' | 'state' | 'fields' | 'conflicts' | 'message'>;

/** Objects made here (negative pks) that an entry needs created on the central server first. */
export function negativeReferences(entry: Entry): { resource: string; pk: number }[] {
  const out: { resource: string; pk: number }[] = [];
  if (entry.op !== 'create' && entry.pk < 0) out.push({ resource: entry.resource, pk: entry.pk });
  for (const [field, target] of Object.entries(REFERENCES)) {
    const value = entry.fields[field] as Json | undefined;
    for (const pk of Array.isArray(value) ? value : [value]) if (typeof pk === 'number' && pk < 0) out.push({ resource: target, pk });
  }
  return out;
}

function objectKey(entry: Entry): string {
  return `${family(entry.resource)}:${entry.pk}`;
}

/** Seqs of the pending entries a push holds back, as app.md §3 allows. */
export function heldEntries(entries: readonly Entry[]): Set<number> {
  const held = new Set<string>();
  const out = new Set<number>();
  for (const entry of [...entries].sort((a, b) => a.seq - b.seq)) {
    const key = objectKey(entry);
    if (entry.state === 'parked' || entry.state === 'conflict') held.add(key);
    else if (held.has(key) || negativeReferences(entry).length > 0) {
      held.add(key);
      out.add(entry.seq);
    }
  }
  return out;
}

/** Is the entry visible to the user as waiting for them (refused, in conflict, or held behind one)? */
export function isWaiting(entry: Entry, held: ReadonlySet<number>): boolean {
  return entry.state === 'parked' || entry.state === 'conflict' || (entry.state === 'pending' && held.has(entry.seq));
}

/** What a sync that completed must not leave in the outbox. */
export function outboxViolations(entries: readonly Entry[]): string[] {
  const out: string[] = [];
  const held = heldEntries(entries);
  const creates = new Set(entries.filter((e) => e.op === 'create').map((e) => `${family(e.resource)}:${e.pk}`));
  for (const entry of entries) {
    const what = `outbox entry ${entry.seq} (${entry.op} ${entry.resource} ${entry.pk})`;
    if (entry.state === 'sending') out.push(`${what} is still "sending" after a completed sync`);
    if (entry.state === 'pending' && !held.has(entry.seq)) out.push(`${what} is pending after a completed sync, and nothing holds it back`);
    for (const ref of negativeReferences(entry)) {
      if (!creates.has(`${family(ref.resource)}:${ref.pk}`)) {
        out.push(`${what} waits for the creation of ${ref.resource} ${ref.pk}, which is not in the outbox: it can never be pushed`);
      }
    }
  }
  return out;
}
