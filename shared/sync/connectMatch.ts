/**
 * The pure part of connecting a standalone workspace (connect.ts): local objects matched by name
 * with the central server's, their differences compared as the sync compares (merge.ts's pushValue, with
 * references compared through the matching), the decisions of a plan file or request checked as
 * untrusted input, and what becomes of each object.
 */
import { resourceNamed, type JsonObject, type JsonValue } from '../resources';
import { referenceFields } from '../resources/derived';
import { canonical } from './merge';
import { CONNECTED_RESOURCES, DEFAULT_COLLISION_DECISION, itemKey, type ConnectDecision, type ConnectedResource, type ConnectItem, type FieldDifference } from './connect';
import { pushValue } from './merge';

export type ObjectsOf = Readonly<Record<ConnectedResource, readonly JsonObject[]>>;

/** Local pk → central pk of the object of the same name, per resource. */
export type PkMatching = ReadonlyMap<ConnectedResource, ReadonlyMap<number, number>>;

export function isConnectedResource(value: string): value is ConnectedResource {
  return (CONNECTED_RESOURCES as readonly string[]).includes(value);
}

/** Fields a connect compares: what the central server keeps of mine (not the pk, times, comment, nor what it owns). */
export function comparedFields(resource: ConnectedResource): string[] {
  const declared = resourceNamed(resource);
  const owned = declared.sync?.remoteOwned ?? [];
  return Object.entries(declared.fields)
    .filter(([name, field]) => name !== 'pk' && field.kind !== 'datetime' && !field.writeOnly && !field.readOnly && !owned.includes(name))
    .map(([name]) => name);
}

/** Fields naming other connected objects, with the resource they name. */
export function referencesOf(resource: ConnectedResource): { field: string; target: ConnectedResource }[] {
  return referenceFields(resourceNamed(resource)).flatMap((ref) => (isConnectedResource(ref.target.name) ? [{ field: ref.field, target: ref.target.name }] : []));
}

function byText(a: JsonValue, b: JsonValue): number {
  const [x, y] = [canonical(a), canonical(b)];
  return x < y ? -1 : x > y ? 1 : 0;
}

/** A value made comparable: in its pushed form, sets (overriden_fields, sources) sorted. */
function comparable(resource: ConnectedResource, field: string, value: JsonValue | undefined): JsonValue {
  const pushed = pushValue(field, value);
  const kind = resourceNamed(resource).fields[field]?.kind;
  return (kind === 'refList' || kind === 'choiceList') && Array.isArray(pushed) ? [...pushed].sort(byText) : pushed;
}

/** A local reference as the central server would name it: the matched object's pk, else `local:<pk>` (equal to no central pk). */
function centralReference(value: JsonValue | undefined, matched: ReadonlyMap<number, number> | undefined): JsonValue {
  const one = (v: JsonValue): JsonValue => (typeof v === 'number' ? (matched?.get(v) ?? `local:${v}`) : v);
  if (value === undefined) return null;
  return Array.isArray(value) ? value.map(one) : one(value);
}

/** Mine, in the central server's terms: references through the matching. */
export function inCentralTerms(resource: ConnectedResource, object: JsonObject, matching: PkMatching): JsonObject {
  const out: JsonObject = { ...object };
  for (const ref of referencesOf(resource)) out[ref.field] = centralReference(object[ref.field], matching.get(ref.target));
  return out;
}

/** The fields whose values differ between mine (in central terms) and the central object. */
export function differences(resource: ConnectedResource, mine: JsonObject, central: JsonObject): FieldDifference[] {
  const out: FieldDifference[] = [];
  for (const field of comparedFields(resource)) {
    const [a, b] = [comparable(resource, field, mine[field]), comparable(resource, field, central[field])];
    if (canonical(a) !== canonical(b)) out.push({ field, mine: a, central: b });
  }
  return out;
}

function nameOf(object: JsonObject): string | undefined {
  return typeof object.name === 'string' ? object.name : undefined;
}

function pkOf(object: JsonObject): number | undefined {
  return typeof object.pk === 'number' && Number.isSafeInteger(object.pk) ? object.pk : undefined;
}

export interface Matching {
  readonly items: readonly ConnectItem[];
  readonly matching: PkMatching;
  readonly problems: readonly string[];
}

