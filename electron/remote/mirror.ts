/**
 * The local mirror of a central server: remote objects (their API JSON) written into the local
 * tables with the remote's pks, their base kept beside them, and objects the remote no longer
 * has removed. Writes here never reach the outbox: they are the remote's state, not local changes.
 */
import { parseIsoDateTime } from '../../shared/api/datetime';
import { checkHostEntry } from '../../shared/api/hostIdentity';
import type { JsonObject, JsonValue } from '../../shared/resources';
import { freeName, overlay } from '../../shared/sync/overlay';
import { saveHost } from '../server/handlers/hosts';
import type { Services } from '../server/services';
import type { SqlValue, Table } from '../server/store/table';
import { Outbox } from './outbox';
import type { PulledEndpoint } from './synced';

const ITEM_TABLES = { interfaces: { table: 'network_interface', flag: 'active' }, protocols: { table: 'protocol', flag: 'detection' } } as const;

function micros(value: JsonValue | undefined): number | null {
  return typeof value === 'string' ? (parseIsoDateTime(value) ?? null) : null;
}

/** A remote object's stored columns, converted by the declared kind of each field. */
function columnsOf(table: Table, object: JsonObject): Record<string, SqlValue> {
  const out: Record<string, SqlValue> = {};
  for (const name of table.columns) {
    const field = table.resource.fields[name];
    const value = object[name];
    if (!field || value === undefined) continue;
    switch (field.kind) {
      case 'boolean':
        out[name] = value === true ? 1 : 0;
        break;
      case 'datetime':
        out[name] = micros(value);
        break;
      case 'choiceList':
      case 'json':
        out[name] = JSON.stringify(value);
        break;
      default:
        out[name] = value === null ? null : typeof value === 'object' ? JSON.stringify(value) : typeof value === 'boolean' ? (value ? 1 : 0) : value;
    }
  }
  return out;
}

function pkOf(object: JsonObject): number {
  const pk = object.pk;
  if (typeof pk !== 'number' || !Number.isSafeInteger(pk)) throw new Error(`a remote object without a valid pk: ${JSON.stringify(object).slice(0, 200)}`);
  return pk;
}

/** Tables whose `name` is unique (within `scope`), by pulled endpoint. */
const NAMED: Partial<Record<PulledEndpoint, { table: string; scope: string }>> = {
  source: { table: 'source', scope: '1' },
  ruleset: { table: 'ruleset', scope: '1' },
  vendor_probe_template: { table: 'vendor_probe_template', scope: '1' },
  vendor_probe: { table: 'appliance', scope: "type = 'vendor'" },
  engine_probe: { table: 'appliance', scope: "type = 'engine'" },
};

/** Fields of mirrored objects naming other mirrored objects, and the table of those. */
const REFERENCE_TABLES: Readonly<Record<string, string>> = { parent_tmpl: 'vendor_probe_template', ruleset: 'ruleset', sources: 'source' };

/** Endpoints whose objects other objects refer to, and the table those references name. */
const REFERENCED: Partial<Record<PulledEndpoint, string>> = { vendor_probe_template: 'vendor_probe_template', ruleset: 'ruleset', source: 'source' };

/** The upsert of a row by pk, by table and column list (built once: a pull writes thousands of rows alike). */
const UPSERTS = new Map<string, string>();

function upsertSql(table: string, names: readonly string[]): string {
  const key = `${table}\u0000${names.join('\u0000')}`;
  let sql = UPSERTS.get(key);
  if (sql === undefined) {
    sql =
      `INSERT INTO "${table}" (${names.map((n) => `"${n}"`).join(', ')}) VALUES (${names.map(() => '?').join(', ')}) ` +
      `ON CONFLICT(pk) DO UPDATE SET ${names.filter((n) => n !== 'pk').map((n) => `"${n}" = excluded."${n}"`).join(', ')}`;
    UPSERTS.set(key, sql);
  }
  return sql;
}

