/**
 * Benchmark of the embedded server (issue: "The embedded central server"). In one run:
 * a bare node:http ceiling, Outpost on 100,000 probes (detail, filtered list, searched list,
 * template PATCH with 1,000 children), the reference DRF server on 10,000 of the same probes,
 * start-up time and memory. Load comes from autocannon (16 connections). Figures are printed as
 * a Markdown table; `--write` also records them in docs/benchmarks.md.
 *
 *   npm run bench -- [--probes 100000] [--ref-probes 10000] [--duration 10] [--no-reference] [--write]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { load, log, memoryOf, PINNED, startChild, type Child, type Load } from './children';
import { BENCH_TOKEN, buildOutpostDataset, probeSpec, referenceSeed, templateName } from './dataset';

// Runs as dist/bench/api.bench.cjs.
const ROOT = path.resolve(__dirname, '../..');
const CACHE = path.join(ROOT, 'bench', '.cache');
const REFERENCE = path.resolve(ROOT, '..', 'shared', 'reference-server', 'run');

const { values: options } = parseArgs({
  options: {
    probes: { type: 'string', default: '100000' },
    'ref-probes': { type: 'string', default: '10000' },
    duration: { type: 'string', default: '10' },
    'no-reference': { type: 'boolean', default: false },
    write: { type: 'boolean', default: false },
  },
});
const PROBES = Number(options.probes);
const REF_PROBES = Number(options['ref-probes']);
const DURATION = Number(options.duration);
/** The site template inherits from its region: it overrides the fields the PATCHes change. */
const OVERRIDES = ['ntp_server', 'dns_server'];

async function firstAnswerMs(child: Child, token: string): Promise<number> {
  for (;;) {
    try {
      const reply = await fetch(`${child.url}/rest/`, { headers: { Authorization: `Token ${token}` } });
      if (reply.status === 200) return performance.now() - child.startedMs;
    } catch {
      // not answering yet
    }
    await new Promise((r) => setTimeout(r, 2));
  }
}

