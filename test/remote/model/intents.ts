/**
 * The model of intent (no I/O): what each workspace's user asked for, and the checks after each
 * of its syncs.
 *
 * An intent is one accepted local write, at the finest grain the sync promises to keep: a field
 * of an object (`descr`), one interface or protocol by name (`interfaces/eth1` → its flag, or
 * absent), a creation, a deletion, the deletion of an interface. The latest intent per atom is
 * the one that must reach the central server; earlier ones are superseded but may still be
 * pushed on the way (the outbox pushes entries in order), and a later deletion of the object
 * or of the interface supersedes them all. After a sync of workspace W,
 * with the central server's objects before (R0) and after (R1) it:
 *
 * - creations: each creation that left W's outbox matches exactly one object that appeared on
 *   the central server during the sync (by the name W gave it), and every object that appeared
 *   is one of W's creations (no duplicate, no phantom);
 * - justification (no lost update of others): every atom that changed on the central server
 *   during the sync is W's intent with the value now there, and the central server had, before
 *   the sync, the value W last pulled (W did not overwrite a change it had not seen); or it
 *   follows by itself (a child's inherited field, a ruleset losing a deleted source, an engine
 *   probe losing a deleted ruleset). Every object deleted during the sync was deleted by W, and
 *   had not been changed on the central server since W last pulled it;
 * - settlement (no lost change of W): every intent of W is on the central server (the value is
 *   there), or its object is gone (deleted by someone), or an entry of W's outbox that the user
 *   sees waiting (a conflict, a refused change, or a change held behind one) still carries it.
 *
 * The user's choices in the clean-up (keep mine / take theirs, discard a refused change) are
 * intents too: "theirs" and "discard" drop the local change, "mine" re-asserts the local value.
 */
import { INHERITABLE } from '../../../shared/resources/probes';
import {
  atomOf,
  atomValue,
  atoms,
  describe,
  emptySnapshot,
  ENDPOINTS,
  type Endpoint,
  fieldOf,
  inherits,
  isReadOnly,
  ITEM_FLAGS,
  itemPks,
  itemsOf,
  type Json,
  type Obj,
  REFERENCES,
  same,
  type Snapshot,
} from './objects';
import { type Entry, heldEntries, isWaiting, outboxViolations } from './outbox';

export type Ws = 'A' | 'B';

export interface ObjRef {
  readonly endpoint: Endpoint;
  /** Negative: made in this workspace and not yet created on the central server. */
  readonly pk: number;
}

interface AtomIntent {
  readonly ref: ObjRef;
  readonly atom: string;
  readonly value: Json;
  readonly step: number;
  /** The outbox entry that carries it (set once the write's entry is known). */
  entry?: number;
}

interface ObjectIntent {
  readonly ref: ObjRef;
  readonly step: number;
}

interface InterfaceDelete {
  readonly pk: number;
  readonly owner: ObjRef;
  readonly name: string;
  readonly step: number;
}

/**
 * An atom's intents in the order their entries are pushed (the outbox's order; a value kept by
 * "mine" in a conflict goes where its entry is): the last one is the one that must stay.
 */
function inPushOrder(list: AtomIntent[]): AtomIntent[] {
  return list.sort((a, b) => (a.entry ?? Infinity) - (b.entry ?? Infinity) || a.step - b.step);
}

function show(value: Json | undefined): string {
  return value === undefined ? 'nothing' : JSON.stringify(value);
}

export class WorkspaceModel {
  /** Per atom, its intents in order; the last one is live. */
  private atomIntents = new Map<string, AtomIntent[]>();
  private creates = new Map<string, ObjectIntent>();
  private deletes = new Map<string, ObjectIntent>();
  private readonly interfaceDeletes = new Map<number, InterfaceDelete>();
  /** Local pk → the central server's, once a creation reached it (`endpoint:-3` → 17). */
  private readonly rekeyed = new Map<string, number>();
  /** The central server's objects as this workspace last pulled them. */
  private known: Snapshot = emptySnapshot();

  constructor(readonly ws: Ws) {}

  private remotePk(ref: ObjRef): number | undefined {
    return ref.pk > 0 ? ref.pk : this.rekeyed.get(`${ref.endpoint}:${ref.pk}`);
  }

