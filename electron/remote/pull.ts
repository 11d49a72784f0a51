/**
 * Pull (app.md §3): every mirrored endpoint paged through with a large page_size (the remote may
 * honour it or cap it at 30: the first page tells), the other pages fetched concurrently once
 * `count` is known, each page upserted in one transaction, the number of objects checked against
 * `count` (rescanned on a mismatch). Deletions are decided only once every endpoint has been
 * scanned completely, and refused when they would remove 90 % or more of an endpoint's rows.
 */
import { setImmediate as setImmediatePromise } from 'node:timers/promises';
import type { JsonObject, JsonValue } from '../../shared/resources';
import { checkHostEntry } from '../../shared/api/hostIdentity';
import { hostRecordOf } from '../../shared/api/imports';
import type { VisitRecording } from '../server/store/visits';
import { canonical } from '../../shared/sync/merge';
import { isMassDelete, pagingProblem, remainingPages } from '../../shared/sync/pullPlan';
import type { Outbox } from '../server/store/outbox';
import type { Services } from '../server/store/services';
import type { RemoteClient, RemoteReply } from './client';
import { RemoteError } from './client';
import { NO_FAULTS, type SyncFaults } from './faults';
import { Mirror } from './mirror';
import { SyncStopped } from './push';
import { pulledResource, pullKeyOf, referenceFields } from '../../shared/resources/derived';
import { PULLED, pullPath, pullQuery, referenceFieldsTo, refersTo, type PulledEndpoint } from './synced';

export interface PullProgress {
  readonly endpoint: PulledEndpoint;
  readonly received: number;
  readonly count: number;
}

export interface PullOptions {
  readonly pageSize?: number;
  readonly concurrency?: number;
  /** Apply deletions even when they remove 90 % or more of an endpoint's rows. */
  readonly allowMassDelete?: boolean;
  readonly onProgress?: (progress: PullProgress) => void;
  /** Checked between pages: true stops the pull there (the workspace is closing). */
  readonly stopped?: () => boolean;
  /** Who asked, as the pull's visit records it (store/visits.ts). */
  readonly user?: string;
}

export interface EndpointPull {
  readonly received: number;
  readonly changed: number;
  readonly deleted: number;
}

export interface PullResult {
  /** Objects created, changed or removed locally. */
  readonly changed: number;
  readonly byEndpoint: Readonly<Partial<Record<PulledEndpoint, EndpointPull>>>;
}

export class MassDeleteError extends Error {}


/** Fields naming objects of another endpoint, which must exist locally first. */
function refersOf(endpoint: PulledEndpoint): { field: string; endpoint: PulledEndpoint }[] {
  return referenceFields(pulledResource(endpoint)).map((ref) => ({ field: ref.field, endpoint: ref.target.name }));
}

function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A list page of the central server's answer; a 5xx (after the client's retries) is the server failing, not a wrong answer. */
export function pageOf(reply: RemoteReply, what: string): { count: number; results: JsonObject[]; next: unknown } {
  if (reply.status >= 500) throw new RemoteError('network', `the central server answered ${reply.status} for ${what}`, reply.status);
  const body = reply.body;
  if (!isObject(body) || typeof body.count !== 'number' || !Array.isArray(body.results)) {
    throw new RemoteError('invalid', `the central server's answer for ${what} is not a list page (count and results expected)`);
  }
  const results = body.results.filter(isObject);
  // Every mirrored object is found again by its key: a pk, or a host's address.
  const unkeyed = results.find((o) => !(Number.isSafeInteger(o.pk) || (what === 'host_id' && typeof o.ip === 'string')));
  if (unkeyed || results.length !== body.results.length || !Number.isSafeInteger(body.count) || body.count < 0) {
    throw new RemoteError('invalid', `the central server's answer for ${what} has objects that are not ${what} objects (no pk)`);
  }
  return { count: body.count, results, next: body.next };
}

/** The page numbers after a first page (`pageOf`'s) of `what`, asked in pages of `asked`; an implausible count or paging is refused as invalid. */
export function pagesAfter(first: { readonly count: number; readonly results: readonly JsonObject[]; readonly next: unknown }, asked: number, what: string): number[] {
  const page = { count: first.count, received: first.results.length, hasNext: Boolean(first.next) };
  const problem = pagingProblem(page);
  if (problem !== undefined) throw new RemoteError('invalid', `the central server's answer for ${what} cannot be paged through: ${problem}`);
  return remainingPages(page, asked).pages;
}

