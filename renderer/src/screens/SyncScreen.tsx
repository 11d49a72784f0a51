/**
 * Sync (app.md §3, §4 "Sync"): the central server this workspace is bound to and whether it is
 * reachable (only an answer makes it "Online"), the last accepted push, the last attempt and
 * the next one's countdown, the last pull, the last sync's outcome with what to try, "Sync now" with a progress bar while it runs, the changes
 * waiting in the outbox, the changes the central server refused with its message (retry or
 * discard), and the conflicts to resolve (`#/sync/conflicts`, `#/sync/conflicts/<seq>`); the push
 * mode (after review, *Sync now* opens the Review, `#/sync/review`: SyncReview.tsx).
 * A standalone workspace has none of this: the screen offers to connect it (`#/sync/connect`:
 * SyncConnect.tsx) or says how to get a bound one. Names,
 * comments and the central server's messages are shown bounded (components/BoundedText.tsx).
 */
import { useEffect, useState } from 'react';
import { syncAdvice, type EntryView, type SyncProgress, type SyncResult, type SyncStatusView } from '../../../shared/app/sync';
import { useNow } from '../components/useNow';
import { boundedText } from '../components/bounded';
import { BoundedText } from '../components/BoundedText';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { href, navigate, useRoute } from '../router';
import { useStatus } from '../stores/status';
import { followSync, useSync } from '../stores/sync';
import { ConflictView } from './ConflictView';
import { SyncConnect } from './SyncConnect';
import { PushModeCard } from './SyncPushMode';
import { SyncReview } from './SyncReview';
import { DateTime, dateTitle } from '../components/DateTime';
import {
  ageText,
  connectionExplained,
  connectionText,
  countdownText,
  entryRoute,
  fieldLabel,
  OP_TEXT,
  plural,
  progressCount,
  progressText,
  resourceText,
  resultText,
  STATE_TEXT,
} from './syncFormat';
import './sync.css';

/** A countdown to `at` that ticks every second by itself (the screen around it does not re-render). */
function Countdown({ at }: { at: string }) {
  const now = useNow(1000);
  return <>{countdownText(at, now)}</>;
}

/** The last sync's outcome ("Sync now" shows it once the sync ends), with what to try after an error. */
function LastResult({ result, now }: { result: SyncResult; now: number }) {
  const { ok, text, advice } = resultText(result);
  return (
    <div className={`notice ${ok ? 'ok' : 'error'} sync-result`} data-testid="sync-result" role="status">
      <p>
        <span className="muted">Last sync, {ageText(result.finished, now)}:</span> <BoundedText value={text} label="Last sync" />
      </p>
      {advice && <p className="sync-advice">{advice}</p>}
    </div>
  );
}

/** While the central server does not answer: when the next automatic attempt comes and what to try. */
function OfflineBanner({ status }: { status: SyncStatusView }) {
  if (status.connection !== 'offline' || status.syncing) return null;
  const advice = syncAdvice(status.lastErrorKind) ?? syncAdvice('network');
  return (
    <div className="notice warn sync-offline-banner" data-testid="sync-offline" role="status">
      <p>
        <strong>The central server did not answer.</strong>{' '}
        {status.nextAttemptAt !== null ? <>
            Next attempt <Countdown at={status.nextAttemptAt} />.
          </> : 'No automatic attempt is planned: use Sync now.'}
      </p>
      {advice && <p>{advice}</p>}
    </div>
  );
}

function When({ value, now }: { value: string | null; now: number }) {
  if (!value) return <span className="muted">never</span>;
  return (
    <>
      <DateTime value={value} /> <span className="muted">({ageText(value, now)})</span>
    </>
  );
}

function ProgressBar({ progress }: { progress: SyncProgress | null }) {
  const phase = progressText(progress);
  const counted = progressCount(progress);
  const known = progress !== null && progress.total > 0;
  const percent = known ? Math.min(100, Math.round((progress.done / progress.total) * 100)) : 0;
  return (
    <div className="sync-progress">
      <div className="sync-progress-text" aria-hidden="true">
        <span>{phase}</span>
        <span className="muted">{counted}</span>
      </div>
      <div
        role="progressbar"
        aria-label="Sync progress"
        aria-valuemin={0}
        aria-valuemax={known ? progress.total : undefined}
        aria-valuenow={known ? Math.min(progress.done, progress.total) : undefined}
        aria-valuetext={counted ? `${phase}: ${counted}` : phase}
        className={known ? 'sync-bar' : 'sync-bar indeterminate'}
      >
        <div className="sync-bar-fill" style={known ? { width: `${percent}%` } : undefined} />
      </div>
    </div>
  );
}

