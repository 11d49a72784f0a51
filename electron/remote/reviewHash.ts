/**
 * The hashes of a review plan (shared/sync/review.ts): SHA-256 of an outbox entry's fingerprint,
 * and of what the central server showed for it (shared/sync/reviewPlan.ts says what each covers).
 * The plan takes them when it reads; applying takes them again and sends only what still matches.
 */
import { createHash } from 'node:crypto';
import type { JsonObject } from '../../shared/resources';
import { centralFingerprint, entryFingerprint, type WaitingEntry } from '../../shared/sync/reviewPlan';

function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

export function entryHash(entry: WaitingEntry): string {
  return sha256(entryFingerprint(entry));
}

/** `theirs` undefined: the object is not there (an update's or delete's 404, a create's name free). */
export function centralHash(entry: WaitingEntry, theirs: JsonObject | undefined): string {
  return sha256(centralFingerprint(entry, theirs));
}
