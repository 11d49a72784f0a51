/**
 * The site survey at scale (issue 24 §1, targets at 1,000,000 hosts): facet counts of the whole
 * list, under one facet's filter and under a query, and the search box's substring search, each
 * one request at a time against a server whose read cache is off (no answer a cached one), after
 * two warm-up requests; and the counts under a chip just after a write (one host imported before
 * each: the facets' postings are read again). Called by bench/hosts.bench.ts with its served data set:
 *
 *   const figures = await surveyFigures({ url: uncached.url, token: BENCH_TOKEN, hosts: HOSTS, hostEntry, rounds: 40 });
 *   rows.push(...figures.rows);
 */
import type { JsonObject, JsonValue } from '../shared/resources';

export interface SurveyBenchOptions {
  /** A server of the data set, its read cache off (OUTPOST_READ_CACHE=off). */
  readonly url: string;
  readonly token: string;
  /** Hosts in the data set, and the i-th of them as bench/hosts.bench.ts makes it. */
  readonly hosts: number;
  readonly hostEntry: (i: number) => JsonObject;
  /** Requests per measure (default 40). */
  readonly rounds?: number;
}

export interface SurveyLatency {
  readonly p50: number;
  readonly p99: number;
  /** The fewest and most hosts the requests counted. */
  readonly counts: string;
}

export interface SurveyFigures {
  readonly facetsAll: SurveyLatency;
  readonly facetsOneFacet: SurveyLatency;
  readonly facetsQuery: SurveyLatency;
  readonly search: SurveyLatency;
  /** Facet counts under a chip just after a host was written (the postings read again). */
  readonly facetsAfterWrite: { readonly p50: number; readonly max: number };
  /** Markdown rows (`| measure | figure | target |`) for the bench's table. */
  readonly rows: readonly string[];
}

/** Each path once, in turn, after two warm-up requests: latency percentiles and the counts answered. */
async function latencies(options: SurveyBenchOptions, paths: readonly string[]): Promise<SurveyLatency> {
  const times: number[] = [];
  const counts: number[] = [];
  for (let n = -2; n < paths.length; n++) {
    const target = paths[Math.max(0, n)]!;
    const started = performance.now();
    const reply = await fetch(`${options.url}${target}`, { headers: { Authorization: `Token ${options.token}` } });
    const body = (await reply.json()) as { count?: number };
    const ms = performance.now() - started;
    if (reply.status !== 200) throw new Error(`${target}: ${reply.status} ${JSON.stringify(body)}`);
    if (n >= 0) {
      times.push(ms);
      counts.push(body.count ?? 0);
    }
  }
  times.sort((a, b) => a - b);
  counts.sort((a, b) => a - b);
  const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))]!;
  return { p50: at(0.5), p99: at(0.99), counts: counts[0] === counts[counts.length - 1] ? `${counts[0]}` : `${counts[0]}–${counts[counts.length - 1]}` };
}

/** A deterministic pseudo-random number in [0, 1) of n. */
function unit(n: number): number {
  let x = Math.imul(n ^ 0x5bd1e995, 0x85ebca6b);
  x ^= x >>> 15;
  x = Math.imul(x, 0x27d4eb2f);
  x ^= x >>> 13;
  return (x >>> 0) / 4294967296;
}

/** The texts at a key of an identity (list items under their list's key). */
function textsAt(value: JsonValue | undefined, key: string): string[] {
  if (value === undefined || value === null || typeof value !== 'object') return [];
  if (Array.isArray(value)) return value.flatMap((item) => textsAt(item, key));
  return Object.entries(value).flatMap(([name, child]) => (name === key && typeof child === 'string' ? [child] : textsAt(child, key)));
}

/**
 * What an engineer types in the search box, from hosts of the data set in turn: a part of a host
 * name (`fin-1234`), of a user name, the end of a JA3 hash (the part that varies), an address's
 * first octets; 4 to 8 characters.
 */
