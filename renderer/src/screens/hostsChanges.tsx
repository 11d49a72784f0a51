/**
 * The Changes view (`hostChanges`): what changed between two points, each an import, a date
 * (what Outpost had learned by then, not the log's own times) or the last pull; totals per kind,
 * then the changes, each address a link to its host.
 */
import { useState } from 'react';
import { CHANGE_KINDS, type ChangeKind, type HostComparison, type Visit } from '../../../shared/app/hostSurvey';
import { appCall } from '../api/client';
import { boundedText } from '../components/bounded';
import { countText } from '../components/countText';
import { useQuery } from '../data/useQuery';
import { href } from '../router';
import { useVisits, visitName } from './hostsVisits';
import { changeKindWords, comparePointParam, type PointChoice } from './hostsChangesModel';

function PointPicker({ id, label, value, visits, allowNow, onChange }: { id: string; label: string; value: PointChoice; visits: readonly Visit[]; allowNow: boolean; onChange: (next: PointChoice) => void }) {
  return (
    <fieldset className="compare-point">
      <legend>{label}</legend>
      <label htmlFor={`${id}-kind`}>
        Point
        <select id={`${id}-kind`} value={value.kind === 'visit' ? `visit:${value.visit}` : value.kind} onChange={(e) => {
          const v = e.target.value;
          if (v.startsWith('visit:')) onChange({ kind: 'visit', visit: Number(v.slice(6)) });
          else if (v === 'date') onChange({ kind: 'date', day: value.kind === 'date' ? value.day : '' });
          else onChange({ kind: v as 'now' | 'pull' });
        }}>
          {allowNow && <option value="now">now</option>}
          <option value="pull">the last pull</option>
          <option value="date">a date…</option>
          {visits.map((v) => (
            <option key={v.pk} value={`visit:${v.pk}`}>
              {visitName(v)} ({v.at.slice(0, 16).replace('T', ' ')} UTC)
            </option>
          ))}
        </select>
      </label>
      {value.kind === 'date' && (
        <label htmlFor={`${id}-day`}>
          Day (UTC)
          <input id={`${id}-day`} type="date" value={value.day} onChange={(e) => onChange({ kind: 'date', day: e.target.value })} />
        </label>
      )}
    </fieldset>
  );
}

function Comparison({ answer }: { answer: HostComparison }) {
  return (
    <>
      <p>
        From <strong>{boundedText(answer.since.label, 120)}</strong> to <strong>{boundedText(answer.until.label, 120)}</strong>
      </p>
      <table className="data change-totals" aria-label="Changes per kind">
        <tbody>
          {CHANGE_KINDS.map((kind) => (
            <tr key={kind}>
              <th scope="row">{changeKindWords(kind)}</th>
              <td>{countText(answer.totals[kind] ?? 0)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {answer.changes.length === 0 ? (
        <p className="empty">Nothing changed between these points.</p>
      ) : (
        <table className="data changes" aria-label="Changes">
          <thead>
            <tr>
              <th scope="col">Change</th>
              <th scope="col">Address</th>
              <th scope="col">Value</th>
            </tr>
          </thead>
          <tbody>
            {answer.changes.map((change, i) => (
              <tr key={i}>
                <td>{changeKindWords(change.kind as ChangeKind)}</td>
                <td className="address">
                  <a href={href(`/hosts/${encodeURIComponent(change.ip)}`)}>{change.ip}</a>
                </td>
                <td className="change-value">
                  {change.value === null ? '' : boundedText(change.value)}
                  {change.previous !== null && <span className="muted"> (was {boundedText(change.previous)})</span>}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {answer.truncated && <p className="muted">The first {countText(answer.changes.length)} changes are listed; the totals count them all. Export the CSV of a filter for all the hosts.</p>}
    </>
  );
}

export function ChangesPanel({ changes, onClose }: { changes: number; onClose: () => void }) {
  const visits = useVisits(changes);
  const list = visits.data?.results ?? [];
  const [since, setSince] = useState<PointChoice | undefined>();
  const [until, setUntil] = useState<PointChoice>({ kind: 'now' });
  // By default: what the latest import changed (since the one before it).
  const sinceShown: PointChoice = since ?? (list[1] ? { kind: 'visit', visit: list[1].pk } : list[0] ? { kind: 'visit', visit: list[0].pk } : { kind: 'pull' });
  const query = { since: comparePointParam(sinceShown, 'since'), until: comparePointParam(until, 'until') };
  const ready = query.since !== undefined && (until.kind === 'now' || query.until !== undefined);
  const key = ready ? JSON.stringify([query, changes]) : undefined;
  const answer = useQuery(key, (signal) => appCall('hostChanges', { query: { since: query.since, ...(query.until === undefined ? {} : { until: query.until }), limit: 500 }, signal }), { keepPrevious: true });
  return (
    <section className="host-panel changes-panel" aria-labelledby="changes-title">
      <header className="detail-head">
        <h2 id="changes-title">Changes</h2>
        <button type="button" className="link" onClick={onClose}>
          Close
        </button>
      </header>
      <div className="compare-points">
        <PointPicker id="changes-since" label="Since" value={sinceShown} visits={list} allowNow={false} onChange={setSince} />
        <PointPicker id="changes-until" label="Until" value={until} visits={list} allowNow onChange={setUntil} />
      </div>
      {answer.error && (
        <p className="notice error" role="alert">
          {boundedText(answer.error.message)}
        </p>
      )}
      {!ready && <p className="muted">Pick a day.</p>}
      {ready && !answer.data && !answer.error && <p className="loading">Comparing…</p>}
      {answer.data && <Comparison answer={answer.data} />}
    </section>
  );
}