  /** An object's identity: its central pk once it has one, else this workspace's local pk. */
  private key(ref: ObjRef): string {
    const pk = this.remotePk(ref);
    return pk === undefined ? `${this.ws}:${ref.endpoint}:${ref.pk}` : `${ref.endpoint}:${pk}`;
  }

  private entryKey(entry: Entry): string {
    return this.key({ endpoint: entry.resource as Endpoint, pk: entry.pk });
  }

  private setAtom(ref: ObjRef, atom: string, value: Json, step: number): void {
    const key = `${this.key(ref)}|${atom}`;
    this.atomIntents.set(key, inPushOrder([...(this.atomIntents.get(key) ?? []), { ref, atom, value, step }]));
  }

  private dropAtoms(key: string, field?: string): void {
    for (const [k, [intent]] of this.atomIntents) {
      if (this.key(intent!.ref) !== key) continue;
      if (field === undefined || fieldOf(intent!.atom) === field) this.atomIntents.delete(k);
    }
  }

  /** The intents of one accepted write of `field` (`before` undefined: a creation). */
  private wrote(ref: ObjRef, field: string, before: Json | undefined, after: Json | undefined, step: number): void {
    if (isReadOnly(ref.endpoint, field) || after === undefined) return;
    const flag = ITEM_FLAGS[field];
    if (flag) {
      const was = itemsOf(before, flag);
      const now = itemsOf(after, flag);
      for (const name of new Set([...was.keys(), ...now.keys()])) {
        if (before === undefined || was.get(name) !== now.get(name)) this.setAtom(ref, `${field}/${name}`, now.get(name) ?? null, step);
      }
    } else if (before === undefined || !same(atomValue(field, before), atomValue(field, after))) {
      this.setAtom(ref, field, atomValue(field, after), step);
    }
  }

  // ---- accepted local writes -------------------------------------------------------------

  created(endpoint: Endpoint, after: Obj, given: readonly string[], step: number): void {
    const ref = { endpoint, pk: after.pk as number };
    this.creates.set(this.key(ref), { ref, step });
    for (const field of given) this.wrote(ref, field, undefined, after[field], step);
  }

  updated(endpoint: Endpoint, before: Obj, after: Obj, given: readonly string[], step: number): void {
    const ref = { endpoint, pk: before.pk as number };
    for (const field of given) this.wrote(ref, field, before[field], after[field], step);
  }

  /** Earlier changes of the object stay: their entries are still pushed before the deletion. */
  deleted(endpoint: Endpoint, pk: number, step: number): void {
    const ref = { endpoint, pk };
    const key = this.key(ref);
    // Made here and never sent: there is nothing to tell the central server.
    if (pk < 0) {
      this.creates.delete(key);
      this.dropAtoms(key);
    } else this.deletes.set(key, { ref, step });
  }

  interfaceDeleted(owner: ObjRef, iface: { pk: number; name: string }, step: number): void {
    if (iface.pk > 0) {
      this.interfaceDeletes.set(iface.pk, { pk: iface.pk, owner, name: iface.name, step });
    } else {
      // Made here: the owner's list changes.
      this.setAtom(owner, `interfaces/${iface.name}`, null, step);
    }
  }

  /** The intents of the write at `step` are carried by outbox entry `seq`. */
  carriedBy(step: number, seq: number): void {
    for (const [key, list] of this.atomIntents) {
      if (!list.some((intent) => intent.step === step)) continue;
      for (const intent of list) if (intent.step === step) intent.entry = seq;
      this.atomIntents.set(key, inPushOrder(list));
    }
  }

  // ---- the user's choices in the clean-up ---------------------------------------------------

  /** Forget the intents an entry carried (of one field, or all): the user gave them up. */
  private dropCarried(entry: Entry, field?: string): void {
    const key = this.entryKey(entry);
    for (const [k, list] of [...this.atomIntents]) {
      const first = list[0]!;
      if (this.key(first.ref) !== key || (field !== undefined && fieldOf(first.atom) !== field)) continue;
      const kept = list.filter((i) => i.entry !== entry.seq);
      if (kept.length === 0) this.atomIntents.delete(k);
      else this.atomIntents.set(k, kept);
    }
  }

