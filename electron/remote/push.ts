/**
 * Push (app.md §3): the outbox in order. An update is merged field by field against the
 * central server's current object and only the changed fields are PATCHed, with the original
 * comment; a field changed on both sides to different values is a conflict kept for the user.
 * A create is POSTed, then re-keyed to the remote pk; a create whose outcome is unknown is looked
 * up by its unique name before anything is sent again. A delete is DELETEd (404 is done).
 * A 400 parks its entry with the remote's message; entries that do not depend on it go on.
 */
import { resourceNamed, type JsonObject, type JsonValue } from '../../shared/resources';
import { mergeFields, sameValue } from '../../shared/sync/merge';
import type { Services } from '../server/store/services';
import { RemoteError, type RemoteClient, type RemoteReply } from './client';
import { NO_FAULTS, type SyncFaults } from './faults';
import { Mirror } from './mirror';
import type { Outbox } from '../server/store/outbox';
import { pushValue, sameForSync, type OutboxEntry } from './outbox';
import { rekey } from '../server/store/rekey';
import { isPulled, isPushed, pushed, REFERENCE_FIELD_NAMES } from './synced';
import type { ApplyChoice, StoppedEntry } from '../../shared/sync/review';
import { ignoredInDeleteCheck, needsOf } from '../../shared/sync/reviewPlan';
import { centralHash, entryHash } from './reviewHash';

/** The sync was told to stop (its workspace is closing); what was done stays done. */
export class SyncStopped extends Error {
  constructor() {
    super('the sync was stopped');
  }
}

export interface PushProgress {
  readonly done: number;
  readonly total: number;
}

export interface PushResult {
  readonly pushed: number;
  readonly conflicts: number;
  readonly parked: number;
  /** Entries held back by an earlier entry that is parked, in conflict or not yet created. */
  readonly waiting: number;
}

/** A refusal worded from the remote's DRF answer. */
export function refusal(reply: RemoteReply): string {
  const body = reply.body;
  if (typeof body === 'object' && body !== null && !Array.isArray(body)) {
    if (typeof body.detail === 'string') return body.detail;
    return Object.entries(body)
      .map(([field, value]) => `${field}: ${Array.isArray(value) ? value.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join(' ') : JSON.stringify(value)}`)
      .join('; ');
  }
  return `the central server answered ${reply.status}`;
}

function pathOf(resource: string): string {
  if (!isPushed(resource)) throw new Error(`${resource} is not pushed`);
  return resourceNamed(resource).path;
}

/** The key of the object an entry is about; both probe families share one pk sequence. */
function objectKey(entry: OutboxEntry): string {
  return `${resourceNamed(entry.resource).storage.table}:${entry.pk}`;
}

/** Does the entry name an object made here whose create has not reached the central server? */
function waitsForCreate(entry: OutboxEntry): boolean {
  if (entry.op !== 'create' && entry.pk < 0) return true;
  const local = (value: JsonValue | undefined) => typeof value === 'number' && value < 0;
  return REFERENCE_FIELD_NAMES.some((field) => {
    const value = entry.fields[field];
    return Array.isArray(value) ? value.some(local) : local(value);
  });
}

/**
 * What a push sends: every entry that can go, or only reviewed ones (shared/sync/review.ts). A
 * reviewed entry goes only if it is still the entry that was reviewed (its hash), if the entries
 * it needs were reviewed too, and if the central server still shows what the review saw (the
 * `central` hash, taken again from the GET the push makes anyway); else it stops, left waiting.
 */
export type PushSelection = 'all' | { readonly only: readonly ApplyChoice[] };

/** What a push did with the reviewed entries (empty for a push of all). */
export interface SelectionOutcome {
  readonly applied: number[];
  readonly stopped: StoppedEntry[];
}

type EntryOutcome = 'done' | 'parked' | 'conflict' | 'stopped';

export class Pusher {
  private readonly outbox: Outbox;
  private readonly mirror: Mirror;
  private done = 0;
  private sending: number | undefined;
  /** The reviewed entries of a selective push, by seq. */
  private chosen: ReadonlyMap<number, ApplyChoice> | undefined;
  private readonly stops: StoppedEntry[] = [];
  private readonly applied: number[] = [];

