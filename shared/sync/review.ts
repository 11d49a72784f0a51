/**
 * Review before push (app.md §3.3): the shapes of a push plan, of the request that applies a
 * reviewed plan (or chosen entries of it), and of what applying did. One definition for the
 * engine that makes the plan (electron/remote/reviewPlan.ts), the CLI that prints and saves it
 * (`outpost sync --plan [--json]`, `outpost sync --apply PLAN.json`) and the Sync screen's Review.
 *
 * A plan is read only: its values come from its own GETs of the central server, never from the
 * local mirror. A plan file names outbox entries (their seq and a hash of each) and what the
 * central server showed for them; it never carries values to send: applying sends the outbox
 * entries as they are, and only if each is still the entry that was reviewed.
 */
import type { JsonValue } from '../resources';
import type { EntryOp, EntryState } from '../app/sync';

/** How a bound workspace sends its changes: as soon as it can, or only what was reviewed. */
export const PUSH_MODES = ['automatic', 'review'] as const;
export type PushMode = (typeof PUSH_MODES)[number];

/** Existing workspaces keep sending automatically (no stored mode); new ones are asked, review by default. */
export const STORED_MODE_DEFAULT: PushMode = 'automatic';
export const NEW_WORKSPACE_MODE_DEFAULT: PushMode = 'review';

export function pushModeOf(value: unknown): PushMode | null {
  return PUSH_MODES.find((mode) => mode === value) ?? null;
}

/** One field of a waiting change: the central server's value now, and after the push. */
export interface PlanField {
  readonly field: string;
  /** The central server's value as the plan read it; null for a create (nothing there yet). */
  readonly now: JsonValue;
  /** The value the central server would hold after the push (a delete: null). */
  readonly after: JsonValue;
  /** The value the local change started from (the merge's base). */
  readonly base: JsonValue;
  /**
   * send: the central server still has the base, mine is sent; same: it already holds mine,
   * nothing is sent; conflict: changed there to another value, the push would stop on it.
   */
  readonly outcome: 'send' | 'same' | 'conflict';
}

/** An object of the central server a change reaches beyond its own (api.md §4). */
export interface ReachedObject {
  readonly resource: 'vendor_probe_template' | 'vendor_probe';
  readonly pk: number;
  readonly name: string;
}

/**
 * What a template change does on the central server: per inheritable field, the probes and
 * templates that take it (honouring their `overriden_fields` and the protocol exception), with
 * how many and which (the first `REACH_LISTED` of them by name).
 */
export interface PlanReach {
  readonly field: string;
  readonly probes: number;
  readonly templates: number;
  readonly objects: readonly ReachedObject[];
}

export const REACH_LISTED = 50;

/**
 * What the push would do with the entry:
 * - send: it goes through (some field is sent, or the create / delete is made);
 * - nothing: every field already holds mine there;
 * - conflict: a field changed there to another value (the push stops the entry for the user);
 * - gone: an update of an object deleted there (it would be parked);
 * - name_taken: a create whose name the central server already holds (it would be refused);
 * - held: it waits for an entry that is parked or in conflict, or would stop (its `needs`);
 * - parked: the central server refused it already; it waits for a retry or a discard.
 * An entry already in conflict is shown as `conflict` with the fields as they are now.
 */
export type PlanOutcome = 'send' | 'nothing' | 'conflict' | 'gone' | 'name_taken' | 'held' | 'parked';

export interface PlanEntry {
  readonly seq: number;
  /** The entry's fingerprint (op, resource, pk, fields, base, comment): it must be unchanged when applied. */
  readonly hash: string;
  /**
   * A hash of what the central server showed for this entry's fields (a delete: every field of
   * the object; a create: whether the name was free): applying stops the entry if it changed.
   */
  readonly central: string;
  readonly op: EntryOp;
  readonly resource: string;
  readonly pk: number;
  /** The object's name, as known here. */
  readonly label: string;
  readonly state: EntryState;
  readonly comment: string | null;
  readonly outcome: PlanOutcome;
  /** Why (the reason of a gone, name_taken or held entry, a parked entry's message). */
  readonly message: string | null;
  readonly fields: readonly PlanField[];
  /** For a template change: what it reaches on the central server. Empty otherwise. */
  readonly reaches: readonly PlanReach[];
  /** Entries that must go before this one (earlier changes of the object, creates it refers to). */
  readonly needs: readonly number[];
}

/** `outpost sync --plan --json`, `GET /app/sync/plan`, and the plan file `--apply` reads. */
export interface ReviewPlan {
  readonly format: 'outpost-sync-plan';
  readonly version: 1;
  readonly workspace: string;
  readonly remote: { readonly name: string; readonly url: string };
  /** When the central server was read (ISO 8601). */
  readonly made: string;
  readonly entries: readonly PlanEntry[];
  /** The GETs the plan made (every one a GET: a plan changes nothing anywhere). */
  readonly requests: number;
}

export const PLAN_FORMAT = 'outpost-sync-plan';

/** One reviewed entry to send: exactly what a plan file names of it. */
export interface ApplyChoice {
  readonly seq: number;
  readonly hash: string;
  readonly central: string;
}

/** `POST /app/sync/apply` and `outpost sync --apply`: the reviewed entries to send. */
export interface ApplyRequest {
  readonly entries: readonly ApplyChoice[];
}

/**
 * Why a reviewed entry was not sent: it changed here, or there, since the review; an entry it
 * needs was not in the request; it waits behind an entry that did not go (held); the push tried it
 * and it stopped there (refused by the central server, or in conflict: see the outbox).
 */
export interface StoppedEntry {
  readonly seq: number;
  readonly reason: 'changed_here' | 'changed_there' | 'gone_here' | 'needs_unreviewed' | 'held' | 'not_accepted';
  readonly message: string;
}

/** What applying did: the sync's report, the entries sent and those stopped for a new review. */
export interface ApplyResult {
  readonly applied: readonly number[];
  readonly stopped: readonly StoppedEntry[];
}

/** Waiting entries that need another: returns the closure of `chosen` under `needs`, in outbox order. */
export function withDependencies(entries: readonly Pick<PlanEntry, 'seq' | 'needs'>[], chosen: Iterable<number>): number[] {
  const needs = new Map(entries.map((e) => [e.seq, e.needs]));
  const taken = new Set<number>();
  const stack = [...chosen];
  while (stack.length > 0) {
    const seq = stack.pop()!;
    if (taken.has(seq) || !needs.has(seq)) continue;
    taken.add(seq);
    stack.push(...needs.get(seq)!);
  }
  return entries.map((e) => e.seq).filter((seq) => taken.has(seq));
}
