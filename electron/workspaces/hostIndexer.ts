/**
 * The host search index catching up in the background (store/hostSearch.ts): a write of hosts
 * only marks them, and this indexes them a few hundred at a time, each batch its own short write
 * between other requests, until none is waiting. Kicked when the workspace opens and after every
 * write; its timers never keep a process alive (a CLI command that ends leaves the rest to the
 * next `outpost serve`). Queries are exact meanwhile: they read the waiting hosts themselves.
 */
import type { Services } from '../server/store/services';

/** Hosts indexed per batch at most, and the time a batch may take (its commit aside). */
const BATCH = 500;
const BATCH_MS = 20;

export class HostIndexer {
  private scheduled = false;
  private stopped = false;

  constructor(
    private readonly services: Services,
    private readonly onError: (error: unknown) => void = (error) => process.stderr.write(`outpost: indexing hosts for search: ${String(error)}\n`),
  ) {}

  kick(): void {
    if (this.scheduled || this.stopped) return;
    this.scheduled = true;
    setTimeout(() => this.step(), 0).unref();
  }

  private step(): void {
    this.scheduled = false;
    if (this.stopped || !this.services.store.open) return;
    try {
      if (!this.services.hosts.indexWaiting()) return;
      if (this.services.hosts.indexPending(BATCH, BATCH_MS)) this.kick();
    } catch (error) {
      this.onError(error);
    }
  }

  stop(): void {
    this.stopped = true;
  }
}