  constructor(
    private readonly services: Services,
    private readonly client: RemoteClient,
    /** Checked between entries: true stops the push there (the workspace is closing). */
    private readonly stopped: () => boolean = () => false,
    /** Crash points for the crash-safety tests (none in normal use). */
    private readonly faults: SyncFaults = NO_FAULTS,
  ) {
    this.outbox = services.outbox;
    this.mirror = new Mirror(services);
  }

  private write<T>(fn: () => T): T {
    return this.services.store.write(fn);
  }

  /** The remote object as the local mirror keeps it (and its base). */
  private remember(resource: string, object: JsonObject): void {
    if (isPulled(resource)) this.mirror.put1(resource, object);
  }

  /**
   * A reviewed entry whose object the central server now shows otherwise than the review saw:
   * stopped, not sent (true). Always false outside a selective push.
   */
  private changedThere(entry: OutboxEntry, theirs: JsonObject | undefined): boolean {
    const choice = this.chosen?.get(entry.seq);
    if (choice === undefined || centralHash(entry, theirs) === choice.central) return false;
    this.stops.push({ seq: entry.seq, reason: 'changed_there', message: 'The central server changed since the review: review it again.' });
    return true;
  }

  private async findByUnique(entry: OutboxEntry): Promise<JsonObject | undefined> {
    const synced = pushed(entry.resource)!;
    const value = entry.fields[synced.unique];
    if (typeof value !== 'string') return undefined;
    const reply = await this.client.send('GET', `/rest/${synced.path}/`, undefined, { [synced.unique]: value });
    const body = reply.body;
    if (reply.status !== 200 || typeof body !== 'object' || body === null || Array.isArray(body) || !Array.isArray(body.results)) return undefined;
    const found = body.results.find((o) => typeof o === 'object' && o !== null && !Array.isArray(o) && o[synced.unique] === value);
    return found as JsonObject | undefined;
  }

  private created(entry: OutboxEntry, object: JsonObject): void {
    const remotePk = object.pk;
    if (typeof remotePk !== 'number') throw new RemoteError('network', 'the central server created an object without a pk');
    this.write(() => {
      rekey(this.services.store, entry.resource, entry.pk, remotePk);
      this.remember(entry.resource, object);
      this.outbox.remove(entry.seq);
    });
    this.faults('after-commit');
  }

  private park(entry: OutboxEntry, message: string): void {
    this.write(() => this.outbox.change(entry.seq, { state: 'parked', message, attempts: entry.attempts + 1 }));
  }

  private async create(entry: OutboxEntry): Promise<EntryOutcome> {
    const path = `/rest/${pathOf(entry.resource)}/`;
    // Reviewed: the name must be as free (or as taken) as the review saw it.
    if (this.chosen?.has(entry.seq) && entry.state !== 'sending' && this.changedThere(entry, await this.findByUnique(entry))) return 'stopped';
    if (entry.state === 'sending') {
      // The request may have reached the central server before the answer was lost.
      const found = await this.findByUnique(entry);
      // Adopted only if it is ours: a colleague's object of the same name is not.
      if (found && Object.entries(entry.fields).every(([field, value]) => sameForSync(field, found[field], value))) {
        this.created(entry, found);
        return 'done';
      }
    } else {
      this.write(() => this.outbox.change(entry.seq, { state: 'sending', attempts: entry.attempts + 1 }));
    }
    this.faults('before-send');
    const reply = await this.client.send('POST', path, { ...entry.fields, ...(entry.comment === null ? {} : { comment: entry.comment }) });
    this.faults('after-response');
    if (reply.status === 201 && reply.body && typeof reply.body === 'object' && !Array.isArray(reply.body)) {
      this.created(entry, reply.body);
      return 'done';
    }
    if (reply.status >= 400 && reply.status < 500) {
      this.park(entry, refusal(reply));
      return 'parked';
    }
    // A 5xx leaves the outcome unknown: the entry stays 'sending' and is looked up next time.
    throw new RemoteError('network', `the central server answered ${reply.status} to a create`, reply.status);
  }

