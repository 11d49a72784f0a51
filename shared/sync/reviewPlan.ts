/**
 * The pure decisions of a review plan (shared/sync/review.ts): what an outbox entry would do to
 * the central server's values as a plan read them, with the push's own merge (merge.ts); which
 * entries must go before which; what a template change reaches through the central server's
 * inheritance tree (api.md §4 rules 1, 2 and 5); and the canonical texts the plan's hashes are
 * taken of. The engine (electron/remote/reviewPlan.ts) reads the central server and hashes.
 */
import { fieldsReachingChild } from '../api/inheritance';
import { resourceNamed, type JsonObject, type JsonValue } from '../resources';
import { REFERENCE_FIELD_NAMES } from '../resources/derived';
import { INHERITABLE, type InheritableName } from '../resources/probes';
import { canonical, mergeFields, pushValue, sameValue } from './merge';
import { REACH_LISTED, type PlanField, type PlanOutcome, type PlanReach, type ReachedObject } from './review';

/** What a plan knows of an outbox entry (the outbox's row, without its bookkeeping). */
export interface WaitingEntry {
  readonly seq: number;
  readonly op: 'create' | 'update' | 'delete';
  readonly resource: string;
  readonly pk: number;
  readonly fields: JsonObject;
  readonly base: JsonObject;
  readonly comment: string | null;
  readonly state: 'pending' | 'sending' | 'parked' | 'conflict';
}

/** The text an entry's hash is taken of: what would be sent, and what it was merged against. */
export function entryFingerprint(entry: WaitingEntry): string {
  return canonical({ op: entry.op, resource: entry.resource, pk: entry.pk, fields: entry.fields, base: entry.base, comment: entry.comment });
}

/** The key of the object an entry is about; both probe families share one table and pk sequence. */
export function objectKey(entry: Pick<WaitingEntry, 'resource' | 'pk'>): string {
  return `${resourceNamed(entry.resource).storage.table}:${entry.pk}`;
}

/** The objects made here (negative pks) an entry needs on the central server before it can go. */
export function localPksNamed(entry: WaitingEntry): number[] {
  const pks = new Set<number>();
  if (entry.op !== 'create' && entry.pk < 0) pks.add(entry.pk);
  for (const field of REFERENCE_FIELD_NAMES) {
    const value = entry.fields[field];
    for (const item of Array.isArray(value) ? value : [value]) if (typeof item === 'number' && item < 0) pks.add(item);
  }
  return [...pks];
}

/**
 * Per entry, the entries that must go before it: the earlier entries of the same object (the push
 * holds an object's later changes behind one that stops) and the creates of the objects made here
 * that it names (the push waits for their pks).
 */
export function needsOf(entries: readonly WaitingEntry[]): Map<number, number[]> {
  const lastOfObject = new Map<string, number[]>();
  const createOf = new Map<number, number>();
  for (const entry of entries) if (entry.op === 'create' && entry.pk < 0) createOf.set(entry.pk, entry.seq);
  const out = new Map<number, number[]>();
  for (const entry of entries) {
    const key = objectKey(entry);
    const earlier = lastOfObject.get(key) ?? [];
    const needs = new Set(earlier);
    for (const pk of localPksNamed(entry)) {
      const create = createOf.get(pk);
      if (create !== undefined && create !== entry.seq) needs.add(create);
    }
    out.set(entry.seq, [...needs].sort((a, b) => a - b));
    lastOfObject.set(key, [...earlier, entry.seq]);
  }
  return out;
}

/**
 * Fields a delete does not conflict on: the central server's own times and the values it keeps
 * itself; `pk` too, as a delete recorded while the object's create was in flight keeps its local
 * pk in the base.
 */
export function ignoredInDeleteCheck(resource: string): ReadonlySet<string> {
  const declared = resourceNamed(resource);
  const times = Object.entries(declared.fields)
    .filter(([, field]) => field.kind === 'datetime')
    .map(([name]) => name);
  return new Set(['pk', ...times, ...(declared.sync?.remoteOwned ?? [])]);
}

/** An update's fields against the central object as read: the push's merge, field by field. */
export function updateFields(entry: WaitingEntry, theirs: JsonObject): PlanField[] {
  const { patch, conflicts } = mergeFields(entry.fields, entry.base, theirs);
  return Object.keys(entry.fields).map((field) => {
    const now = pushValue(field, theirs[field]);
    const base = pushValue(field, entry.base[field]);
    if (field in patch) return { field, now, after: patch[field]!, base, outcome: 'send' };
    // A conflict's `after` is the local value the push would stop on (the engineer's choice to come).
    if (field in conflicts) return { field, now, after: pushValue(field, entry.fields[field]), base, outcome: 'conflict' };
    return { field, now, after: now, base, outcome: 'same' };
  });
}

/** A delete against the central object as read: a field a colleague changed since the base is a conflict (as the push checks). */
export function deleteFields(entry: WaitingEntry, theirs: JsonObject): PlanField[] {
  const ignored = ignoredInDeleteCheck(entry.resource);
  return Object.keys(entry.base)
    .filter((field) => !ignored.has(field) && field in theirs)
    .map((field) => {
      const now = pushValue(field, theirs[field]);
      const base = pushValue(field, entry.base[field]);
      return { field, now, after: null, base, outcome: sameValue(now, base) ? 'send' : 'conflict' };
    });
}

