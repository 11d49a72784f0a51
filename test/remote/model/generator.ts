/**
 * Random operations (no I/O): creates, field edits, inheritance changes, interface lists,
 * renames and deletes of the pushed objects, chosen from what one side (a workspace or the
 * central server) shows now. Small pools of names and values make collisions, equal writes on
 * both sides and refusals frequent. Choices depend on names, never on pks, so that a replay on
 * a fresh central server (other pks) makes the same operations.
 */
import { byName, type Endpoint, inherits, INTERFACE_PATH, itemsOf, type Json, type Obj, PATHS, type Snapshot } from './objects';
import type { Rng } from './prng';

export type Actor = 'A' | 'B' | 'R';

export interface Op {
  readonly actor: Actor;
  readonly kind: 'create' | 'update' | 'delete' | 'deleteInterface';
  readonly endpoint: Endpoint;
  readonly method: 'POST' | 'PATCH' | 'DELETE';
  readonly path: string;
  readonly body: Obj | undefined;
  /** The object before the write (update, delete), or the interface's owner (deleteInterface). */
  readonly before: Obj | undefined;
  readonly iface: { readonly pk: number; readonly name: string } | undefined;
}

export const NAMES: Readonly<Record<Endpoint, readonly string[]>> = {
  source: ['s1', 's2', 's3', 's4'],
  ruleset: ['r1', 'r2', 'r3'],
  vendor_probe_template: ['t1', 't2', 't3', 't4', 't5'],
  vendor_probe: ['p1', 'p2', 'p3', 'p4', 'p5', 'p6'],
  engine_probe: ['e1', 'e2', 'e3', 'e4'],
};

const POOLS: Readonly<Record<string, readonly Json[]>> = {
  descr: ['', 'alpha', 'beta'],
  location: ['', 'rack 1', 'rack 2'],
  ntp_server: ['', 'ntp.a', 'ntp.b'],
  dns_server: ['', 'dns.a', 'dns.b'],
  capture_threads: [1, 2, 4],
  pcap_capture: [false, true],
  enabled: [true, false],
  address: ['10.0.0.1', '10.0.0.2', '10.0.0.3'],
  home_net: ['10.0.0.0/8', '192.168.0.0/16'],
  uri: ['http://a.example/rules', 'http://b.example/rules'],
  datatype: ['sigs', 'sig', 'other'],
  method: ['http', 'local'],
};

const ITEM_NAMES: Readonly<Record<'interfaces' | 'protocols', readonly string[]>> = { interfaces: ['eth0', 'eth1', 'eth2', 'eth3'], protocols: ['dns', 'http', 'tls'] };
const ITEM_FLAG = { interfaces: 'active', protocols: 'detection' } as const;

/** Fields an update edits, by endpoint (inheritance and items have their own operations). */
const SCALARS: Readonly<Record<Endpoint, readonly string[]>> = {
  source: ['uri', 'datatype', 'method'],
  ruleset: ['descr', 'sources'],
  vendor_probe_template: ['descr', 'ntp_server', 'dns_server', 'capture_threads', 'pcap_capture'],
  vendor_probe: ['descr', 'location', 'address', 'enabled', 'ntp_server', 'capture_threads'],
  engine_probe: ['descr', 'location', 'address', 'enabled', 'home_net', 'ruleset'],
};

/** Inheritable fields the operations override or give back to the template. */
const OVERRIDABLE = ['ntp_server', 'dns_server', 'capture_threads', 'interfaces', 'protocols'] as const;

const OWNERS = ['vendor_probe_template', 'vendor_probe'] as const;

function pks(objects: readonly Obj[]): number[] {
  return objects.map((o) => o.pk as number);
}

function overridesOf(object: Obj): string[] {
  return Array.isArray(object.overriden_fields) ? (object.overriden_fields as string[]) : [];
}

function randomItems(rng: Rng, field: 'interfaces' | 'protocols'): Json {
  const flag = ITEM_FLAG[field];
  return rng.subset(ITEM_NAMES[field], 0.5).map((name) => ({ name, [flag]: rng.chance(0.75) }));
}

/**
 * An object to refer to: often one made here and not yet on the central server (negative pk),
 * so that creations are re-keyed under references that wait for them.
 */
function target(rng: Rng, view: Snapshot, endpoint: Endpoint): number | undefined {
  const all = pks(byName(view, endpoint));
  const local = all.filter((pk) => pk < 0);
  if (all.length === 0) return undefined;
  return rng.pick(local.length > 0 && rng.chance(0.5) ? local : all);
}

