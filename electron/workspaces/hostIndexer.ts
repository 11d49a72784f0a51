/**
 * Hosts catching up in the background: first the identities waiting to be written again (an
 * upgrade, or an import whose process ended between its two transactions: store/identitySources.ts),
 * then the search index (store/hostSearch.ts): a write of hosts only marks them, and this indexes
 * them a few hundred at a time, each batch its own short write between other requests, until none
 * is waiting. Kicked when the workspace opens and after every write; its timers never keep a
 * process alive (a CLI command that ends leaves the rest to the next `outpost serve`). Queries
 * are exact meanwhile: they read the hosts waiting for the index themselves. While an import of
 * this process runs on its own thread, it waits: the import writes the identities itself.
 */
import { visible } from '../../shared/text/visible';
import type { Services } from '../server/store/services';

/** Hosts indexed per batch at most, and the time a batch may take (its commit aside). */
const BATCH = 500;
const BATCH_MS = 20;
/** How often it looks again while an import runs. */
const IMPORT_WAIT_MS = 250;

export class HostIndexer {
  private scheduled = false;
  private stopped = false;

  constructor(
    private readonly services: Services,
    private readonly onError: (error: unknown) => void = (error) => process.stderr.write(`outpost: indexing hosts for search: ${visible(String(error))}\n`),
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
      if (this.services.importsRunning > 0) {
        this.scheduled = true;
        setTimeout(() => this.step(), IMPORT_WAIT_MS).unref();
        return;
      }
      if (this.services.evidence.pendingCount() > 0) {
        this.services.hosts.refreshPending(BATCH_MS);
        this.kick();
        return;
      }
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
