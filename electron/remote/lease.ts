/**
 * The sync lease (app.md §3): one sync at a time across the processes sharing a workspace. The
 * lease lives in sync_meta as `<pid>:<time>`; the syncing process renews it every quarter of its
 * length, and a lease older than that length is a crashed process's, whatever now runs under its
 * pid (pids are reused: a lease is trusted for its age, not for its pid alone). A lease whose pid
 * is gone is taken over at once. Beside it, `<pid>:<label>` says which kind of process holds it
 * (serve, sync, app), for the message of one that waits.
 */
import { visible } from '../../shared/text/visible';
import type { Store } from '../server/store/store';
import type { SyncMeta } from '../server/store/syncMeta';

const LEASE_KEY = 'sync_lease';
/** A key of its own, so that the lease keeps the `<pid>:<time>` form older Outposts read. */
const HOLDER_KEY = 'sync_lease_holder';
export const LEASE_MS = 60_000;
/** How long a sync that asks to wait waits for another process's sync to end (`outpost sync`). */
export const LEASE_WAIT_MS = 30_000;
/** How often a waiting sync looks at the lease again. */
const WAIT_POLL_MS = 250;

/** The process holding the lease: its pid, and what it is when it said so. */
export interface LeaseHolder {
  readonly pid: number;
  readonly label: string | undefined;
}

export class SyncBusyError extends Error {
  constructor(readonly holder: LeaseHolder) {
    super(`another Outpost process (pid ${holder.pid}) is syncing this workspace; try again when it is done`);
  }
}

/** Wait for a lease another live process holds, rather than refusing at once. */
export interface LeaseWait {
  /** How long (ms); LEASE_WAIT_MS unless given (the tests shorten it). */
  readonly ms?: number;
  /** Told once, when the wait begins. */
  readonly onWaiting: (holder: LeaseHolder, ms: number) => void;
}

export interface LeaseOptions {
  /** How long the lease holds without being renewed (ms). */
  readonly leaseMs?: number;
  /** What this process is (serve, sync, app), told to a process that waits for it. */
  readonly label?: string;
  /** A renewal that failed (the database is busy or closed): reported, the sync goes on. */
  readonly onRenewalError?: (error: unknown) => void;
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A label from the database, as a terminal may show it: its control characters visible, cut at `max`. */
function shownLabel(text: string, max = 40): string {
  const shown = visible(text);
  return shown.length > max ? `${shown.slice(0, max)}…` : shown;
}

/** The line a waiting sync shows: whose sync it waits for, and for how long at most. */
export function waitingLine(holder: LeaseHolder, ms: number): string {
  const who = holder.label === undefined ? `process ${holder.pid}` : `process ${holder.pid} (${shownLabel(holder.label)})`;
  return `waiting for the sync of ${who} to end (up to ${Math.round(ms / 1000)} s)…`;
}

export class SyncLease {
  private renewal: NodeJS.Timeout | undefined;
  private readonly leaseMs: number;

  constructor(
    private readonly store: Store,
    private readonly meta: SyncMeta,
    private readonly options: LeaseOptions = {},
  ) {
    this.leaseMs = options.leaseMs ?? LEASE_MS;
  }

  /**
   * Take the lease. While another live process holds one it renewed lately: throw SyncBusyError
   * at once, or, with `wait`, look again every WAIT_POLL_MS until it is free or the wait is over.
   * Taken at once, it returns nothing (no await: the sync's first progress is in place before
   * the answer of whoever started it); waited for, a promise.
   */
  acquire(wait?: LeaseWait): Promise<void> | undefined {
    const holder = this.take();
    if (!holder) {
      this.startRenewal();
      return undefined;
    }
    if (!wait) throw new SyncBusyError(holder);
    return this.waitFor(holder, wait);
  }

  private async waitFor(first: LeaseHolder, wait: LeaseWait): Promise<void> {
    let holder: LeaseHolder | undefined = first;
    const ms = wait.ms ?? LEASE_WAIT_MS;
    wait.onWaiting(holder, ms);
    const until = Date.now() + ms;
    while (holder && Date.now() < until) {
      await sleep(Math.min(WAIT_POLL_MS, until - Date.now()));
      holder = this.take();
    }
    if (holder) throw new SyncBusyError(holder);
    this.startRenewal();
  }

  private startRenewal(): void {
    this.renewal = setInterval(() => {
      try {
        this.renew();
      } catch (error) {
        this.options.onRenewalError?.(error);
      }
    }, this.leaseMs / 4);
    this.renewal.unref();
  }

  /** Take the lease if no other live process holds a fresh one; else that process. */
  private take(): LeaseHolder | undefined {
    return this.store.write(() => {
      const holder = this.heldElsewhere();
      if (holder) return holder;
      this.meta.set(LEASE_KEY, `${process.pid}:${Date.now()}`);
      if (this.options.label === undefined) this.meta.delete(HOLDER_KEY);
      else this.meta.set(HOLDER_KEY, `${process.pid}:${this.options.label}`);
      return undefined;
    });
  }

  private heldElsewhere(): LeaseHolder | undefined {
    const held = this.meta.get(LEASE_KEY);
    if (!held) return undefined;
    const [pid, at] = held.split(':').map(Number) as [number, number];
    const fresh = Date.now() - at < this.leaseMs;
    if (pid === process.pid || !fresh || !processAlive(pid)) return undefined;
    const by = this.meta.get(HOLDER_KEY);
    return { pid, label: by?.startsWith(`${pid}:`) ? by.slice(`${pid}:`.length) : undefined };
  }

  private renew(): void {
    this.store.write(() => {
      if (this.meta.get(LEASE_KEY)?.startsWith(`${process.pid}:`)) this.meta.set(LEASE_KEY, `${process.pid}:${Date.now()}`);
    });
  }

  release(): void {
    clearInterval(this.renewal);
    this.renewal = undefined;
    this.store.write(() => {
      if (!this.meta.get(LEASE_KEY)?.startsWith(`${process.pid}:`)) return;
      this.meta.delete(LEASE_KEY);
      this.meta.delete(HOLDER_KEY);
    });
  }
}
