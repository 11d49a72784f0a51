/**
 * The local mirror of a central server: remote objects (their API JSON) written into the local
 * tables with the remote's pks, their base kept beside them, and objects the remote no longer
 * has removed. Writes here never reach the outbox: they are the remote's state, not local changes.
 */
import { checkHostEntry } from '../../shared/api/hostIdentity';
import type { JsonObject, JsonValue, Resource } from '../../shared/resources';
import { itemFieldsOf, PULLED, pulledResource, pullKeyOf, PUSHED, pushedResource, referenceFields, resourcesIn } from '../../shared/resources/derived';
import { freeName, overlay } from '../../shared/sync/overlay';
import { toSql, type SqlValue } from '../server/store/columns';
import type { ItemTable } from '../server/store/mirrorRows';
import type { Services } from '../server/store/services';
import type { Table } from '../server/store/table';
import type { PulledEndpoint } from './synced';

/** A remote object's stored columns, converted by the declared kind of each field. */
function columnsOf(table: Table, object: JsonObject): Record<string, SqlValue> {
  const out: Record<string, SqlValue> = {};
  for (const name of table.columns) {
    const field = table.resource.fields[name];
    const value = object[name];
    if (!field || value === undefined) continue;
    // A boolean column holds 0/1, never null: a null from the remote is false.
    out[name] = toSql(field, field.kind === 'boolean' ? value === true : value);
  }
  return out;
}

function pkOf(object: JsonObject): number {
  const pk = object.pk;
  if (typeof pk !== 'number' || !Number.isSafeInteger(pk)) throw new Error(`a remote object without a valid pk: ${JSON.stringify(object).slice(0, 200)}`);
  return pk;
}

/** Resources whose `name` is unique (within their scope), by pulled endpoint: the pushed resources. */
const NAMED: ReadonlyMap<PulledEndpoint, Resource> = new Map(PUSHED.filter((r) => r.unique?.field === 'name').map((r) => [r.name, r]));

/** Fields of mirrored objects naming other mirrored objects, and the table of those. */
const REFERENCE_TABLES: Readonly<Record<string, string>> = Object.fromEntries(
  PULLED.flatMap((r) => referenceFields(r).map((ref) => [ref.field, ref.target.storage.table])),
);

/** Endpoints whose objects other objects refer to, and the table those references name. */
const REFERENCED: ReadonlyMap<PulledEndpoint, string> = new Map(
  PULLED.flatMap((r) => referenceFields(r).map((ref) => [ref.target.name, ref.target.storage.table] as const)),
);

/** What the mirror writes of each pulled resource besides its row, worked out once from its declaration. */
interface MirrorPlan {
  /** Item fields (interfaces, protocols) and their tables. */
  readonly items: readonly { readonly field: string; readonly table: ItemTable; readonly deletable: string | undefined }[];
  /** List fields kept in a join table (a ruleset's sources). */
  readonly lists: readonly string[];
  /** A first-family probe's device comes with it. */
  readonly device: boolean;
}

const PLANS = new Map<string, MirrorPlan>(
  PULLED.map((resource) => [
    resource.name,
    {
      items: itemFieldsOf(resource).map(({ field, declared }) => ({
        field,
        table: { table: declared.table, flag: declared.flag, owner: resource.storage.itemOwner! },
        // Items deleted one by one through their own endpoint (interfaces): a delete waiting in the outbox keeps them out.
        deletable: resourcesIn(declared.table).find((r) => r.sync?.push === 'deletes')?.name,
      })),
      lists: Object.entries(resource.fields)
        .filter(([, declared]) => declared.kind === 'refList')
        .map(([field]) => field),
      device: 'vendordevice_id' in resource.fields,
    },
  ]),
);

/** Pulled endpoints whose objects refer to objects of `endpoint`, with the field that does. */
function referrersOf(endpoint: PulledEndpoint): { endpoint: PulledEndpoint; field: string }[] {
  return PULLED.flatMap((r) => referenceFields(r).filter((ref) => ref.target.name === endpoint).map((ref) => ({ endpoint: r.name, field: ref.field })));
}

/** Endpoints kept in their resource's own table (not the device, threat, host or history stores). */
function isResourceTable(endpoint: PulledEndpoint): boolean {
  return endpoint !== 'vendor_device' && endpoint !== 'threat' && endpoint !== 'host_id' && endpoint !== 'history';
}

