/**
 * The plan of connecting a standalone workspace (shared/sync/connect.ts): the central server read
 * with GETs only, every page of every connected resource as a pull pages it; the local objects read
 * as the local API serves them; matched by name (shared/sync/connectMatch.ts). Nothing is written.
 */
import { createHash } from 'node:crypto';
import type { JsonObject } from '../../shared/resources';
import { CONNECTED_RESOURCES, type ConnectedResource, type ConnectPlan } from '../../shared/sync/connect';
import { matchByName, type Matching, type ObjectsOf } from '../../shared/sync/connectMatch';
import { canonical } from '../../shared/sync/merge';
import type { Api } from '../server/api';
import { ConnectRows } from '../server/store/connectRows';
import type { Services } from '../server/store/services';
import { RemoteError, type RemoteClient } from './client';
import { pageOf, pagesAfter } from './pull';
import { pullPath, pullQuery } from './synced';

export interface CentralRead {
  readonly objects: ObjectsOf;
  /** SHA-256 of what was read: a connect is refused when the central server shows another. */
  readonly hash: string;
}

/** The standalone workspace a connect reads and changes: its services and its local API (as its admin). */
export interface StandaloneWorkspace {
  readonly name: string;
  readonly services: Services;
  readonly api: Api;
  readonly adminToken: string;
}

export interface ReadOptions {
  readonly pageSize?: number;
  readonly concurrency?: number;
}

/** Run `fetch` over `items` with at most `limit` at once; results in the order of `items`. */
async function pooled<T, R>(items: readonly T[], limit: number, fetch: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      out[index] = await fetch(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

/** Every object of one endpoint of the central server: page 1, then the others `concurrency` at a time; the count checked. */
async function readEndpoint(client: RemoteClient, resource: ConnectedResource, pageSize: number, concurrency: number): Promise<JsonObject[]> {
  const path = `/rest/${pullPath(resource)}/`;
  const query = { page_size: pageSize, ...pullQuery(resource) };
  const first = pageOf(await client.send('GET', path, undefined, { ...query, page: 1 }), resource);
  const pages = pagesAfter(first, pageSize, resource);
  const rest = await pooled(pages, concurrency, async (page) => pageOf(await client.send('GET', path, undefined, { ...query, page }), resource).results);
  const objects = [first.results, ...rest].flat();
  const pks = new Set(objects.map((o) => o.pk));
  if (pks.size !== first.count || objects.length !== first.count) {
    throw new RemoteError('network', `the central server's ${resource} list changed while it was read (${pks.size} objects read, count ${first.count}); make the plan again`);
  }
  return objects;
}

/** What the central server holds of every connected resource, and its hash. GETs only. */
export async function readCentral(client: RemoteClient, options: ReadOptions = {}): Promise<CentralRead> {
  const pageSize = options.pageSize ?? 1000;
  const concurrency = options.concurrency ?? 4;
  const read = {} as Record<ConnectedResource, JsonObject[]>;
  for (const resource of CONNECTED_RESOURCES) read[resource] = await readEndpoint(client, resource, pageSize, concurrency);
  return { objects: read, hash: hashOf(read) };
}

/** SHA-256 over every object read, by resource and pk: any change there (a field, an object more or less) changes it. */
export function hashOf(objects: ObjectsOf): string {
  const hash = createHash('sha256');
  for (const resource of CONNECTED_RESOURCES) {
    const sorted = [...objects[resource]].sort((a, b) => Number(a.pk) - Number(b.pk));
    hash.update(`${resource}\n`);
    for (const object of sorted) hash.update(`${canonical(object)}\n`);
  }
  return hash.digest('hex');
}

/** The local objects as the local API serves them (what the central server would be compared with). */
export async function readLocal(workspace: StandaloneWorkspace): Promise<ObjectsOf> {
  const out = {} as Record<ConnectedResource, JsonObject[]>;
  for (const resource of CONNECTED_RESOURCES) {
    const objects: JsonObject[] = [];
    for (let page = 1; ; page++) {
      const answer = await workspace.api({
        method: 'GET',
        path: `/rest/${pullPath(resource)}/`,
        rawQuery: `page_size=10000&ordering=pk&page=${page}`,
        headers: { authorization: `Token ${workspace.adminToken}`, accept: 'application/json' },
        body: Buffer.alloc(0),
        remoteAddress: '127.0.0.1',
        scheme: 'http',
      });
      if (answer.status !== 200 || answer.body === null) throw new Error(`reading the local ${resource} objects answered ${answer.status}`);
      const body = JSON.parse(answer.body.toString()) as { results: JsonObject[]; next: unknown };
      objects.push(...body.results);
      if (!body.next) break;
    }
    out[resource] = objects;
  }
  return out;
}

export interface PlanParts {
  readonly plan: ConnectPlan;
  readonly local: ObjectsOf;
  readonly central: CentralRead;
  readonly matching: Matching;
}

/** Why a workspace cannot be connected, besides what the matching found. */
function bindingProblems(services: Services): string[] {
  const bound = services.boundRemote();
  return bound === undefined ? [] : [`the workspace is bound to the remote "${bound}" already`];
}

/** The plan: the central server read (GETs only), matched with the local objects. Changes nothing. */
export async function planConnect(workspace: StandaloneWorkspace, client: RemoteClient, remote: { readonly name: string; readonly url: string }, options: ReadOptions = {}): Promise<PlanParts> {
  const central = await readCentral(client, options);
  const local = await readLocal(workspace);
  const matching = matchByName(local, central.objects);
  const counts = new ConnectRows(workspace.services.store).localCounts();
  const centralCounts = Object.fromEntries(CONNECTED_RESOURCES.map((r) => [r, central.objects[r].length])) as Record<ConnectedResource, number>;
  const plan: ConnectPlan = {
    format: 'outpost-connect-plan',
    version: 1,
    workspace: workspace.name,
    remote: { name: remote.name, url: remote.url },
    made: new Date().toISOString(),
    central: central.hash,
    items: matching.items,
    centralCounts,
    ...counts,
    problems: [...bindingProblems(workspace.services), ...matching.problems],
  };
  return { plan, local, central, matching };
}