/** A create: nothing there yet, every field sent. */
export function createFields(entry: WaitingEntry): PlanField[] {
  return Object.keys(entry.fields).map((field) => ({ field, now: null, after: pushValue(field, entry.fields[field]), base: null, outcome: 'send' }));
}

/**
 * The text the `central` hash is taken of: the central values of the entry's fields as read
 * (an update), every field of the object but the ignored ones (a delete), or whether the name
 * is free (a create). `theirs` undefined: the object is not there (404, or the name free).
 */
export function centralFingerprint(entry: WaitingEntry, theirs: JsonObject | undefined): string {
  if (entry.op === 'create') return canonical({ nameFree: theirs === undefined });
  if (theirs === undefined) return canonical({ absent: true });
  const values: JsonObject = {};
  if (entry.op === 'update') {
    for (const field of Object.keys(entry.fields)) values[field] = pushValue(field, theirs[field]);
  } else {
    const ignored = ignoredInDeleteCheck(entry.resource);
    for (const [field, value] of Object.entries(theirs)) if (!ignored.has(field)) values[field] = pushValue(field, value);
  }
  return canonical(values);
}

/** Outcomes that stop an entry at the push, and so hold back the entries that need it. */
const STOPPING: ReadonlySet<PlanOutcome> = new Set<PlanOutcome>(['conflict', 'gone', 'name_taken', 'parked', 'held']);

/** The entry's outcome once its needs are known: held when one of them would stop (in outbox order). */
export function heldBy(needs: readonly number[], outcomeOf: (seq: number) => PlanOutcome | undefined): number | undefined {
  return needs.find((seq) => {
    const outcome = outcomeOf(seq);
    return outcome !== undefined && STOPPING.has(outcome);
  });
}

/** A template or vendor probe of the central server, as its inheritance needs it. */
export interface CentralChild {
  readonly pk: number;
  readonly name: string;
  readonly parent: number | null;
  readonly overrides: readonly string[];
}

/** The central server's templates and vendor probes below a template (any depth). */
export interface CentralTree {
  readonly templates: readonly CentralChild[];
  readonly probes: readonly CentralChild[];
}

function byParent(children: readonly CentralChild[]): Map<number, CentralChild[]> {
  const out = new Map<number, CentralChild[]>();
  for (const child of children) {
    if (child.parent === null) continue;
    const list = out.get(child.parent) ?? [];
    list.push(child);
    out.set(child.parent, list);
  }
  return out;
}

/**
 * What a change of `changed` on template `root` reaches on the central server: every template and
 * vendor probe below it that takes the field, through templates that take it themselves (rule 2),
 * not where the child overrides it (rule 1), and protocols not into a child template that is the
 * parent of a probe (rule 5). One PlanReach per changed inheritable field, in INHERITABLE order.
 */
export function reachOf(root: number, changed: readonly string[], tree: CentralTree): PlanReach[] {
  const fields = INHERITABLE.filter((f) => changed.includes(f));
  if (fields.length === 0) return [];
  const templatesOf = byParent(tree.templates);
  const probesOf = byParent(tree.probes);
  const reached = new Map<InheritableName, ReachedObject[]>(fields.map((f) => [f, []]));
  const seen = new Set<number>([root]);
  const queue: [number, InheritableName[]][] = [[root, fields]];
  while (queue.length > 0) {
    const [pk, coming] = queue.shift()!;
    for (const probe of probesOf.get(pk) ?? []) {
      for (const f of fieldsReachingChild(coming, { overrides: probe.overrides, isTemplateWithProbes: false })) {
        reached.get(f)!.push({ resource: 'vendor_probe', pk: probe.pk, name: probe.name });
      }
    }
    for (const template of templatesOf.get(pk) ?? []) {
      // A hostile or broken tree may loop; the central server's own rule 7 forbids it.
      if (seen.has(template.pk)) continue;
      seen.add(template.pk);
      const taken = fieldsReachingChild(coming, { overrides: template.overrides, isTemplateWithProbes: probesOf.has(template.pk) });
      for (const f of taken) reached.get(f)!.push({ resource: 'vendor_probe_template', pk: template.pk, name: template.name });
      if (taken.length > 0) queue.push([template.pk, taken]);
    }
  }
  return fields.map((field) => {
    const objects = reached.get(field)!;
    const sorted = [...objects].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.pk - b.pk));
    return {
      field,
      probes: objects.filter((o) => o.resource === 'vendor_probe').length,
      templates: objects.filter((o) => o.resource === 'vendor_probe_template').length,
      objects: sorted.slice(0, REACH_LISTED),
    };
  });
}

/** A central object's inheritance, read defensively (a hostile answer gives no overrides, no parent). */
export function centralChildOf(object: JsonValue): CentralChild | undefined {
  if (typeof object !== 'object' || object === null || Array.isArray(object)) return undefined;
  const { pk, name, parent_tmpl: parent, overriden_fields: overrides } = object;
  if (typeof pk !== 'number' || !Number.isSafeInteger(pk)) return undefined;
  return {
    pk,
    name: typeof name === 'string' ? name : String(pk),
    parent: typeof parent === 'number' ? parent : null,
    overrides: Array.isArray(overrides) ? overrides.filter((f): f is string => typeof f === 'string') : [],
  };
}
