/**
 * The list's exports: *Export CSV…* and *Export JSON…* of the list as filtered, with the columns
 * shown; *Export report…* opens the report's options (changes since an import; users per host,
 * personal data, only when asked) with its HTML and PDF; *Save as PDF* makes the PDF with those
 * options. Each action is one function of hostsExportActions.ts; the row says what came of it.
 */
import { useState } from 'react';
import type { HostColumnId } from '../../../shared/app/hostSurvey';
import { boundedText } from '../components/bounded';
import { exportCsv, exportJson, exportReport, saveReportPdf, type ExportAction, type ExportRequest, type JsonPartLink } from './hostsExportActions';
import { useVisits, visitName } from './hostsVisits';

interface Props {
  readonly filter: Readonly<Record<string, string>>;
  readonly ordering: string | undefined;
  readonly columns: readonly HostColumnId[];
  readonly changes: number;
}

function ReportOptions({ changes, since, users, onSince, onUsers }: { changes: number; since: number | undefined; users: boolean; onSince: (pk: number | undefined) => void; onUsers: (on: boolean) => void }) {
  const visits = useVisits(changes);
  return (
    <div id="report-options" className="report-options" role="group" aria-label="Site report options">
      <label htmlFor="report-since">
        What changed since
        <select id="report-since" value={since ?? ''} onChange={(e) => onSince(e.target.value === '' ? undefined : Number(e.target.value))}>
          <option value="">no comparison</option>
          {(visits.data?.results ?? []).map((v) => (
            <option key={v.pk} value={v.pk}>
              {visitName(v)} ({v.at.slice(0, 16).replace('T', ' ')} UTC)
            </option>
          ))}
        </select>
      </label>
      <label htmlFor="report-users" className="check">
        <input id="report-users" type="checkbox" checked={users} onChange={(e) => onUsers(e.target.checked)} />
        Users per host (personal data)
      </label>
    </div>
  );
}

export function ExportButtons({ filter, ordering, columns, changes }: Props) {
  const [busy, setBusy] = useState<ExportAction | undefined>();
  const [outcome, setOutcome] = useState<{ ok: boolean; text: string; parts?: readonly JsonPartLink[] } | undefined>();
  const [options, setOptions] = useState(false);
  const [since, setSince] = useState<number | undefined>();
  const [users, setUsers] = useState(false);
  const request: ExportRequest = { filter, ordering, columns, since, users };
  const run = (action: ExportAction, work: () => Promise<string | { text: string; parts: readonly JsonPartLink[] }>) => {
    setBusy(action);
    setOutcome(undefined);
    work()
      .then((done) => setOutcome(typeof done === 'string' ? { ok: true, text: done } : { ok: true, ...done }))
      .catch((error: unknown) => setOutcome({ ok: false, text: error instanceof Error ? error.message : String(error) }))
      .finally(() => setBusy(undefined));
  };
  return (
    <div className="export-row">
      <div className="export-actions actions" role="group" aria-label="Export">
        <button type="button" disabled={busy !== undefined} onClick={() => run('csv', () => exportCsv(request))}>
          Export CSV…
        </button>
        <button type="button" disabled={busy !== undefined} onClick={() => run('json', () => exportJson(request))}>
          Export JSON…
        </button>
        <button type="button" aria-expanded={options} aria-controls="report-options" onClick={() => setOptions((o) => !o)}>
          Export report…
        </button>
        <button type="button" disabled={busy !== undefined} onClick={() => run('pdf', () => saveReportPdf(request))}>
          Save as PDF
        </button>
        <span role="status" className={outcome && !outcome.ok ? 'export-outcome error' : 'export-outcome'}>
          {busy === 'pdf' ? 'Making the PDF…' : busy ? 'Exporting…' : outcome ? boundedText(outcome.text) : ''}
        </span>
      </div>
      {outcome?.parts && outcome.parts.length > 0 && (
        <ul className="plain json-parts" aria-label="JSON files">
          {outcome.parts.map((part) => (
            <li key={part.url}>
              <a href={part.url} download="">
                {part.label}
              </a>
            </li>
          ))}
        </ul>
      )}
      {options && (
        <div className="report-panel">
          <ReportOptions changes={changes} since={since} users={users} onSince={setSince} onUsers={setUsers} />
          <div className="actions">
            <button type="button" className="primary" disabled={busy !== undefined} onClick={() => run('report', () => exportReport(request))}>
              Save the report (HTML)
            </button>
            <button type="button" disabled={busy !== undefined} onClick={() => run('pdf', () => saveReportPdf(request))}>
              Save the report as PDF
            </button>
          </div>
          <p className="muted hint">The report covers the hosts of the list as filtered now; printed from a browser, its HTML gives the same PDF.</p>
        </div>
      )}
    </div>
  );
}