function RemoteCard({ status, now }: { status: SyncStatusView; now: number }) {
  const syncNow = useSync((s) => s.syncNow);
  const [allowing, setAllowing] = useState(false);
  return (
    <section className="sync-card" aria-labelledby="sync-remote-title">
      <h2 id="sync-remote-title">Central server</h2>
      <div className={`sync-state sync-state-${status.connection}`} data-testid="sync-connection">
        <span className="sync-state-dot" aria-hidden="true" />
        <div>
          <strong>{connectionText(status)}</strong>
          <p>{connectionExplained(status)}</p>
        </div>
      </div>
      <dl className="facts">
        <dt>Remote</dt>
        <dd>{boundedText(status.remote.name)}</dd>
        <dt>URL</dt>
        <dd>
          <code>{status.remote.url === null ? '—' : boundedText(status.remote.url)}</code>
        </dd>
        <dt>Last push</dt>
        <dd title="When the central server last accepted a change from here">
          <When value={status.lastPush} now={now} />
        </dd>
        <dt>Last attempt</dt>
        <dd>
          <When value={status.lastAttempt} now={now} />
        </dd>
        <dt>Next attempt</dt>
        <dd data-testid="sync-next-attempt">
          {status.syncing ? (
            <span className="muted">a sync is running</span>
          ) : status.nextAttemptAt !== null ? (
            <>
              <Countdown at={status.nextAttemptAt} /> <span className="muted">(<DateTime value={status.nextAttemptAt} />)</span>
            </>
          ) : (
            <span className="muted">{status.connection === 'auth_failed' ? 'none until the token is replaced' : 'none planned: use Sync now'}</span>
          )}
        </dd>
        <dt>Last pull</dt>
        <dd>
          <When value={status.lastPull} now={now} />
        </dd>
        <dt>Last error</dt>
        <dd className={status.lastError ? 'sync-last-error' : undefined}>{status.lastError !== null ? <BoundedText value={status.lastError} label="Last error" /> : <span className="muted">none</span>}</dd>
      </dl>
      {status.syncing && <ProgressBar progress={status.progress} />}
      {!status.syncing && status.lastResult && <LastResult result={status.lastResult} now={now} />}
      <OfflineBanner status={status} />
      {status.connection === 'auth_failed' && (
        <p className="notice error">
          The central server refused the token. Replace it in <a href={href('/settings')}>Settings → Remotes</a>, then sync again.
        </p>
      )}
      {status.lastErrorKind === 'mass_delete' && !status.syncing && (
        <div className="notice warn">
          <p>
            The last pull stopped rather than delete most of the objects of one kind here. If they really were deleted on the central server, sync
            once allowing it.
          </p>
          <button type="button" className="danger" onClick={() => setAllowing(true)}>
            Sync allowing mass delete
          </button>
        </div>
      )}
      {allowing && (
        <ConfirmDialog
          title="Sync allowing mass delete?"
          message="Objects the central server no longer lists are removed from this workspace, however many. Do this only if they were really deleted there."
          confirmLabel="Sync and delete them here"
          withComment={false}
          onClose={() => setAllowing(false)}
          onConfirm={() => syncNow({ allowMassDelete: true })}
        />
      )}
    </section>
  );
}

function ObjectCell({ entry }: { entry: EntryView }) {
  const route = entryRoute(entry);
  return (
    <>
      <span className="muted kind">{resourceText(entry.resource)}</span> {route ? <a href={href(route)}>{boundedText(entry.label)}</a> : boundedText(entry.label)}
    </>
  );
}

function changedFields(entry: EntryView): string {
  if (entry.op === 'delete') return '';
  if (entry.op === 'create') return 'new object';
  return Object.keys(entry.fields)
    .map((field) => fieldLabel(entry.resource, field))
    .join(', ');
}

