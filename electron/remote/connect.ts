/**
 * Connecting a standalone workspace to a central server, as planned (shared/sync/connect.ts,
 * docs/sync.md "Connecting a standalone workspace"): the central server read again and compared
 * with the plan's hash, the database copied, then in one transaction the binding, every object
 * re-keyed (matched ones to the central pk, local ones to negative pks), the objects left out
 * removed, the bases of matched objects written from the central values read, the outbox queued,
 * and the imported hosts made local evidence. Refused or failing before the commit, the workspace
 * is exactly as before.
 */
import fs from 'node:fs';
import path from 'node:path';
import { formatDateTime } from '../../shared/api/datetime';
import { INHERITABLE, type JsonObject, type JsonValue } from '../../shared/resources';
import { CONNECTED_RESOURCES, itemKey, type ConnectedResource, type ConnectRequest, type ConnectResult } from '../../shared/sync/connect';
import { checkDecisions, comparedFields, connectActions, referencesOf, type ConnectAction, type ObjectsOf } from '../../shared/sync/connectMatch';
import { pushValue } from '../../shared/sync/merge';
import { ConnectRows } from '../server/store/connectRows';
import { rekey } from '../server/store/rekey';
import type { Services } from '../server/store/services';
import type { RemoteClient } from './client';
import { planConnect, type ReadOptions, type StandaloneWorkspace } from './connectPlan';
import { SyncLease } from './lease';
import { Mirror } from './mirror';
import { Puller } from './pull';
import { pushed } from './synced';

/** A connect refused before anything changed: 409 (bound already, the central server changed), 400 (decisions). */
export class ConnectRefused extends Error {
  constructor(
    message: string,
    readonly status: 400 | 409,
    /** The API's field-error shape, for bad decisions. */
    readonly errors?: JsonObject,
  ) {
    super(message);
  }
}

export const CENTRAL_CHANGED = 'the central server changed since the plan; review the plan again';

export interface ConnectOptions extends ReadOptions {
  /** The data folder: the copy goes to its `backups/` folder. */
  readonly dataDir: string;
  /** Run inside the transaction just before it commits (the tests force a failure there). */
  readonly beforeCommit?: () => void;
}

export type Committed = Omit<ConnectResult, 'pulled' | 'pullError'>;

/** Where the standalone workspace is copied before connecting: `<data>/backups/<name>-before-connect-<time>.sqlite`. */
export function backupFile(dataDir: string, workspace: string, now: Date): string {
  const time = now.toISOString().replace(/[:.]/g, '-');
  return path.join(dataDir, 'backups', `${workspace}-before-connect-${time}.sqlite`);
}

/** What an object's local pk becomes: its final pk (central or negative), or null when it leaves with nothing of its name. */
type FinalPks = ReadonlyMap<string, number | null>;

function referenceIn(finals: FinalPks, target: ConnectedResource, value: JsonValue | undefined): JsonValue {
  const one = (v: JsonValue): JsonValue => (typeof v === 'number' ? (finals.get(itemKey({ resource: target, pk: v })) ?? null) : v);
  if (value === undefined || value === null) return null;
  return Array.isArray(value) ? value.map(one).filter((v) => v !== null) : one(value);
}

/** A local object's value of a field as it is sent: references to final pks, items without pks. */
function sentValue(resource: ConnectedResource, object: JsonObject, field: string, finals: FinalPks): JsonValue {
  const ref = referencesOf(resource).find((r) => r.field === field);
  return ref ? referenceIn(finals, ref.target, object[field]) : pushValue(field, object[field]);
}

/** A create's fields: what the central server keeps of mine; values a parent hands down are left to it (as the API's own create records them). */
function createFields(resource: ConnectedResource, object: JsonObject, name: string, finals: FinalPks): JsonObject {
  const fields: JsonObject = {};
  for (const field of comparedFields(resource)) fields[field] = sentValue(resource, object, field, finals);
  fields.name = name;
  if (fields.parent_tmpl !== undefined && fields.parent_tmpl !== null) {
    const overrides = Array.isArray(object.overriden_fields) ? object.overriden_fields : [];
    for (const field of INHERITABLE) if (!overrides.includes(field)) delete fields[field];
  }
  return fields;
}