  resolved(entry: Entry, field: string, choice: 'mine' | 'theirs', step: number): void {
    const key = this.entryKey(entry);
    if (entry.op === 'delete') {
      if (choice === 'theirs') {
        if (entry.resource === 'network_interface') this.interfaceDeletes.delete(entry.pk);
        else this.deletes.delete(key);
      }
      return;
    }
    const conflict = entry.conflicts.find((c) => c.field === field);
    const ref = { endpoint: entry.resource as Endpoint, pk: entry.pk };
    this.dropCarried(entry, field);
    if (choice === 'theirs' || !conflict) return;
    // Keep mine: the local value, against the central server's the conflict shows, is what the
    // user asks for (for a list of interfaces: each item where the two lists differ; where they
    // agree there is nothing to ask, and a later change on the central server stands).
    const flag = ITEM_FLAGS[field];
    if (flag) {
      const mine = itemsOf(conflict.mine as Json, flag);
      const theirs = itemsOf(conflict.theirs as Json, flag);
      for (const name of new Set([...mine.keys(), ...theirs.keys()])) {
        if (mine.get(name) !== theirs.get(name)) this.setAtom(ref, `${field}/${name}`, mine.get(name) ?? null, step);
      }
    } else {
      this.setAtom(ref, field, atomValue(field, conflict.mine as Json), step);
    }
    this.carriedBy(step, entry.seq);
  }

  discarded(entry: Entry): void {
    const key = this.entryKey(entry);
    if (entry.resource === 'network_interface') this.interfaceDeletes.delete(entry.pk);
    else if (entry.op === 'create') {
      this.creates.delete(key);
      this.dropAtoms(key);
    } else if (entry.op === 'delete') this.deletes.delete(key);
    else this.dropCarried(entry);
  }

  // ---- after a sync ----------------------------------------------------------------------

  /** Every violation of the invariants by this workspace's sync from `before` to `after`. */
  afterSync(before: Snapshot, after: Snapshot, entries: readonly Entry[]): string[] {
    const out: string[] = [];
    this.matchCreations(before, after, entries, out);
    this.justify(before, after, out);
    this.settle(after, entries, out);
    out.push(...outboxViolations(entries));
    this.known = after;
    return out;
  }

  /** Intents not settled yet (none may remain after the final clean sync). */
  pending(): string[] {
    return [
      ...[...this.creates.values()].map((i) => `creation of ${i.ref.endpoint} ${i.ref.pk} (step ${i.step})`),
      ...[...this.atomIntents.values()].map((list) => list[list.length - 1]!).map((i) => `${i.ref.endpoint} ${i.ref.pk} ${i.atom} = ${show(i.value)} (step ${i.step})`),
      ...[...this.deletes.values()].map((i) => `deletion of ${i.ref.endpoint} ${i.ref.pk} (step ${i.step})`),
      ...[...this.interfaceDeletes.values()].map((i) => `deletion of interface ${i.name} (pk ${i.pk}) (step ${i.step})`),
    ].map((text) => `${this.ws}: ${text}`);
  }

