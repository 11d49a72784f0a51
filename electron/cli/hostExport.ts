/**
 * `outpost hosts export --format csv|json … --out FILE|DIR` (issue 24 §3, docs/report.md): the host
 * list under a filter, as the app's Export does. CSV to one file, streamed; JSON in the API's
 * shape into a folder of parts (`hosts-0001.json`…), each within the host import's limit, each
 * importable alone (`outpost import-hosts`, or the central server's import). Registered under the
 * `outpost hosts` group (cli/hosts.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseHostFilter, parseHostOrdering, type HostFilter } from '../../shared/app/hostSurvey';
import { parseCsvDelimiter } from '../../shared/report/csv';
import { PART_CLOSE, PART_OPEN, PART_SEPARATOR, PartPlanner } from '../../shared/report/jsonParts';
import { ApiError } from '../../shared/api/errors';
import { BODY_LIMITS } from '../app/bodyPolicy';
import { csvChunks, hostRowsFor, parseExportColumns, PK_ORDER } from '../app/hostExport';
import { renderedHost } from '../server/handlers/hosts';
import { withFile } from '../server/store/storageErrors';
import type { Services } from '../server/store/services';
import { openWorkspace } from '../workspaces/openWorkspace';
import { instanceFor, locateWorkspace, parseCommand } from './context';
import { CliError, jsonWords, line, type Output } from './output';
import { COMMON_OPTIONS, UsageError, defineCommand } from './usage';

/** The filter of the host list (the Hosts screen's), as options of the commands that read it. */
export const HOST_FILTER_OPTIONS = {
  q: { type: 'string', value: 'QUERY', help: 'only the hosts a host_id_qfilter query matches' },
  search: { type: 'string', value: 'TEXT', help: 'only the hosts with TEXT in any value (3 characters at least)' },
  visit: { type: 'string', value: 'IMPORT', help: 'only the hosts of this import or pull (its number in "hosts imports")' },
  'visit-change': { type: 'string', value: 'new|changed', help: 'with --visit: the hosts it brought, or those it changed (default)' },
} as const;

export const HOSTS_EXPORT = defineCommand({
  name: 'hosts export',
  positionals: 0,
  summary: 'Export the host list (as filtered) to CSV, or to JSON parts the host import takes.',
  options: {
    ...COMMON_OPTIONS,
    format: { type: 'string', value: 'csv|json', help: 'CSV for a spreadsheet, JSON in the API\'s shape to import elsewhere', default: 'csv' },
    out: { type: 'string', value: 'FILE|DIR', help: 'the CSV file, or the folder of the JSON parts' },
    columns: { type: 'string', value: 'a,b,...', help: 'CSV columns (ip, roles, users, hostnames, services, tls_subjects, ja3, ja4, user_agents, ssh_clients, networks, first_seen, last_seen, hits, source, learned; default: all)' },
    ...HOST_FILTER_OPTIONS,
    ordering: { type: 'string', value: 'KEY', help: 'CSV order: ip, hits, first_seen, last_seen, learned; - before for descending', default: '-last_seen' },
    delimiter: { type: 'string', value: 'comma|semicolon', help: 'between CSV cells (semicolon for a spreadsheet in French, German…)', default: 'comma' },
    force: { type: 'boolean', help: 'replace FILE, or the parts already in DIR' },
  },
  notes: [
    'CSV: UTF-8 with a byte order mark, CRLF, a list\'s values one a line in their cell, control characters shown as \\n, \\x1b…, and a \' before a value starting with = + - @ (no formula runs). docs/report.md has the rules.',
    'JSON: parts of at most 64 MiB, hosts-0001.json, hosts-0002.json… in DIR, each a JSON array of {"ip", "hits", "host_id"}.',
  ],
});

/** The filter the options give, checked as the app's list checks its parameters (shared/app/hostSurvey.ts). */
export function filterFromOptions(values: { readonly q?: string | undefined; readonly search?: string | undefined; readonly visit?: string | undefined; readonly 'visit-change'?: string | undefined }, command: string): HostFilter {
  const parsed = parseHostFilter((name) => (name === 'visit_change' ? values['visit-change'] : values[name as 'q' | 'search' | 'visit']));
  if ('error' in parsed) throw new UsageError(`--${parsed.error.replace('visit_change', 'visit-change')}`, command);
  return parsed;
}