/**
 * Fetch every item with up to `limit` requests in flight, whatever the consumer is doing, and hand
 * the answers over as they arrive: the central server prepares the next pages while this side
 * writes the last one. At most `2 × limit` answers wait unread. After a failure nothing new
 * starts and nothing more is handed over; the failure is thrown once the requests in flight have
 * ended, so nothing of this pull is written after it returns. Leaving the loop stops new requests.
 */
function prefetched<T, R>(items: readonly T[], limit: number, fetch: (item: T) => Promise<R>): AsyncGenerator<R> & { stop(): void } {
  let next = 0;
  let running = 0;
  let closed = false;
  let failure: { readonly error: unknown } | undefined;
  const ready: R[] = [];
  let wake: (() => void) | undefined;
  const launch = (): void => {
    while (!closed && failure === undefined && running < limit && next < items.length && ready.length + running < 2 * limit) {
      const item = items[next++]!;
      running++;
      fetch(item)
        .then(
          (answer) => void ready.push(answer),
          (error: unknown) => void (failure ??= { error }),
        )
        .finally(() => {
          running--;
          launch();
          const waiting = wake;
          wake = undefined;
          waiting?.();
        });
    }
  };
  // Started now, not when first read: that is the point.
  launch();
  async function* answers(): AsyncGenerator<R> {
    try {
      for (;;) {
        if (failure !== undefined) {
          if (running === 0) throw failure.error;
        } else if (ready.length > 0) {
          yield ready.shift()!;
          launch();
          continue;
        } else if (running === 0 && next >= items.length) return;
        await new Promise<void>((resolve) => (wake = resolve));
      }
    } finally {
      closed = true;
    }
  }
  return Object.assign(answers(), { stop: () => void (closed = true) });
}

interface Scan {
  readonly count: number;
  readonly seen: Set<string>;
  readonly changed: number;
  readonly received: number;
}

export class Puller {
  private readonly mirror: Mirror;
  private readonly outbox: Outbox;

  private stopped: () => boolean = () => false;
  /**
   * The pull as a visit: made by the first page that changes a host, each page's part written in
   * that page's transaction (a pull stopped midway keeps the visit of what it wrote).
   */
  private visit: VisitRecording | undefined;

  constructor(
    private readonly services: Services,
    private readonly client: RemoteClient,
    /** Crash points for the crash-safety tests (none in normal use). */
    private readonly faults: SyncFaults = NO_FAULTS,
  ) {
    this.mirror = new Mirror(services);
    this.outbox = services.outbox;
  }

  private unchanged(endpoint: PulledEndpoint, object: JsonObject): boolean {
    if (endpoint === 'host_id') {
      // A host is unchanged when its central part is exactly what the central server sends now.
      const entry = checkHostEntry(object);
      if (!entry.ok) return false;
      const pk = this.services.hosts.sameCentralPk(hostRecordOf(entry.entry));
      if (pk === undefined) return false;
      // Seen by this pull, though unchanged: "not seen since" counts it as seen.
      this.visit?.seen.add(pk);
      return true;
    }
    if (typeof object.pk !== 'number' || endpoint === 'history') return false;
    const before = this.mirror.base(endpoint, object.pk);
    return before !== undefined && canonical(before) === canonical(object);
  }

  /**
   * Write objects (inside the caller's transaction); the number that changed here. An object
   * written again only because it had no base (a template's children after its push) and that
   * reads as before, bar the central server's own times, is the echo of a local change: not counted.
   */
  private writeObjects(endpoint: PulledEndpoint, objects: readonly JsonObject[]): number {
    let changed = 0;
    for (const object of objects) {
      if (this.unchanged(endpoint, object)) continue;
      const pk = typeof object.pk === 'number' ? object.pk : undefined;
      const before = pk === undefined ? undefined : this.mirror.localState(endpoint, pk);
      this.mirror.put1(endpoint, object);
      if (before === undefined || before !== this.mirror.localState(endpoint, pk!)) changed++;
    }
    return changed;
  }

  /** A write of hosts noted in the pull's visit, whose part is written in the same transaction. */
  private recorded<T>(hosts: boolean, write: () => T): T {
    if (!hosts || !this.visit) return write();
    const result = this.services.hosts.recordingInto(this.visit, write);
    this.services.visits.flush(this.visit, false);
    return result;
  }