  private matchCreations(before: Snapshot, after: Snapshot, entries: readonly Entry[], out: string[]): void {
    const appeared = new Set<string>();
    for (const endpoint of ENDPOINTS) for (const pk of after[endpoint].keys()) if (!before[endpoint].has(pk)) appeared.add(`${endpoint}:${pk}`);
    for (const [key, intent] of [...this.creates]) {
      const { endpoint, pk } = intent.ref;
      if (entries.some((e) => e.op === 'create' && e.resource === endpoint && e.pk === pk)) continue;
      const name = this.atomIntents.get(`${key}|name`)?.at(-1)?.value;
      const match = [...after[endpoint].values()].find((o) => o.name === name && !before[endpoint].has(o.pk as number));
      this.creates.delete(key);
      if (!match) {
        out.push(`${this.ws}'s creation of ${endpoint} ${show(name)} (step ${intent.step}) left its outbox, but no such object appeared on the central server: lost`);
        this.dropAtoms(key);
        continue;
      }
      if (!appeared.delete(`${endpoint}:${match.pk}`)) {
        out.push(`${describe(endpoint, match, match.pk as number)} is claimed by two creations of ${this.ws}`);
        continue;
      }
      this.rekeyed.set(`${endpoint}:${pk}`, match.pk as number);
    }
    for (const key of appeared) {
      const [endpoint, pk] = key.split(':') as [Endpoint, string];
      out.push(`${describe(endpoint, after[endpoint].get(Number(pk)), Number(pk))} appeared on the central server during ${this.ws}'s sync, and no creation of ${this.ws} explains it (a duplicate?)`);
    }
    // Intents recorded under a local pk now live under the central pk.
    const regrouped = new Map<string, AtomIntent[]>();
    for (const intent of [...this.atomIntents.values()].flat()) {
      const key = `${this.key(intent.ref)}|${intent.atom}`;
      regrouped.set(key, [...(regrouped.get(key) ?? []), intent]);
    }
    for (const list of regrouped.values()) inPushOrder(list);
    this.atomIntents = regrouped;
    this.deletes = new Map([...this.deletes.values()].map((i) => [this.key(i.ref), i]));
  }

  /** A reference value with local pks replaced by the central server's, where known. */
  private resolve(field: string, value: Json): Json {
    const target = REFERENCES[field];
    if (!target) return value;
    const map = (v: Json): Json => (typeof v === 'number' && v < 0 ? (this.rekeyed.get(`${target}:${v}`) ?? v) : v);
    return atomValue(field, Array.isArray(value) ? value.map(map) : map(value));
  }

  /** What the central server shows for an intent that reached it (references to deleted objects are gone). */
  private expected(atom: string, value: Json, after: Snapshot): Json {
    const resolved = this.resolve(atom, value);
    if (atom === 'sources' && Array.isArray(resolved)) return resolved.filter((pk) => typeof pk !== 'number' || pk < 0 || after.source.has(pk));
    if (atom === 'ruleset' && typeof resolved === 'number' && resolved > 0 && !after.ruleset.has(resolved)) return null;
    return resolved;
  }

  /**
   * Did the atom change by itself, as a consequence of another change? A field a child inherits
   * follows its template. It may have inherited only for part of the sync (before a push of this
   * workspace overrode it, after one gave it back, or while a template this workspace set was its
   * parent), so it shows a value one of its templates had during the sync: before it, after it,
   * or as this workspace's pushes made it. A ruleset loses deleted sources, an engine probe its
   * deleted ruleset.
   */
  private derived(endpoint: Endpoint, pk: number, atom: string, was: Obj, now: Obj, before: Snapshot, after: Snapshot): boolean {
    const field = fieldOf(atom);
    const overridden = (o: Obj) => Array.isArray(o.overriden_fields) && o.overriden_fields.includes(field);
    // A change of overriden_fields without the field, pushed in this sync, made it inherit for a while.
    const gaveBack = (this.atomIntents.get(`${endpoint}:${pk}|overriden_fields`) ?? []).some((i) => Array.isArray(i.value) && !i.value.includes(field));
    if ((INHERITABLE as readonly string[]).includes(field) && (!(overridden(was) && overridden(now)) || gaveBack)) {
      const value = atomOf(endpoint, now, atom);
      if (this.ancestorValues([now.parent_tmpl, was.parent_tmpl, ...this.intendedParents(endpoint, pk)], atom, before, after).some((v) => same(v, value))) return true;
    }
    return this.followsDeletion(endpoint, atom, was, now, after);
  }

  /** The templates this workspace made an object's parent in changes still to push. */
  private intendedParents(endpoint: Endpoint, pk: number): Json[] {
    return (this.atomIntents.get(`${endpoint}:${pk}|parent_tmpl`) ?? []).map((i) => this.resolve('parent_tmpl', i.value));
  }