/** Each local object matched by name with the central server's, in CONNECTED_RESOURCES order, by name within each. */
export function matchByName(local: ObjectsOf, central: ObjectsOf): Matching {
  const problems: string[] = [];
  const matching = new Map<ConnectedResource, Map<number, number>>();
  const centralByName = new Map<ConnectedResource, Map<string, JsonObject>>();
  for (const resource of CONNECTED_RESOURCES) {
    const names = new Map<string, JsonObject>();
    for (const object of central[resource]) {
      const name = nameOf(object);
      if (name === undefined || pkOf(object) === undefined) continue;
      if (names.has(name)) problems.push(`the central server holds two ${resource} objects named ${JSON.stringify(name)}: they cannot be matched by name`);
      names.set(name, object);
    }
    centralByName.set(resource, names);
    const pks = new Map<number, number>();
    for (const object of local[resource]) {
      const [pk, name] = [pkOf(object), nameOf(object)];
      const match = name === undefined ? undefined : names.get(name);
      if (pk !== undefined && match) pks.set(pk, pkOf(match)!);
    }
    matching.set(resource, pks);
  }
  const referrers = new Map<string, string[]>();
  for (const resource of CONNECTED_RESOURCES) {
    for (const object of local[resource]) {
      for (const ref of referencesOf(resource)) {
        const value = object[ref.field];
        for (const target of Array.isArray(value) ? value : [value]) {
          if (typeof target !== 'number') continue;
          const key = itemKey({ resource: ref.target, pk: target });
          referrers.set(key, [...(referrers.get(key) ?? []), itemKey({ resource, pk: pkOf(object)! })]);
        }
      }
    }
  }
  const items: ConnectItem[] = [];
  for (const resource of CONNECTED_RESOURCES) {
    const sorted = [...local[resource]].sort((a, b) => ((nameOf(a) ?? '') < (nameOf(b) ?? '') ? -1 : 1));
    for (const object of sorted) {
      const [pk, name] = [pkOf(object), nameOf(object)];
      if (pk === undefined || name === undefined) continue;
      const match = centralByName.get(resource)!.get(name);
      const diff = match ? differences(resource, inCentralTerms(resource, object, matching), match) : [];
      items.push({
        resource,
        pk,
        name,
        match: !match ? 'create' : diff.length === 0 ? 'same' : 'collision',
        centralPk: match ? pkOf(match)! : null,
        differences: diff,
        referencedBy: referrers.get(itemKey({ resource, pk })) ?? [],
      });
    }
  }
  return { items, matching, problems };
}

/** How many differences the CLI and a problem list show at most per object. */
export const LISTED_DIFFERENCES = 20;

// ---- decisions ----

/** Control characters (C0, DEL, C1) and the line and paragraph separators: never in a name. */
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;
const MAX_KEY = 400;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

export type CheckedDecisions = { readonly ok: true; readonly decisions: ReadonlyMap<string, ConnectDecision> } | { readonly ok: false; readonly errors: Readonly<Record<string, string[]>> };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function exactKeys(value: Record<string, unknown>, keys: readonly string[]): boolean {
  return Object.keys(value).every((k) => keys.includes(k)) && keys.every((k) => k in value);
}

/**
 * The item a decision key names: `resource:pk` (the local pk), else `resource:name` (a name made
 * only of digits is read as a pk). Undefined when it names none.
 */
export function itemOfKey(key: string, items: readonly ConnectItem[]): ConnectItem | undefined {
  const colon = key.indexOf(':');
  if (colon < 0) return undefined;
  const [resource, rest] = [key.slice(0, colon), key.slice(colon + 1)];
  if (!isConnectedResource(resource)) return undefined;
  if (/^-?\d{1,16}$/.test(rest)) return items.find((item) => item.resource === resource && item.pk === Number(rest));
  return items.find((item) => item.resource === resource && item.name === rest);
}