function value(rng: Rng, view: Snapshot, field: string): Json {
  if (field === 'interfaces' || field === 'protocols') return randomItems(rng, field);
  if (field === 'sources') {
    const local = pks(byName(view, 'source')).filter((pk) => pk < 0);
    return [...new Set([...rng.subset(pks(byName(view, 'source')), 0.5), ...rng.subset(local, 0.5)])];
  }
  if (field === 'ruleset') return rng.chance(0.25) ? null : (target(rng, view, 'ruleset') ?? null);
  const pool = POOLS[field];
  if (!pool) throw new Error(`no values for ${field}`);
  return rng.pick(pool);
}

/** A value different from the current one most of the time (equal writes are no-ops). */
function newValue(rng: Rng, view: Snapshot, field: string, current: Json | undefined): Json {
  let candidate = value(rng, view, field);
  for (let i = 0; i < 3 && JSON.stringify(candidate) === JSON.stringify(current) && rng.chance(0.8); i++) candidate = value(rng, view, field);
  return candidate;
}

function withComment(rng: Rng, actor: Actor, step: number, body: Obj): Obj {
  return rng.chance(0.3) ? { ...body, comment: `${actor} step ${step}` } : body;
}

function objectsOf(view: Snapshot, endpoints: readonly Endpoint[]): { endpoint: Endpoint; object: Obj }[] {
  return endpoints.flatMap((endpoint) => byName(view, endpoint).map((object) => ({ endpoint, object })));
}

/** Objects every actor edits often, so that changes meet: conflicts, equal writes, deletes of edited objects. */
const HOT = new Set(['s1', 'r1', 't1', 't2', 'p1', 'e1']);

function pickObject<T extends { object: Obj }>(rng: Rng, candidates: readonly T[]): T {
  const hot = candidates.filter((c) => HOT.has(String(c.object.name)));
  return rng.pick(hot.length > 0 && rng.chance(0.5) ? hot : candidates);
}

function create(rng: Rng, actor: Actor, view: Snapshot, step: number): Op {
  const endpoint = rng.weighted<Endpoint>([
    ['vendor_probe_template', 3],
    ['vendor_probe', 3],
    ['engine_probe', 2],
    ['ruleset', 1],
    ['source', 1],
  ]);
  const body: Obj = { name: rng.pick(NAMES[endpoint]) };
  switch (endpoint) {
    case 'source':
      Object.assign(body, { method: value(rng, view, 'method'), datatype: value(rng, view, 'datatype'), uri: value(rng, view, 'uri') });
      break;
    case 'ruleset':
      Object.assign(body, { descr: value(rng, view, 'descr'), sources: value(rng, view, 'sources') });
      break;
    case 'engine_probe':
      Object.assign(body, { address: value(rng, view, 'address'), ruleset: value(rng, view, 'ruleset') });
      break;
    case 'vendor_probe_template':
    case 'vendor_probe': {
      if (endpoint === 'vendor_probe') Object.assign(body, { address: value(rng, view, 'address'), location: value(rng, view, 'location') });
      const parent = rng.chance(0.6) ? (target(rng, view, 'vendor_probe_template') ?? null) : null;
      // A child gives only the fields it overrides; a template of its own gives a few.
      const own = rng.subset(OVERRIDABLE, parent === null ? 0.4 : 0.3);
      if (parent !== null) Object.assign(body, { parent_tmpl: parent, overriden_fields: own });
      for (const field of own) body[field] = value(rng, view, field);
      break;
    }
  }
  return { actor, kind: 'create', endpoint, method: 'POST', path: PATHS[endpoint], body: withComment(rng, actor, step, body), before: undefined, iface: undefined };
}

function update(actor: Actor, endpoint: Endpoint, object: Obj, body: Obj): Op {
  return { actor, kind: 'update', endpoint, method: 'PATCH', path: `${PATHS[endpoint]}${object.pk}/`, body, before: object, iface: undefined };
}

/** Give an inherited field a value: usually overriding it in the same request (else refused). */
function overriding(rng: Rng, object: Obj, field: string, body: Obj): Obj {
  if (inherits(object, field) && rng.chance(0.7)) return { ...body, overriden_fields: [...overridesOf(object), field] };
  return body;
}

function scalar(rng: Rng, actor: Actor, view: Snapshot, step: number): Op | undefined {
  const candidates = objectsOf(view, ['source', 'ruleset', 'vendor_probe_template', 'vendor_probe', 'engine_probe']);
  if (candidates.length === 0) return undefined;
  const { endpoint, object } = pickObject(rng, candidates);
  const field = rng.pick(SCALARS[endpoint]);
  const body = overriding(rng, object, field, { [field]: newValue(rng, view, field, object[field]) });
  return update(actor, endpoint, object, withComment(rng, actor, step, body));
}

