/**
 * The sync engine of a bound workspace (app.md §3): one sync = push the outbox, then pull every
 * mirrored endpoint. It tracks the connection (online / offline / auth failed), reports
 * progress and records `sync_push` / `sync_pull` in the local history. One sync runs at a time,
 * in this process and across processes sharing the workspace (lease.ts). The outbox's view and
 * the user's decisions on waiting changes live beside it (outboxView.ts, conflicts.ts).
 */
import { visible } from '../../shared/text/visible';
import { formatDateTime } from '../../shared/api/datetime';
import { acceptedPush, connectionAfter, syncErrorKindOf, type Connection, type EntryView, type SyncProgress, type SyncReport, type SyncResult, type SyncStatus } from '../../shared/app/sync';
import type { Services } from '../server/store/services';
import { RemoteError, type RemoteClient } from './client';
import { ConflictResolver } from './conflicts';
import { NO_FAULTS, type SyncFaults } from './faults';
import { SyncBusyError, SyncLease, type LeaseWait } from './lease';
import { OutboxView } from './outboxView';
import { MassDeleteError, Puller, type PullProgress } from './pull';
import { Pusher, SyncStopped, type PushSelection, type SelectionOutcome } from './push';
import type { ApplyChoice } from '../../shared/sync/review';
import { wellFormed } from '../../shared/text/visible';

export { ResolveError } from './conflicts';
export { LEASE_WAIT_MS, SyncBusyError, waitingLine, type LeaseHolder, type LeaseWait } from './lease';

export interface SyncOptions {
  readonly allowMassDelete?: boolean;
  /** Who asked (the local history's user); the local admin when not given. */
  readonly user?: { readonly pk: number; readonly username: string };
  /**
   * While another process syncs this workspace: wait for it (`outpost sync`) rather than
   * answering busy at once (the app and `outpost serve`, whose schedule tries again).
   */
  readonly waitForLease?: LeaseWait;
  /**
   * What is pushed before the pull: everything that can go (the default: `outpost sync`, the
   * automatic syncs of a workspace that sends automatically), nothing (a pull only: the automatic
   * syncs of a workspace that sends after review), or only reviewed entries (apply).
   */
  readonly push?: PushSelection | 'none';
}

/** What applying reviewed entries did: the sync's report, the entries sent and those stopped. */
export interface ApplyOutcome extends SelectionOutcome {
  readonly report: SyncReport;
}

export interface EngineOptions {
  readonly pageSize?: number;
  readonly concurrency?: number;
  /**
   * How long a sync lease holds without being renewed (ms). The syncing process renews it every
   * quarter of that; a lease older is a crashed process's, whatever now runs under its pid.
   */
  readonly leaseMs?: number;
  /** What this process is (serve, sync, app): a process waiting for its sync is told. */
  readonly label?: string;
  /** Crash points for the crash-safety tests (the command line makes them from OUTPOST_SYNC_CRASH). */
  readonly faults?: SyncFaults;
  /** Where problems the sync meets outside a sync's own report are written (stderr unless given). */
  readonly log?: (message: string) => void;
}

/** The engine's part of the status; the session adds when the next automatic sync runs. */
export type EngineStatus = Omit<SyncStatus, 'nextAttemptAt'>;

const logToStderr = (message: string) => process.stderr.write(`outpost: ${visible(message)}\n`);

export class SyncEngine {
  private readonly lease: SyncLease;
  private readonly outboxView: OutboxView;
  private readonly resolver: ConflictResolver;
  private running: Promise<SyncReport> | undefined;
  private progress: SyncProgress | null = null;
  private connectionState: Connection = 'unknown';
  /** The push of the running sync (which entry is in flight). */
  private pusher: Pusher | undefined;
  private lastResult: SyncResult | null = null;
  /** What the last sync's push did with reviewed entries (apply). */
  private lastSelection: SelectionOutcome = { applied: [], stopped: [] };
  private readonly listeners = new Set<() => void>();
  private stopping = false;
  /** A problem that could not be recorded in the workspace (its database busy or closed). */
  private unrecorded: string | null = null;

  constructor(
    private readonly services: Services,
    private readonly client: RemoteClient,
    private readonly remote: { readonly name: string; readonly url: string },
    private readonly options: EngineOptions = {},
  ) {
    this.lease = new SyncLease(services.store, services.syncMeta, {
      ...(options.leaseMs === undefined ? {} : { leaseMs: options.leaseMs }),
      ...(options.label === undefined ? {} : { label: options.label }),
      onRenewalError: (error) => this.problem('renewing the sync lease', error),
    });
    this.outboxView = new OutboxView(services);
    this.resolver = new ConflictResolver(services);
    const known = this.meta.get('connection');
    if (known === 'auth_failed') this.connectionState = 'auth_failed';
  }

  private get meta() {
    return this.services.syncMeta;
  }

  get connection(): Connection {
    return this.connectionState;
  }

  get syncing(): boolean {
    return this.running !== undefined;
  }