function shown(key: string): string {
  const bounded = key.length > 80 ? `${key.slice(0, 80)}…` : key;
  return JSON.stringify(bounded).replace(/[\u007f-\u009f\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * Decisions as given (a request's body, a plan file), checked against the plan's items and the
 * central server's names; by `resource:pk`. Errors in the API's field-error shape, per key.
 */
export function checkDecisions(raw: unknown, items: readonly ConnectItem[], centralNames: ReadonlyMap<ConnectedResource, ReadonlySet<string>>): CheckedDecisions {
  if (raw === undefined || raw === null) return { ok: true, decisions: new Map() };
  if (!isRecord(raw)) return { ok: false, errors: { decisions: ['an object of decisions by "resource:pk" or "resource:name" is expected'] } };
  const entries = Object.entries(raw);
  if (entries.length > items.length) return { ok: false, errors: { decisions: [`${entries.length} decisions for ${items.length} objects`] } };
  const errors: Record<string, string[]> = {};
  const decisions = new Map<string, ConnectDecision>();
  const renamed = new Map<string, string>();
  const fail = (key: string, message: string): void => void (errors[key.length > MAX_KEY ? `${key.slice(0, MAX_KEY)}…` : key] = [message]);
  for (const [key, value] of entries) {
    const item = key.length > MAX_KEY ? undefined : itemOfKey(key, items);
    if (!item) {
      fail(key, `${shown(key)} names no object of the plan (give "resource:pk" or "resource:name")`);
      continue;
    }
    const canonicalKey = itemKey(item);
    if (decisions.has(canonicalKey)) {
      fail(key, `a second decision for ${canonicalKey}`);
      continue;
    }
    const decision = decisionOf(value);
    if (typeof decision === 'string') {
      fail(key, decision);
      continue;
    }
    if (decision.use === 'central' && item.match === 'create') {
      fail(key, `the central server has no ${item.resource} named ${shown(item.name)}: create it, rename it or leave it out`);
      continue;
    }
    if (decision.use === 'rename') {
      const problem = renameProblem(item, decision.name, items, centralNames, renamed);
      if (problem) {
        fail(key, problem);
        continue;
      }
      renamed.set(`${item.resource}:${decision.name}`, canonicalKey);
    }
    decisions.set(canonicalKey, decision);
  }
  return Object.keys(errors).length > 0 ? { ok: false, errors } : { ok: true, decisions };
}

function decisionOf(value: unknown): ConnectDecision | string {
  if (!isRecord(value)) return 'a decision is an object: {"use": "central", "mine": "queue"|"drop"}, {"use": "rename", "name": N} or {"use": "leave_out"}';
  if (value.use === 'central' && exactKeys(value, ['use', 'mine'])) {
    if (value.mine === 'queue' || value.mine === 'drop') return { use: 'central', mine: value.mine };
    return '"mine" is "queue" or "drop"';
  }
  if (value.use === 'rename' && exactKeys(value, ['use', 'name'])) {
    if (typeof value.name !== 'string') return '"name" is a string';
    return { use: 'rename', name: value.name };
  }
  if (value.use === 'leave_out' && exactKeys(value, ['use'])) return { use: 'leave_out' };
  return '"use" is "central" (with "mine"), "rename" (with "name") or "leave_out", and nothing else';
}

function renameProblem(
  item: ConnectItem,
  name: string,
  items: readonly ConnectItem[],
  centralNames: ReadonlyMap<ConnectedResource, ReadonlySet<string>>,
  renamed: ReadonlyMap<string, string>,
): string | undefined {
  const max = (resourceNamed(item.resource).fields.name as { maxLength?: number } | undefined)?.maxLength ?? 100;
  if (name.trim() === '' || name !== name.trim()) return 'the new name is empty or starts or ends with spaces';
  // Characters as the API counts them (code points, as Python does), not UTF-16 units.
  if ([...name].length > max) return `the new name is longer than ${max} characters`;
  if (CONTROL.test(name)) return 'the new name holds control characters';
  // SQLite would store a lone surrogate as U+FFFD, and the API refuses one in any name.
  if (LONE_SURROGATE.test(name)) return 'the new name holds a lone surrogate (half of a UTF-16 pair)';
  if (centralNames.get(item.resource)?.has(name)) return `the central server has a ${item.resource} named ${shown(name)} already`;
  if (items.some((other) => other.resource === item.resource && other.name === name)) return `this workspace has a ${item.resource} named ${shown(name)} already`;
  if (renamed.has(`${item.resource}:${name}`)) return `${renamed.get(`${item.resource}:${name}`)} is renamed ${shown(name)} too`;
  return undefined;
}

// ---- what becomes of each object ----

export type ConnectAction =
  /** Sent as a create (a name the central server does not hold, or a new one). */
  | { readonly kind: 'create'; readonly item: ConnectItem; readonly name: string }
  /** Becomes the central object; my differing values queued as an update, or dropped (none for a same). */
  | { readonly kind: 'match'; readonly item: ConnectItem; readonly centralPk: number; readonly mine: 'queue' | 'drop' | 'none' }
  /** Leaves the workspace; what referred to it refers to the central object of its name, or to nothing. */
  | { readonly kind: 'leave_out'; readonly item: ConnectItem; readonly centralPk: number | null };

export function connectActions(items: readonly ConnectItem[], decisions: ReadonlyMap<string, ConnectDecision>): ConnectAction[] {
  return items.map((item): ConnectAction => {
    const decision = decisions.get(itemKey(item)) ?? (item.match === 'collision' ? DEFAULT_COLLISION_DECISION : undefined);
    if (decision?.use === 'leave_out') return { kind: 'leave_out', item, centralPk: item.centralPk };
    if (decision?.use === 'rename') return { kind: 'create', item, name: decision.name };
    if (item.centralPk === null) return { kind: 'create', item, name: item.name };
    const mine = item.match === 'same' ? 'none' : decision?.use === 'central' ? decision.mine : 'queue';
    return { kind: 'match', item, centralPk: item.centralPk, mine };
  });
}