export class Mirror {
  private readonly outbox: Outbox;
  /**
   * Objects written while an object they refer to is not here yet (a push's answer names what
   * the central server has now; within a pull, a template may come before its parent): by
   * `endpoint:pk`, with the `table:pk` keys they wait for. Each is written again when the last
   * of those comes through this mirror; meanwhile it keeps its local references and no base.
   */
  private readonly incomplete = new Map<string, { endpoint: PulledEndpoint; object: JsonObject; waits: Set<string> }>();

  constructor(private readonly services: Services) {
    this.outbox = new Outbox(services.store);
  }

  private get store() {
    return this.services.store;
  }

  /** Insert or update one row by pk (its scope columns included). */
  private put(table: Table, pk: number, columns: Record<string, SqlValue>, scope: Record<string, SqlValue> = {}): void {
    const all: Record<string, SqlValue> = { ...columns, ...scope, pk };
    const names = Object.keys(all);
    this.store.prepare(upsertSql(table.name, names)).run(...names.map((n) => all[n] ?? null));
  }

  /**
   * Replace an owner's interfaces or protocols. Items keep the remote's pk, else the local pk
   * of the same name, else get a new local one; an interface whose delete waits in the outbox
   * stays deleted.
   */
  private putItems(owner: 'template' | 'probe', ownerPk: number, field: 'interfaces' | 'protocols', value: JsonValue | undefined, remote: JsonValue | undefined): void {
    if (!Array.isArray(value)) return;
    const { table, flag } = ITEM_TABLES[field];
    const remotePks = new Map<string, number>();
    for (const item of Array.isArray(remote) ? remote : []) {
      if (isObject(item) && typeof item.pk === 'number' && typeof item.name === 'string') remotePks.set(item.name, item.pk);
    }
    const localPks = new Map(
      (this.store.prepare(`SELECT name, pk FROM ${table} WHERE ${owner} = ?`).all(ownerPk) as { name: string; pk: number }[]).map((r) => [r.name, r.pk]),
    );
    const deleted = new Set(
      field === 'interfaces' ? this.store.prepare("SELECT pk FROM outbox WHERE resource = 'network_interface' AND op = 'delete'").pluck().all() as number[] : [],
    );
    this.store.prepare(`DELETE FROM ${table} WHERE ${owner} = ?`).run(ownerPk);
    const insert = this.store.prepare(`INSERT INTO ${table} (pk, name, ${flag}, ${owner}) VALUES (?, ?, ?, ?)`);
    for (const item of value) {
      if (!isObject(item) || typeof item.name !== 'string') continue;
      const pk = remotePks.get(item.name) ?? localPks.get(item.name) ?? this.store.localPk?.() ?? null;
      if (pk !== null && deleted.has(pk)) continue;
      insert.run(pk, item.name, item[flag] === false ? 0 : 1, ownerPk);
    }
  }

  setBase(resource: string, pk: number, object: JsonObject): void {
    this.store.prepare('INSERT INTO sync_base (resource, pk, data) VALUES (?, ?, ?) ON CONFLICT(resource, pk) DO UPDATE SET data = excluded.data').run(resource, pk, JSON.stringify(object));
  }

  dropBase(resource: string, pk: number): void {
    this.store.prepare('DELETE FROM sync_base WHERE resource = ? AND pk = ?').run(resource, pk);
  }

