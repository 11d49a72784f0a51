/**
 * The imports (and pulls) of the workspace as visits (`visits`): when, who, the files read (name,
 * size, SHA-256 shortened with the whole on demand, lines read), hosts new and updated; each
 * filters the list to the hosts it brought ("new in this import") or changed, and links to its
 * History entry.
 */
import { useState } from 'react';
import type { Visit, VisitChange, VisitFile } from '../../../shared/app/hostSurvey';
import { appCall } from '../api/client';
import { boundedText } from '../components/bounded';
import { countText } from '../components/countText';
import { DateTime } from '../components/DateTime';
import { useQuery } from '../data/useQuery';
import { href } from '../router';
import { formatBytes } from './hostsFormat';
import { shortHash } from './hostsSurveyModel';

const KIND_WORDS: Readonly<Record<Visit['kind'], string>> = { eve: 'EVE log', host_file: 'Host file', pull: 'Pull from the central server' };

/** How an import is named in a chip and a title: `Import 3 (EVE log, Mar 2, 2026)`. */
export function visitName(visit: Pick<Visit, 'pk' | 'kind'>): string {
  return visit.kind === 'pull' ? `Pull ${visit.pk}` : `Import ${visit.pk}`;
}

/** The imports, newest first, read again whenever the host data changes (`changes` seen). */
export function useVisits(changes: number) {
  return useQuery(`visits#${changes}`, (signal) => appCall('visits', { query: { page_size: 50 }, signal }), { keepPrevious: true });
}

function FileLine({ file }: { file: VisitFile }) {
  const [whole, setWhole] = useState(false);
  return (
    <li className="visit-file">
      <span className="file-name">{boundedText(file.name, 120)}</span> <span className="muted">
        {formatBytes(file.size)} · {countText(file.lines)} lines{file.from > 0 ? ` from byte ${countText(file.from)}` : ''}
      </span>{' '}
      <span className="sha">
        SHA-256{' '}
        <code title={file.sha256} className={whole ? 'whole' : undefined}>
          {whole ? file.sha256 : shortHash(file.sha256)}
        </code>{' '}
        <button type="button" className="link" aria-expanded={whole} aria-label={whole ? `Shorten the SHA-256 of ${boundedText(file.name, 80)}` : `Show the whole SHA-256 of ${boundedText(file.name, 80)}`} onClick={() => setWhole((w) => !w)}>
          {whole ? 'less' : 'whole'}
        </button>
      </span>
    </li>
  );
}

function VisitItem({ visit, onFilter }: { visit: Visit; onFilter: (visit: Visit, change: VisitChange) => void }) {
  return (
    <li className="visit">
      <div className="visit-head">
        <strong>{visitName(visit)}</strong> <span className="muted">{KIND_WORDS[visit.kind]}</span> · <DateTime value={visit.at} /> · {boundedText(visit.user, 80)}
      </div>
      <div className="visit-counts">
        {countText(visit.hostsNew)} new, {countText(visit.hostsUpdated)} updated
      </div>
      {visit.files.length > 0 && (
        <ul className="plain visit-files" aria-label={`Files of ${visitName(visit)}`}>
          {visit.files.map((file, i) => (
            <FileLine key={i} file={file} />
          ))}
        </ul>
      )}
      <div className="actions">
        <button type="button" disabled={visit.hostsNew === 0} onClick={() => onFilter(visit, 'new')}>
          New in this import
        </button>
        <button type="button" disabled={visit.hostsNew + visit.hostsUpdated === 0} onClick={() => onFilter(visit, 'changed')}>
          Changed by this import
        </button>
        {visit.historyPk !== null && <a href={href(`/history/${visit.historyPk}`)}>History entry</a>}
      </div>
    </li>
  );
}

export function VisitsPanel({ changes, onFilter, onClose }: { changes: number; onFilter: (visit: Visit, change: VisitChange) => void; onClose: () => void }) {
  const visits = useVisits(changes);
  return (
    <section className="host-panel visits-panel" aria-labelledby="visits-title">
      <header className="detail-head">
        <h2 id="visits-title">Imports</h2>
        <button type="button" className="link" onClick={onClose}>
          Close
        </button>
      </header>
      {visits.error && (
        <p className="notice error" role="alert">
          {boundedText(visits.error.message)}
        </p>
      )}
      {!visits.data && !visits.error && <p className="loading">Loading…</p>}
      {visits.data && visits.data.results.length === 0 && <p className="empty">No import yet. Import an EVE log or a host file: each import is listed here with what it brought.</p>}
      {visits.data && visits.data.results.length > 0 && (
        <ul className="plain visits" aria-label="Imports">
          {visits.data.results.map((visit) => (
            <VisitItem key={visit.pk} visit={visit} onFilter={onFilter} />
          ))}
        </ul>
      )}
      {visits.data && visits.data.count > visits.data.results.length && (
        <p className="muted">The {visits.data.results.length} latest of {countText(visits.data.count)} imports.</p>
      )}
    </section>
  );
}