/** Templates before the templates that name them as parent (the central server's tree), the rest in plan order. */
function parentsFirst(actions: readonly ConnectAction[], central: ObjectsOf): ConnectAction[] {
  const parentOf = new Map(central.vendor_probe_template.map((t) => [t.pk, t.parent_tmpl]));
  const depth = (pk: JsonValue | undefined, seen = 0): number => (typeof pk === 'number' && seen < 1000 ? 1 + depth(parentOf.get(pk), seen + 1) : 0);
  const order = (a: ConnectAction): number => CONNECTED_RESOURCES.indexOf(a.item.resource) * 10_000 + (a.item.resource === 'vendor_probe_template' && a.kind !== 'create' ? depth(a.centralPk) : 0);
  return [...actions].sort((a, b) => order(a) - order(b));
}

interface Counts {
  queued: number;
  matched: number;
  leftOut: number;
}

/**
 * Every connected object to its final pk (inside the connect's transaction): final pks first, then
 * the moves. Every local positive pk leaves for a negative one before any object takes a central
 * pk, so that none can meet another's (probe 5 here, probe 5 there). Interfaces, protocols and
 * probe devices go to negative pks; objects left out with nothing of their name go.
 */
function moveObjects(services: Services, rows: ConnectRows, actions: readonly ConnectAction[], allocate: () => number, counts: Counts): FinalPks {
  const { store } = services;
  rows.moveItemsToLocalPks(allocate);
  const finals = new Map<string, number | null>();
  for (const action of actions) {
    const key = itemKey(action.item);
    if (action.kind === 'create') finals.set(key, allocate());
    else if (action.kind === 'match' || action.centralPk !== null) finals.set(key, action.centralPk);
    else finals.set(key, null);
  }
  const temporary = new Map<string, number>();
  for (const action of actions) {
    const { resource, pk } = action.item;
    const key = itemKey(action.item);
    const final = finals.get(key)!;
    if (action.kind === 'create') rekey(store, resource, pk, final);
    else if (final === null) {
      rows.removeLeftOut(resource, pk);
      counts.leftOut++;
    } else {
      const temp = allocate();
      rekey(store, resource, pk, temp);
      temporary.set(key, temp);
    }
  }
  // An object made here since the plan's reading would keep a pk the central server may give.
  if (rows.positiveObjects() > 0) throw new ConnectRefused('the workspace changed while connecting (an object was added); make the plan again', 409);
  for (const action of actions) {
    const temp = temporary.get(itemKey(action.item));
    if (temp === undefined || action.kind === 'create') continue;
    rekey(store, action.item.resource, temp, action.centralPk!);
    if (action.kind === 'leave_out') counts.leftOut++;
    else counts.matched++;
  }
  return finals;
}

/**
 * Connect as planned. Everything before the transaction only reads; a refusal or a failure
 * anywhere before its commit leaves the workspace as it was.
 */
