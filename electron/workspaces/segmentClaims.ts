/**
 * The segments of a file, claimed in turn by the threads that read them (the import's own and
 * its reader threads) through counters in shared memory: each thread takes the next segment as
 * soon as it is free, so none waits to be handed work while another is busy. A thread may claim
 * no further than `ahead` segments past the last one the import has taken in file order: the
 * results waiting to be taken, and so the memory, stay bounded.
 */

const NEXT = 0;
const TAKEN = 1;
const STOP = 2;
/** How long a reader thread waits for the import to take a segment before it looks again. */
const WAIT_MS = 100;

export class SegmentClaims {
  private readonly counters: Int32Array;

  private constructor(
    readonly shared: SharedArrayBuffer,
    readonly count: number,
    readonly ahead: number,
  ) {
    this.counters = new Int32Array(shared);
  }

  /** Claims over `count` segments, none claimed yet. */
  static create(count: number, ahead: number): SegmentClaims {
    return new SegmentClaims(new SharedArrayBuffer(3 * Int32Array.BYTES_PER_ELEMENT), count, Math.max(1, ahead));
  }

  /** The same claims, seen from another thread. */
  static of(shared: SharedArrayBuffer, count: number, ahead: number): SegmentClaims {
    return new SegmentClaims(shared, count, ahead);
  }

  get stopped(): boolean {
    return Atomics.load(this.counters, STOP) !== 0;
  }

  /**
   * The next segment for this thread: its index; `undefined` when every segment is claimed or
   * the reading stopped; `'later'` when this thread may not claim further ahead yet (only
   * without `wait`: a reader thread waits for the import to take a segment instead).
   */
  claim(wait: boolean): number | undefined | 'later' {
    for (;;) {
      if (this.stopped) return undefined;
      const next = Atomics.load(this.counters, NEXT);
      if (next >= this.count) return undefined;
      const taken = Atomics.load(this.counters, TAKEN);
      if (next >= taken + this.ahead) {
        if (!wait) return 'later';
        Atomics.wait(this.counters, TAKEN, taken, WAIT_MS);
        continue;
      }
      if (Atomics.compareExchange(this.counters, NEXT, next, next + 1) === next) return next;
    }
  }

  /** The import has taken the first `count` segments: the threads waiting to claim may go on. */
  taken(count: number): void {
    Atomics.store(this.counters, TAKEN, count);
    Atomics.notify(this.counters, TAKEN);
  }

  /** No segment is claimed any more (the import stopped). */
  stop(): void {
    Atomics.store(this.counters, STOP, 1);
    Atomics.notify(this.counters, TAKEN);
  }
}
