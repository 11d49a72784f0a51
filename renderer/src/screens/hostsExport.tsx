/**
 * The list's exports: CSV and JSON of the list as filtered, with the columns shown; the site
 * report (HTML) and its PDF. One small function per action (hostsExportActions.ts) so that each
 * is wired to its route in one place; the buttons say what came of it.
 */
import { useState } from 'react';
import type { HostColumnId } from '../../../shared/app/hostSurvey';
import { boundedText } from '../components/bounded';
import { EXPORT_ACTIONS, type ExportAction, type ExportRequest } from './hostsExportActions';

export function ExportButtons({ filter, ordering, columns }: { filter: Readonly<Record<string, string>>; ordering: string | undefined; columns: readonly HostColumnId[] }) {
  const [busy, setBusy] = useState<ExportAction | undefined>();
  const [outcome, setOutcome] = useState<{ ok: boolean; text: string } | undefined>();
  const request: ExportRequest = { filter, ordering, columns };
  return (
    <div className="export-actions actions" role="group" aria-label="Export">
      {EXPORT_ACTIONS.map((action) => (
        <button
          key={action.id}
          type="button"
          disabled={busy !== undefined}
          onClick={() => {
            setBusy(action.id);
            setOutcome(undefined);
            action
              .run(request)
              .then((text) => setOutcome({ ok: true, text }))
              .catch((error: unknown) => setOutcome({ ok: false, text: error instanceof Error ? error.message : String(error) }))
              .finally(() => setBusy(undefined));
          }}
        >
          {action.label}
        </button>
      ))}
      <span role="status" className={outcome && !outcome.ok ? 'export-outcome error' : 'export-outcome'}>
        {busy ? 'Exporting…' : outcome ? boundedText(outcome.text) : ''}
      </span>
    </div>
  );
}
