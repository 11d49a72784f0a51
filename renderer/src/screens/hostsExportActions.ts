/**
 * What each export button does, one function per action (docs/report.md has the routes): the CSV
 * and the report are downloaded by the browser itself from their route (a link: streamed to disk
 * at any size, never held in the page); the JSON export is one download per part of at most
 * 64 MiB (its plan read first); the PDF, made whole by the server, is read and saved, or, without
 * a Chromium on the machine, the server's reason is told. Each resolves with what to tell the
 * engineer, or fails with why.
 */
import type { HostColumnId } from '../../../shared/app/hostSurvey';
import { appPath } from '../../../shared/app/routes';
import { appCall, appFileOrJson, withQuery } from '../api/client';
import { countText } from '../components/countText';
import { formatBytes } from './hostsFormat';
import { csvDelimiter } from './hostsSurveyModel';

export type ExportAction = 'csv' | 'json' | 'report' | 'pdf';

/** What the list shows now: its filter (`q`, `search`, `visit`, `visit_change`), ordering and columns. */
export interface ExportRequest {
  readonly filter: Readonly<Record<string, string>>;
  readonly ordering: string | undefined;
  readonly columns: readonly HostColumnId[];
  /** The report's options: changes since this import, and the users per host (personal data: off unless asked). */
  readonly since?: number | undefined;
  readonly users?: boolean;
}

/** A JSON part to download: its route and what it holds. */
export interface JsonPartLink {
  readonly url: string;
  readonly label: string;
}

/** The browser downloads `url` (the route's attachment names the file). */
function download(url: string, fileName = ''): void {
  const anchor = document.createElement('a');
  anchor.href = url;
  anchor.download = fileName;
  anchor.rel = 'noopener';
  document.body.append(anchor);
  anchor.click();
  anchor.remove();
}

export async function exportCsv(request: ExportRequest): Promise<string> {
  const delimiter = csvDelimiter(navigator.language);
  const query = { ...request.filter, columns: request.columns.join(','), ordering: request.ordering, delimiter };
  download(withQuery(appPath('exportHostsCsv'), query));
  return `The CSV is being saved (separated by ${delimiter === 'comma' ? 'commas' : 'semicolons'}, as your spreadsheet expects).`;
}

/** The JSON export's parts: one downloaded at once; several listed, each a link, for the engineer to save. */
export async function exportJson(request: ExportRequest): Promise<{ readonly text: string; readonly parts: readonly JsonPartLink[] }> {
  const plan = await appCall('exportHostsJson', { query: request.filter });
  if (plan.count === 0) return { text: 'No host matches: nothing to export.', parts: [] };
  const parts = plan.parts.map((p) => ({ url: p.url, label: `Part ${p.part}: ${countText(p.hosts)} hosts, ${formatBytes(p.bytes)}${p.oversize ? ' (over the import’s limit)' : ''}` }));
  if (parts.length === 1) {
    download(parts[0]!.url);
    return { text: `The JSON of ${countText(plan.count)} hosts is being saved (one file the host import takes).`, parts: [] };
  }
  return { text: `${countText(plan.count)} hosts in ${parts.length} files of at most ${formatBytes(plan.limit)} (the host import’s limit): save each.`, parts };
}

function reportQuery(request: ExportRequest): Record<string, string> {
  return { ...request.filter, ...(request.since === undefined ? {} : { since: String(request.since) }), ...(request.users ? { users: '1' } : {}) };
}

export async function exportReport(request: ExportRequest): Promise<string> {
  download(withQuery(appPath('hostReport'), reportQuery(request)));
  return 'The site report (one HTML file) is being saved.';
}

export async function saveReportPdf(request: ExportRequest): Promise<string> {
  const answer = await appFileOrJson('hostReportPdf', reportQuery(request));
  if (!('blob' in answer)) {
    if ('pdf' in answer) throw new Error(`${answer.detail} Export report… saves the HTML, which prints to PDF from a browser.`);
    throw new Error('The server answered no PDF.');
  }
  const url = URL.createObjectURL(answer.blob);
  download(url, answer.fileName ?? 'site-report.pdf');
  window.setTimeout(() => URL.revokeObjectURL(url), 60_000);
  return `The site report’s PDF (${formatBytes(answer.blob.size)}) is being saved.`;
}
