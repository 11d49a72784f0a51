/**
 * The host list exported and the site report (issue 24 §3, docs/report.md): CSV and the JSON
 * parts, streamed a batch at a time with the socket's backpressure; the report as HTML and PDF.
 * Each takes the list's filter (`q`, `search`, …: shared/app/hostSurvey.ts).
 */
import { ApiError } from '../../shared/api/errors';
import { hostFilterQuery, parseHostFilter, parseHostOrdering, type HostFilter } from '../../shared/app/hostSurvey';
import { appPath } from '../../shared/app/routes';
import { parseCsvDelimiter } from '../../shared/report/csv';
import { BODY_LIMITS } from './bodyPolicy';
import type { WorkspaceHost } from '../workspaces/host';
import { StreamedBytes, ok, type AppCall, type AppHandlers } from './appCall';
import { csvChunks, jsonPartChunks, parseExportColumns, planJsonParts, reportInputsFor, siteReportHtml } from './hostExport';
import { PRINT_THE_HTML, reportPdf } from './reportPdf';

type ExportRouteName = 'exportHostsCsv' | 'exportHostsJson' | 'exportHostsJsonPart' | 'hostReport' | 'hostReportPdf';

function filterOf(call: AppCall): HostFilter {
  const filter = parseHostFilter((name) => call.query(name));
  if ('error' in filter) throw ApiError.detail(400, filter.error);
  return filter;
}

/** `attachment` with a file name made of the workspace's: ASCII for old clients, UTF-8 (RFC 5987) for the others. */
function attachment(stem: string, extension: string): Record<string, string> {
  const ascii = `${stem.replace(/[^A-Za-z0-9._-]+/g, '_')}.${extension}`;
  return { 'Content-Disposition': `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(`${stem}.${extension}`)}` };
}

function pkParam(call: AppCall, name: string): number {
  const text = call.query(name);
  if (text === undefined || !/^(0|[1-9]\d{0,15})$/.test(text)) throw ApiError.detail(400, `${name}: give a host pk, as the parts list gives it.`);
  return Number(text);
}

export function exportHandlers(host: WorkspaceHost, version: string): Pick<AppHandlers, ExportRouteName> {
  const services = () => host.current().services;

  const report = async (call: AppCall): Promise<string> => {
    const since = call.query('since');
    if (since !== undefined && !/^[1-9]\d{0,15}$/.test(since)) throw ApiError.detail(400, 'since: give the number of an import.');
    const inputs = reportInputsFor(services(), {
      workspace: host.name,
      version,
      filter: filterOf(call),
      users: call.query('users') === '1' || call.query('users') === 'true',
      ...(since === undefined ? {} : { since: Number(since) }),
    });
    return siteReportHtml(services(), inputs);
  };

  return {
    exportHostsCsv: (call) => {
      const columns = parseExportColumns(call.query('columns'));
      if ('error' in columns) throw ApiError.detail(400, columns.error);
      const ordering = parseHostOrdering(call.query('ordering'));
      if (!ordering) throw ApiError.detail(400, 'ordering: give ip, hits, first_seen, last_seen or learned, with - for descending.');
      const delimiter = parseCsvDelimiter(call.query('delimiter'));
      if (!delimiter) throw ApiError.detail(400, 'delimiter: give "comma" or "semicolon".');
      const chunks = csvChunks(services(), filterOf(call), ordering, columns, delimiter);
      return { status: 200, body: new StreamedBytes('text/csv', chunks), headers: attachment(`hosts-${host.name}`, 'csv') };
    },

    exportHostsJson: (call) => {
      const filter = filterOf(call);
      // A smaller part for a test (never larger than the host import takes).
      const asked = call.query('limit');
      const limit = asked !== undefined && /^[1-9]\d{0,9}$/.test(asked) ? Math.min(Number(asked), BODY_LIMITS.import) : BODY_LIMITS.import;
      const query = hostFilterQuery(filter);
      return ok(
        planJsonParts(services(), filter, limit, (part) => `${appPath('exportHostsJsonPart')}?${new URLSearchParams({ ...query, part: String(part.part), from: String(part.from), to: String(part.to) }).toString()}`),
      );
    },

    exportHostsJsonPart: (call) => {
      const range = { from: pkParam(call, 'from'), to: pkParam(call, 'to') };
      const part = call.query('part') ?? '1';
      const chunks = jsonPartChunks(services(), filterOf(call), range);
      return { status: 200, body: new StreamedBytes('application/json', chunks), headers: attachment(`hosts-${host.name}-part-${/^\d{1,6}$/.test(part) ? part : '1'}`, 'json') };
    },

    hostReport: async (call) => {
      const html = await report(call);
      return { status: 200, body: new StreamedBytes('text/html', [Buffer.from(html)]), headers: attachment(`site-report-${host.name}`, 'html') };
    },

    hostReportPdf: async (call) => {
      const made = await reportPdf(await report(call));
      // Without a Chromium the app is told why and what to do instead: not an error of the request.
      if (!made.ok) return ok<'hostReportPdf'>({ pdf: false, detail: made.reason || PRINT_THE_HTML });
      return { status: 200, body: new StreamedBytes('application/pdf', [made.pdf]), headers: attachment(`site-report-${host.name}`, 'pdf') };
    },
  };
}