export async function connectStandalone(
  workspace: StandaloneWorkspace,
  client: RemoteClient,
  remote: { readonly name: string; readonly url: string },
  request: ConnectRequest,
  options: ConnectOptions,
): Promise<Committed> {
  const { services } = workspace;
  const bound = services.boundRemote();
  if (bound !== undefined) throw new ConnectRefused(`the workspace "${workspace.name}" is bound to the remote "${bound}" already`, 409);
  const { plan, local, central } = await planConnect(workspace, client, remote, options);
  if (plan.central !== request.central) throw new ConnectRefused(CENTRAL_CHANGED, 409);
  if (plan.problems.length > 0) throw new ConnectRefused(plan.problems.join('; '), 409);
  const centralNames = new Map(CONNECTED_RESOURCES.map((r) => [r, new Set(central.objects[r].map((o) => String(o.name)))] as const));
  const checked = checkDecisions(request.decisions, plan.items, centralNames);
  if (!checked.ok) throw new ConnectRefused('the decisions are not valid', 400, { decisions: checked.errors });
  const actions = connectActions(plan.items, checked.decisions);

  const backup = backupFile(options.dataDir, workspace.name, new Date());
  const rows = new ConnectRows(services.store);
  await rows.backup(backup);

  const localOf = new Map(CONNECTED_RESOURCES.flatMap((r) => local[r].map((o) => [itemKey({ resource: r, pk: Number(o.pk) }), o] as const)));
  const centralOf = new Map(CONNECTED_RESOURCES.flatMap((r) => central.objects[r].map((o) => [itemKey({ resource: r, pk: Number(o.pk) }), o] as const)));
  const counts: Counts = { queued: 0, matched: 0, leftOut: 0 };
  const { store, syncMeta: meta } = services;
  const previousLocalPk = store.localPk;
  try {
    store.write(() => {
      store.deferForeignKeys();
      let next = Number(meta.get('next_local_pk') ?? '-1');
      const allocate = (): number => next--;
      // Items the mirror writes (a matched probe's interface the central server lacks) take local pks too.
      store.localPk = allocate;
      // Another connect of this workspace may have committed while this one read the central server.
      if (meta.get('remote') !== undefined) throw new ConnectRefused(`the workspace "${workspace.name}" was connected meanwhile`, 409);
      meta.set('remote', remote.name);
      meta.set('remote_url', remote.url);
      meta.set('push_mode', request.pushMode);
      const finals = moveObjects(services, rows, actions, allocate, counts);

      // The outbox, in dependency order: creates with their fields as sent, then my values kept over central objects.
      for (const action of parentsFirst(actions, central.objects)) {
        const { resource } = action.item;
        const key = itemKey(action.item);
        const mine = localOf.get(key)!;
        const final = finals.get(key)!;
        if (action.kind === 'create') {
          const table = pushed(resource)!.table;
          if (action.name !== action.item.name) rows.rename(table, final, action.name);
          services.outbox.append('create', resource, final, createFields(resource, mine, action.name, finals), {}, null);
          counts.queued++;
        } else if (action.kind === 'match' && action.mine === 'queue') {
          const theirs = centralOf.get(itemKey({ resource, pk: action.centralPk }))!;
          const fields: JsonObject = {};
          const base: JsonObject = {};
          for (const difference of action.item.differences) {
            fields[difference.field] = sentValue(resource, mine, difference.field, finals);
            base[difference.field] = pushValue(difference.field, theirs[difference.field]);
          }
          services.outbox.append('update', resource, final, fields, base, null);
          counts.queued++;
        }
      }
      // Matched objects as the central server showed them, with the changes queued on top: their
      // bases, so that the first pull finds them unchanged and reads none of them as deleted.
      const mirror = new Mirror(services);
      for (const action of parentsFirst(actions, central.objects)) {
        if (action.kind === 'create' || action.centralPk === null) continue;
        mirror.put1(action.item.resource, centralOf.get(itemKey({ resource: action.item.resource, pk: action.centralPk }))!);
      }
      rows.hostsToLocalEvidence((ips) => services.hosts.refreshAddresses(ips));
      meta.set('next_local_pk', String(next));
      options.beforeCommit?.();
    });
  } catch (error) {
    // Nothing changed: the copy would only be a stray file beside the workspace it equals.
    fs.rmSync(backup, { force: true });
    throw error;
  } finally {
    store.localPk = previousLocalPk;
  }
  return { workspace: workspace.name, remote: remote.name, ...counts, backup };
}

/**
 * The first pull of a workspace just connected (its push mode decides when its changes leave):
 * the objects it brought, or why it could not run (the workspace stays bound all the same).
 */
export async function firstPull(services: Services, client: RemoteClient, options: ReadOptions = {}): Promise<{ pulled: number | null; pullError: string | null }> {
  const lease = new SyncLease(services.store, services.syncMeta, { label: 'connect' });
  try {
    const waiting = lease.acquire();
    if (waiting) await waiting;
  } catch (error) {
    return { pulled: null, pullError: error instanceof Error ? error.message : String(error) };
  }
  try {
    const result = await new Puller(services, client).pull({ ...options, user: 'connect' });
    services.store.write(() => services.syncMeta.set('last_pull', formatDateTime(services.store.now())));
    return { pulled: result.changed, pullError: null };
  } catch (error) {
    return { pulled: null, pullError: error instanceof Error ? error.message : String(error) };
  } finally {
    lease.release();
  }
}