export class Mirror {
  /**
   * Objects written while an object they refer to is not here yet (a push's answer names what
   * the central server has now; within a pull, a template may come before its parent): by
   * `endpoint:pk`, with the `table:pk` keys they wait for. Each is written again when the last
   * of those comes through this mirror; meanwhile it keeps its local references and no base.
   */
  private readonly incomplete = new Map<string, { endpoint: PulledEndpoint; object: JsonObject; waits: Set<string> }>();

  constructor(private readonly services: Services) {}

  private get outbox() {
    return this.services.outbox;
  }

  private get rows() {
    return this.services.mirrorRows;
  }

  /** Insert or update one row of a resource by pk, with its scope column. */
  private put(table: Table, pk: number, columns: Record<string, SqlValue>): void {
    const scope = table.resource.storage.scope;
    this.rows.upsert(table.name, pk, scope ? { ...columns, [scope.column]: scope.value } : columns);
  }

  /**
   * Replace an owner's interfaces or protocols. Items keep the remote's pk, else the local pk
   * of the same name, else get a new local one; an interface whose delete waits in the outbox
   * stays deleted.
   */
  private putItems(plan: MirrorPlan['items'][number], ownerPk: number, value: JsonValue | undefined, remote: JsonValue | undefined): void {
    if (!Array.isArray(value)) return;
    const items = plan.table;
    const remotePks = new Map<string, number>();
    for (const item of Array.isArray(remote) ? remote : []) {
      if (isObject(item) && typeof item.pk === 'number' && typeof item.name === 'string') remotePks.set(item.name, item.pk);
    }
    const localPks = this.rows.itemPks(items, ownerPk);
    const deleted = plan.deletable ? this.outbox.deletedPks(plan.deletable) : new Set<number>();
    const wanted: { pk: number | null; name: string; flag: boolean }[] = [];
    for (const item of value) {
      if (!isObject(item) || typeof item.name !== 'string') continue;
      const pk = remotePks.get(item.name) ?? localPks.get(item.name) ?? this.services.store.localPk?.() ?? null;
      if (pk !== null && deleted.has(pk)) continue;
      wanted.push({ pk, name: item.name, flag: item[items.flag] !== false });
    }
    this.rows.replaceItems(items, ownerPk, wanted);
  }

  setBase(resource: string, pk: number, object: JsonObject): void {
    this.services.syncBases.set(resource, pk, object);
  }

  dropBase(resource: string, pk: number): void {
    this.services.syncBases.drop(resource, pk);
  }

  base(resource: string, pk: number): JsonObject | undefined {
    return this.services.syncBases.get(resource, pk);
  }

  /**
   * What an object of a resource endpoint holds here, as one text: its stored fields but the
   * times the central server stamps, its items and its list fields; undefined when it is not
   * here. Equal before and after a write means the write changed nothing anyone reads.
   */
  localState(endpoint: PulledEndpoint, pk: number): string | undefined {
    const plan = PLANS.get(endpoint);
    if (!plan || !isResourceTable(endpoint)) return undefined;
    const table = this.services.tableOf(endpoint);
    const row = table.get(pk);
    if (!row) return undefined;
    const json = table.toJson(row);
    const kept = Object.entries(json).filter(([name]) => table.resource.fields[name]?.kind !== 'datetime');
    const items = plan.items.map((item) => this.rows.items(item.table, pk));
    const lists = plan.lists.length > 0 ? [...(this.services.rulesetSources.of([pk]).get(pk) ?? [])].sort((a, b) => a - b) : [];
    return JSON.stringify([kept, items, lists]);
  }

  /** Does a local change to the object wait to be pushed (and so decides what it shows)? */
  private localIntent(resource: string, pk: number, field: string): boolean {
    return this.outbox.of(resource, pk).some((e) => e.op === 'create' || (e.op === 'update' && field in e.fields));
  }

  /**
   * Make `name` free for object `pk`. A local object holding it because of a change waiting in
   * the outbox is renamed "<name> (local)" (its push will meet the central server's refusal);
   * a mirrored one that the remote renamed is set aside until the scan reaches it. Returns false
   * when the holder is a create whose outcome is unknown: the push settles that one first.
   */
  private clearName(endpoint: PulledEndpoint, pk: number, name: string): boolean {
    const named = NAMED.get(endpoint);
    if (!named) return true;
    const taken = (candidate: string) => this.rows.nameHolder(named, candidate) !== undefined;
    const holder = this.rows.nameHolder(named, name, pk);
    if (holder === undefined) return true;
    const entries = this.outbox.of(endpoint, holder);
    if (entries.some((e) => e.op === 'create' && e.state === 'sending')) return false;
    const intended = this.localIntent(endpoint, holder, 'name');
    const placeholder = freeName(intended ? `${name} (local)` : `${name} (renamed on the central server)`, taken);
    this.rows.rename(named.storage.table, holder, placeholder);
    // Not the remote's state any more: the next pull writes it again.
    if (!intended) this.dropBase(endpoint, holder);
    return true;
  }

