/**
 * The exports at scale (issue 24 targets, docs/report.md), on the 1,000,000-host workspace that
 * bench/hosts.bench.ts builds and caches: the CSV of every host through `outpost serve`'s route,
 * as the app downloads it (hosts/s, the server's peak RSS: the process doing it), and the site
 * report of 100,000 hosts made here (time, file size). bench:hosts calls it with its data folder.
 */
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { hostRowsFor, reportInputsFor, surveyRow } from '../electron/app/hostExport';
import { openWorkspace } from '../electron/workspaces/openWorkspace';
import { renderSiteReport } from '../shared/report/siteHtml';
import { SiteReportBuilder } from '../shared/report/siteModel';
import { log, memoryOf, startChild } from './children';
import { BENCH_TOKEN } from './dataset';

const ROOT = path.resolve(__dirname, '../..');

export interface HostsExportFigures {
  readonly csv: { readonly hosts: number; readonly seconds: number; readonly hostsPerSecond: number; readonly megabytes: number; readonly serverPeakRssMb: number };
  readonly report: { readonly hosts: number; readonly seconds: number; readonly megabytes: number };
}

/** The CSV of the whole list, read as fast as the client takes it; hosts counted by their CRLF line ends. */
async function csvOfAll(dataDir: string): Promise<HostsExportFigures['csv']> {
  const server = await startChild(process.execPath, [path.join(ROOT, 'dist/node/outpost.cjs'), 'serve', '--data', dataDir, '--port', '0', '--admin-token', BENCH_TOKEN]);
  try {
    const started = performance.now();
    const reply = await fetch(`${server.url}/app/hosts/export/csv`, { headers: { Authorization: `Token ${BENCH_TOKEN}` } });
    if (reply.status !== 200 || !reply.body) throw new Error(`CSV export: ${reply.status} ${await reply.text()}`);
    let bytes = 0;
    let lines = 0;
    for await (const chunk of reply.body) {
      bytes += chunk.length;
      for (const byte of chunk) if (byte === 0x0d) lines++;
    }
    const seconds = (performance.now() - started) / 1000;
    const hosts = lines - 1;
    return { hosts, seconds, hostsPerSecond: hosts / seconds, megabytes: bytes / 1e6, serverPeakRssMb: memoryOf(server.process.pid!).peakMb };
  } finally {
    await server.stop();
  }
}

/** The report of the first `count` hosts (pk order), made and rendered in this process. */
async function reportOf(file: string, count: number): Promise<HostsExportFigures['report']> {
  const workspace = openWorkspace({ file, instance: { name: 'outpost-bench', version: 'bench', address: '127.0.0.1' }, adminToken: BENCH_TOKEN });
  try {
    const { services } = workspace;
    const started = performance.now();
    const builder = new SiteReportBuilder(reportInputsFor(services, { workspace: 'default', version: 'bench', filter: {}, users: true }));
    let hosts = 0;
    for (const batch of hostRowsFor(services, {}, { key: 'learned', descending: false }, { from: 0, to: Number.MAX_SAFE_INTEGER })) {
      for (const host of batch) {
        if (hosts === count) break;
        builder.add(surveyRow(host));
        hosts++;
      }
      if (hosts === count) break;
    }
    const html = renderSiteReport(builder.report());
    return { hosts, seconds: (performance.now() - started) / 1000, megabytes: Buffer.byteLength(html) / 1e6 };
  } finally {
    workspace.close();
  }
}

/** Both measures; `dataDir` holds the benchmark's workspace (`workspaces/default.sqlite3`). */
export async function benchHostsExport(dataDir: string, options: { readonly reportHosts?: number } = {}): Promise<HostsExportFigures> {
  log('CSV of every host through GET /app/hosts/export/csv');
  const csv = await csvOfAll(dataDir);
  log(`  ${csv.hosts} hosts in ${csv.seconds.toFixed(1)} s: ${Math.round(csv.hostsPerSecond)} hosts/s, ${csv.megabytes.toFixed(0)} MB, server peak RSS ${csv.serverPeakRssMb.toFixed(0)} MB (targets ≥ 50,000 hosts/s, < 300 MB)`);
  log(`site report of ${options.reportHosts ?? 100_000} hosts`);
  const report = await reportOf(path.join(dataDir, 'workspaces', 'default.sqlite3'), options.reportHosts ?? 100_000);
  log(`  ${report.hosts} hosts in ${report.seconds.toFixed(1)} s, ${report.megabytes.toFixed(1)} MB (targets < 10 s, < 20 MB)`);
  return { csv, report };
}
