/**
 * The review plan of a bound workspace's outbox (shared/sync/review.ts, docs/sync.md "Review
 * before push"): for every waiting entry, what the central server holds now and would hold after
 * the push, field by field, with the push's own merge; creates whose name is taken there, updates
 * of objects deleted there, deletes of objects changed there; what a template change reaches
 * through the central inheritance tree; and which entries hold which.
 *
 * Read only: every request is a GET (the client's `send` is wrapped so that no other method can
 * leave), each object an entry names is read once, and the values come from these reads, never
 * from the local mirror.
 */
import { formatDateTime } from '../../shared/api/datetime';
import { INHERITABLE } from '../../shared/resources/probes';
import { resourceNamed, type JsonObject, type JsonValue } from '../../shared/resources';
import { PLAN_FORMAT, type PlanEntry, type PlanField, type PlanOutcome, type PlanReach, type ReviewPlan } from '../../shared/sync/review';
import {
  centralChildOf,
  createFields,
  deleteFields,
  heldBy,
  needsOf,
  reachOf,
  updateFields,
  type CentralChild,
  type CentralTree,
  type WaitingEntry,
} from '../../shared/sync/reviewPlan';
import type { Services } from '../server/store/services';
import { RemoteError, type RemoteClient, type RemoteReply } from './client';
import type { OutboxEntry } from './outbox';
import { OutboxView } from './outboxView';
import { pageOf, pagesAfter } from './pull';
import { centralHash, entryHash } from './reviewHash';
import { pushed } from './synced';

export interface PlanOptions {
  /** GETs in flight at once (the pull's default). */
  readonly concurrency?: number;
  /** Objects per list page asked for (the central server may cap it). */
  readonly pageSize?: number;
}

/** The most templates and probes read below one template: more is not a fleet, it is a broken answer. */
export const MAX_TREE = 200_000;

const TEMPLATE = 'vendor_probe_template';
const PROBE = 'vendor_probe';

/** A client that can only GET, counting its requests. */
class Reader {
  requests = 0;
  private running = 0;
  private readonly queue: (() => void)[] = [];

  constructor(
    private readonly client: Pick<RemoteClient, 'send'>,
    private readonly concurrency: number,
  ) {}

  async get(path: string, query: Readonly<Record<string, string | number>> = {}): Promise<RemoteReply> {
    // A finished request hands its slot to the next waiting one: never more than `concurrency` in flight.
    if (this.running >= this.concurrency) await new Promise<void>((resolve) => this.queue.push(resolve));
    else this.running++;
    this.requests++;
    try {
      return await this.client.send('GET', path, undefined, query);
    } finally {
      const next = this.queue.shift();
      if (next) next();
      else this.running--;
    }
  }
}