  /**
   * The object as shown here: the remote's, with local changes still in the outbox on top. A
   * name that local change wants but another object now holds stays "<name> (local)".
   */
  private localView(endpoint: PulledEndpoint, object: JsonObject): JsonObject {
    const pk = pkOf(object);
    const changes = this.outbox.of(endpoint, pk).filter((e) => e.op === 'update');
    if (changes.length === 0) return object;
    const view = overlay(object, changes);
    const named = NAMED.get(endpoint);
    if (named && typeof view.name === 'string' && view.name !== object.name) {
      if (this.rows.nameHolder(named, view.name, pk) !== undefined) {
        const taken = (candidate: string) => this.rows.nameHolder(named, candidate, pk) !== undefined;
        view.name = freeName(`${view.name} (local)`, taken);
      }
    }
    return view;
  }

  /**
   * Write one remote object of a pulled endpoint into the local tables and keep it as the
   * object's base. Local changes waiting in the outbox stay on top; an object whose delete
   * waits stays deleted.
   */
  put1(endpoint: PulledEndpoint, object: JsonObject): void {
    const { tables } = this.services;
    switch (endpoint) {
      case 'vendor_device': {
        // The central server itself; each probe's device comes with its probe.
        if (object.kind !== 'central') return;
        this.services.devices.putCentral(pkOf(object), deviceInfo(object));
        // Its base lets the next pull see that it did not change.
        this.setBase(endpoint, pkOf(object), object);
        return;
      }
      case 'threat':
        this.put(tables.threat, pkOf(object), columnsOf(tables.threat, object));
        this.setBase(endpoint, pkOf(object), object);
        return;
      case 'host_id': {
        const entry = checkHostEntry(object);
        if (entry.ok) this.services.hosts.save(entry.entry);
        return;
      }
      case 'history': {
        this.services.remoteHistory.put(pkOf(object), String(object.date ?? ''), object);
        return;
      }
      default:
        break;
    }
    const pk = pkOf(object);
    if (this.outbox.of(endpoint, pk).some((e) => e.op === 'delete')) {
      this.setBase(endpoint, pk, object);
      return;
    }
    this.incomplete.delete(`${endpoint}:${pk}`);
    const shown = this.localView(endpoint, object);
    if (typeof shown.name === 'string' && !this.clearName(endpoint, pk, shown.name)) return;
    const missing = this.missingReferences(shown);
    const view = missing.size === 0 ? shown : this.withLocalReferences(endpoint, pk, shown);
    const plan = PLANS.get(endpoint)!;
    const table = this.services.tableOf(endpoint);
    this.put(table, pk, columnsOf(table, view));
    for (const item of plan.items) this.putItems(item, pk, view[item.field], object[item.field]);
    for (const field of plan.lists) {
      // The list as the central server has it, of the objects that are here.
      const value = view[field];
      this.services.rulesetSources.set(pk, (Array.isArray(value) ? value : []).filter((v): v is number => typeof v === 'number'), true);
    }
    if (plan.device) {
      // A first-family probe's device comes with it.
      this.services.devices.putForProbe(pk, typeof object.vendordevice_id === 'number' ? object.vendordevice_id : null, deviceInfo(view));
    }
    if (missing.size === 0) this.setBase(endpoint, pk, object);
    else {
      // Not the remote's state yet: written again when what it refers to comes (or by the next pull).
      this.dropBase(endpoint, pk);
      this.incomplete.set(`${endpoint}:${pk}`, { endpoint, object, waits: missing });
    }
    this.completeWaiting(endpoint, pk);
  }

  private present(table: string, pk: number): boolean {
    return this.rows.present(table, pk);
  }