function items(rng: Rng, actor: Actor, view: Snapshot, step: number): Op | undefined {
  const candidates = objectsOf(view, OWNERS);
  if (candidates.length === 0) return undefined;
  const { endpoint, object } = pickObject(rng, candidates);
  const field = rng.chance(0.75) ? 'interfaces' : 'protocols';
  const flag = ITEM_FLAG[field];
  const current = itemsOf(object[field], flag);
  const missing = ITEM_NAMES[field].filter((name) => !current.has(name));
  const moves = [...(current.size > 0 ? ['toggle', 'remove'] : []), ...(missing.length > 0 ? ['add'] : [])];
  const move = rng.pick(moves);
  if (move === 'add') current.set(rng.pick(missing), rng.chance(0.75));
  else {
    const name = rng.pick([...current.keys()].sort());
    if (move === 'toggle') current.set(name, !current.get(name));
    else current.delete(name);
  }
  const list = [...current].map(([name, on]) => ({ name, [flag]: on }));
  return update(actor, endpoint, object, withComment(rng, actor, step, overriding(rng, object, field, { [field]: list })));
}

function inheritance(rng: Rng, actor: Actor, view: Snapshot, step: number): Op | undefined {
  const candidates = objectsOf(view, OWNERS);
  if (candidates.length === 0) return undefined;
  const { endpoint, object } = pickObject(rng, candidates);
  let body: Obj;
  if (rng.chance(0.5)) {
    body = { parent_tmpl: rng.chance(0.3) ? null : (target(rng, view, 'vendor_probe_template') ?? null) };
  } else {
    const field = rng.pick(OVERRIDABLE);
    const overrides = overridesOf(object);
    body = { overriden_fields: overrides.includes(field) ? overrides.filter((f) => f !== field) : [...overrides, field] };
  }
  return update(actor, endpoint, object, withComment(rng, actor, step, body));
}

function rename(rng: Rng, actor: Actor, view: Snapshot, step: number): Op | undefined {
  const candidates = objectsOf(view, ['source', 'ruleset', 'vendor_probe_template', 'vendor_probe', 'engine_probe']);
  if (candidates.length === 0) return undefined;
  const { endpoint, object } = pickObject(rng, candidates);
  return update(actor, endpoint, object, withComment(rng, actor, step, { name: rng.pick(NAMES[endpoint]) }));
}

function remove(rng: Rng, actor: Actor, view: Snapshot, step: number): Op | undefined {
  const candidates = objectsOf(view, ['source', 'ruleset', 'vendor_probe_template', 'vendor_probe', 'engine_probe']);
  if (candidates.length === 0) return undefined;
  const { endpoint, object } = pickObject(rng, candidates);
  const body = withComment(rng, actor, step, {});
  return { actor, kind: 'delete', endpoint, method: 'DELETE', path: `${PATHS[endpoint]}${object.pk}/`, body: Object.keys(body).length > 0 ? body : undefined, before: object, iface: undefined };
}

function removeInterface(rng: Rng, actor: Actor, view: Snapshot, step: number): Op | undefined {
  const candidates = objectsOf(view, OWNERS).filter(({ object }) => Array.isArray(object.interfaces) && object.interfaces.length > 0);
  if (candidates.length === 0) return undefined;
  const { endpoint, object } = pickObject(rng, candidates);
  const list = (object.interfaces as Obj[]).map((i) => ({ pk: i.pk as number, name: i.name as string })).sort((a, b) => (a.name < b.name ? -1 : 1));
  const iface = rng.pick(list);
  const body = withComment(rng, actor, step, {});
  return {
    actor,
    kind: 'deleteInterface',
    endpoint,
    method: 'DELETE',
    path: `${INTERFACE_PATH}${iface.pk}/`,
    body: Object.keys(body).length > 0 ? body : undefined,
    before: object,
    iface,
  };
}

/** One random operation of `actor` on what `view` shows. */
export function nextOp(rng: Rng, actor: Actor, view: Snapshot, step: number): Op {
  const kind = rng.weighted([
    ['create', 3],
    ['scalar', 6],
    ['items', 3],
    ['inheritance', 1.5],
    ['rename', 0.5],
    ['delete', 1.5],
    ['deleteInterface', 1.2],
  ] as const);
  const makers = { scalar, items, inheritance, rename, delete: remove, deleteInterface: removeInterface };
  return (kind === 'create' ? undefined : makers[kind](rng, actor, view, step)) ?? create(rng, actor, view, step);
}

export function describeOp(op: Op): string {
  const target = op.before ? ` ${JSON.stringify(op.before.name)}` : '';
  const iface = op.iface ? ` interface ${op.iface.name}` : '';
  return `${op.actor}: ${op.kind} ${op.endpoint}${target}${iface} ${op.method} ${op.path}${op.body ? ` ${JSON.stringify(op.body)}` : ''}`;
}
