/**
 * The sync engine of a bound workspace (app.md §3): one sync = push the outbox, then pull every
 * mirrored endpoint. It tracks the connection (online / offline / auth failed), reports
 * progress, records `sync_push` / `sync_pull` in the local history, and lets the user resolve
 * conflicts field by field and retry or discard refused changes. One sync runs at a time, in
 * this process and across processes sharing the workspace (a lease in sync_meta).
 */
import { formatDateTime } from '../../shared/api/datetime';
import { syncErrorKindOf, type Connection, type ConflictField, type EntryView, type SyncProgress, type SyncReport, type SyncStatus } from '../../shared/app/sync';
import type { Services } from '../server/services';
import { RemoteError, type RemoteClient } from './client';
import { Mirror } from './mirror';
import { Outbox, SyncMeta, type OutboxEntry } from './outbox';
import { MassDeleteError, Puller, type PullProgress } from './pull';
import { Pusher, SyncStopped } from './push';
import { PUSHED, PULL_PATHS, REFERENCE_FIELDS, refersTo, type PulledEndpoint } from './synced';

export class SyncBusyError extends Error {}
export class ResolveError extends Error {
  constructor(
    message: string,
    readonly status: 400 | 404 | 409 = 400,
  ) {
    super(message);
  }
}

export interface SyncOptions {
  readonly allowMassDelete?: boolean;
  /** Who asked (the local history's user); the local admin when not given. */
  readonly user?: { readonly pk: number; readonly username: string };
  /** Record push and pull in the history even when they moved nothing (an explicit sync). */
  readonly recordEmpty?: boolean;
}

export interface EngineOptions {
  readonly pageSize?: number;
  readonly concurrency?: number;
  /**
   * How long a sync lease holds without being renewed (ms). The syncing process renews it every
   * quarter of that; a lease older is a crashed process's, whatever now runs under its pid.
   */
  readonly leaseMs?: number;
}