  private exists(endpoint: PulledEndpoint, pk: number): boolean {
    return this.services.mirrorRows.present(pulledResource(endpoint).storage.table, pk);
  }

  /**
   * Objects the page refers to that are not here yet (created on the central server while the
   * pull went on): fetched one by one, their own references first.
   */
  private async referenced(endpoint: PulledEndpoint, objects: readonly JsonObject[], within: ReadonlySet<number>): Promise<{ endpoint: PulledEndpoint; object: JsonObject }[]> {
    const out: { endpoint: PulledEndpoint; object: JsonObject }[] = [];
    const fetched = new Set<string>();
    const visit = async (target: PulledEndpoint, pk: number): Promise<void> => {
      const key = `${target}:${pk}`;
      if (fetched.has(key) || (target === endpoint && within.has(pk)) || this.exists(target, pk)) return;
      fetched.add(key);
      const reply = await this.client.send('GET', `/rest/${pullPath(target)}/${pk}/`);
      if (reply.status !== 200 || !isObject(reply.body)) return; // gone again: the reference check at commit tells
      await visitRefs(target, reply.body);
      out.push({ endpoint: target, object: reply.body });
    };
    const visitRefs = async (of: PulledEndpoint, object: JsonObject): Promise<void> => {
      for (const ref of refersOf(of)) {
        const value = object[ref.field];
        for (const pk of Array.isArray(value) ? value : [value]) if (typeof pk === 'number') await visit(ref.endpoint, pk);
      }
    };
    for (const object of objects) await visitRefs(endpoint, object);
    return out;
  }

  /** Upsert one page, with what it refers to, in one transaction. */
  private async writePage(endpoint: PulledEndpoint, objects: readonly JsonObject[]): Promise<number> {
    // The requests just asked for leave only when the event loop next turns: let them go before
    // this synchronous write, so that the central server works on them meanwhile.
    await setImmediatePromise();
    if (this.stopped()) throw new SyncStopped();
    const within = new Set(objects.map((o) => o.pk).filter((pk): pk is number => typeof pk === 'number'));
    const before = await this.referenced(endpoint, objects, within);
    const changed = this.services.store.write(() => {
      // Templates refer to each other within the page: checked at commit.
      this.services.store.deferForeignKeys();
      for (const { endpoint: other, object } of before) this.mirror.put1(other, object);
      return this.recorded(endpoint === 'host_id', () => this.writeObjects(endpoint, objects));
    });
    this.faults('after-page');
    return changed;
  }

  private async scan(endpoint: PulledEndpoint, pageSize: number, concurrency: number, onProgress?: (p: PullProgress) => void): Promise<Scan> {
    const path = `/rest/${pullPath(endpoint)}/`;
    const query = { page_size: pageSize, ...pullQuery(endpoint) };
    const first = pageOf(await this.client.send('GET', path, undefined, { ...query, page: 1 }), endpoint);
    const seen = new Set<string>();
    // Templates refer to each other across pages: they are written together once all are read.
    const together = endpoint === 'vendor_probe_template';
    const held: JsonObject[] = [];
    const pages = pagesAfter(first, pageSize, endpoint);
    // The other pages are asked for before page 1 is written.
    const replies = prefetched(pages, concurrency, (page) => this.client.send('GET', path, undefined, { ...query, page }));
    let changed = 0;
    let received = 0;
    const take = async (results: JsonObject[]): Promise<void> => {
      for (const o of results) seen.add(Mirror.keyOf(endpoint, o));
      if (together) held.push(...results);
      else changed += await this.writePage(endpoint, results);
    };
    try {
      await take(first.results);
      received += first.results.length;
      onProgress?.({ endpoint, received, count: first.count });
      for await (const reply of replies) {
        if (reply.status === 404) continue; // the list shrank while we read it: the count check tells
        const { results } = pageOf(reply, endpoint);
        await take(results);
        received += results.length;
        onProgress?.({ endpoint, received, count: first.count });
      }
    } finally {
      replies.stop();
    }
    if (together) changed += await this.writePage(endpoint, held);
    return { count: first.count, seen, changed, received };
  }