function RefusedChanges({ entries, now }: { entries: readonly EntryView[]; now: number }) {
  const retry = useSync((s) => s.retry);
  const discard = useSync((s) => s.discard);
  const [discarding, setDiscarding] = useState<EntryView | undefined>();
  if (entries.length === 0) return null;
  return (
    <section className="sync-card" aria-labelledby="sync-refused-title">
      <h2 id="sync-refused-title">Refused by the central server</h2>
      <p className="muted">
        These changes stay here until you act. Edit the object to fix it (the change is sent again with your edit), retry once the central server's
        side is fixed, or discard the change.
      </p>
      <ul className="refused-list">
        {entries.map((entry) => (
          <li key={entry.seq} className="refused" aria-label={`Refused: ${OP_TEXT[entry.op].toLowerCase()} ${boundedText(entry.label)}`}>
            <div>
              <strong>{OP_TEXT[entry.op]}</strong> <ObjectCell entry={entry} />{' '}
              <span className="muted">
                · {ageText(entry.created, now)}
                {entry.comment ? (
                  <>
                    {' '}
                    · “<BoundedText value={entry.comment} label="Comment" />”
                  </>
                ) : null}
              </span>
            </div>
            <p className="remote-message">
              <span className="muted">The central server answered:</span> {entry.message !== null ? <BoundedText value={entry.message} label="The central server's answer" /> : 'no reason given'}
            </p>
            <div className="actions">
              <button type="button" onClick={() => void retry(entry.seq)} aria-label={`Retry ${boundedText(entry.label)}`}>
                Retry
              </button>
              <button type="button" className="danger" onClick={() => setDiscarding(entry)} aria-label={`Discard ${boundedText(entry.label)}`}>
                Discard
              </button>
            </div>
          </li>
        ))}
      </ul>
      {discarding && (
        <ConfirmDialog
          title={`Discard the ${OP_TEXT[discarding.op].toLowerCase()} of “${boundedText(discarding.label)}”?`}
          message={
            discarding.op === 'create'
              ? 'The object made here is removed, with every later change to it. The central server is not told anything.'
              : 'The object goes back to the central server’s state here. The central server is not told anything.'
          }
          confirmLabel="Discard the change"
          withComment={false}
          onClose={() => setDiscarding(undefined)}
          onConfirm={() => discard(discarding.seq)}
        />
      )}
    </section>
  );
}