function isObject(value: JsonValue | null | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** One object: its fields, or undefined when the central server has no such object (404). */
async function readObject(reader: Reader, resource: string, pk: number): Promise<JsonObject | undefined> {
  const reply = await reader.get(`/rest/${resourceNamed(resource).path}/${pk}/`);
  if (reply.status === 404) return undefined;
  if (reply.status !== 200 || !isObject(reply.body)) {
    throw new RemoteError(reply.status >= 500 ? 'network' : 'invalid', `the central server answered ${reply.status} when reading ${resource} ${pk}`, reply.status);
  }
  return reply.body;
}

/** Every object of a list with these filters, page by page (the pages after the first at once). */
async function readList(reader: Reader, resource: string, query: Readonly<Record<string, string | number>>, pageSize: number): Promise<JsonObject[]> {
  const path = `/rest/${resourceNamed(resource).path}/`;
  const first = pageOf(await reader.get(path, { ...query, page_size: pageSize, page: 1 }), resource);
  if (first.count > MAX_TREE) throw new RemoteError('invalid', `the central server lists ${first.count} ${resource} objects for one query; more than ${MAX_TREE} is refused`);
  const pages = pagesAfter(first, pageSize, resource);
  const rest = await Promise.all(pages.map(async (page) => pageOf(await reader.get(path, { ...query, page_size: pageSize, page }), resource).results));
  return [first.results, ...rest].flat();
}

/** The central object holding `name`, if any (a list filtered by the exact name). */
async function readByName(reader: Reader, resource: string, name: string): Promise<JsonObject | undefined> {
  const synced = pushed(resource)!;
  const page = pageOf(await reader.get(`/rest/${synced.path}/`, { [synced.unique]: name }), resource);
  return page.results.find((o) => o[synced.unique] === name);
}

/** The central templates and vendor probes below `root`, level by level (each level's lists at once). */
async function readTree(reader: Reader, root: number, pageSize: number): Promise<CentralTree> {
  const templates: CentralChild[] = [];
  const probes: CentralChild[] = [];
  const seen = new Set<number>([root]);
  let level = [root];
  while (level.length > 0) {
    const found = await Promise.all(
      level.map(async (pk) => {
        const [childTemplates, childProbes] = await Promise.all([
          readList(reader, TEMPLATE, { parent_tmpl: pk }, pageSize),
          readList(reader, PROBE, { parent_tmpl: pk }, pageSize),
        ]);
        // Filtered by the server, checked here: a child is only what names this parent.
        const mine = (o: CentralChild | undefined): o is CentralChild => o !== undefined && o.parent === pk;
        return { childTemplates: childTemplates.map(centralChildOf).filter(mine), childProbes: childProbes.map(centralChildOf).filter(mine) };
      }),
    );
    level = [];
    for (const { childTemplates, childProbes } of found) {
      probes.push(...childProbes);
      for (const template of childTemplates) {
        if (seen.has(template.pk)) continue;
        seen.add(template.pk);
        templates.push(template);
        level.push(template.pk);
      }
    }
    if (templates.length + probes.length > MAX_TREE) throw new RemoteError('invalid', `more than ${MAX_TREE} templates and probes below template ${root}; refused`);
  }
  return { templates, probes };
}

/** Memoised reads: each object, name and tree an entry names is asked for once. */
class Reads {
  private readonly memo = new Map<string, Promise<unknown>>();

  constructor(
    readonly reader: Reader,
    private readonly pageSize: number,
  ) {}

  private once<T>(key: string, read: () => Promise<T>): Promise<T> {
    let found = this.memo.get(key) as Promise<T> | undefined;
    if (!found) {
      found = read();
      // Read ahead, awaited later: a failure is seen where it is awaited, not as an unhandled rejection.
      found.catch(() => undefined);
      this.memo.set(key, found);
    }
    return found;
  }

  object(resource: string, pk: number): Promise<JsonObject | undefined> {
    return this.once(`object ${resourceNamed(resource).storage.table} ${pk}`, () => readObject(this.reader, resource, pk));
  }

  byName(resource: string, name: string): Promise<JsonObject | undefined> {
    return this.once(`name ${resource} ${JSON.stringify(name)}`, () => readByName(this.reader, resource, name));
  }

  tree(root: number): Promise<CentralTree> {
    return this.once(`tree ${root}`, () => readTree(this.reader, root, this.pageSize));
  }
}

interface Reading {
  readonly fields: PlanField[];
  readonly theirs: JsonObject | undefined;
  readonly outcome: PlanOutcome;
  readonly message: string | null;
  readonly reaches: PlanReach[];
}

/** Does the entry name an object not yet on the central server (nothing to read there)? */
function onlyHere(entry: WaitingEntry): boolean {
  return entry.op !== 'create' && entry.pk < 0;
}

function startReads(entry: WaitingEntry, reads: Reads): void {
  if (entry.op === 'create') {
    const name = entry.fields[pushed(entry.resource)!.unique];
    if (typeof name === 'string') void reads.byName(entry.resource, name).catch(() => undefined);
    return;
  }
  if (onlyHere(entry)) return;
  void reads.object(entry.resource, entry.pk).catch(() => undefined);
  if (entry.op === 'update' && entry.resource === TEMPLATE && INHERITABLE.some((f) => f in entry.fields)) void reads.tree(entry.pk).catch(() => undefined);
}

async function readingOf(entry: WaitingEntry, reads: Reads): Promise<Reading> {
  if (entry.op === 'create') {
    const name = entry.fields[pushed(entry.resource)!.unique];
    const taken = typeof name === 'string' ? await reads.byName(entry.resource, name) : undefined;
    return {
      fields: createFields(entry),
      theirs: taken,
      outcome: taken ? 'name_taken' : 'send',
      message: taken ? `The central server already has a ${entry.resource.replace(/_/g, ' ')} named "${String(name)}".` : null,
      reaches: [],
    };
  }
  if (onlyHere(entry)) {
    // Its create is still in flight: nothing to read there yet.
    const fields = entry.op === 'update' ? Object.keys(entry.fields).map((field) => ({ field, now: null, after: entry.fields[field]!, base: entry.base[field] ?? null, outcome: 'send' as const })) : [];
    return { fields, theirs: undefined, outcome: 'send', message: null, reaches: [] };
  }
  const theirs = await reads.object(entry.resource, entry.pk);
  if (entry.op === 'delete') {
    if (!theirs) return { fields: [], theirs, outcome: 'nothing', message: 'Already deleted on the central server.', reaches: [] };
    const fields = deleteFields(entry, theirs);
    const conflict = fields.some((f) => f.outcome === 'conflict');
    return { fields, theirs, outcome: conflict ? 'conflict' : 'send', message: conflict ? 'Changed on the central server since it was deleted here.' : null, reaches: [] };
  }
  if (!theirs) return { fields: [], theirs, outcome: 'gone', message: 'The object was deleted on the central server; this change cannot be applied.', reaches: [] };
  const fields = updateFields(entry, theirs);
  const sent = fields.filter((f) => f.outcome === 'send').map((f) => f.field);
  const outcome: PlanOutcome = fields.some((f) => f.outcome === 'conflict') ? 'conflict' : sent.length > 0 ? 'send' : 'nothing';
  const reaches = entry.resource === TEMPLATE && INHERITABLE.some((f) => sent.includes(f)) ? reachOf(entry.pk, sent, await reads.tree(entry.pk)) : [];
  return { fields, theirs, outcome, message: outcome === 'conflict' ? 'A field changed on the central server to another value.' : null, reaches };
}

/** The outcome of an entry the push would not try as it is (parked or in conflict already). */
function standing(entry: OutboxEntry, reading: Reading): { outcome: PlanOutcome; message: string | null } {
  if (entry.state === 'parked') return { outcome: 'parked', message: entry.message ?? 'Refused by the central server.' };
  if (entry.state === 'conflict') return { outcome: 'conflict', message: entry.message ?? 'In conflict: resolve it first.' };
  return { outcome: reading.outcome, message: reading.message };
}

/** The plan of every waiting entry of the outbox, from the central server's answers to its GETs. */
export async function makePlan(
  services: Services,
  client: Pick<RemoteClient, 'send'>,
  context: { readonly workspace: string; readonly remote: { readonly name: string; readonly url: string } },
  options: PlanOptions = {},
): Promise<ReviewPlan> {
  const entries = services.outbox.entries();
  const view = new OutboxView(services);
  const reader = new Reader(client, options.concurrency ?? 4);
  const reads = new Reads(reader, options.pageSize ?? 1000);
  const made = formatDateTime(services.store.now());
  const needs = needsOf(entries);
  // Every read asked for at once (deduplicated, at most `concurrency` in flight), then awaited in order.
  for (const entry of entries) startReads(entry, reads);
  const readings = await Promise.all(entries.map((entry) => readingOf(entry, reads)));
  const outcomes = new Map<number, PlanOutcome>();
  const planned: PlanEntry[] = entries.map((entry, i) => {
    const reading = readings[i]!;
    const entryNeeds = needs.get(entry.seq) ?? [];
    let { outcome, message } = standing(entry, reading);
    // As the push: an entry it would try waits behind a need that would stop, whatever its own reading.
    const tried = entry.state === 'pending' || entry.state === 'sending';
    const holder = tried ? heldBy(entryNeeds, (seq) => outcomes.get(seq)) : undefined;
    if (holder !== undefined) {
      outcome = 'held';
      message = `It waits for entry ${holder}, which would not go.`;
    }
    outcomes.set(entry.seq, outcome);
    const shown = view.view(entry);
    return {
      seq: entry.seq,
      hash: entryHash(entry),
      central: centralHash(entry, reading.theirs),
      op: entry.op,
      resource: entry.resource,
      pk: entry.pk,
      label: shown.label,
      state: shown.state,
      comment: entry.comment,
      outcome,
      message,
      fields: reading.fields,
      reaches: reading.reaches,
      needs: entryNeeds,
    };
  });
  return { format: PLAN_FORMAT, version: 1, workspace: context.workspace, remote: { ...context.remote }, made, entries: planned, requests: reader.requests };
}