  base(resource: string, pk: number): JsonObject | undefined {
    const text = this.store.prepare('SELECT data FROM sync_base WHERE resource = ? AND pk = ?').pluck().get(resource, pk) as string | undefined;
    return text === undefined ? undefined : (JSON.parse(text) as JsonObject);
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
    const named = NAMED[endpoint];
    if (!named) return true;
    const taken = (candidate: string) =>
      this.store.prepare(`SELECT 1 FROM "${named.table}" WHERE name = ? AND ${named.scope}`).get(candidate) !== undefined;
    const holder = this.store.prepare(`SELECT pk FROM "${named.table}" WHERE name = ? AND pk <> ? AND ${named.scope}`).pluck().get(name, pk) as number | undefined;
    if (holder === undefined) return true;
    const entries = this.outbox.of(endpoint, holder);
    if (entries.some((e) => e.op === 'create' && e.state === 'sending')) return false;
    const intended = this.localIntent(endpoint, holder, 'name');
    const placeholder = freeName(intended ? `${name} (local)` : `${name} (renamed on the central server)`, taken);
    this.store.prepare(`UPDATE "${named.table}" SET name = ? WHERE pk = ?`).run(placeholder, holder);
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
    const named = NAMED[endpoint];
    if (named && typeof view.name === 'string' && view.name !== object.name) {
      const holder = this.store.prepare(`SELECT pk FROM "${named.table}" WHERE name = ? AND pk <> ? AND ${named.scope}`).pluck().get(view.name, pk);
      if (holder !== undefined) {
        const taken = (candidate: string) =>
          this.store.prepare(`SELECT 1 FROM "${named.table}" WHERE name = ? AND pk <> ? AND ${named.scope}`).get(candidate, pk) !== undefined;
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
        this.put(tables.vendorDevice, pkOf(object), { kind: 'central', name: String(object.name ?? ''), address: String(object.address ?? ''), probe: null, version: String(object.version ?? '') });
        return;
      }
      case 'threat':
        this.put(tables.threat, pkOf(object), columnsOf(tables.threat, object));
        return;
      case 'host_id': {
        const entry = checkHostEntry(object);
        if (entry.ok) saveHost(this.store, entry.entry);
        return;
      }
      case 'history': {
        const pk = pkOf(object);
        this.store.prepare('INSERT INTO remote_user_action (pk, date, data) VALUES (?, ?, ?) ON CONFLICT(pk) DO UPDATE SET date = excluded.date, data = excluded.data').run(pk, String(object.date ?? ''), JSON.stringify(object));
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
    switch (endpoint) {
      case 'source':
        this.put(tables.source, pk, columnsOf(tables.source, view));
        break;
      case 'ruleset': {
        this.put(tables.ruleset, pk, columnsOf(tables.ruleset, view));
        this.store.prepare('DELETE FROM ruleset_source WHERE ruleset = ?').run(pk);
        const insert = this.store.prepare('INSERT OR IGNORE INTO ruleset_source (ruleset, source) SELECT ?, pk FROM source WHERE pk = ?');
        for (const source of Array.isArray(view.sources) ? view.sources : []) if (typeof source === 'number') insert.run(pk, source);
        break;
      }
      case 'vendor_probe_template':
        this.put(tables.template, pk, columnsOf(tables.template, view));
        this.putItems('template', pk, 'interfaces', view.interfaces, object.interfaces);
        this.putItems('template', pk, 'protocols', view.protocols, object.protocols);
        break;
      case 'vendor_probe': {
        this.put(tables.vendorProbe, pk, columnsOf(tables.vendorProbe, view), { type: 'vendor' });
        this.putItems('probe', pk, 'interfaces', view.interfaces, object.interfaces);
        this.putItems('probe', pk, 'protocols', view.protocols, object.protocols);
        const device = typeof object.vendordevice_id === 'number' ? object.vendordevice_id : null;
        this.store.prepare('DELETE FROM vendor_device WHERE probe = ? AND pk IS NOT ?').run(pk, device);
        if (device !== null) {
          this.put(tables.vendorDevice, device, { kind: 'probe', name: String(view.name ?? ''), address: String(view.address ?? ''), probe: pk, version: String(view.version ?? '') });
        }
        break;
      }
      case 'engine_probe':
        this.put(tables.engineProbe, pk, columnsOf(tables.engineProbe, view), { type: 'engine' });
        break;
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
    return this.store.prepare(`SELECT 1 FROM "${table}" WHERE pk = ?`).get(pk) !== undefined;
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
    const table = NAMED[endpoint]?.table;
    for (const [field, target] of Object.entries(REFERENCE_TABLES)) {
      const value = view[field];
      if (Array.isArray(value)) out[field] = value.filter((v) => typeof v !== 'number' || this.present(target, v));
      else if (typeof value === 'number' && !this.present(target, value)) {
        const local = table === undefined ? undefined : this.store.prepare(`SELECT "${field}" FROM "${table}" WHERE pk = ?`).pluck().get(pk);
        out[field] = typeof local === 'number' && this.present(target, local) ? local : null;
      }
    }
    return out;
  }

  /** Write again the objects that waited for the one just written. */
  private completeWaiting(endpoint: PulledEndpoint, pk: number): void {
    const table = REFERENCED[endpoint];
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
    const find = (resource: PulledEndpoint, condition: string) =>
      (this.store.prepare(`SELECT pk FROM sync_base WHERE resource = ? AND ${condition}`).pluck().all(resource, pk) as number[]).map((p) => ({ endpoint: resource, pk: p }));
    switch (endpoint) {
      case 'vendor_probe_template':
        return [...find('vendor_probe_template', "json_extract(data, '$.parent_tmpl') = ?"), ...find('vendor_probe', "json_extract(data, '$.parent_tmpl') = ?")];
      case 'source':
        return find('ruleset', "EXISTS (SELECT 1 FROM json_each(data, '$.sources') WHERE value = ?)");
      case 'ruleset':
        return find('engine_probe', "json_extract(data, '$.ruleset') = ?");
      default:
        return [];
    }
  }

  /** The key of a pulled object: its pk, or its address for host identities. */
  static keyOf(endpoint: PulledEndpoint, object: JsonObject): string {
    return endpoint === 'host_id' ? String(object.ip) : String(object.pk);
  }

  /** Keys of the local objects of an endpoint that came from the central server (pk > 0). */
  localKeys(endpoint: PulledEndpoint): string[] {
    const sql: Record<PulledEndpoint, string> = {
      vendor_device: "SELECT pk FROM vendor_device WHERE kind = 'central'",
      source: 'SELECT pk FROM source WHERE pk > 0',
      ruleset: 'SELECT pk FROM ruleset WHERE pk > 0',
      vendor_probe_template: 'SELECT pk FROM vendor_probe_template WHERE pk > 0',
      vendor_probe: "SELECT pk FROM appliance WHERE type = 'vendor' AND pk > 0",
      engine_probe: "SELECT pk FROM appliance WHERE type = 'engine' AND pk > 0",
      threat: 'SELECT pk FROM threat',
      host_id: 'SELECT ip FROM host_id',
      history: 'SELECT pk FROM remote_user_action',
    };
    return (this.store.prepare(sql[endpoint]).pluck().all() as (number | string)[]).map(String);
  }

  /** Remove a local object the central server no longer has. */
  remove(endpoint: PulledEndpoint, key: string): void {
    const byPk: Partial<Record<PulledEndpoint, string>> = {
      source: 'DELETE FROM source WHERE pk = ?',
      ruleset: 'DELETE FROM ruleset WHERE pk = ?',
      vendor_probe_template: 'DELETE FROM vendor_probe_template WHERE pk = ?',
      vendor_probe: "DELETE FROM appliance WHERE pk = ? AND type = 'vendor'",
      engine_probe: "DELETE FROM appliance WHERE pk = ? AND type = 'engine'",
      threat: 'DELETE FROM threat WHERE pk = ?',
      history: 'DELETE FROM remote_user_action WHERE pk = ?',
    };
    if (endpoint === 'host_id') this.store.prepare('DELETE FROM host_id WHERE ip = ?').run(key);
    else if (byPk[endpoint]) {
      // A template's children may go in the same pull: references are checked at commit.
      this.store.prepare(byPk[endpoint]).run(Number(key));
      this.dropBase(endpoint, Number(key));
    }
  }
}

function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