  /** Be told when the status changes (progress, connection, outbox after a sync or resolve). */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private changed(): void {
    for (const listener of this.listeners) listener();
  }

  /** A problem met outside a sync's report: written to the log and shown by the status until the next sync. */
  private problem(doing: string, error: unknown): void {
    const message = `${doing} failed: ${error instanceof Error ? error.message : String(error)}`;
    this.unrecorded = message;
    (this.options.log ?? logToStderr)(`sync of ${this.remote.name}: ${message}`);
  }

  /** Run `fn`; a failure (the database busy or closed) is reported, not thrown. */
  private tryTo(doing: string, fn: () => void): void {
    try {
      fn();
    } catch (error) {
      this.problem(doing, error);
    }
  }

  private setConnection(connection: Connection): void {
    if (connection === this.connectionState) return;
    this.connectionState = connection;
    this.tryTo('recording the connection state', () => this.services.store.write(() => this.meta.set('connection', connection)));
    this.changed();
  }

  status(): EngineStatus {
    const outbox = this.services.outbox.counts();
    const pushMode = this.meta.pushMode();
    return {
      remote: { ...this.remote },
      connection: this.connectionState,
      syncing: this.syncing,
      progress: this.progress,
      lastPull: this.meta.get('last_pull') ?? null,
      lastPush: this.meta.get('last_push') ?? null,
      lastSync: this.meta.get('last_sync') ?? null,
      lastAttempt: this.meta.get('last_attempt') ?? null,
      lastResult: this.lastResult,
      lastError: this.meta.get('last_error') ?? this.unrecorded,
      lastErrorKind: syncErrorKindOf(this.meta.get('last_error_kind') ?? (this.unrecorded === null ? undefined : 'internal')),
      outbox,
      pushMode,
      awaitingReview: pushMode === 'review' ? outbox.pending : 0,
    };
  }

  /**
   * One sync at a time: a second call while one runs gets the running one's report. Once the
   * engine is stopping (its workspace closing), none starts: the lease stays free.
   */
  sync(options: SyncOptions = {}): Promise<SyncReport> {
    if (this.stopping && !this.running) return Promise.resolve(this.stoppedReport());
    if (!this.running) {
      this.running = this.run(options).finally(() => {
        this.running = undefined;
        this.pusher = undefined;
        this.progress = null;
        this.changed();
      });
      this.changed();
    }
    return this.running;
  }

  private report(progress: SyncProgress): void {
    this.progress = progress;
    this.changed();
  }

  private userOf(options: SyncOptions): { pk: number; username: string } {
    if (options.user) return options.user;
    const admin = this.services.users.byUsername('admin');
    return admin ? { pk: admin.pk, username: admin.username } : { pk: 0, username: 'outpost' };
  }

  /** A push or pull that moved nothing leaves no entry (a "Sync now" with nothing to do is silent). */
  private record(actionType: 'sync_push' | 'sync_pull', count: number, options: SyncOptions): void {
    if (count === 0) return;
    this.services.history.log({
      actionType,
      user: this.userOf(options),
      clientIp: '127.0.0.1',
      comment: null,
      objects: { count: { value: count }, remote: { value: this.remote.name } },
    });
  }

  private now(): string {
    return formatDateTime(this.services.store.now());
  }

  private stoppedReport(): SyncReport {
    return { outcome: 'error', pushed: 0, pulled: 0, conflicts: 0, parked: 0, waiting: 0, error: { kind: 'stopped', message: new SyncStopped().message } };
  }

  private async run(options: SyncOptions): Promise<SyncReport> {
    const report = await this.attempt(options);
    this.lastResult = { ...report, finished: this.now() };
    return report;
  }