  /** The templates from `starts` upwards, by the parents the snapshots give and those this workspace set. */
  private ancestors(starts: readonly (Json | undefined)[], sides: readonly Snapshot[]): number[] {
    const T = 'vendor_probe_template';
    const seen = new Set<number>();
    const queue = starts.filter((p): p is number => typeof p === 'number');
    while (queue.length > 0) {
      const pk = queue.shift()!;
      if (seen.has(pk)) continue;
      seen.add(pk);
      for (const side of sides) {
        const parent = side[T].get(pk)?.parent_tmpl;
        if (typeof parent === 'number') queue.push(parent);
      }
      for (const parent of this.intendedParents(T, pk)) if (typeof parent === 'number') queue.push(parent);
    }
    return [...seen];
  }

  /** Every value of `atom` the templates from `starts` upwards had before, after, or by this workspace's changes. */
  private ancestorValues(starts: readonly (Json | undefined)[], atom: string, before: Snapshot, after: Snapshot): Json[] {
    const T = 'vendor_probe_template';
    return this.ancestors(starts, [before, after]).flatMap((pk) => [
      ...[before, after].flatMap((side) => {
        const template = side[T].get(pk);
        return template ? [atomOf(T, template, atom)] : [];
      }),
      ...(this.atomIntents.get(`${T}:${pk}|${atom}`) ?? []).map((intent) => this.expected(atom, intent.value, after)),
    ]);
  }

  /** The values this workspace gave `atom` on the templates from `starts` upwards. */
  private ancestorIntents(starts: readonly (Json | undefined)[], atom: string, before: Snapshot, after: Snapshot): Json[] {
    const T = 'vendor_probe_template';
    return this.ancestors(starts, [this.known, before, after]).flatMap((pk) => [
      ...(this.atomIntents.get(`${T}:${pk}|${atom}`) ?? []).map((intent) => this.expected(atom, intent.value, after)),
      // An interface it deleted from the template: the children showed none.
      ...(this.deletedHere(T, pk, atom) ? [null] : []),
    ]);
  }

  /** A ruleset that lost sources deleted since, an engine probe that lost its deleted ruleset. */
  private followsDeletion(endpoint: Endpoint, atom: string, was: Obj, now: Obj, after: Snapshot): boolean {
    if (endpoint === 'ruleset' && atom === 'sources' && Array.isArray(was.sources)) {
      return same(atomValue('sources', was.sources.filter((pk) => typeof pk === 'number' && after.source.has(pk))), atomValue('sources', now.sources));
    }
    if (endpoint === 'engine_probe' && atom === 'ruleset') return now.ruleset === null && typeof was.ruleset === 'number' && !after.ruleset.has(was.ruleset);
    return false;
  }

  /** Did this workspace delete the interface an `interfaces/<name>` atom of this object names? */
  private deletedHere(endpoint: Endpoint, pk: number, atom: string): boolean {
    return atom.startsWith('interfaces/') && [...this.interfaceDeletes.values()].some((d) => this.key(d.owner) === `${endpoint}:${pk}` && `interfaces/${d.name}` === atom);
  }

  /** The deletion of an interface by this workspace that removed this item, if any. */
  private deletedInterface(was: Obj, atom: string, now: Json): InterfaceDelete | undefined {
    if (!atom.startsWith('interfaces/') || now !== null) return undefined;
    const pk = itemPks(was.interfaces).get(atom.slice('interfaces/'.length));
    return pk === undefined ? undefined : this.interfaceDeletes.get(pk);
  }

