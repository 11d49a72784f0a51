/**
 * The Review (issue 25 §2, `#/sync/review`): the push plan read from the central server (GETs
 * only), each waiting change with every field's value there now → after the push, conflicts,
 * refusals and a template change's reach; the engineer sends all or chosen entries (what they
 * need follows), then sees what went and what stopped, and the plan is read again. The words
 * are reviewModel.ts's.
 */
import { useState } from 'react';
import type { PlanEntry, ReviewPlan } from '../../../shared/sync/review';
import { ApiFailure, appCall } from '../api/client';
import { BoundedText } from '../components/BoundedText';
import { boundedText } from '../components/bounded';
import { DateTime } from '../components/DateTime';
import { useQuery } from '../data/useQuery';
import { useStatus } from '../stores/status';
import { useSync } from '../stores/sync';
import { allChoosable, applyChoices, applyOutcome, choosable, entryTitle, OUTCOME_TEXT, planFailureAdvice, planSummary, reachText, toggle, type ApplyOutcome } from './reviewModel';
import { fieldLabel, valueLines } from './syncFormat';

function Value({ field, value, label }: { field: string; value: PlanEntry['fields'][number]['now']; label: string }) {
  return <BoundedText value={valueLines(field, value).join('\n')} label={label} />;
}

function Entry({ entry, chosen, onToggle }: { entry: PlanEntry; chosen: boolean; onToggle: (on: boolean) => void }) {
  const title = entryTitle(entry);
  const id = `review-entry-${entry.seq}`;
  const can = choosable(entry);
  return (
    <li className={`review-entry review-${entry.outcome}`} aria-labelledby={`${id}-title`}>
      <div className="review-entry-head">
        <input id={id} type="checkbox" checked={chosen} disabled={!can} onChange={(e) => onToggle(e.target.checked)} aria-describedby={`${id}-outcome`} />
        <label htmlFor={id} id={`${id}-title`}>
          <strong>{boundedText(title)}</strong>
        </label>{' '}
        <span id={`${id}-outcome`} className={`state review-outcome-${entry.outcome}`}>
          {OUTCOME_TEXT[entry.outcome]}
        </span>
      </div>
      {entry.message !== null && (
        <p className="remote-message">
          <BoundedText value={entry.message} label={`why, for ${entry.label}`} />
        </p>
      )}
      {entry.comment !== null && (
        <p className="muted">
          Comment: “<BoundedText value={entry.comment} label="Comment" />”
        </p>
      )}
      {entry.fields.length > 0 && (
        <table className="data review-fields">
          <caption className="visually-hidden">Fields of {boundedText(title)}</caption>
          <thead>
            <tr>
              <th scope="col">Field</th>
              <th scope="col">On the central server now</th>
              <th scope="col">After the push</th>
              <th scope="col">
                <span className="visually-hidden">Outcome</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {entry.fields.map((field) => (
              <tr key={field.field} className={field.outcome === 'conflict' ? 'review-conflict' : undefined}>
                <th scope="row">{fieldLabel(entry.resource, field.field)}</th>
                <td>
                  <Value field={field.field} value={field.now} label={`${fieldLabel(entry.resource, field.field)} now`} />
                </td>
                <td>
                  <Value field={field.field} value={field.after} label={`${fieldLabel(entry.resource, field.field)} after`} />
                </td>
                <td>{field.outcome === 'conflict' ? <strong>conflict: changed there</strong> : field.outcome === 'same' ? <span className="muted">already there</span> : ''}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {entry.reaches.length > 0 && (
        <ul className="review-reach" aria-label={`What ${boundedText(entry.label)} reaches on the central server`}>
          {entry.reaches.map((reach) => (
            <li key={reach.field}>
              <BoundedText value={reachText(entry.resource, reach)} label={`the reach of ${reach.field}`} />
            </li>
          ))}
        </ul>
      )}
    </li>
  );
}

function Outcome({ outcome }: { outcome: ApplyOutcome }) {
  return (
    <div className={`notice ${outcome.stopped.length > 0 ? 'warn' : 'ok'}`} role="status" data-testid="review-outcome">
      <p>{outcome.sent}</p>
      {outcome.stopped.length > 0 && (
        <ul>
          {outcome.stopped.map((s, i) => (
            <li key={i}>
              <strong>{boundedText(s.label)}</strong>: <BoundedText value={s.message} label={`why ${s.label} stopped`} />
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

function PlanView({ plan, onApplied }: { plan: ReviewPlan; onApplied: (outcome: ApplyOutcome) => void }) {
  const [chosen, setChosen] = useState<ReadonlySet<number>>(new Set());
  const [note, setNote] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<string | undefined>();
  const send = async (seqs: Iterable<number>) => {
    setBusy(true);
    setFailure(undefined);
    try {
      const result = await appCall('syncApply', { body: { entries: applyChoices(plan, seqs) } });
      setChosen(new Set());
      setNote(null);
      onApplied(applyOutcome(plan, result));
      void useSync.getState().load();
      void useStatus.getState().refresh();
    } catch (error) {
      setFailure(error instanceof Error ? error.message : String(error));
    } finally {
      setBusy(false);
    }
  };
  const all = allChoosable(plan);
  return (
    <>
      <p data-testid="review-summary">
        {planSummary(plan)}{' '}
        <span className="muted">
          Read from “{boundedText(plan.remote.name)}” <DateTime value={plan.made} />.
        </span>
      </p>
      {failure && (
        <p className="notice error" role="alert">
          Sending failed: {failure}
        </p>
      )}
      {plan.entries.length > 0 && (
        <>
          <div className="actions" role="group" aria-label="Send">
            <button type="button" className="primary" disabled={busy || all.length === 0} onClick={() => void send(all)}>
              {busy ? 'Sending…' : `Send all (${all.length})`}
            </button>
            <button type="button" disabled={busy || chosen.size === 0} onClick={() => void send(chosen)}>
              Send chosen ({chosen.size})
            </button>
          </div>
          <p role="status" className="muted review-note">
            {note ?? ''}
          </p>
          <ul className="review-entries" aria-label="Changes to review">
            {plan.entries.map((entry) => (
              <Entry
                key={entry.seq}
                entry={entry}
                chosen={chosen.has(entry.seq)}
                onToggle={(on) => {
                  const next = toggle(plan, chosen, entry.seq, on);
                  setChosen(next.chosen);
                  setNote(next.note);
                }}
              />
            ))}
          </ul>
        </>
      )}
    </>
  );
}

export function SyncReview() {
  const [outcome, setOutcome] = useState<ApplyOutcome | undefined>();
  const plan = useQuery('sync-plan', (signal) => appCall('syncPlan', { signal }));
  return (
    <section className="sync-card review" aria-labelledby="review-title" aria-busy={plan.loading}>
      <div className="review-head">
        <h2 id="review-title">Review before sending</h2>
        <button type="button" disabled={plan.loading} onClick={() => plan.reload()}>
          Review again
        </button>
      </div>
      <p className="muted">
        Each change waiting here, as the central server holds the object now and as it will after the push. Nothing is sent until you choose Send.
      </p>
      {outcome && <Outcome outcome={outcome} />}
      {plan.loading && (
        <div className="sync-progress" role="status">
          <span>Reading the central server for the review…</span>
          <div role="progressbar" aria-label="Reading the central server" className="sync-bar indeterminate">
            <div className="sync-bar-fill" />
          </div>
        </div>
      )}
      {plan.error && !plan.loading && (
        <div className="notice error" role="alert">
          <p>The review could not be made: {plan.error.message}</p>
          <p>{plan.error instanceof ApiFailure ? planFailureAdvice(plan.error.status, plan.error.body) : planFailureAdvice(0, null)}</p>
        </div>
      )}
      {plan.data && !plan.loading && (
        <PlanView
          key={plan.data.made}
          plan={plan.data}
          onApplied={(applied) => {
            setOutcome(applied);
            plan.reload();
          }}
        />
      )}
    </section>
  );
}