  private async attempt(options: SyncOptions): Promise<SyncReport> {
    try {
      const waiting = this.lease.acquire(options.waitForLease);
      if (waiting) await waiting;
    } catch (error) {
      if (error instanceof SyncBusyError) return { outcome: 'error', pushed: 0, pulled: 0, conflicts: 0, parked: 0, waiting: 0, error: { kind: 'busy', message: error.message } };
      throw error;
    }
    this.unrecorded = null;
    let pushed = 0;
    let pulled = 0;
    const faults = this.options.faults ?? NO_FAULTS;
    const pusher = new Pusher(this.services, this.client, () => this.stopping, faults);
    this.pusher = pusher;
    const answeredBefore = this.client.answered;
    const answered = () => this.client.answered > answeredBefore;
    let pushRecorded = false;
    this.tryTo('recording the sync attempt', () => this.services.store.write(() => this.meta.set('last_attempt', this.now())));
    try {
      const selection = options.push ?? 'all';
      let push = { pushed: 0, conflicts: 0, parked: 0, waiting: 0 };
      if (selection !== 'none') {
        this.report({ phase: 'push', done: 0, total: this.services.outbox.entries().length });
        push = await pusher.push((p) => this.report({ phase: 'push', ...p }), selection);
      }
      pushed = push.pushed;
      // An empty outbox asks nothing: the connection is known once the pull is answered.
      this.setConnection(connectionAfter(this.connectionState, answered(), null));
      this.services.store.write(() => {
        if (acceptedPush(pushed)) this.meta.set('last_push', this.now());
        this.record('sync_push', pushed, options);
      });
      pushRecorded = true;
      const puller = new Puller(this.services, this.client, faults);
      const pull = await puller.pull({
        ...(this.options.pageSize === undefined ? {} : { pageSize: this.options.pageSize }),
        ...(this.options.concurrency === undefined ? {} : { concurrency: this.options.concurrency }),
        allowMassDelete: options.allowMassDelete ?? false,
        ...(options.user ? { user: options.user.username } : {}),
        stopped: () => this.stopping,
        onProgress: (p: PullProgress) => {
          // Its pages are answers: online from the first one, not only once the whole pull is over.
          this.setConnection(connectionAfter(this.connectionState, answered(), null));
          this.report({ phase: 'pull', done: p.received, total: p.count, endpoint: p.endpoint });
        },
      });
      pulled = pull.changed;
      this.setConnection(connectionAfter(this.connectionState, answered(), null));
      const counts = this.services.outbox.counts();
      this.services.store.write(() => {
        const now = this.now();
        this.meta.set('last_pull', now);
        this.meta.set('last_sync', now);
        this.meta.delete('last_error');
        this.meta.delete('last_error_kind');
        this.record('sync_pull', pulled, options);
      });
      return {
        outcome: counts.conflicts + counts.parked > 0 ? 'conflicts' : 'done',
        pushed,
        pulled,
        conflicts: counts.conflicts,
        parked: counts.parked,
        waiting: push.waiting,
      };
    } catch (error) {
      const failure = this.failure(error);
      this.setConnection(connectionAfter(this.connectionState, answered(), failure.kind));
      let counts = { conflicts: 0, parked: 0 };
      // The workspace may be closing under a stopped sync: its report is all that is left.
      // Entries that went through before the push stopped are pushed all the same.
      if (!pushRecorded) pushed = pusher.pushed;
      this.tryTo('recording the sync error', () => {
        this.services.store.write(() => {
          // Stored well-formed: SQLite would write a lone surrogate of a hostile answer as U+FFFD.
          this.meta.set('last_error', wellFormed(failure.message));
          this.meta.set('last_error_kind', failure.kind);
          if (!pushRecorded && acceptedPush(pushed)) {
            this.meta.set('last_push', this.now());
            this.record('sync_push', pushed, options);
          }
        });
        counts = this.services.outbox.counts();
      });
      return { outcome: 'error', pushed, pulled, conflicts: counts.conflicts, parked: counts.parked, waiting: 0, error: failure };
    } finally {
      this.lastSelection = pusher.selection;
      this.tryTo('releasing the sync lease', () => this.lease.release());
    }
  }

  private failure(error: unknown): NonNullable<SyncReport['error']> {
    if (error instanceof RemoteError) {
      return { kind: error.kind, message: error.message };
    }
    if (error instanceof MassDeleteError) return { kind: 'mass_delete', message: error.message };
    if (error instanceof SyncStopped) return { kind: 'stopped', message: error.message };
    return { kind: 'internal', message: error instanceof Error ? error.message : String(error) };
  }

  /**
   * Send reviewed entries only (shared/sync/review.ts), then pull: after the sync that runs now,
   * if one does, so that its report is not taken for this one's.
   */
  async apply(only: readonly ApplyChoice[], options: Omit<SyncOptions, 'push'> = {}): Promise<ApplyOutcome> {
    while (this.running) await this.running.catch(() => undefined);
    // A sync that does not reach the push (stopping, another process's lease) sends nothing.
    this.lastSelection = { applied: [], stopped: [] };
    const report = await this.sync({ ...options, push: { only } });
    return { report, ...this.lastSelection };
  }

  /** Stop a running sync at its next safe point and wait for it (before the workspace closes). */
  async stop(): Promise<void> {
    this.stopping = true;
    await this.running?.catch(() => undefined);
  }

  /** The token was changed: an auth failure is no longer known. */
  tokenChanged(): void {
    if (this.connectionState === 'auth_failed') this.setConnection('unknown');
  }

  entries(): EntryView[] {
    return this.outboxView.entries(this.pusher?.inFlight);
  }

  conflicts(): EntryView[] {
    return this.outboxView.conflicts();
  }

  /** Resolve one field of a conflict (conflicts.ts); the entry as it waits now, if it still does. */
  resolve(seq: number, field: string, choice: 'mine' | 'theirs'): EntryView | undefined {
    const left = this.resolver.resolve(seq, field, choice);
    this.changed();
    const entry = left === undefined ? undefined : this.services.outbox.get(left);
    return entry ? this.outboxView.view(entry) : undefined;
  }

  retry(seq: number): void {
    this.resolver.retry(seq);
    this.changed();
  }

  discard(seq: number): void {
    this.resolver.discard(seq);
    this.changed();
  }
}