  private justify(before: Snapshot, after: Snapshot, out: string[]): void {
    for (const endpoint of ENDPOINTS) {
      for (const [pk, was] of before[endpoint]) {
        const now = after[endpoint].get(pk);
        const what = describe(endpoint, now ?? was, pk);
        const knew = this.known[endpoint].get(pk);
        if (!now) {
          this.justifyDeletion(endpoint, pk, was, knew, before, out);
          continue;
        }
        const a0 = atoms(endpoint, was);
        const a1 = atoms(endpoint, now);
        const ak = knew ? atoms(endpoint, knew) : undefined;
        for (const atom of new Set([...a0.keys(), ...a1.keys()])) {
          const v0 = a0.get(atom) ?? null;
          const v1 = a1.get(atom) ?? null;
          if (same(v0, v1) || this.derived(endpoint, pk, atom, was, now, before, after)) continue;
          // Any intent of the atom still to push explains it (entries are pushed in order). The
          // central server must have had, before, what this workspace based that change on: what
          // it last pulled, or a value it wrote itself before (its next change is based on that).
          const intents = this.atomIntents.get(`${endpoint}:${pk}|${atom}`) ?? [];
          const index = intents.findLastIndex((i) => same(this.expected(atom, i.value, after), v1));
          const intent = intents[index];
          const deletedInterface = this.deletedInterface(was, atom, v1);
          if (intent || deletedInterface) {
            const seen = ak ? (ak.get(atom) ?? null) : undefined;
            // Based on what it last pulled, or on a value it wrote itself before (every value it
            // wrote, for an interface it deleted after).
            const earlier = intent ? intents.slice(0, index) : intents;
            const bases = [seen, ...earlier.map((i) => this.expected(atom, i.value, after))];
            // An interface it deleted from the object before: it showed none.
            if (this.deletedHere(endpoint, pk, atom)) bases.push(null);
            // What it showed here by inheriting this workspace's own change of a template.
            if (knew && inherits(knew, fieldOf(atom))) bases.push(...this.ancestorIntents([knew.parent_tmpl, ...this.intendedParents(endpoint, pk)], atom, before, after));
            if (!bases.some((b) => same(b, v0))) {
              const step = intent?.step ?? deletedInterface?.step;
              out.push(
                `${this.ws} overwrote ${what} ${atom} without a conflict: the central server had ${show(v0)} since ${this.ws} last pulled ${show(seen)}; ${this.ws} wrote ${show(v1)} (step ${step})`,
              );
            }
            continue;
          }
          out.push(`${what} ${atom} changed on the central server from ${show(v0)} to ${show(v1)} during ${this.ws}'s sync, and no change of ${this.ws} asks for it`);
        }
      }
    }
  }

  private justifyDeletion(endpoint: Endpoint, pk: number, was: Obj, knew: Obj | undefined, before: Snapshot, out: string[]): void {
    const what = describe(endpoint, was, pk);
    if (!this.deletes.has(`${endpoint}:${pk}`)) {
      out.push(`${what} was deleted on the central server during ${this.ws}'s sync, and ${this.ws} did not delete it`);
      return;
    }
    if (!knew) {
      out.push(`${this.ws} deleted ${what} without ever having pulled it`);
      return;
    }
    const a0 = atoms(endpoint, was);
    const ak = atoms(endpoint, knew);
    // Changes that only follow other deletions (a source, a ruleset) take nothing from anyone.
    // A value this workspace wrote itself is what its user saw when deleting: nothing unseen.
    const own = (atom: string) =>
      (a0.get(atom) === undefined && this.deletedHere(endpoint, pk, atom)) || (this.atomIntents.get(`${endpoint}:${pk}|${atom}`) ?? []).some((i) => same(this.expected(atom, i.value, before), a0.get(atom) ?? null));
    const unseen = [...new Set([...a0.keys(), ...ak.keys()])].filter(
      (atom) =>
        !inherits(was, fieldOf(atom)) && !same(a0.get(atom) ?? null, ak.get(atom) ?? null) && !this.followsDeletion(endpoint, atom, knew, was, before) && !own(atom),
    );
    if (unseen.length > 0) {
      const changes = unseen.map((atom) => `${atom}: ${show(ak.get(atom) ?? null)} → ${show(a0.get(atom) ?? null)}`).join(', ');
      out.push(`${this.ws} deleted ${what}, which the central server had changed since ${this.ws} last pulled it (${changes}), without a conflict`);
    }
  }

  /**
   * Did a later intent of this workspace make the field inherited again: overriden_fields
   * without it, or a template set (it copies every field not overridden)?
   */
  private gaveBack(intents: ReadonlyMap<string, readonly AtomIntent[]>, atomKey: string, field: string, intent: AtomIntent): boolean {
    const objectKey = atomKey.slice(0, atomKey.lastIndexOf('|'));
    const overrides = intents.get(`${objectKey}|overriden_fields`)?.at(-1);
    const parent = intents.get(`${objectKey}|parent_tmpl`)?.at(-1);
    const later = (other: AtomIntent) => inPushOrder([intent, other])[1] === other;
    return (
      (overrides !== undefined && later(overrides) && Array.isArray(overrides.value) && !overrides.value.includes(field)) ||
      (parent !== undefined && later(parent) && parent.value !== null)
    );
  }