function Outbox({ entries, now, review }: { entries: readonly EntryView[]; now: number; review: boolean }) {
  return (
    <section className="sync-card" aria-labelledby="sync-outbox-title">
      <h2 id="sync-outbox-title">{review ? 'Changes awaiting review' : 'Changes waiting'}</h2>
      {review && entries.length > 0 && (
        <p className="muted">
          Nothing here leaves until you send it from the <a href={href('/sync/review')}>Review</a>.
        </p>
      )}
      {entries.length === 0 ? (
        <p className="empty">Nothing waits: every change made here has reached the central server.</p>
      ) : (
        <table className="data outbox" aria-labelledby="sync-outbox-title">
          <thead>
            <tr>
              <th scope="col">Operation</th>
              <th scope="col">Object</th>
              <th scope="col">Fields</th>
              <th scope="col">State</th>
              <th scope="col">Comment</th>
              <th scope="col">Made</th>
            </tr>
          </thead>
          <tbody>
            {entries.map((entry) => (
              <tr key={entry.seq}>
                <td>{OP_TEXT[entry.op]}</td>
                <td>
                  <ObjectCell entry={entry} />
                </td>
                <td className="muted">{boundedText(changedFields(entry))}</td>
                <td>
                  {entry.state === 'conflict' ? (
                    <a className="state state-conflict" href={href(`/sync/conflicts/${entry.seq}`)}>
                      Conflict: resolve
                    </a>
                  ) : (
                    <span className={`state state-${entry.state}`}>{STATE_TEXT[entry.state]}</span>
                  )}
                </td>
                <td>{entry.comment !== null ? <BoundedText value={entry.comment} label="Comment" /> : <span className="muted">—</span>}</td>
                <td>
                  <time dateTime={entry.created} title={dateTitle(entry.created)}>
                    {ageText(entry.created, now)}
                  </time>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

function ConflictsSummary({ count }: { count: number }) {
  if (count === 0) return null;
  return (
    <p className="notice warn conflicts-summary">
      <strong>{plural(count, 'change is', 'changes are')} in conflict</strong> with what a colleague changed on the central server.{' '}
      <a href={href('/sync/conflicts')}>Resolve conflicts</a>
    </p>
  );
}

function Standalone() {
  const workspace = useStatus((s) => s.app?.workspace);
  return (
    <section className="sync-card" aria-labelledby="sync-standalone-title">
      <h2 id="sync-standalone-title">This workspace is standalone</h2>
      <p>
        {workspace ? <>“{boundedText(workspace)}” </> : 'This workspace '}is not bound to a central server: what you change here stays on this computer, and there is
        nothing to sync.
      </p>
      <p>
        To send what was made here to a central server, connect this workspace: a plan shows first what would be created there and what has the
        same name there, and nothing changes until you confirm.
      </p>
      <p>
        <a className="button primary" href={href('/sync/connect')}>
          Connect to a central server…
        </a>
      </p>
      <p className="muted">
        Or work in a new workspace bound to it: add the central server in <a href={href('/settings')}>Settings</a> (Remotes: its URL and a token), then
        create a workspace bound to it (Workspaces) and open that workspace.
      </p>
    </section>
  );
}

export function SyncScreen() {
  const route = useRoute();
  const status = useSync((s) => s.status);
  const entries = useSync((s) => s.entries);
  const loaded = useSync((s) => s.loaded);
  const unavailable = useSync((s) => s.unavailable);
  const error = useSync((s) => s.error);
  const syncNow = useSync((s) => s.syncNow);
  const now = useNow();
  // A standalone workspace has nothing to sync: no request is made for it.
  const mode = useStatus((s) => s.app?.mode);
  useEffect(() => (mode === 'bound' ? followSync() : undefined), [mode]);

  const conflictsRoute = route.segments[1] === 'conflicts';
  const reviewRoute = route.segments[1] === 'review';
  const connectRoute = route.segments[1] === 'connect';
  const reviewMode = status?.pushMode === 'review';
  const opensReview = reviewMode && (status?.awaitingReview ?? 0) > 0;
  const seqText = route.segments[2];
  const seq = seqText !== undefined && /^\d+$/.test(seqText) ? Number(seqText) : undefined;
  const syncing = status?.syncing === true;

  let body;
  if (connectRoute) body = <SyncConnect />;
  else if (mode === 'standalone') body = <Standalone />;
  else if (!loaded) body = <p className="loading" role="status">Loading…</p>;
  else if (unavailable?.status === 404) body = <Standalone />;
  else if (unavailable) {
    body = (
      <p className="notice error" role="alert">
        {unavailable.message} Set it up in <a href={href('/settings')}>Settings → Remotes</a>.
      </p>
    );
  } else if (!status) body = null;
  else if (conflictsRoute) body = <ConflictView seq={seq} now={now} />;
  else if (reviewRoute) body = <SyncReview />;
  else {
    body = (
      <>
        <RemoteCard status={status} now={now} />
        <PushModeCard mode={status.pushMode} />
        <ConflictsSummary count={entries.filter((e) => e.state === 'conflict').length} />
        <RefusedChanges entries={entries.filter((e) => e.state === 'parked')} now={now} />
        <Outbox entries={entries} now={now} review={reviewMode} />
      </>
    );
  }

  return (
    <div className="screen sync-screen">
      <header className="pane-head">
        <h1>{conflictsRoute ? 'Sync: conflicts' : reviewRoute ? 'Sync: review' : connectRoute ? 'Sync: connect' : 'Sync'}</h1>
        {conflictsRoute || reviewRoute || connectRoute ? (
          <a className="back" href={href('/sync')}>
            Back to Sync
          </a>
        ) : (
          status && mode === 'bound' && (
            <div className="actions">
              {/* After review, Sync now opens the Review while changes await it: nothing leaves unseen. With none waiting it pulls (the server pushes nothing in that mode). */}
              <button
                type="button"
                className="primary"
                disabled={syncing && !opensReview}
                title={opensReview ? 'Opens the Review: changes are sent after you review them' : undefined}
                onClick={() => (opensReview ? navigate(href('/sync/review')) : void syncNow())}
              >
                {syncing && !opensReview ? 'Syncing…' : 'Sync now'}
              </button>
              {!reviewMode && (
                <a className="button" href={href('/sync/review')}>
                  Review
                </a>
              )}
            </div>
          )
        )}
      </header>
      {error && (
        <p className="notice error" role="alert">
          {error}
        </p>
      )}
      {body}
    </div>
  );
}
