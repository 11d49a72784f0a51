/**
 * What each export button does, one function per action: the place the export routes are wired.
 * Each resolves with what to tell the engineer, or fails with why.
 */
import type { HostColumnId } from '../../../shared/app/hostSurvey';

export type ExportAction = 'csv' | 'json' | 'report' | 'pdf';

/** What the list shows now: its filter (`q`, `search`, `visit`, `visit_change`), ordering and columns. */
export interface ExportRequest {
  readonly filter: Readonly<Record<string, string>>;
  readonly ordering: string | undefined;
  readonly columns: readonly HostColumnId[];
}

const notYet = (what: string) => async (): Promise<string> => {
  throw new Error(`${what} is not available in this build yet.`);
};

export async function exportCsv(_request: ExportRequest): Promise<string> {
  return notYet('The CSV export')();
}

export async function exportJson(_request: ExportRequest): Promise<string> {
  return notYet('The JSON export')();
}

export async function exportReport(_request: ExportRequest): Promise<string> {
  return notYet('The site report')();
}

export async function saveReportPdf(_request: ExportRequest): Promise<string> {
  return notYet('The PDF of the site report')();
}

export const EXPORT_ACTIONS: readonly { readonly id: ExportAction; readonly label: string; readonly run: (request: ExportRequest) => Promise<string> }[] = [
  { id: 'csv', label: 'Export CSV…', run: exportCsv },
  { id: 'json', label: 'Export JSON…', run: exportJson },
  { id: 'report', label: 'Export report…', run: exportReport },
  { id: 'pdf', label: 'Save as PDF', run: saveReportPdf },
];
