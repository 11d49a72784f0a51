/**
 * The status bar's sync indicator (app.md §4: "The UI shows at all times whether it is offline,
 * how many changes wait, and whether conflicts wait"): the connection to the central server,
 * "Syncing…" while a sync runs, the changes waiting, refused and in conflict, each a link to
 * where it is dealt with. "Online" only once the central server answered; while it does not,
 * when the next automatic attempt comes.
 */
import type { SyncStatusView } from '../../../shared/app/sync';
import { href } from '../router';
import { connectionText, countdownText, plural, waitingText } from '../screens/syncFormat';
import { boundedText } from './bounded';
import { useNow } from './useNow';
import './SyncIndicator.css';

export function SyncIndicator({ sync }: { sync: SyncStatusView }) {
  const now = useNow(1000);
  if (sync.problem || !sync.outbox) {
    return (
      <span className="sync-indicator" data-testid="sync-indicator">
        Central server: <strong className="sync-problem">not configured</strong>{' '}
        <a href={href('/settings')} title={sync.problem ? boundedText(sync.problem) : undefined}>
          set up the remote “{boundedText(sync.remote.name)}”
        </a>
      </span>
    );
  }
  const { parked, conflicts } = sync.outbox;
  const waiting = waitingText({ ...sync, outbox: sync.outbox });
  return (
    <span className="sync-indicator" data-testid="sync-indicator" aria-live="polite">
      <a href={href('/sync')} className={`sync-connection sync-${sync.connection}`} title={`Central server ${boundedText(sync.remote.name)}: open the Sync screen`}>
        <span className="sync-dot" aria-hidden="true" />
        {connectionText(sync)}
      </a>
      {sync.syncing && sync.connection !== 'unknown' && <strong className="sync-running">Syncing…</strong>}
      {!sync.syncing && sync.connection !== 'online' && sync.nextAttemptAt !== null && (
        <span className="sync-next" data-testid="sync-next">
          next attempt {countdownText(sync.nextAttemptAt, now)}
        </span>
      )}
      <a
        href={href(waiting.kind === 'review' ? '/sync/review' : '/sync')}
        className={waiting.kind === 'clear' ? 'sync-clear' : waiting.kind === 'review' ? 'sync-waiting sync-review' : 'sync-waiting'}
        title={waiting.kind === 'review' ? 'Nothing leaves until you review and send it: open the Review' : undefined}
      >
        {waiting.text}
      </a>
      {parked > 0 && (
        <a href={href('/sync')} className="sync-refused">
          {plural(parked, 'refused change', 'refused changes')}
        </a>
      )}
      {conflicts > 0 && (
        <a href={href('/sync/conflicts')} className="sync-conflicts">
          {plural(conflicts, 'conflict', 'conflicts')}
        </a>
      )}
    </span>
  );
}
