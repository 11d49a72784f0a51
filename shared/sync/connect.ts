/**
 * Connecting a standalone workspace to a central server (app.md §2): the plan, the decisions it
 * asks for, and what connecting did. One definition for the engine (electron/remote/connect.ts),
 * `outpost workspace connect NAME --remote R [--yes] [--json]` and the Sync screen's
 * "Connect to a central server…".
 *
 * The plan reads the central server (GETs only) and matches each local template, probe, ruleset
 * and source by name. Nothing is sent and nothing changes here until the user confirms; refused
 * or cancelled, the workspace is exactly as before.
 */
import type { JsonValue } from '../resources';
import type { PushMode } from './review';

/** What is matched by name, in the order their creates are queued (what an object refers to first). */
export const CONNECTED_RESOURCES = ['source', 'ruleset', 'vendor_probe_template', 'vendor_probe', 'engine_probe'] as const;
export type ConnectedResource = (typeof CONNECTED_RESOURCES)[number];

/** A field whose value differs between mine and the central object of the same name. */
export interface FieldDifference {
  readonly field: string;
  readonly mine: JsonValue;
  readonly central: JsonValue;
}

/**
 * One local object, matched by name:
 * - create: the central server has no object of that name; mine is queued as a create;
 * - same: it has one with every field equal; mine becomes it (re-keyed to its pk), nothing queued;
 * - collision: it has one that differs (`differences`): the user decides (ConnectDecision).
 */
export interface ConnectItem {
  readonly resource: ConnectedResource;
  /** The local (standalone) pk. */
  readonly pk: number;
  readonly name: string;
  readonly match: 'create' | 'same' | 'collision';
  /** The central object's pk for same and collision. */
  readonly centralPk: number | null;
  readonly differences: readonly FieldDifference[];
  /** Local objects that refer to this one (a template's probes, a ruleset's engine probes), as `resource:pk`. */
  readonly referencedBy: readonly string[];
}

/**
 * The user's decision on a collision (a create or a same needs none, but may be left out):
 * - central: mine becomes the central object (re-keyed, what refers to mine refers to it); my
 *   differing values are queued as changes to review (`mine: 'queue'`) or dropped (`'drop'`);
 * - rename: mine is created on the central server under `name` (free on both sides);
 * - leave_out: mine is not sent and leaves the workspace (it stays in the copy kept before
 *   connecting); what referred to it refers to the central object of that name, or to nothing.
 */
export type ConnectDecision =
  | { readonly use: 'central'; readonly mine: 'queue' | 'drop' }
  | { readonly use: 'rename'; readonly name: string }
  | { readonly use: 'leave_out' };

/** The default for a collision no decision names: the central object, my differing values queued (nothing lost). */
export const DEFAULT_COLLISION_DECISION: ConnectDecision = { use: 'central', mine: 'queue' };

export interface ConnectPlan {
  readonly format: 'outpost-connect-plan';
  readonly version: 1;
  readonly workspace: string;
  readonly remote: { readonly name: string; readonly url: string };
  /** When the central server was read (ISO 8601). */
  readonly made: string;
  /** A hash of what the central server showed: confirming a plan made over other data is refused. */
  readonly central: string;
  readonly items: readonly ConnectItem[];
  /** How many objects the central server holds of each resource (pulled after connecting). */
  readonly centralCounts: Readonly<Record<ConnectedResource, number>>;
  /** Host identities kept as local evidence (no pull erases them). */
  readonly hosts: number;
  /** Local history entries and users, which stay local. */
  readonly localHistory: number;
  readonly localUsers: number;
  /** Why the workspace cannot be connected (already bound, names that cannot be matched), else empty. */
  readonly problems: readonly string[];
}

/** `POST /app/workspaces/:name/connect` and `outpost workspace connect --yes`. */
export interface ConnectRequest {
  readonly remote: string;
  /** The plan's `central` hash: the central server must still show what was planned over. */
  readonly central: string;
  /** Decisions by `resource:pk` (local pk); collisions without one take DEFAULT_COLLISION_DECISION. */
  readonly decisions: Readonly<Record<string, ConnectDecision>>;
  readonly pushMode: PushMode;
}

export interface ConnectResult {
  readonly workspace: string;
  readonly remote: string;
  /** Outbox entries queued: creates, and changes of mine kept over central objects. */
  readonly queued: number;
  /** Local objects re-keyed to a central object. */
  readonly matched: number;
  readonly leftOut: number;
  /** Where the standalone workspace was copied before it changed (a path in the data folder). */
  readonly backup: string;
  /** Objects the first pull brought; null if it could not run (the workspace is bound all the same). */
  readonly pulled: number | null;
  readonly pullError: string | null;
}

/** The key a decision is given under. */
export function itemKey(item: Pick<ConnectItem, 'resource' | 'pk'>): string {
  return `${item.resource}:${item.pk}`;
}