  private async update(entry: OutboxEntry): Promise<EntryOutcome> {
    const path = `/rest/${pathOf(entry.resource)}/${entry.pk}/`;
    const current = await this.client.send('GET', path);
    if (current.status === 404) {
      if (this.changedThere(entry, undefined)) return 'stopped';
      this.park(entry, 'The object was deleted on the central server; this change cannot be applied.');
      return 'parked';
    }
    if (current.status !== 200 || !current.body || typeof current.body !== 'object' || Array.isArray(current.body)) {
      throw new RemoteError('network', `the central server answered ${current.status} when reading the object`, current.status);
    }
    const theirs = current.body;
    if (this.changedThere(entry, theirs)) return 'stopped';
    const { patch, conflicts } = mergeFields(entry.fields, entry.base, theirs);
    let latest: JsonObject = theirs;
    if (Object.keys(patch).length > 0) {
      this.faults('before-send');
      const reply = await this.client.send('PATCH', path, { ...patch, ...(entry.comment === null ? {} : { comment: entry.comment }) });
      this.faults('after-response');
      if (reply.status >= 400 && reply.status < 500) {
        this.park(entry, refusal(reply));
        return 'parked';
      }
      if (reply.status !== 200 || !reply.body || typeof reply.body !== 'object' || Array.isArray(reply.body)) {
        throw new RemoteError('network', `the central server answered ${reply.status} to a change`, reply.status);
      }
      latest = reply.body;
    }
    const conflicting = Object.keys(conflicts);
    this.write(() => {
      // The entry first: what the mirror keeps on top of the remote's object depends on it.
      if (conflicting.length === 0) this.outbox.remove(entry.seq);
      else {
        const mine: JsonObject = {};
        const base: JsonObject = {};
        for (const field of conflicting) {
          mine[field] = entry.fields[field] ?? null;
          base[field] = entry.base[field] ?? null;
        }
        this.outbox.change(entry.seq, { state: 'conflict', fields: mine, base, theirs: conflicts, message: null });
      }
      this.remember(entry.resource, latest);
    });
    this.faults('after-commit');
    return conflicting.length === 0 ? 'done' : 'conflict';
  }

  private async remove(entry: OutboxEntry): Promise<EntryOutcome> {
    const path = `/rest/${pathOf(entry.resource)}/${entry.pk}/`;
    const current = await this.client.send('GET', path);
    if (current.status === 404) {
      if (this.changedThere(entry, undefined)) return 'stopped';
      this.write(() => {
        this.outbox.remove(entry.seq);
        this.services.syncBases.drop(entry.resource, entry.pk);
      });
      this.faults('after-commit');
      return 'done';
    }
    if (current.status === 200 && current.body && typeof current.body === 'object' && !Array.isArray(current.body)) {
      // Deleting what a colleague changed meanwhile (an object, or an interface's flag) is a
      // conflict, not a silent loss.
      const theirs = current.body;
      if (this.changedThere(entry, theirs)) return 'stopped';
      const changed: JsonObject = {};
      const ignored = ignoredInDeleteCheck(entry.resource);
      for (const [field, was] of Object.entries(entry.base)) {
        if (ignored.has(field) || !(field in theirs)) continue;
        if (!sameValue(pushValue(field, theirs[field]), pushValue(field, was))) changed[field] = theirs[field] ?? null;
      }
      if (Object.keys(changed).length > 0) {
        this.write(() => {
          this.outbox.change(entry.seq, { state: 'conflict', theirs: changed, message: 'Changed on the central server since it was deleted here.' });
          this.remember(entry.resource, theirs);
        });
        return 'conflict';
      }
    }
    this.faults('before-send');
    const reply = await this.client.send('DELETE', path, entry.comment === null ? undefined : { comment: entry.comment });
    this.faults('after-response');
    if (reply.status === 204 || reply.status === 404) {
      this.write(() => {
        this.outbox.remove(entry.seq);
        this.services.syncBases.drop(entry.resource, entry.pk);
      });
      this.faults('after-commit');
      return 'done';
    }
    if (reply.status >= 400 && reply.status < 500) {
      this.park(entry, refusal(reply));
      return 'parked';
    }
    throw new RemoteError('network', `the central server answered ${reply.status} to a delete`, reply.status);
  }

