/**
 * The sync lease (app.md §3): one sync at a time across the processes sharing a workspace. The
 * lease lives in sync_meta as `<pid>:<time>`; the syncing process renews it every quarter of its
 * length, and a lease older than that length is a crashed process's, whatever now runs under its
 * pid (pids are reused: a lease is trusted for its age, not for its pid alone).
 */
import type { Store } from '../server/store/store';
import type { SyncMeta } from '../server/store/syncMeta';

const LEASE_KEY = 'sync_lease';
export const LEASE_MS = 60_000;

export class SyncBusyError extends Error {}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export class SyncLease {
  private renewal: NodeJS.Timeout | undefined;

  constructor(
    private readonly store: Store,
    private readonly meta: SyncMeta,
    private readonly leaseMs: number = LEASE_MS,
    /** A renewal that failed (the database is busy or closed): reported, the sync goes on. */
    private readonly onRenewalError: (error: unknown) => void = () => undefined,
  ) {}

  /** Take the lease, or throw SyncBusyError while another live process holds one it renewed lately. */
  acquire(): void {
    this.store.write(() => {
      const held = this.meta.get(LEASE_KEY);
      if (held) {
        const [pid, at] = held.split(':').map(Number) as [number, number];
        const fresh = Date.now() - at < this.leaseMs;
        if (pid !== process.pid && fresh && processAlive(pid)) {
          throw new SyncBusyError(`another Outpost process (pid ${pid}) is syncing this workspace; try again when it is done`);
        }
      }
      this.meta.set(LEASE_KEY, `${process.pid}:${Date.now()}`);
    });
    this.renewal = setInterval(() => {
      try {
        this.renew();
      } catch (error) {
        this.onRenewalError(error);
      }
    }, this.leaseMs / 4);
    this.renewal.unref();
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
      if (this.meta.get(LEASE_KEY)?.startsWith(`${process.pid}:`)) this.meta.delete(LEASE_KEY);
    });
  }
}
