/**
 * The identities of a staged EVE import, written by its final transaction. The addresses are cut
 * into chunks, claimed through counters in shared memory: the identity thread reads and makes
 * them in order from its own snapshot (identityThread.ts); this thread writes them in order, and
 * whenever the thread's next rows have not come yet, claims a chunk further on and makes it here
 * from the tables (the staging is in them by then, merged as the thread merges it). Each chunk is
 * made once, by whichever thread claimed it, and every row is written in address order.
 */
import type { IdentityRecord } from '../../shared/eve/identity';
import type { Hosts } from '../server/store/hosts';
import type { IdentityThread } from './identityThread';

/** Addresses per chunk. */
export const STAGED_CHUNK = 64;
/** Chunks made here ahead of the one to write next, waiting in memory (a few hundred KB). */
const HELD_MAX = 8;

const FREE = 0;
export type Claimant = 'thread' | 'here';
const CLAIMANT: Readonly<Record<Claimant, number>> = { thread: 1, here: 2 };

/** One claim per chunk, shared between the threads: free, or whose. */
export class ChunkClaims {
  private readonly claims: Int32Array;

  private constructor(readonly shared: SharedArrayBuffer) {
    this.claims = new Int32Array(shared);
  }

  /** The claims of `addresses` addresses' chunks, none claimed. */
  static create(addresses: number): ChunkClaims {
    return new ChunkClaims(new SharedArrayBuffer(Math.ceil(addresses / STAGED_CHUNK) * Int32Array.BYTES_PER_ELEMENT));
  }

  /** The same claims, seen from another thread. */
  static of(shared: SharedArrayBuffer): ChunkClaims {
    return new ChunkClaims(shared);
  }

  get count(): number {
    return this.claims.length;
  }

  /** Claim chunk `chunk` for `by`: true if it was free. */
  claim(chunk: number, by: Claimant): boolean {
    return Atomics.compareExchange(this.claims, chunk, FREE, CLAIMANT[by]) === FREE;
  }

  isThreads(chunk: number): boolean {
    return Atomics.load(this.claims, chunk) === CLAIMANT.thread;
  }

  isHere(chunk: number): boolean {
    return Atomics.load(this.claims, chunk) === CLAIMANT.here;
  }
}

/** A staged read asked of the identity thread. */
export interface StagedIdentities {
  readonly thread: IdentityThread;
  /** The addresses, in order. */
  readonly ips: readonly string[];
  readonly claims: ChunkClaims;
  readonly homeNets: readonly string[];
}

/**
 * Write the identities of a staged read's addresses in order as the thread makes them, making
 * chunks here while its rows are late; false if the thread failed or fell silent (the caller then
 * writes every identity itself).
 */
export function writeStagedIdentities({ thread, ips, claims, homeNets }: StagedIdentities, hosts: Hosts): boolean {
  const made = (chunk: number) => hosts.identitiesOf(ips.slice(chunk * STAGED_CHUNK, (chunk + 1) * STAGED_CHUNK), homeNets);
  const held = new Map<number, IdentityRecord[]>();
  // Chunks before `free` are all claimed: a claim is never given back.
  let free = 0;
  for (let next = 0; next < claims.count; ) {
    // Made here: claimed here before (and held, if made already), or free until now.
    const here = held.get(next) ?? (claims.claim(next, 'here') || claims.isHere(next) ? made(next) : undefined);
    if (here) {
      held.delete(next);
      hosts.writeIdentities(here);
      next++;
      continue;
    }
    let rows = thread.nextRead(false);
    if (rows === 'later') {
      // Not come yet: the first free chunk further on is made here meanwhile.
      free = Math.max(free, next + 1);
      while (free < claims.count && held.size < HELD_MAX && !claims.claim(free, 'here')) free++;
      if (free < claims.count && held.size < HELD_MAX) {
        held.set(free, made(free));
        continue;
      }
      rows = thread.nextRead(true);
    }
    // The thread posts its chunks in order, and the chunks before this one are written.
    if (rows === 'failed' || rows === 'later' || rows === undefined || rows.chunk !== next || !claims.isThreads(next)) return false;
    hosts.writeIdentities(rows.rows);
    next++;
  }
  // Then its end, once it has passed the chunks claimed here.
  return thread.nextRead(true) === undefined;
}
