/**
 * What a host identity is made of and what is written for it: the types shared by the two ways
 * of writing one (through objects, identity.ts; straight as text, identityText.ts), with no logic.
 */
import type { EvidenceKind } from './derive';

/** One evidence row of an address as stored: list (or service detail), key, item (JSON text), first and last seen. */
export type EvidenceRow = readonly [list: EvidenceKind, key: string, item: string, first: number, last: number];

/** What the identity of an address is made from: its central part as stored, and what the local imports saw. */
export interface IdentitySource {
  readonly ip: string;
  /** The central part (host_id JSON text), if any. */
  readonly central: string | null;
  readonly centralHits: number | null;
  readonly hits: number;
  readonly first: number;
  readonly last: number;
  /** In key order: by list, then key. */
  readonly values: readonly EvidenceRow[];
}

/** The host_id row written for an address. */
export interface IdentityRecord {
  readonly ip: string;
  readonly hits: number;
  readonly first_seen: number;
  readonly last_seen: number;
  readonly hostnames: string;
  /** The identity served, as JSON text. */
  readonly data: string;
}