  /** `table:pk` of each object the view refers to that is not here. */
  private missingReferences(view: JsonObject): Set<string> {
    const out = new Set<string>();
    for (const [field, table] of Object.entries(REFERENCE_TABLES)) {
      const value = view[field];
      for (const pk of Array.isArray(value) ? value : [value]) if (typeof pk === 'number' && !this.present(table, pk)) out.add(`${table}:${pk}`);
    }
    return out;
  }

  /** The view with each reference to an object not here replaced by the local one (or none). */
  private withLocalReferences(endpoint: PulledEndpoint, pk: number, view: JsonObject): JsonObject {
    const out: JsonObject = { ...view };
    const table = NAMED.get(endpoint)?.storage.table;
    for (const [field, target] of Object.entries(REFERENCE_TABLES)) {
      const value = view[field];
      if (Array.isArray(value)) out[field] = value.filter((v) => typeof v !== 'number' || this.present(target, v));
      else if (typeof value === 'number' && !this.present(target, value)) {
        const local = table === undefined ? undefined : this.rows.value(table, pk, field);
        out[field] = typeof local === 'number' && this.present(target, local) ? local : null;
      }
    }
    return out;
  }

  /** Write again the objects that waited for the one just written. */
  private completeWaiting(endpoint: PulledEndpoint, pk: number): void {
    const table = REFERENCED.get(endpoint);
    if (table === undefined) return;
    const key = `${table}:${pk}`;
    for (const waiting of [...this.incomplete.values()]) {
      if (!waiting.waits.delete(key) || waiting.waits.size > 0) continue;
      this.put1(waiting.endpoint, waiting.object);
    }
  }

  /**
   * Write the object again from its base (after a local change to it was dropped or resolved),
   * and the objects whose local state followed that change: a template's children (they showed
   * what it showed), the rulesets listing a source and the engine probes on a ruleset (a local
   * deletion took it from them). Their bases are the central server's state, which the pull
   * would not write again: it has not changed.
   */
  restore(endpoint: PulledEndpoint, pk: number): boolean {
    const base = this.base(endpoint, pk);
    if (!base) return false;
    this.put1(endpoint, base);
    for (const dependent of this.dependents(endpoint, pk)) this.restore(dependent.endpoint, dependent.pk);
    return true;
  }

  /** Mirrored objects whose base refers to object `pk` of `endpoint`. */
  private dependents(endpoint: PulledEndpoint, pk: number): { endpoint: PulledEndpoint; pk: number }[] {
    return referrersOf(endpoint).flatMap((ref) => this.services.syncBases.referringTo(ref.endpoint, ref.field, pk).map((p) => ({ endpoint: ref.endpoint, pk: p })));
  }

  /** The key of a pulled object: its pk, or its address for host identities. */
  static keyOf(endpoint: PulledEndpoint, object: JsonObject): string {
    return endpoint === 'host_id' ? String(object.ip) : String(object.pk);
  }

  /** Keys of the local objects of an endpoint that came from the central server (pk > 0). */
  localKeys(endpoint: PulledEndpoint): string[] {
    const resource = pulledResource(endpoint);
    const keys =
      endpoint === 'history'
        ? this.services.remoteHistory.pks()
        : endpoint === 'vendor_device'
          ? this.services.devices.centralPks()
          : endpoint === 'host_id'
            ? // Addresses only the local EVE import knows are not the central server's to delete.
              this.services.hosts.centralIps()
            : this.rows.keys(resource, pullKeyOf(endpoint), pushedResource(endpoint) ? 'remote pks' : 'all');
    return keys.map(String);
  }

  /** Remove a local object the central server no longer has (devices come and go with their probes). */
  remove(endpoint: PulledEndpoint, key: string): void {
    if (endpoint === 'vendor_device') return;
    if (endpoint === 'history') {
      this.services.remoteHistory.remove(Number(key));
      return;
    }
    if (endpoint === 'host_id') {
      // The central server's part goes; what the local import saw stays.
      this.services.hosts.removeCentral(key);
      return;
    }
    const keyColumn = pullKeyOf(endpoint);
    // A template's children may go in the same pull: references are checked at commit.
    this.rows.remove(pulledResource(endpoint), keyColumn, keyColumn === 'pk' ? Number(key) : key);
    if (keyColumn === 'pk') this.dropBase(endpoint, Number(key));
  }
}

/** A device's name, address and version from an object (a probe or the central server's device). */
function deviceInfo(object: JsonObject): { name: string; address: string; version: string } {
  return { name: String(object.name ?? ''), address: String(object.address ?? ''), version: String(object.version ?? '') };
}

function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
