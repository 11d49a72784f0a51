/**
 * A bound workspace's link to its central server while it is open (app.md §3): the remote's
 * client, the sync engine, and the timer that syncs on connect, shortly after each local write,
 * every few minutes while reachable, with backoff while not, and not at all while the token is
 * refused (until it is changed or the user asks). A workspace that sends after review
 * (shared/sync/review.ts) only pulls on its own: a write plans nothing, the timer's syncs push
 * nothing; what leaves is what the engineer sends (apply, `outpost sync`).
 */
import { nextSyncDelay, PUSH_DELAY_MS, type SyncOutcome } from '../../shared/sync/schedule';
import type { Services } from '../server/store/services';
import { RemoteClient, type ClientOptions, type RemoteConfig } from './client';
import { formatDateTime } from '../../shared/api/datetime';
import type { SyncReport, SyncStatus } from '../../shared/app/sync';
import { SyncEngine, type EngineOptions } from './engine';
import { OutboxRecorder } from './outbox';
import type { PushMode } from '../../shared/sync/review';

export interface SessionOptions extends EngineOptions {
  /** Sync on a timer and after writes (the app, `outpost serve`); off for one-shot commands. */
  readonly auto?: boolean;
  readonly client?: ClientOptions;
  /** Replaces the schedule's delays (tests). */
  readonly delay?: (outcome: SyncOutcome, failures: number) => number | null;
  readonly pushDelayMs?: number;
}

function outcomeOf(report: SyncReport): SyncOutcome {
  if (report.outcome !== 'error') return report.outcome;
  switch (report.error?.kind) {
    case 'auth':
      return 'auth';
    case 'network':
    case 'timeout':
    case 'tls':
    case 'busy':
      return 'unreachable';
    default:
      return 'failed';
  }
}

export class RemoteSession {
  readonly client: RemoteClient;
  readonly engine: SyncEngine;
  private timer: NodeJS.Timeout | undefined;
  /** When the planned sync runs (ms since the epoch), while one is planned. */
  private plannedAt: number | undefined;
  private failures = 0;
  private closed = false;
  private closing: Promise<void> | undefined;
  private readonly unsubscribe: (() => void) | undefined;

  constructor(
    private readonly services: Services,
    readonly config: RemoteConfig,
    token: () => string,
    private readonly options: SessionOptions = {},
  ) {
    this.client = new RemoteClient(config, token, options.client);
    this.engine = new SyncEngine(services, this.client, { name: config.name, url: config.url }, options);
    const recorder = services.recorder;
    if (options.auto && recorder instanceof OutboxRecorder) {
      this.unsubscribe = recorder.onRecorded(() => {
        if (this.mode() === 'automatic') this.soon(options.pushDelayMs ?? PUSH_DELAY_MS);
      });
    }
    // One sync at start whatever was remembered: the token may have been fixed while closed.
    if (options.auto) this.soon(0, true);
  }

  /** Run a sync in `ms` (sooner than one already planned); not while the token is refused, unless `anyway`. */
  private soon(ms: number, anyway = false): void {
    if (this.closed || (!anyway && this.engine.connection === 'auth_failed')) return;
    this.plan(ms);
  }

  /** Sync in `ms`; `keepSooner`: unless one is planned sooner (a write made while the last sync ran). */
  private plan(ms: number, keepSooner = false): void {
    if (keepSooner && this.timer && this.plannedAt !== undefined && this.plannedAt <= Date.now() + ms) return;
    if (this.timer) clearTimeout(this.timer);
    this.plannedAt = Date.now() + ms;
    this.timer = setTimeout(() => void this.syncNow({ push: this.mode() === 'review' ? 'none' : 'all' }).catch(() => undefined), ms);
    this.timer.unref?.();
  }

  private unplan(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.plannedAt = undefined;
  }

  /** The engine's status and when the next automatic sync runs (the countdown the app shows). */
  status(): SyncStatus {
    const engine = this.engine.status();
    const next = this.plannedAt === undefined || engine.syncing ? null : formatDateTime(this.plannedAt * 1000);
    return { ...engine, nextAttemptAt: next };
  }

  /** A sync now (the user's "Sync now", or the timer); plans the next automatic one. */
  async syncNow(options: Parameters<SyncEngine['sync']>[0]): Promise<SyncReport> {
    this.unplan();
    const report = await this.engine.sync(options);
    const outcome = outcomeOf(report);
    this.failures = outcome === 'unreachable' ? this.failures + 1 : 0;
    if (this.options.auto && !this.closed) {
      const delay = (this.options.delay ?? nextSyncDelay)(outcome, this.failures);
      // Refused token: not even a write made during the sync is sent, until the token changes.
      if (delay === null) this.unplan();
      else this.plan(delay, true);
    }
    return report;
  }

  /** The remote's token was replaced: try again at once. */
  tokenChanged(): void {
    this.engine.tokenChanged();
    if (this.options.auto) this.soon(0);
  }

  /** After a conflict is resolved or a change retried: push soon (when the workspace sends automatically). */
  nudge(): void {
    if (this.options.auto && this.mode() === 'automatic') this.soon(this.options.pushDelayMs ?? PUSH_DELAY_MS);
  }

  /** How this workspace's changes leave (read each time: another process may change it). */
  mode(): PushMode {
    return this.services.syncMeta.pushMode();
  }

  /** Change how changes leave; back to automatic, what waits is pushed soon. */
  setMode(mode: PushMode): void {
    this.services.store.write(() => this.services.syncMeta.set('push_mode', mode));
    this.nudge();
  }

  /**
   * No more syncs; a running one stops at its next safe point, releasing the lease, before the
   * client closes. Called again (the workspace closing after an exit began), the same promise.
   */
  close(): Promise<void> {
    this.closing ??= (async () => {
      this.closed = true;
      this.unplan();
      this.unsubscribe?.();
      await this.engine.stop();
      await this.client.close();
    })();
    return this.closing;
  }
}