const LEASE_KEY = 'sync_lease';
const LEASE_MS = 60_000;

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export class SyncEngine {
  private readonly outbox: Outbox;
  private readonly meta: SyncMeta;
  private readonly mirror: Mirror;
  private running: Promise<SyncReport> | undefined;
  private progress: SyncProgress | null = null;
  private connectionState: Connection = 'unknown';
  private readonly listeners = new Set<() => void>();
  private stopping = false;
  private leaseRenewal: NodeJS.Timeout | undefined;

  constructor(
    private readonly services: Services,
    private readonly client: RemoteClient,
    private readonly remote: { readonly name: string; readonly url: string },
    private readonly options: EngineOptions = {},
  ) {
    this.outbox = new Outbox(services.store);
    this.meta = new SyncMeta(services.store);
    this.mirror = new Mirror(services);
    const known = this.meta.get('connection');
    if (known === 'auth_failed') this.connectionState = 'auth_failed';
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

  private setConnection(connection: Connection): void {
    if (connection === this.connectionState) return;
    this.connectionState = connection;
    this.quietly(() => this.services.store.write(() => this.meta.set('connection', connection)));
    this.changed();
  }

  status(): SyncStatus {
    return {
      remote: { ...this.remote },
      connection: this.connectionState,
      syncing: this.syncing,
      progress: this.progress,
      lastPull: this.meta.get('last_pull') ?? null,
      lastPush: this.meta.get('last_push') ?? null,
      lastSync: this.meta.get('last_sync') ?? null,
      lastError: this.meta.get('last_error') ?? null,
      lastErrorKind: syncErrorKindOf(this.meta.get('last_error_kind')),
      outbox: this.outbox.counts(),
    };
  }

  /** One sync at a time: a second call while one runs gets the running one's report. */
  sync(options: SyncOptions = {}): Promise<SyncReport> {
    if (!this.running) {
      this.running = this.run(options).finally(() => {
        this.running = undefined;
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

  private get leaseMs(): number {
    return this.options.leaseMs ?? LEASE_MS;
  }

  /**
   * Take the workspace's sync lease, refused while another live process holds a lease it renewed
   * lately; renewed every quarter of its length while this sync runs (pids are reused: a lease
   * is trusted for its age, not for its pid alone).
   */
  private acquireLease(): void {
    const store = this.services.store;
    store.write(() => {
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
    this.leaseRenewal = setInterval(() => this.quietly(() => this.renewLease()), this.leaseMs / 4);
    this.leaseRenewal.unref();
  }

  private renewLease(): void {
    this.services.store.write(() => {
      if (this.meta.get(LEASE_KEY)?.startsWith(`${process.pid}:`)) this.meta.set(LEASE_KEY, `${process.pid}:${Date.now()}`);
    });
  }

  private releaseLease(): void {
    clearInterval(this.leaseRenewal);
    this.leaseRenewal = undefined;
    this.services.store.write(() => {
      if (this.meta.get(LEASE_KEY)?.startsWith(`${process.pid}:`)) this.meta.delete(LEASE_KEY);
    });
  }

  private userOf(options: SyncOptions): { pk: number; username: string } {
    if (options.user) return options.user;
    const admin = this.services.users.byUsername('admin');
    return admin ? { pk: admin.pk, username: admin.username } : { pk: 0, username: 'outpost' };
  }

  private record(actionType: 'sync_push' | 'sync_pull', count: number, options: SyncOptions): void {
    if (count === 0 && !options.recordEmpty) return;
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

  private async run(options: SyncOptions): Promise<SyncReport> {
    try {
      this.acquireLease();
    } catch (error) {
      if (error instanceof SyncBusyError) return { outcome: 'error', pushed: 0, pulled: 0, conflicts: 0, parked: 0, waiting: 0, error: { kind: 'busy', message: error.message } };
      throw error;
    }
    let pushed = 0;
    let pulled = 0;
    const pusher = new Pusher(this.services, this.client, () => this.stopping);
    let pushRecorded = false;
    try {
      this.report({ phase: 'push', done: 0, total: this.outbox.entries().length });
      const push = await pusher.push((p) => this.report({ phase: 'push', ...p }));
      pushed = push.pushed;
      this.setConnection('online');
      this.services.store.write(() => {
        this.meta.set('last_push', this.now());
        this.record('sync_push', pushed, options);
      });
      pushRecorded = true;
      const puller = new Puller(this.services, this.client);
      const pull = await puller.pull({
        ...(this.options.pageSize === undefined ? {} : { pageSize: this.options.pageSize }),
        ...(this.options.concurrency === undefined ? {} : { concurrency: this.options.concurrency }),
        allowMassDelete: options.allowMassDelete ?? false,
        stopped: () => this.stopping,
        onProgress: (p: PullProgress) => this.report({ phase: 'pull', done: p.received, total: p.count, endpoint: p.endpoint }),
      });
      pulled = pull.changed;
      const counts = this.outbox.counts();
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
      let counts = { conflicts: 0, parked: 0 };
      // The workspace may be closing under a stopped sync: its report is all that is left.
      // Entries that went through before the push stopped are pushed all the same.
      if (!pushRecorded) pushed = pusher.pushed;
      this.quietly(() => {
        this.services.store.write(() => {
          this.meta.set('last_error', failure.message);
          this.meta.set('last_error_kind', failure.kind);
          if (!pushRecorded && pushed > 0) this.record('sync_push', pushed, options);
        });
        counts = this.outbox.counts();
      });
      return { outcome: 'error', pushed, pulled, conflicts: counts.conflicts, parked: counts.parked, waiting: 0, error: failure };
    } finally {
      this.quietly(() => this.releaseLease());
    }
  }

  private quietly(fn: () => void): void {
    try {
      fn();
    } catch {
      // the database is closed: nothing to record
    }
  }

  private failure(error: unknown): NonNullable<SyncReport['error']> {
    if (error instanceof RemoteError) {
      this.setConnection(error.kind === 'auth' ? 'auth_failed' : 'offline');
      return { kind: error.kind, message: error.message };
    }
    if (error instanceof MassDeleteError) return { kind: 'mass_delete', message: error.message };
    if (error instanceof SyncStopped) return { kind: 'stopped', message: error.message };
    return { kind: 'internal', message: error instanceof Error ? error.message : String(error) };
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

  private label(entry: OutboxEntry): string {
    const name = entry.fields.name;
    if (typeof name === 'string') return name;
    const synced = PUSHED[entry.resource];
    if (synced) {
      const row = this.services.store.prepare(`SELECT name FROM "${synced.table}" WHERE pk = ?`).pluck().get(entry.pk);
      if (typeof row === 'string') return row;
    }
    if (typeof entry.base.name === 'string') return entry.base.name;
    return `${entry.resource.replace(/_/g, ' ')} ${entry.pk}`;
  }

  private view(entry: OutboxEntry): EntryView {
    const theirs = entry.theirs ?? {};
    const conflicts: ConflictField[] =
      entry.state !== 'conflict'
        ? []
        : Object.keys(theirs).map((field) => ({
            field,
            base: entry.base[field] ?? null,
            mine: entry.op === 'delete' ? null : (entry.fields[field] ?? null),
            theirs: theirs[field] ?? null,
          }));
    return {
      seq: entry.seq,
      op: entry.op,
      resource: entry.resource,
      pk: entry.pk,
      label: this.label(entry),
      state: entry.state,
      message: entry.message,
      comment: entry.comment,
      fields: entry.fields,
      created: formatDateTime(entry.created),
      conflicts,
    };
  }

  entries(): EntryView[] {
    return this.outbox.entries().map((e) => this.view(e));
  }

  conflicts(): EntryView[] {
    return this.outbox
      .entries()
      .filter((e) => e.state === 'conflict')
      .map((e) => this.view(e));
  }

  private entry(seq: number): OutboxEntry {
    const entry = this.outbox.get(seq);
    if (!entry) throw new ResolveError(`there is no outbox entry ${seq}`, 404);
    return entry;
  }

  /** Show the object as the central server has it, with the local changes still waiting on top. */
  private restore(entry: OutboxEntry): void {
    if (entry.resource in PULL_PATHS) this.mirror.restore(entry.resource as PulledEndpoint, entry.pk);
    else if (entry.resource === 'network_interface') {
      // The interface comes back with its owner (the entry's base is the interface as it was).
      const template = entry.base.template;
      const probe = entry.base.probe;
      if (typeof template === 'number') this.mirror.restore('vendor_probe_template', template);
      else if (typeof probe === 'number') this.mirror.restore('vendor_probe', probe);
    }
  }

  /**
   * Resolve one field of a conflict: `mine` pushes the local value over the central server's
   * (its value becomes the base), `theirs` takes the central server's value here and drops the
   * local change of that field. For a delete, `theirs` keeps the object and `mine` deletes it.
   */
  resolve(seq: number, field: string, choice: 'mine' | 'theirs'): EntryView | undefined {
    const result = this.services.store.write(() => {
      const entry = this.entry(seq);
      if (entry.state !== 'conflict' || !entry.theirs) throw new ResolveError(`outbox entry ${seq} is not a conflict`, 409);
      if (!(field in entry.theirs)) {
        throw new ResolveError(`field "${field}" is not in conflict in entry ${seq}; conflicting: ${Object.keys(entry.theirs).join(', ')}`);
      }
      const theirs = { ...entry.theirs };
      const theirValue = theirs[field] ?? null;
      delete theirs[field];
      if (entry.op === 'delete') {
        if (choice === 'theirs') {
          this.outbox.remove(seq);
          this.restore(entry);
          return undefined;
        }
        const base = { ...entry.base, [field]: theirValue };
        const done = Object.keys(theirs).length === 0;
        this.outbox.change(seq, { base, theirs: done ? null : theirs, ...(done ? { state: 'pending', message: null } : {}) });
        return seq;
      }
      const fields = { ...entry.fields };
      const base = { ...entry.base };
      if (choice === 'mine') base[field] = theirValue;
      else {
        delete fields[field];
        delete base[field];
      }
      const done = Object.keys(theirs).length === 0;
      if (done && Object.keys(fields).length === 0) this.outbox.remove(seq);
      else this.outbox.change(seq, { fields, base, theirs: done ? null : theirs, ...(done ? { state: 'pending', message: null } : {}) });
      if (choice === 'theirs') this.restore(entry);
      return done && Object.keys(fields).length === 0 ? undefined : seq;
    });
    this.changed();
    const left = result === undefined ? undefined : this.outbox.get(result);
    return left ? this.view(left) : undefined;
  }

  /** Send a refused change again as it is (after the central server's side was fixed). */
  retry(seq: number): void {
    this.services.store.write(() => {
      const entry = this.entry(seq);
      if (entry.state !== 'parked') throw new ResolveError(`outbox entry ${seq} is not a refused change`, 409);
      this.outbox.change(seq, { state: 'pending', message: null });
    });
    this.changed();
  }

  /**
   * Give up a change that waits (refused or in conflict): the object goes back to the central
   * server's state. Discarding a create removes the object made here, and every later change to it.
   */
  discard(seq: number): void {
    this.services.store.write(() => {
      const entry = this.entry(seq);
      if (entry.state === 'sending') throw new ResolveError(`outbox entry ${seq} is being sent; sync first to learn its outcome`, 409);
      if (entry.op === 'create') {
        for (const other of this.outbox.of(entry.resource, entry.pk)) this.outbox.remove(other.seq);
        this.removeLocalObject(entry.resource, entry.pk);
        return;
      }
      this.outbox.remove(seq);
      this.restore(entry);
    });
    this.changed();
  }

  private removeLocalObject(resource: string, pk: number): void {
    const synced = PUSHED[resource];
    if (!synced || pk > 0) return;
    const store = this.services.store;
    store.db.pragma('defer_foreign_keys = ON');
    // Changes of other objects made here that name it cannot be sent as they are.
    for (const other of this.outbox.entries()) {
      if ((REFERENCE_FIELDS[resource] ?? []).some((field) => refersTo(other.fields[field], pk))) {
        this.outbox.change(other.seq, { state: 'parked', message: `It refers to ${resource.replace(/_/g, ' ')} ${pk}, whose creation was discarded.` });
      }
    }
    if (resource === 'vendor_probe_template') {
      store.prepare('UPDATE vendor_probe_template SET parent_tmpl = NULL WHERE parent_tmpl = ?').run(pk);
      store.prepare('UPDATE appliance SET parent_tmpl = NULL WHERE parent_tmpl = ?').run(pk);
    }
    store.prepare(`DELETE FROM "${synced.table}" WHERE pk = ?`).run(pk);
  }
}