function needles(options: SurveyBenchOptions, count: number): string[] {
  const out: string[] = [];
  for (let n = 0; out.length < count; n++) {
    const entry = options.hostEntry(Math.floor(unit(n) * options.hosts));
    const identity = entry.host_id as JsonValue;
    const kind = out.length % 4;
    const value =
      kind === 0 ? textsAt(identity, 'host')[0]?.split('.')[0] : kind === 1 ? textsAt(identity, 'user')[0] : kind === 2 ? textsAt(identity, 'hash')[0]?.slice(-6) : String(entry.ip).split('.').slice(0, 3).join('.');
    if (value === undefined) continue;
    const length = Math.min(value.length, 4 + Math.floor(unit(n + 104729) * 5));
    const start = kind === 2 || kind === 3 ? 0 : Math.floor(unit(n + 1299709) * (value.length - length + 1));
    const needle = value.slice(start, start + length).trim();
    if (needle.length >= 3) out.push(needle);
  }
  return out;
}

export async function surveyFigures(options: SurveyBenchOptions): Promise<SurveyFigures> {
  const rounds = options.rounds ?? 40;
  const facets = (q: string | undefined) => `/app/hosts/facets${q === undefined ? '' : `?q=${encodeURIComponent(q)}`}`;
  const facetsAll = await latencies(options, Array.from({ length: rounds }, () => facets(undefined)));
  // One facet's chip, as a click sets it.
  const chips = ['host_id.in_home_net:true', 'host_id.services.port:443', 'host_id.roles.name:"domain controller"', 'host_id.username.user:*', 'host_id.services.values.app_proto:tls'];
  const facetsOneFacet = await latencies(options, Array.from({ length: rounds }, (_, n) => facets(chips[n % chips.length])));
  const queries = ['*corp*', 'host_id.hostname.host:*fin-1*', 'host_id.services.port:443 AND NOT host_id.services.values.app_proto:unknown', 'hits:>10'];
  const facetsQuery = await latencies(options, Array.from({ length: rounds }, (_, n) => facets(queries[n % queries.length])));
  const search = await latencies(options, needles(options, rounds * 2).map((needle) => `/app/hosts?search=${encodeURIComponent(needle)}`));
  // The first counts under a chip after a write read the facets' postings again: one host imported before each.
  const afterWrite: number[] = [];
  for (let n = 0; n < Math.max(3, Math.floor(rounds / 4)); n++) {
    const entry = [{ ip: `198.18.${n >> 8}.${n & 255}`, host_id: { first_seen: '2026-11-01T00:00:00+00:00', last_seen: '2026-11-01T00:00:00+00:00' } }];
    const imported = await fetch(`${options.url}/rest/appliances/host_id/import/`, {
      method: 'POST',
      headers: { Authorization: `Token ${options.token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(entry),
    });
    if (imported.status !== 201) throw new Error(`import: ${imported.status}`);
    const started = performance.now();
    const reply = await fetch(`${options.url}${facets(chips[n % chips.length])}`, { headers: { Authorization: `Token ${options.token}` } });
    await reply.json();
    afterWrite.push(performance.now() - started);
  }
  afterWrite.sort((a, b) => a - b);
  const facetsAfterWrite = { p50: afterWrite[Math.floor(afterWrite.length / 2)]!, max: afterWrite[afterWrite.length - 1]! };
  const row = (name: string, figure: SurveyLatency, target: number) =>
    `| ${name} (${figure.counts} hosts) | p50 ${figure.p50.toFixed(1)} ms, p99 ${figure.p99.toFixed(1)} ms | p99 < ${target} ms: ${figure.p99 < target ? 'met' : 'NOT met'} |`;
  return {
    facetsAll,
    facetsOneFacet,
    facetsQuery,
    search,
    facetsAfterWrite,
    rows: [
      row('survey facets, whole list', facetsAll, 300),
      row('survey facets under one facet\'s chip', facetsOneFacet, 300),
      row('survey facets under a query', facetsQuery, 2000),
      row('survey substring search, first page', search, 100),
      `| survey facets under a chip, first after a write (${afterWrite.length} writes) | p50 ${facetsAfterWrite.p50.toFixed(1)} ms, max ${facetsAfterWrite.max.toFixed(1)} ms | — |`,
    ],
  };
}