  private supersedingDeletion(atomKey: string, step: number): InterfaceDelete | undefined {
    return [...this.interfaceDeletes.values()].find((d) => d.step > step && `${this.key(d.owner)}|interfaces/${d.name}` === atomKey);
  }

  private settle(after: Snapshot, entries: readonly Entry[], out: string[]): void {
    const held = heldEntries(entries);
    const waiting = entries.filter((e) => isWaiting(e, held));
    const before = new Map(this.atomIntents);
    for (const [key, list] of before) {
      const intent = list[list.length - 1]!;
      const { endpoint } = intent.ref;
      // A later deletion of the interface supersedes it (and settles it when the interface is gone).
      if (this.supersedingDeletion(key, intent.step)) continue;
      const pk = this.remotePk(intent.ref);
      const what = `${this.ws}'s change of ${endpoint} ${intent.ref.pk} ${intent.atom} to ${show(intent.value)} (step ${intent.step})`;
      if (pk === undefined) {
        // Still to be created: its creation entry carries it.
        if (!waiting.some((e) => e.op === 'create' && e.resource === endpoint && e.pk === intent.ref.pk)) {
          out.push(`${what}: the object was never created on the central server and no waiting creation carries it`);
          this.atomIntents.delete(key);
        }
        continue;
      }
      const now = after[endpoint].get(pk);
      if (!now) {
        this.atomIntents.delete(key); // deleted by someone
        continue;
      }
      const there = atoms(endpoint, now).get(intent.atom) ?? null;
      const field = fieldOf(intent.atom);
      if (same(this.expected(intent.atom, intent.value, after), there) || (inherits(now, field) && this.gaveBack(before, key, field, intent))) {
        // Settled, but an entry still in the outbox (a conflict, or behind one) may yet carry an
        // earlier intent: those stay, to be ordered against what the user chooses later.
        const queued = list.filter((i) => i.entry !== undefined && entries.some((e) => e.seq === i.entry && field in e.fields));
        if (queued.length === 0) this.atomIntents.delete(key);
        else this.atomIntents.set(key, queued);
        continue;
      }
      if (waiting.some((e) => this.entryKey(e) === `${endpoint}:${pk}` && field in e.fields)) continue;
      out.push(`lost change: ${what} is not on the central server (${describe(endpoint, now, pk)} has ${show(there)}), and no conflict or refused change of ${this.ws} shows it`);
      this.atomIntents.delete(key);
    }
    for (const [key, intent] of [...this.deletes]) {
      const pk = this.remotePk(intent.ref)!;
      if (!after[intent.ref.endpoint].has(pk)) {
        this.deletes.delete(key);
        continue;
      }
      if (waiting.some((e) => e.op === 'delete' && this.entryKey(e) === key)) continue;
      out.push(`lost deletion: ${this.ws} deleted ${describe(intent.ref.endpoint, after[intent.ref.endpoint].get(pk), pk)} (step ${intent.step}); it is still on the central server and no conflict or refused change shows it`);
      this.deletes.delete(key);
    }
    const interfaces = new Set<number>();
    for (const endpoint of ['vendor_probe_template', 'vendor_probe'] as const) {
      for (const owner of after[endpoint].values()) for (const pk of itemPks(owner.interfaces).values()) interfaces.add(pk);
    }
    for (const [pk, intent] of [...this.interfaceDeletes]) {
      if (!interfaces.has(pk)) {
        this.interfaceDeletes.delete(pk);
        const key = `${this.key(intent.owner)}|interfaces/${intent.name}`;
        if ((this.atomIntents.get(key)?.at(-1)?.step ?? Infinity) < intent.step) this.atomIntents.delete(key);
        continue;
      }
      if (waiting.some((e) => e.resource === 'network_interface' && e.pk === pk)) continue;
      out.push(`lost deletion: ${this.ws} deleted interface ${intent.name} (pk ${pk}) of ${intent.owner.endpoint} ${intent.owner.pk} (step ${intent.step}); it is still on the central server and nothing shows it`);
      this.interfaceDeletes.delete(pk);
    }
  }
}
