/**
 * What the exports and the site report read (issue 24 §3, docs/report.md): the hosts of the list
 * under a filter, in its order, a batch at a time (electron/server/store/hostBatches.ts), turned
 * into CSV, JSON parts or the report by the pure code of shared/report/. Used by the `/app/`
 * routes (exportRoutes.ts) and the CLI (cli/hostExport.ts, cli/report.ts).
 */
import { ApiError } from '../../shared/api/errors';
import { HOST_COLUMN_IDS, hostColumn, type HostColumnId, type HostFilter } from '../../shared/app/hostSurvey';
import { CSV_BOM, hostCsvHeader, hostCsvLine, type CsvDelimiter } from '../../shared/report/csv';
import { PART_CLOSE, PART_OPEN, PART_SEPARATOR, PartPlanner, type HostJsonPart, type HostJsonParts } from '../../shared/report/jsonParts';
import { renderSiteReport } from '../../shared/report/siteHtml';
import { REPORT_LIMITS, SiteReportBuilder, type ReportInputs, type ReportLimits } from '../../shared/report/siteModel';
import { renderedHost } from '../server/handlers/hosts';
import { orderedHostPks, type BatchOrderKey } from '../server/store/hostBatches';
import type { SurveyRow } from '../server/store/hostSurvey';
import type { Services } from '../server/store/services';
import { CompareError } from '../server/store/visits';
import { hostRow, surveyFilter } from './surveyRoutes';

export interface ListOrdering {
  readonly key: BatchOrderKey;
  readonly descending: boolean;
}

/** pk order: the order host rows were made in, stable whatever is written meanwhile (the JSON parts are pk ranges). */
export const PK_ORDER: ListOrdering = { key: 'pk', descending: false };

/** Hosts read at once: a few MB of identities at most. */
const BATCH = 1000;

/**
 * The hosts of the list under `filter` (the survey list's own set: its query, its search, its
 * import), in `ordering`, a batch at a time: the pks once, then a batch of rows at a time.
 */
export function hostRowsFor(services: Services, filter: HostFilter, ordering: ListOrdering, range?: { readonly from: number; readonly to: number }): Iterable<readonly SurveyRow[]> {
  // Checked and listed now, not at the first batch: a refusal must come before a streamed answer's 200.
  const among = services.hostSurvey.hostSet(surveyFilter(filter, services.hostSurvey))?.pks;
  let pks = orderedHostPks(services.store, ordering, among);
  if (range) pks = pks.filter((pk) => pk >= range.from && pk <= range.to);
  return (function* batches() {
    for (let i = 0; i < pks.length; i += BATCH) yield services.hostSurvey.rows(pks.slice(i, i + BATCH));
  })();
}

/** A stored host as a row of the survey's list (the list's own conversion). */
export const surveyRow = hostRow;

/** Column ids from a comma list, refused whole when one is unknown (an engineer's typo is not silently dropped); `ip` first. */
export function parseExportColumns(text: string | undefined): HostColumnId[] | { readonly error: string } {
  if (text === undefined || text.trim() === '') return [...HOST_COLUMN_IDS];
  const out: HostColumnId[] = ['ip'];
  for (const part of text.split(',').map((p) => p.trim()).filter((p) => p !== '')) {
    const column = hostColumn(part);
    if (!column) return { error: `columns: unknown column "${part}"; the columns are ${HOST_COLUMN_IDS.join(', ')}.` };
    if (!out.includes(column.id)) out.push(column.id);
  }
  return out;
}

/** The CSV of the list: the byte order mark and header, then a chunk of lines a batch. */
export function csvChunks(services: Services, filter: HostFilter, ordering: ListOrdering, columns: readonly HostColumnId[], delimiter: CsvDelimiter): Iterable<Buffer> {
  const rows = hostRowsFor(services, filter, ordering);
  return (function* chunks() {
    yield Buffer.from(CSV_BOM + hostCsvHeader(columns, delimiter));
    for (const batch of rows) {
      let text = '';
      for (const host of batch) text += hostCsvLine(surveyRow(host), columns, delimiter);
      if (text !== '') yield Buffer.from(text);
    }
  })();
}

/**
 * The parts of the JSON export of the list under `filter` (pk order): each within `limit` bytes,
 * as PartPlanner splits them, named by the pks they span; `urlOf` gives a part's URL.
 */