/** Chunks written to `file` through a temporary file, renamed once whole (0600: the export holds the site's data). */
export function writeChunks(file: string, chunks: Iterable<Uint8Array>): number {
  const temporary = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.tmp`);
  let bytes = 0;
  try {
    const fd = fs.openSync(temporary, 'w', 0o600);
    try {
      for (const chunk of chunks) {
        fs.writeSync(fd, chunk);
        bytes += chunk.length;
      }
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(temporary, file);
    return bytes;
  } catch (error) {
    fs.rmSync(temporary, { force: true });
    throw withFile(error, file);
  }
}

const PART_NAME = /^hosts-\d{4,}\.json$/;

/** The JSON parts written into `dir`, one pass: an entry that would overflow a part starts the next file. */
export function writeJsonParts(services: Services, filter: HostFilter, dir: string, limit: number = BODY_LIMITS.import): { files: string[]; hosts: number; oversize: string[] } {
  const planner = new PartPlanner(limit);
  const files: string[] = [];
  const oversize: string[] = [];
  let fd: number | undefined;
  let hosts = 0;
  const open = (index: number) => {
    const file = path.join(dir, `hosts-${String(index + 1).padStart(4, '0')}.json`);
    fd = fs.openSync(file, 'w', 0o600);
    files.push(file);
  };
  const close = (empty: boolean) => {
    if (fd === undefined) return;
    fs.writeSync(fd, empty ? ']\n' : PART_CLOSE);
    fs.closeSync(fd);
    fd = undefined;
  };
  try {
    for (const batch of hostRowsFor(services, filter, PK_ORDER)) {
      for (const host of batch) {
        const entry = renderedHost(host);
        const placed = planner.place(entry.byteLength);
        if (placed.starts) {
          close(false);
          open(placed.part);
          fs.writeSync(fd!, PART_OPEN);
        } else fs.writeSync(fd!, PART_SEPARATOR);
        fs.writeSync(fd!, entry.text);
        if (placed.starts && entry.byteLength + 5 > limit) oversize.push(host.ip);
        hosts++;
      }
    }
    if (fd === undefined) {
      open(0);
      fs.writeSync(fd!, '[');
      close(true);
    } else close(false);
  } catch (error) {
    if (fd !== undefined) fs.closeSync(fd);
    throw withFile(error, dir);
  }
  return { files, hosts, oversize };
}

export async function hostsExportCommand(args: readonly string[], out: Output): Promise<number> {
  const { values } = parseCommand(args, HOSTS_EXPORT);
  const format = values.format ?? 'csv';
  if (format !== 'csv' && format !== 'json') throw new UsageError(`--format takes csv or json, not "${format}"`, HOSTS_EXPORT.name);
  if (values.out === undefined) throw new UsageError('--out FILE (csv) or --out DIR (json) is needed', HOSTS_EXPORT.name);
  const target = values.out;
  const filter = filterFromOptions(values, HOSTS_EXPORT.name);
  const columns = parseExportColumns(values.columns);
  if ('error' in columns) throw new UsageError(columns.error, HOSTS_EXPORT.name);
  const ordering = parseHostOrdering(values.ordering);
  if (!ordering) throw new UsageError('--ordering takes ip, hits, first_seen, last_seen or learned, with - before for descending', HOSTS_EXPORT.name);
  const delimiter = parseCsvDelimiter(values.delimiter);
  if (!delimiter) throw new UsageError('--delimiter takes comma or semicolon', HOSTS_EXPORT.name);
  if (format === 'csv' && fs.existsSync(target) && !values.force) throw new Error(`${target} exists already; give --force to replace it`);
  if (format === 'json') {
    if (fs.existsSync(target) && !fs.statSync(target).isDirectory()) throw new Error(`${target} is not a folder: the JSON parts go into a folder`);
    fs.mkdirSync(target, { recursive: true, mode: 0o700 });
    const old = fs.readdirSync(target).filter((name) => PART_NAME.test(name));
    if (old.length > 0 && !values.force) throw new Error(`${target} holds parts of an export already (${old[0]}…); give --force to replace them`);
    for (const name of old) fs.rmSync(path.join(target, name));
  }
  const location = locateWorkspace(values);
  const workspace = openWorkspace({ file: location.file, instance: instanceFor('127.0.0.1') });
  try {
    if (format === 'csv') {
      let hosts = -1; // the header's line
      const counted = (function* count() {
        for (const chunk of csvChunks(workspace.services, filter, ordering, columns, delimiter)) {
          // A line ends with CRLF; no cell holds a raw CR (control characters are written visibly).
          for (const byte of chunk) if (byte === 0x0d) hosts++;
          yield chunk;
        }
      })();
      const bytes = writeChunks(target, counted);
      out.line(line`${hosts} hosts of workspace "${location.workspace}" written to ${target} (${bytes} bytes)`);
    } else {
      const { files, hosts, oversize } = writeJsonParts(workspace.services, filter, target);
      out.line(line`${hosts} hosts of workspace "${location.workspace}" written to ${target} in ${files.length} part${files.length === 1 ? '' : 's'}`);
      for (const ip of oversize) out.stderr(line`warning: host ${ip} alone is larger than a part may be; the host import will refuse its part`);
    }
    return 0;
  } catch (error) {
    if (error instanceof ApiError) throw new CliError(line`cannot export: ${jsonWords(error.body)}`);
    throw withFile(error, location.file);
  } finally {
    workspace.close();
  }
}
