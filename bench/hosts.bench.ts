/**
 * Hosts at scale (issue 10): a workspace of 1,000,000 host identities (built once, cached in
 * bench/.cache/), served by `outpost serve` in its own process. In one run:
 *   - start-up to the first answer;
 *   - host detail GET under load (autocannon, 16 connections) against the bare node:http ceiling
 *     answering the same body;
 *   - host_id_qfilter latency, one request at a time (p50/p99 over many different queries, the
 *     server's read cache off so that no answer is a cached one): one field
 *     (`host_id.hostname.host:"<a name>"`), a wildcard inside a value (`*corp*` and others), and
 *     a term with a negation.
 *   - the site survey (issue 24): facet counts and the search box (bench/hostsSurvey.ts), comparing
 *     two imports (bench/hostsCompare.ts), the CSV of every host and the report of 100,000 hosts
 *     (bench/hostsExport.ts).
 * Figures are printed as a Markdown table; `--write` also records them in docs/benchmarks.md.
 * `--cases survey` measures the site survey alone (the data set built first if needed).
 *
 *   npm run bench:hosts -- [--hosts 1000000] [--duration 10] [--queries 300] [--cases all|survey] [--write]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { checkHostEntry } from '../shared/api/hostIdentity';
import type { JsonObject } from '../shared/resources';
import { openWorkspace } from '../electron/workspaces/openWorkspace';
import type { Services } from '../electron/server/store/services';
import { load, log, memoryOf, PINNED, startChild, type Child } from './children';
import { BENCH_TOKEN } from './dataset';
import { compareImports } from './hostsCompare';
import { benchHostsExport } from './hostsExport';
import { surveyFigures } from './hostsSurvey';

const ROOT = path.resolve(__dirname, '../..');
const CACHE = path.join(ROOT, 'bench', '.cache');

function option(name: string, fallback: string): string {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? (process.argv[at + 1] ?? fallback) : fallback;
}

const HOSTS = Number(option('hosts', '1000000'));
const DURATION = Number(option('duration', '10'));
const QUERIES = Number(option('queries', '300'));
const WRITE = process.argv.includes('--write');
const SURVEY_ONLY = option('cases', 'all') === 'survey';

// ---------------------------------------------------------------------------------------------
// The data set: a large site as EVE imports and the central server describe it.

const SITES = ['hq', 'plant', 'lab', 'branch', 'dc'];
const DEPARTMENTS = ['fin', 'hr', 'eng', 'ops', 'sales', 'it', 'legal', 'mkt'];
const PROVIDERS = ['akamaiedge.net', 'cloudfront.net', 'googleusercontent.com', 'azureedge.net', 'fastly.net', 'example.org'];
const AGENTS = Array.from({ length: 200 }, (_, i) => `Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 Chrome/${100 + (i % 40)}.0.${i}.0`);
const PROTOS = ['http', 'tls', 'dns', 'ssh', 'smb', 'krb5', 'ntp', 'unknown'];
const SERVERS = ['nginx', 'Apache/2.4.57', 'Microsoft-IIS/10.0', 'cloudflare', 'AkamaiGHost'];

/** A deterministic pseudo-random number in [0, 1) of (i, salt). */
function unit(i: number, salt: number): number {
  let x = Math.imul(i ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(salt + 1, 0xc2b2ae35);
  x ^= x >>> 13;
  x = Math.imul(x, 0x27d4eb2f);
  x ^= x >>> 16;
  return (x >>> 0) / 4294967296;
}

function pick<T>(items: readonly T[], i: number, salt: number): T {
  return items[Math.floor(unit(i, salt) * items.length)]!;
}

function time(i: number, hours: number): string {
  return new Date(Date.UTC(2026, 9, 1) + (i % 600) * 3_600_000 + hours * 3_600_000).toISOString().replace('Z', '000+00:00');
}

/** The i-th host: 40 % of the site's own addresses (named, some with users), 60 % of the Internet. */
export function hostEntry(i: number): JsonObject {
  const internal = unit(i, 1) < 0.4;
  const seen = { first_seen: time(i, 0), last_seen: time(i, 5 + (i % 48)) };
  const eve = (hours: number) => time(i, hours).replace('+00:00', '+0000');
  const ip = internal ? `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}` : `${11 + ((i >> 24) & 127)}.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
  const id: JsonObject = { ...seen };
  if (internal) {
    // About one internal name in twenty is in the corp domain.
    const domain = unit(i, 2) < 0.05 ? 'corp.acme.com' : `${pick(SITES, i, 3)}.acme.local`;
    id.hostname = [{ host: `${pick(DEPARTMENTS, i, 4)}-${i}.${domain}`, ...seen }];
    if (unit(i, 5) < 0.3) id.username = [{ user: `user${i % 50_000}`, ...seen }];
    id['http.user_agent'] = [{ agent: pick(AGENTS, i, 6), ...seen }];
    id['tls.ja3'] = [{ hash: `ja3${Math.floor(unit(i, 7) * 500).toString(16).padStart(29, '0')}`, agent: [pick(AGENTS, i, 6)], ...seen }];
    id.client_service = [{ name: 'tls', ...seen }, { name: 'dns', ...seen }];
    if (unit(i, 8) < 0.02) id.roles = [{ name: pick(['printer', 'dhcp', 'domain controller', 'http proxy'], i, 9), ...seen }];
  } else {
    if (unit(i, 10) < 0.7) id.hostname = [{ host: `e${i}.${pick(PROVIDERS, i, 11)}`, ...seen }];
    const proto = pick(PROTOS, i, 12);
    const port = proto === 'http' ? 80 : proto === 'tls' ? 443 : proto === 'dns' ? 53 : proto === 'ssh' ? 22 : 8000 + (i % 100);
    const value: JsonObject = { app_proto: proto, first_seen: eve(0), last_seen: eve(3) };
    if (proto === 'http') value.http = { server: pick(SERVERS, i, 13) };
    if (proto === 'tls') value.tls = { subject: `CN=e${i}.${pick(PROVIDERS, i, 11)}`, issuerdn: 'C=US, O=Let\'s Encrypt, CN=R3', fingerprint: `aa:${(i % 65536).toString(16)}` };
    id.services = [{ proto: 'tcp', port, values: [value] }];
  }
  return { ip, hits: Math.floor(unit(i, 14) * 4) === 0 ? 1 + (i % 30) : 0, host_id: id };
}

/** Let the search index catch up (the server would do it in the background), then optimise and analyse. */
function indexAll(services: Services): void {
  const indexing = Date.now();
  for (let batches = 1; services.hosts.indexPending(20_000); batches++) {
    if (batches % 5 === 0) log(`  ${services.hosts.pendingIndex()} hosts left to index (${((Date.now() - indexing) / 1000).toFixed(0)} s)`);
  }
  log(`hosts indexed for search in ${((Date.now() - indexing) / 1000).toFixed(0)} s`);
  services.store.db.exec("INSERT INTO host_vocab_trigram(host_vocab_trigram) VALUES ('optimize')");
  services.store.db.exec('ANALYZE');
  services.store.db.pragma('wal_checkpoint(TRUNCATE)');
}

async function buildDataset(dataDir: string): Promise<string> {
  const file = path.join(dataDir, 'workspaces', 'default.sqlite3');
  const marker = `${file}.complete-${HOSTS}`;
  if (fs.existsSync(marker)) {
    // A data set built before the search index's version changed is indexed again, once.
    const workspace = openWorkspace({ file, instance: { name: 'outpost-bench', version: 'bench', address: '127.0.0.1' }, adminToken: BENCH_TOKEN });
    if (workspace.services.hosts.indexWaiting()) {
      log('the cached data set is indexed again (its search index is of another version)');
      indexAll(workspace.services);
    }
    workspace.close();
    return file;
  }
  fs.rmSync(dataDir, { recursive: true, force: true });
  const started = Date.now();
  const workspace = openWorkspace({ file, instance: { name: 'outpost-bench', version: 'bench', address: '127.0.0.1' }, adminToken: BENCH_TOKEN });
  const { services } = workspace;
  const batch = 20_000;
  for (let start = 0; start < HOSTS; start += batch) {
    services.store.write(() => {
      for (let i = start; i < Math.min(HOSTS, start + batch); i++) {
        const checked = checkHostEntry(hostEntry(i));
        if (!checked.ok) throw new Error(JSON.stringify(checked.errors));
        services.hosts.save(checked.entry);
      }
    });
    if ((start + batch) % 100_000 === 0) log(`  ${start + batch} hosts (${((Date.now() - started) / 1000).toFixed(0)} s)`);
  }
  indexAll(services);
  workspace.close();
  fs.writeFileSync(marker, new Date().toISOString());
  log(`data set of ${HOSTS} hosts built in ${((Date.now() - started) / 1000).toFixed(0)} s (${(fs.statSync(file).size / 1e6).toFixed(0)} MB)`);
  return file;
}

// ---------------------------------------------------------------------------------------------
// Processes and load

function serve(dataDir: string, env: NodeJS.ProcessEnv = process.env): Promise<Child> {
  return startChild(process.execPath, [path.join(ROOT, 'dist/node/outpost.cjs'), 'serve', '--data', dataDir, '--port', '0', '--admin-token', BENCH_TOKEN], env);
}

async function firstAnswerMs(child: Child): Promise<number> {
  for (;;) {
    try {
      const reply = await fetch(`${child.url}/rest/appliances/host_id/?page_size=1`, { headers: { Authorization: `Token ${BENCH_TOKEN}` } });
      if (reply.status === 200) return performance.now() - child.startedMs;
    } catch {
      // not answering yet
    }
    await new Promise((r) => setTimeout(r, 2));
  }
}

interface Latency {
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
  readonly matches: string;
}

/** Each query once, in turn (after two warm-up queries): latency percentiles and the match counts seen. */
async function latencies(child: Child, queries: readonly string[]): Promise<Latency> {
  const times: number[] = [];
  const counts: number[] = [];
  for (let n = -2; n < queries.length; n++) {
    const query = queries[Math.max(0, n)]!;
    const started = performance.now();
    const reply = await fetch(`${child.url}/rest/appliances/host_id/?host_id_qfilter=${encodeURIComponent(query)}`, { headers: { Authorization: `Token ${BENCH_TOKEN}` } });
    const body = (await reply.json()) as { count?: number };
    const ms = performance.now() - started;
    if (reply.status !== 200) throw new Error(`${query}: ${reply.status} ${JSON.stringify(body)}`);
    if (n >= 0) {
      times.push(ms);
      counts.push(body.count ?? 0);
    }
  }
  times.sort((a, b) => a - b);
  const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))]!;
  counts.sort((a, b) => a - b);
  return { p50: at(0.5), p99: at(0.99), max: times[times.length - 1]!, matches: counts[0] === counts[counts.length - 1] ? `${counts[0]}` : `${counts[0]}–${counts[counts.length - 1]}` };
}

function hostnameOf(i: number): string | undefined {
  const entry = hostEntry(i).host_id as { hostname?: { host: string }[] };
  return entry.hostname?.[0]?.host;
}

async function main(): Promise<void> {
  fs.mkdirSync(CACHE, { recursive: true });
  const dataDir = path.join(CACHE, `hosts-${HOSTS}`);
  log(`data set: ${HOSTS} hosts`);
  const file = await buildDataset(dataDir);
  if (!SURVEY_ONLY) await atScale(dataDir, file);
  await survey(dataDir, file);
}

/** Replace (or add) a marked section of docs/benchmarks.md. */
function writeSection(marker: string, heading: string, command: string, body: string): void {
  const doc = path.join(ROOT, 'docs', 'benchmarks.md');
  const text = fs.readFileSync(doc, 'utf8');
  const pattern = new RegExp(`<!-- ${marker}:start -->[\\s\\S]*<!-- ${marker}:end -->`);
  const section = `<!-- ${marker}:start -->\n${body}\n<!-- ${marker}:end -->`;
  fs.writeFileSync(doc, pattern.test(text) ? text.replace(pattern, () => section) : `${text.trimEnd()}\n\n## ${heading}\n\n\`${command}\`\n\n${section}\n`);
}

/** The site survey at scale (issue 24): facets and search through a server, two imports compared, the CSV and the report. */
async function survey(dataDir: string, file: string): Promise<void> {
  const rows = [`| measure | figure | target |`, `|---|---|---|`];
  const uncached = await serve(dataDir, { ...process.env, OUTPOST_READ_CACHE: 'off' });
  await firstAnswerMs(uncached);
  log('site survey: facets and search, one request at a time');
  const facets = await surveyFigures({ url: uncached.url, token: BENCH_TOKEN, hosts: HOSTS, hostEntry, rounds: 60 });
  rows.push(...facets.rows);
  const surveyMemory = memoryOf(uncached.process.pid!).peakMb;
  await uncached.stop();

  log('two imports compared');
  const workspace = openWorkspace({ file, instance: { name: 'outpost-bench', version: 'bench', address: '127.0.0.1' }, adminToken: BENCH_TOKEN });
  let compare;
  try {
    compare = compareImports(workspace.services);
  } finally {
    workspace.close();
  }
  const sorted = [...compare.compareMs].sort((a, b) => a - b);
  const worst = sorted[sorted.length - 1]!;
  rows.push(
    `| compare two imports (${compare.changedPerImport} hosts changed, ${compare.newPerImport} new, each; ${compare.compareMs.length} runs) | ${sorted.map((ms) => ms.toFixed(0)).join(', ')} ms; from a date before both ${compare.compareFromDateMs.toFixed(0)} ms | < 2 s: ${worst < 2000 ? 'met' : 'NOT met'} |`,
    `| kept per import (seen hosts / changes) | ${(compare.seenBytesPerVisit / 1e6).toFixed(2)} MB / ${compare.changeBytesPerVisit === undefined ? '—' : `${(compare.changeBytesPerVisit / 1e6).toFixed(2)} MB`} | — |`,
  );

  const exports = await benchHostsExport(dataDir);
  const { csv, report } = exports;
  rows.push(
    `| CSV of every host (${csv.hosts} hosts, ${csv.megabytes.toFixed(0)} MB) through GET /app/hosts/export/csv | ${Math.round(csv.hostsPerSecond)} hosts/s, server peak RSS ${csv.serverPeakRssMb.toFixed(0)} MB | ≥ 50,000 hosts/s: ${csv.hostsPerSecond >= 50_000 ? 'met' : 'NOT met'}; < 300 MB: ${csv.serverPeakRssMb < 300 ? 'met' : 'NOT met'} |`,
    `| site report of ${report.hosts} hosts | ${report.seconds.toFixed(1)} s, ${report.megabytes.toFixed(1)} MB | < 10 s: ${report.seconds < 10 ? 'met' : 'NOT met'}; < 20 MB: ${report.megabytes < 20 ? 'met' : 'NOT met'} |`,
    `| server peak RSS during the facets and searches | ${surveyMemory.toFixed(0)} MB | — |`,
  );
  const text = [`Site survey at scale: ${HOSTS} hosts.`, '', ...rows].join('\n');
  process.stdout.write(`${text}\n`);
  if (WRITE) {
    writeSection(
      'hosts-survey.bench',
      'The site survey at scale (issue 24)',
      'npm run bench:hosts -- --cases survey --write',
      `${text}\n\nMeasured ${new Date().toISOString().slice(0, 10)} on ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, Node ${process.version}; facets and search one request at a time against \`outpost serve\` with its read cache off (OUTPOST_READ_CACHE=off), after two warm-up requests; the comparison in this process, inside a transaction rolled back; the CSV read by a client as fast as it takes it; the report made and rendered in this process.`,
    );
  }
}

/** Start-up, host detail under load, host_id_qfilter (issue 10). */
async function atScale(dataDir: string, file: string): Promise<void> {

  // Start-up, three times (the first after the page cache may be cold): the best and the worst.
  const startups: number[] = [];
  for (let n = 0; n < 3; n++) {
    const child = await serve(dataDir);
    startups.push(await firstAnswerMs(child));
    await child.stop();
  }
  log(`  start-up to the first answer: ${startups.map((ms) => ms.toFixed(0)).join(', ')} ms`);

  // Detail GET under load against the ceiling answering the same body.
  const ips = Array.from({ length: 1000 }, (_, n) => String(hostEntry(Math.floor(unit(n, 99) * HOSTS)).ip));
  const outpost = await serve(dataDir);
  await firstAnswerMs(outpost);
  const sample = await (await fetch(`${outpost.url}/rest/appliances/host_id/${ips[0]}`, { headers: { Authorization: `Token ${BENCH_TOKEN}` } })).text();
  const bodyFile = path.join(CACHE, 'host-detail-body.json');
  fs.writeFileSync(bodyFile, sample);
  // Both sides get the same load: a path per request, over 1,000 addresses (the bare server answers
  // each with the same body). The ceiling is the better of a run before and a run after.
  let next = 0;
  const rotating = (base: string): autocannon.Options => ({
    url: base,
    headers: { Authorization: `Token ${BENCH_TOKEN}` },
    requests: [{ setupRequest: (request) => ({ ...request, path: `/rest/appliances/host_id/${ips[next++ % ips.length]}` }) }],
  });
  const bareRun = async (name: string) => {
    const bare = await startChild(process.execPath, [path.join(ROOT, 'dist/bench/bareServer.cjs'), bodyFile]);
    const figures = await load(name, rotating(`${bare.url}/`), DURATION);
    await bare.stop();
    return figures;
  };
  await outpost.stop();
  const before = await bareRun('bare node:http, same body (before)');
  const detailServer = await serve(dataDir);
  await firstAnswerMs(detailServer);
  const detail = await load('host detail GET', rotating(`${detailServer.url}/`), DURATION);
  const detailMemory = memoryOf(detailServer.process.pid!).peakMb;
  await detailServer.stop();
  const after = await bareRun('bare node:http, same body (after)');
  const ceiling = before.rps >= after.rps ? before : after;

  // host_id_qfilter, one request at a time, with the read cache off.
  const uncached = await serve(dataDir, { ...process.env, OUTPOST_READ_CACHE: 'off' });
  await firstAnswerMs(uncached);
  const names = Array.from({ length: QUERIES }, (_, n) => hostnameOf(Math.floor(unit(n, 77) * HOSTS)) ?? 'nothing.example');
  const oneField = await latencies(uncached, names.map((name) => `host_id.hostname.host:"${name}"`));
  const wildcard = await latencies(uncached, Array.from({ length: QUERIES }, () => '*corp*'));
  const wildcards = await latencies(
    uncached,
    Array.from({ length: QUERIES }, (_, n) => `host_id.hostname.host:*${pick(DEPARTMENTS, n, 5)}-${n % 97}*`),
  );
  const negation = await latencies(
    uncached,
    Array.from({ length: QUERIES }, (_, n) => `host_id.services.port:${[80, 443, 53, 22][n % 4]} AND NOT host_id.services.values.app_proto:unknown`),
  );
  const qfilterMemory = memoryOf(uncached.process.pid!).peakMb;
  await uncached.stop();

  const ratio = detail.rps / ceiling.rps;
  const best = Math.min(...startups);
  const worst = Math.max(...startups);
  const rows = [
    `| measure | figure | target |`,
    `|---|---|---|`,
    `| host detail GET | ${detail.rps.toFixed(0)} req/s (p99 ${detail.p99} ms), ${ratio.toFixed(2)} of the bare ceiling's ${ceiling.rps.toFixed(0)} req/s | ≥ 0.40: ${ratio >= 0.4 ? 'met' : 'NOT met'} |`,
    `| \`host_id.hostname.host:"<name>"\` (${QUERIES} names; ${oneField.matches} match) | p50 ${oneField.p50.toFixed(1)} ms, p99 ${oneField.p99.toFixed(1)} ms | p99 < 20 ms: ${oneField.p99 < 20 ? 'met' : 'NOT met'} |`,
    `| \`*corp*\` (${wildcard.matches} match) | p50 ${wildcard.p50.toFixed(1)} ms, p99 ${wildcard.p99.toFixed(1)} ms | p99 < 100 ms: ${wildcard.p99 < 100 ? 'met' : 'NOT met'} |`,
    `| \`host_id.hostname.host:*<dept>-<n>*\` (${wildcards.matches} match) | p50 ${wildcards.p50.toFixed(1)} ms, p99 ${wildcards.p99.toFixed(1)} ms | p99 < 100 ms: ${wildcards.p99 < 100 ? 'met' : 'NOT met'} |`,
    `| \`services.port:<p> AND NOT services.values.app_proto:unknown\` (${negation.matches} match) | p50 ${negation.p50.toFixed(1)} ms, p99 ${negation.p99.toFixed(1)} ms | — |`,
    `| start-up to the first answer (3 starts) | ${best.toFixed(0)}–${worst.toFixed(0)} ms | < 1 s: ${worst < 1000 ? 'met' : 'NOT met'} |`,
    `| server peak RSS (detail load / qfilter runs) | ${detailMemory.toFixed(0)} MB / ${qfilterMemory.toFixed(0)} MB | — |`,
  ];
  const report = [`Hosts at scale: ${HOSTS} hosts, database ${(fs.statSync(file).size / 1e6).toFixed(0)} MB.`, '', ...rows].join('\n');
  process.stdout.write(`${report}\n`);
  if (WRITE) {
    const doc = path.join(ROOT, 'docs', 'benchmarks.md');
    const text = fs.readFileSync(doc, 'utf8');
    const section = `<!-- hosts.bench:start -->\n${report}\n\nMeasured ${new Date().toISOString().slice(0, 10)} on ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, Node ${process.version}; detail GET: ${DURATION} s per run after a 1 s warm-up, 16 connections, a path per request over 1,000 addresses for both sides${PINNED ? ', load generator and server pinned to one core each' : ''}, the ceiling the better of a run before and a run after (${before.rps.toFixed(0)} and ${after.rps.toFixed(0)} req/s); qfilter: one request at a time, the server's read cache off (OUTPOST_READ_CACHE=off), after two warm-up requests.\n<!-- hosts.bench:end -->`;
    const updated = /<!-- hosts.bench:start -->[\s\S]*<!-- hosts.bench:end -->/.test(text)
      ? text.replace(/<!-- hosts.bench:start -->[\s\S]*<!-- hosts.bench:end -->/, section)
      : `${text.trimEnd()}\n\n## Hosts at scale (issue 10)\n\n\`npm run bench:hosts -- --write\`\n\n${section}\n`;
    fs.writeFileSync(doc, updated);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