export function planJsonParts(services: Services, filter: HostFilter, limit: number, urlOf: (part: Omit<HostJsonPart, 'url'>) => string): HostJsonParts {
  const planner = new PartPlanner(limit);
  const parts: Omit<HostJsonPart, 'url'>[] = [];
  let open: { part: number; hosts: number; bytes: number; from: number; to: number } | undefined;
  const finish = (p: NonNullable<typeof open>) => parts.push({ part: p.part + 1, hosts: p.hosts, bytes: p.bytes, from: p.from, to: p.to, oversize: p.bytes > limit });
  let count = 0;
  for (const batch of hostRowsFor(services, filter, PK_ORDER)) {
    for (const host of batch) {
      if (planner.place(renderedHost(host).byteLength).starts) {
        if (open) finish(open);
        open = { part: planner.current().part, hosts: 0, bytes: 0, from: host.pk, to: host.pk };
      }
      open!.hosts++;
      open!.to = host.pk;
      open!.bytes = planner.current().bytes;
      count++;
    }
  }
  if (open) finish(open);
  // No host: one part, the empty array, which imports nothing.
  if (parts.length === 0) parts.push({ part: 1, hosts: 0, bytes: 3, from: 0, to: 0, oversize: false });
  return { count, limit, parts: parts.map((part) => ({ ...part, url: urlOf(part) })) };
}

/** One part of the JSON export: the hosts under `filter` whose pks are in the range, in the API's shape. */
export function jsonPartChunks(services: Services, filter: HostFilter, range: { readonly from: number; readonly to: number }): Iterable<Buffer> {
  const rows = hostRowsFor(services, filter, PK_ORDER, range);
  return (function* chunks() {
    // `[`, then `\n` before the first entry and `,\n` before the others, then `\n]\n` (`[]\n` when empty): jsonParts.ts's form.
    let first = true;
    yield Buffer.from(PART_OPEN.slice(0, 1));
    for (const batch of rows) {
      let text = '';
      for (const host of batch) {
        text += (first ? PART_OPEN.slice(1) : PART_SEPARATOR) + renderedHost(host).text;
        first = false;
      }
      if (text !== '') yield Buffer.from(text);
    }
    yield Buffer.from(first ? ']\n' : PART_CLOSE);
  })();
}

/** The imports listed in a report's sources at most (the latest); the report says how many there are. */
const REPORT_VISITS = 500;

/**
 * The report's sources and comparison: the imports and pulls recorded (their files and SHA-256),
 * and what changed since the import `since` up to the last one (the visits store, as
 * `outpost hosts diff` and the Changes view compare), as many changes as the report lists.
 */
export function visitsAndChanges(services: Services, since: number | undefined, limit = REPORT_LIMITS.rows): Pick<ReportInputs, 'visits' | 'visitsTotal' | 'changes'> {
  const { visits } = services;
  const page = visits.page(0, REPORT_VISITS);
  if (since === undefined) return { visits: page.visits, visitsTotal: page.count, changes: null };
  try {
    return { visits: page.visits, visitsTotal: page.count, changes: visits.compare(visits.resolve({ visit: since }, 'since'), visits.latest(), limit) };
  } catch (error) {
    if (error instanceof CompareError) throw ApiError.validation({ since: [error.message] });
    throw error;
  }
}

/** What a report is made of besides its hosts. */
export function reportInputsFor(services: Services, options: { workspace: string; version: string; filter: HostFilter; users: boolean; since?: number; now?: Date }): ReportInputs {
  return {
    workspace: options.workspace,
    version: options.version,
    madeAt: (options.now ?? new Date()).toISOString(),
    homeNets: services.evidence.homeNets(),
    ...visitsAndChanges(services, options.since),
    users: options.users,
    filter: options.filter,
  };
}

/** The site report's HTML; the event loop gets a turn between batches (a report of 100,000 hosts takes seconds). */
export async function siteReportHtml(services: Services, inputs: ReportInputs, limits: ReportLimits = REPORT_LIMITS): Promise<string> {
  const builder = new SiteReportBuilder(inputs, limits);
  for (const batch of hostRowsFor(services, inputs.filter, { key: 'ip', descending: false })) {
    for (const host of batch) builder.add(surveyRow(host));
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  return renderSiteReport(builder.report());
}