  /** The central server's history: only the entries not mirrored yet (they never change). */
  private async pullHistory(pageSize: number, onProgress?: (p: PullProgress) => void): Promise<number> {
    const known = this.services.remoteHistory.newestPk();
    let page = 1;
    let added = 0;
    for (;;) {
      const reply = await this.client.send('GET', `/rest/${pullPath('history')}/`, undefined, { page_size: pageSize, ...pullQuery('history'), page });
      if (reply.status === 404) break;
      const { count, results, next } = pageOf(reply, 'history');
      const fresh = results.filter((o) => typeof o.pk === 'number' && o.pk > known);
      if (fresh.length > 0) {
        this.services.store.write(() => fresh.forEach((o) => this.mirror.put1('history', o)));
        added += fresh.length;
      }
      onProgress?.({ endpoint: 'history', received: added, count });
      if (!next || fresh.length < results.length) break;
      page++;
    }
    return added;
  }

  async pull(options: PullOptions = {}): Promise<PullResult> {
    if (options.stopped) this.stopped = options.stopped;
    this.visit = this.services.visits.begin({ kind: 'pull', user: options.user ?? 'sync' });
    const pageSize = options.pageSize ?? 1000;
    const concurrency = options.concurrency ?? 4;
    const byEndpoint: Partial<Record<PulledEndpoint, EndpointPull>> = {};
    const gone = new Map<PulledEndpoint, string[]>();
    let total = 0;
    for (const endpoint of PULLED) {
      if (endpoint === 'history') continue;
      let scan = await this.scan(endpoint, pageSize, concurrency, options.onProgress);
      // Objects added or removed while we read change `count`: read again, twice at most.
      for (let attempt = 0; scan.seen.size !== scan.count && attempt < 2; attempt++) {
        scan = await this.scan(endpoint, pageSize, concurrency, options.onProgress);
      }
      if (scan.seen.size !== scan.count) {
        throw new RemoteError('network', `the central server's ${endpoint} list kept changing during the pull (${scan.seen.size} objects read, count ${scan.count}); try again`);
      }
      const local = this.mirror.localKeys(endpoint);
      const missing = local.filter((key) => !scan.seen.has(key));
      if (!options.allowMassDelete && isMassDelete(local.length, missing.length)) {
        throw new MassDeleteError(
          `the pull would delete ${missing.length} of the ${local.length} local ${endpoint} objects (90 % or more): aborted, nothing deleted. ` +
            'If the central server really lost them, sync again with --allow-mass-delete (the app: "Sync allowing mass delete").',
        );
      }
      gone.set(endpoint, missing);
      byEndpoint[endpoint] = { received: scan.received, changed: scan.changed, deleted: missing.length };
      total += scan.changed + missing.length;
    }
    if (this.stopped()) throw new SyncStopped();
    this.applyDeletions(gone);
    // The central server's history is mirrored, not counted: its entries record changes (counted
    // above when they reach an object here), among them the echoes of this site's own push.
    const added = await this.pullHistory(pageSize, options.onProgress);
    byEndpoint.history = { received: added, changed: added, deleted: 0 };
    return { changed: total, byEndpoint };
  }

  /** Everything the central server no longer has goes, dependants first, in one transaction. */
  private applyDeletions(gone: ReadonlyMap<PulledEndpoint, readonly string[]>): void {
    if ([...gone.values()].every((keys) => keys.length === 0)) return;
    this.services.store.write(() => {
      this.services.store.deferForeignKeys();
      this.recorded(true, () => {
        for (const endpoint of [...PULLED].reverse()) {
          for (const key of gone.get(endpoint) ?? []) this.deletedRemotely(endpoint, key);
        }
      });
    });
  }

  /**
   * The central server deleted an object: remove it here. Changes waiting for it cannot apply
   * and are parked with the reason; local objects made here that refer to it lose the reference
   * (their push would be refused: the change waiting for them says why).
   */
  private deletedRemotely(endpoint: PulledEndpoint, key: string): void {
    const reason = 'The object was deleted on the central server; this change cannot be applied.';
    for (const entry of this.outbox.entries()) {
      if (entry.resource === endpoint && String(entry.pk) === key) {
        if (entry.op === 'delete') this.outbox.remove(entry.seq);
        else this.outbox.change(entry.seq, { state: 'parked', message: reason });
        continue;
      }
      const refs = referenceFieldsTo(endpoint);
      if (refs.some((field) => refersTo(entry.fields[field], Number(key)))) {
        this.outbox.change(entry.seq, { state: 'parked', message: `It refers to ${endpoint.replace(/_/g, ' ')} ${key}, which was deleted on the central server.` });
      }
    }
    if (pullKeyOf(endpoint) === 'pk') this.services.mirrorRows.detachFrom(pulledResource(endpoint), Number(key));
    this.mirror.remove(endpoint, key);
  }
}
