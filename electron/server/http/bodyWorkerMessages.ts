/**
 * What the body worker sends back: a prepared import whose entries travel in slices, one message
 * each. Receiving a message is a task of the event loop, and decoding hundreds of thousands of
 * entries in one would hold it for seconds; slices let other requests in between.
 */
import type { PreparedImport } from '../../../shared/api/imports';

/** Entries per message: at most a few tens of milliseconds to decode. */
export const ENTRIES_PER_MESSAGE = 2000;

export type WorkerMessage =
  /** A slice of the entries, in order. */
  | { readonly entries: readonly unknown[] }
  /** The prepared import, without its entries when it has some (they came before). */
  | { readonly done: PreparedImport };

/** The messages that carry `prepared`. */
export function* messagesOf(prepared: PreparedImport): Generator<WorkerMessage> {
  if (!prepared.checked.ok) {
    yield { done: prepared };
    return;
  }
  const { entries } = prepared.checked;
  for (let start = 0; start < entries.length; start += ENTRIES_PER_MESSAGE) yield { entries: entries.slice(start, start + ENTRIES_PER_MESSAGE) };
  const none = { ok: true, entries: [] } as const;
  yield { done: prepared.name === 'host_id' ? { name: prepared.name, checked: none } : { name: prepared.name, checked: none } };
}

/** `done` with the entries received before it put back. */
export function withEntries(done: PreparedImport, slices: readonly (readonly unknown[])[]): PreparedImport {
  if (!done.checked.ok || slices.length === 0) return done;
  // The entries are the worker's own output for this very import, of its kind.
  return { ...done, checked: { ok: true, entries: slices.flat() } } as PreparedImport;
}