async function main(): Promise<void> {
  fs.mkdirSync(CACHE, { recursive: true });
  const headers = { Authorization: `Token ${BENCH_TOKEN}` };
  log(`building or reusing the ${PROBES}-probe data set`);
  const dataDir = path.join(CACHE, `outpost-${PROBES}`);
  await buildOutpostDataset(dataDir, PROBES, log);

  log('starting outpost serve');
  const outpost = await startChild(process.execPath, [path.join(ROOT, 'dist/node/outpost.cjs'), 'serve', '--data', dataDir, '--port', '0', '--admin-token', BENCH_TOKEN]);
  const startupMs = await firstAnswerMs(outpost, BENCH_TOKEN);
  const base = outpost.url;
  const get = async (p: string) => (await fetch(`${base}${p}`, { headers })).json() as Promise<Record<string, unknown>>;

  const middle = probeSpec(Math.floor(PROBES / 2), PROBES).name;
  const detailPk = ((await get(`/rest/appliances/vendor_probe/?name=${middle}`)).results as { pk: number }[])[0]!.pk;
  const fleet = ((await get(`/rest/appliances/vendor_probe_template/?name=${templateName.site(0)}`)).results as { pk: number }[])[0]!.pk;
  const fleetSize = (await get(`/rest/appliances/vendor_probe/?parent_tmpl=${fleet}&page_size=1`)).count;
  const paths = {
    detail: `/rest/appliances/vendor_probe/${detailPk}/`,
    filtered: '/rest/appliances/vendor_probe/?location=Initech+Nantes+1&ordering=name',
    filteredByUpdate: '/rest/appliances/vendor_probe/?location=Initech+Nantes+1&ordering=-updated',
    searched: '/rest/appliances/vendor_probe/?enabled=true&search=initech+nantes&ordering=-updated',
  };
  const pageBody = await (await fetch(`${base}${paths.filtered}`, { headers })).text();
  const bodyFile = path.join(os.tmpdir(), `outpost-bench-page-${process.pid}.json`);
  fs.writeFileSync(bodyFile, pageBody);

  // The ceiling is measured before and after the API runs; the better of the two is kept.
  const measureCeiling = async () => {
    const bare = await startChild(process.execPath, [path.join(ROOT, 'dist/bench/bareServer.cjs'), bodyFile]);
    const figures = await load('bare node:http', { url: `${bare.url}/` }, DURATION);
    await bare.stop();
    return figures;
  };
  log(`bare node:http ceiling (constant ${pageBody.length}-byte, 30-row page)`);
  const ceilingBefore = await measureCeiling();

  log('outpost');
  const detail = await load('detail GET', { url: `${base}${paths.detail}`, headers }, DURATION);
  const filtered = await load('list, filter + ordering', { url: `${base}${paths.filtered}`, headers }, DURATION);
  const filteredByUpdate = await load('list, filter + ordering by -updated (sorted, no index order)', { url: `${base}${paths.filteredByUpdate}`, headers }, DURATION);
  const searched = await load('list, filter + search + ordering', { url: `${base}${paths.searched}`, headers }, DURATION);
  let flip = 0;
  const patch = await load(`PATCH template with ${fleetSize} children`, {
    url: base,
    requests: [
      {
        method: 'PATCH',
        path: `/rest/appliances/vendor_probe_template/${fleet}/`,
        headers: { ...headers, 'Content-Type': 'application/json' },
        setupRequest: (request) => ({ ...request, body: JSON.stringify({ overriden_fields: OVERRIDES, ntp_server: `ntp-${flip++ % 2}.example.com` }) }),
      },
    ],
  }, DURATION);

  const single: number[] = [];
  for (let i = 0; i < 21; i++) {
    const started = performance.now();
    const reply = await fetch(`${base}/rest/appliances/vendor_probe_template/${fleet}/`, {
      method: 'PATCH',
      headers: { ...headers, 'Content-Type': 'application/json' },
      body: JSON.stringify({ overriden_fields: OVERRIDES, dns_server: `10.0.0.${i % 2 ? 53 : 54}` }),
    });
    if (reply.status !== 200) throw new Error(`template PATCH answered ${reply.status}: ${await reply.text()}`);
    await reply.arrayBuffer();
    single.push(performance.now() - started);
  }
  single.sort((a, b) => a - b);
  const memory = memoryOf(outpost.process.pid!);
  await outpost.stop();

  log('outpost with its read caches off (every request reads and renders from SQLite)');
  const cold = await startChild(
    process.execPath,
    [path.join(ROOT, 'dist/node/outpost.cjs'), 'serve', '--data', dataDir, '--port', '0', '--admin-token', BENCH_TOKEN],
    { ...process.env, OUTPOST_READ_CACHE: 'off' },
  );
  await firstAnswerMs(cold, BENCH_TOKEN);
  const coldDetail = await load('cold detail GET', { url: `${cold.url}${paths.detail}`, headers }, DURATION);
  const coldFiltered = await load('cold list, filter + ordering', { url: `${cold.url}${paths.filtered}`, headers }, DURATION);
  const coldSearched = await load('cold list, filter + search + ordering', { url: `${cold.url}${paths.searched}`, headers }, DURATION);
  await cold.stop();
  const ceilingAfter = await measureCeiling();

  let peer: Load | undefined;
  if (!options['no-reference']) {
    const refData = path.join(CACHE, `reference-${REF_PROBES}`);
    const seedFile = path.join(CACHE, `reference-seed-${REF_PROBES}.json`);
    if (!fs.existsSync(seedFile)) fs.writeFileSync(seedFile, JSON.stringify(referenceSeed(REF_PROBES)));
    log(`reference DRF server with ${REF_PROBES} probes (first start loads the seed; this takes a while)`);
    const reference = await startChild('/usr/bin/python3', [REFERENCE, '--port', '0', '--data', refData, '--token', BENCH_TOKEN, '--seed', seedFile], {
      ...process.env,
      REFSERVER_LOG: 'WARNING',
    });
    peer = await load('reference DRF: list, filter + search + ordering', { url: `${reference.url}${paths.searched}`, headers }, DURATION);
    await reference.stop();
  }
  const ceilingLast = await measureCeiling();
  fs.rmSync(bodyFile, { force: true });
  // The strictest ratio: against the best of the three ceiling runs.
  const ceiling = [ceilingBefore, ceilingAfter, ceilingLast].reduce((best, run) => (run.rps > best.rps ? run : best));

  const ratio = (x: Load) => x.rps / ceiling.rps;
  const rows: [string, string, string, string, string, string][] = [
    ['bare node:http, constant 30-row page (ceiling)', ceiling.rps.toFixed(0), `${ceiling.p50}`, `${ceiling.p99}`, '1.00', ''],
    ['detail GET', detail.rps.toFixed(0), `${detail.p50}`, `${detail.p99}`, ratio(detail).toFixed(2), `≥ 0.40: ${ratio(detail) >= 0.4 ? 'met' : 'NOT met'}`],
    ['list, filter + ordering (name)', filtered.rps.toFixed(0), `${filtered.p50}`, `${filtered.p99}`, ratio(filtered).toFixed(2), `≥ 0.25: ${ratio(filtered) >= 0.25 ? 'met' : 'NOT met'}`],
    ['list, filter + ordering (-updated: 100 matches sorted)', filteredByUpdate.rps.toFixed(0), `${filteredByUpdate.p50}`, `${filteredByUpdate.p99}`, ratio(filteredByUpdate).toFixed(2), ''],
    [
      'list, filter + search + ordering',
      searched.rps.toFixed(0),
      `${searched.p50}`,
      `${searched.p99}`,
      ratio(searched).toFixed(3),
      `≥ 0.05 and p99 < 20 ms: ${ratio(searched) >= 0.05 && searched.p99 < 20 ? 'met' : 'NOT met'}`,
    ],
    [`PATCH template, ${fleetSize} children`, patch.rps.toFixed(1), `${patch.p50}`, `${patch.p99}`, ratio(patch).toFixed(4), ''],
  ];
  if (peer) {
    const times = searched.rps / peer.rps;
    rows.push([`reference DRF (${REF_PROBES} probes): filter + search + ordering`, peer.rps.toFixed(1), `${peer.p50}`, `${peer.p99}`, ratio(peer).toFixed(5), `Outpost is ${times.toFixed(0)}× (target ≥ 100×: ${times >= 100 ? 'met' : 'NOT met'})`]);
  }
  const median = single[Math.floor(single.length / 2)]!;
  const coldRows = [
    ['detail GET', coldDetail],
    ['list, filter + ordering (name)', coldFiltered],
    ['list, filter + search + ordering', coldSearched],
  ] as const;
  const table = [
    `| request | req/s | p50 ms | p99 ms | ratio to bare | target |`,
    `|---|---|---|---|---|---|`,
    ...rows.map((r) => `| ${r.join(' | ')} |`),
    '',
    'The same requests with the read caches off (`OUTPOST_READ_CACHE=off`: counts, pages and rendered objects computed from SQLite on every request):',
    '',
    `| request | req/s | p50 ms | p99 ms | ratio to bare |`,
    `|---|---|---|---|---|`,
    ...coldRows.map(([name, x]) => `| ${name} | ${x.rps.toFixed(0)} | ${x.p50} | ${x.p99} | ${ratio(x).toFixed(3)} |`),
  ].join('\n');
  const extra = [
    `- template PATCH propagating to ${fleetSize} children, one request at a time: median ${median.toFixed(1)} ms, max ${single[single.length - 1]!.toFixed(1)} ms (target < 100 ms: ${median < 100 ? 'met' : 'NOT met'})`,
    `- start-up of \`outpost serve\` on ${PROBES} probes to its first answer: ${startupMs.toFixed(0)} ms (target < 500 ms: ${startupMs < 500 ? 'met' : 'NOT met'})`,
    `- memory of the server after the runs: RSS ${memory.rssMb.toFixed(0)} MB, peak ${memory.peakMb.toFixed(0)} MB (target < 300 MB: ${memory.peakMb < 300 ? 'met' : 'NOT met'})`,
    `- requests: \`${paths.detail}\`, \`${paths.filtered}\`, \`${paths.filteredByUpdate}\`, \`${paths.searched}\` (100, 100 and 180 matching probes); PATCH bodies alternate a value so that every request propagates`,
  ].join('\n');
  const report = `${table}\n\n${extra}\n`;
  process.stdout.write(`\n${report}`);
  if (options.write) {
    const file = path.join(ROOT, 'docs', 'benchmarks.md');
    const current = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '# Benchmarks\n';
    const section = `<!-- api.bench:start -->\n${report}\nMeasured ${new Date().toISOString().slice(0, 10)} on ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, Node ${process.version}, ${DURATION} s per run after a 1 s warm-up, 16 connections${PINNED ? ', load generator and server pinned to one core each' : ''}; the ceiling is the best of three runs (before, between and after the others).\n<!-- api.bench:end -->`;
    const next = /<!-- api\.bench:start -->[\s\S]*<!-- api\.bench:end -->/.test(current)
      ? current.replace(/<!-- api\.bench:start -->[\s\S]*<!-- api\.bench:end -->/, section)
      : `${current.trimEnd()}\n\n${section}\n`;
    fs.writeFileSync(file, next);
    log(`written to ${file}`);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