  /**
   * Push every entry that can go now, in order. Network failures and a refused token stop the
   * push (thrown); parked and conflicting entries hold back later entries of the same object.
   */
  async push(onProgress?: (progress: PushProgress) => void, selection: PushSelection = 'all'): Promise<PushResult> {
    const entries = this.outbox.entries();
    const held = new Set<string>();
    const chosen = selection === 'all' ? undefined : this.admitted(entries, selection.only);
    this.chosen = chosen;
    let conflicts = 0;
    let parked = 0;
    let waiting = 0;
    let done = 0;
    for (const listed of entries) {
      if (this.stopped()) throw new SyncStopped();
      const entry = this.outbox.get(listed.seq);
      done++;
      if (!entry) continue;
      const key = objectKey(entry);
      if (chosen && !chosen.has(entry.seq)) {
        // Not reviewed (or stopped before the loop): it waits, and so do the later changes of its object.
        held.add(key);
        continue;
      }
      if (entry.state === 'parked' || entry.state === 'conflict') {
        held.add(key);
        if (chosen) this.stops.push({ seq: entry.seq, reason: 'not_accepted', message: entry.state === 'parked' ? 'Refused by the central server: retry or discard it first.' : 'In conflict: resolve it first.' });
        if (entry.state === 'parked') parked++;
        else conflicts++;
        continue;
      }
      if (held.has(key) || waitsForCreate(entry)) {
        held.add(key);
        waiting++;
        if (chosen) this.stops.push({ seq: entry.seq, reason: 'held', message: 'It waits for an earlier change that did not go.' });
        continue;
      }
      this.sending = entry.seq;
      let outcome: EntryOutcome;
      try {
        outcome = entry.op === 'create' ? await this.create(entry) : entry.op === 'update' ? await this.update(entry) : await this.remove(entry);
      } finally {
        this.sending = undefined;
      }
      if (outcome === 'done') {
        this.done++;
        if (chosen) this.applied.push(entry.seq);
      } else if (outcome === 'stopped') held.add(key);
      else {
        if (chosen) this.stops.push({ seq: entry.seq, reason: 'not_accepted', message: outcome === 'parked' ? 'The central server refused it: see the outbox.' : 'A field changed on both sides: resolve the conflict.' });
        held.add(key);
        if (outcome === 'parked') parked++;
        else conflicts++;
      }
      onProgress?.({ done, total: entries.length });
    }
    return { pushed: this.done, conflicts, parked, waiting };
  }

  /**
   * The reviewed entries that may be tried: those still in the outbox whose needs were reviewed
   * too. The others are stopped here, before anything is sent.
   */
  private admitted(entries: readonly OutboxEntry[], only: readonly ApplyChoice[]): Map<number, ApplyChoice> {
    const present = new Map(entries.map((e) => [e.seq, e]));
    const requested = new Map(only.map((choice) => [choice.seq, choice]));
    const needs = needsOf(entries);
    const admitted = new Map<number, ApplyChoice>();
    for (const choice of requested.values()) {
      const entry = present.get(choice.seq);
      if (!entry) {
        this.stops.push({ seq: choice.seq, reason: 'gone_here', message: 'No longer waiting here (sent, discarded or undone since the review).' });
        continue;
      }
      // Checked before anything is sent: a create that goes re-keys the later entries naming it.
      if (entryHash(entry) !== choice.hash) {
        this.stops.push({ seq: choice.seq, reason: 'changed_here', message: 'Changed here since the review: review it again.' });
        continue;
      }
      const missing = (needs.get(choice.seq) ?? []).filter((seq) => !requested.has(seq));
      if (missing.length > 0) {
        this.stops.push({ seq: choice.seq, reason: 'needs_unreviewed', message: `It needs entr${missing.length === 1 ? 'y' : 'ies'} ${missing.join(', ')}, not in the request.` });
        continue;
      }
      admitted.set(choice.seq, choice);
    }
    return admitted;
  }

  /** What a selective push did with its reviewed entries, in seq order. */
  get selection(): SelectionOutcome {
    return { applied: [...this.applied], stopped: [...this.stops].sort((a, b) => a.seq - b.seq) };
  }

  /** The entry whose requests are in flight now, if any (the Sync screen's "Being sent"). */
  get inFlight(): number | undefined {
    return this.sending;
  }

  /** Entries pushed so far (what went through before a push stopped on an error too). */
  get pushed(): number {
    return this.done;
  }
}

export type { JsonValue };
