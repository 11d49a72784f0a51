/**
 * Import of a Suricata EVE log (docs/eve.md): the file is streamed to `/app/hosts/import-eve`
 * and imported as it arrives; the bar shows the bytes sent and, from the server, the events read
 * and the hosts found; Cancel stops the upload and nothing of it stays; then the summary.
 */
import { useEffect, useRef, useState } from 'react';
import type { EveProgress, EveSummary } from '../../../shared/eve/summary';
import { bridge } from '../api/bridge';
import { answerOf, ApiFailure, appCall } from '../api/client';
import { ImportForm } from '../components/ImportForm';
import { boundedText } from '../components/bounded';
import { BoundedText } from '../components/BoundedText';
import { startPolling, type Poller } from '../stores/poll';
import { formatBytes } from './hostsFormat';
import { uploadEveLog, type Upload } from './hostsUpload';

/** A reason and how many, with the first lines it happened on. */
interface Counted {
  readonly reason: string;
  readonly count: number;
  readonly first: readonly string[];
}

/** The import's summary with its reasons as lists, in the order the server gave them. */
interface Summary extends Omit<EveSummary, 'skipped' | 'dropped'> {
  readonly skipped: readonly Counted[];
  readonly dropped: readonly Counted[];
}

type Phase =
  | { readonly kind: 'idle' }
  /** `sent` of `total`: bytes received by the server while `receiving`, then bytes of the log read. */
  | { readonly kind: 'running'; readonly receiving: boolean; readonly sent: number; readonly total: number; readonly events: number; readonly hosts: number; readonly waiting?: string }
  | { readonly kind: 'done'; readonly summary: Summary }
  | { readonly kind: 'cancelled' }
  | { readonly kind: 'failed'; readonly message: string };

/** How often the page asks the server how far the import is: the next ask waits for the answer (stores/poll.ts). */
const PROGRESS_POLL_MS = 500;

/** Reasons and their counts, as the summary gives them. */
function countedOf(counts: EveSummary['skipped'] | EveSummary['dropped']): Counted[] {
  return Object.entries(counts).flatMap(([reason, counted]) => (counted ? [{ reason, count: counted.count, first: counted.first }] : []));
}

export function summaryOf(summary: EveSummary): Summary {
  return { ...summary, skipped: countedOf(summary.skipped), dropped: countedOf(summary.dropped) };
}

/** The server's progress, read until stopped; each answer that an import runs goes to `onProgress`. */
function followProgress(onProgress: (progress: EveProgress) => void): Poller {
  return startPolling(
    async (signal) => {
      const progress = await appCall('eveProgress', { signal });
      if (progress.running) onProgress(progress);
    },
    () => PROGRESS_POLL_MS,
  );
}

/** "12 lines skipped, not JSON (first: line 3, line 9)". */
function CountedList({ label, items, what }: { label: string; items: readonly Counted[]; what: (count: number) => string }) {
  if (items.length === 0) return null;
  return (
    <ul aria-label={label}>
      {items.map((s) => (
        <li key={s.reason}>
          {s.count.toLocaleString()} {what(s.count)}, {boundedText(s.reason)} (first: {s.first.map((w) => w.replace(/^.*:/, 'line ')).join(', ')})
        </li>
      ))}
    </ul>
  );
}

function SummaryView({ summary }: { summary: Summary }) {
  const nothingNew = summary.linesRead === 0;
  const already = summary.files[0]?.alreadyImported ?? 0;
  return (
    <div className="eve-summary" role="status">
      {nothingNew ? (
        <p>Nothing new: this log was imported before, up to its last line ({already.toLocaleString()} lines already imported).</p>
      ) : (
        <p>
          {summary.hostsCreated.toLocaleString()} new {summary.hostsCreated === 1 ? 'host' : 'hosts'}, {summary.hostsUpdated.toLocaleString()} updated, from{' '}
          {summary.eventsUsed.toLocaleString()} events ({summary.linesRead.toLocaleString()} lines read
          {already > 0 ? `, from line ${(already + 1).toLocaleString()}: the ${already.toLocaleString()} lines before were imported earlier` : ''}).
        </p>
      )}
      {summary.eventsOther > 0 && <p className="muted">{summary.eventsOther.toLocaleString()} events of other types say nothing of hosts.</p>}
      <CountedList label="Lines skipped" items={summary.skipped} what={(n) => (n === 1 ? 'line skipped' : 'lines skipped')} />
      <CountedList label="Values not stored" items={summary.dropped} what={(n) => (n === 1 ? 'value not stored' : 'values not stored')} />
    </div>
  );
}

/** The server's progress of the import under way, as the page shows it. */
function progressOf(progress: EveProgress): Extract<Phase, { kind: 'running' }> {
  const waiting = progress.waitingFor !== undefined ? { waiting: progress.waitingFor } : {};
  const counts = { sent: progress.bytesRead, total: progress.bytesTotal, events: progress.events, hosts: progress.hosts };
  return { kind: 'running', receiving: progress.receiving === true, ...counts, ...waiting };
}

export function EveImport({ onImported, onClose }: { onImported: () => void; onClose: () => void }) {
  const [file, setFile] = useState<File | undefined>();
  const [phase, setPhase] = useState<Phase>({ kind: 'idle' });
  const upload = useRef<Upload<EveSummary> | undefined>(undefined);
  const poll = useRef<Poller | undefined>(undefined);
  useEffect(
    () => () => {
      upload.current?.abort();
      poll.current?.stop();
    },
    [],
  );
  const busy = phase.kind === 'running';

  const start = async () => {
    if (!file) return;
    let sent = 0;
    // The server's progress, once it tells one: while it receives, the browser's count of bytes sent is the nearer.
    let server: ReturnType<typeof progressOf> | undefined;
    const show = () => setPhase(server && !server.receiving ? server : { ...(server ?? { events: 0, hosts: 0 }), kind: 'running', receiving: true, sent, total: file.size });
    show();
    const current = uploadEveLog(file, {
      onProgress: (loaded) => {
        sent = loaded;
        show();
      },
      onSent: () => undefined,
    });
    upload.current = current;
    poll.current = followProgress((progress) => {
      server = progressOf(progress);
      show();
    });
    try {
      setPhase({ kind: 'done', summary: summaryOf(await current.done) });
      onImported();
    } catch (error) {
      if (error instanceof DOMException && error.name === 'AbortError') setPhase({ kind: 'cancelled' });
      else setPhase({ kind: 'failed', message: error instanceof ApiFailure ? error.message : String(error) });
    } finally {
      poll.current.stop();
      upload.current = undefined;
    }
  };

  /** The desktop app: the main process asks for the file and streams it; the server tells the progress. */
  const startNative = async () => {
    let shown = false;
    poll.current = followProgress((progress) => {
      shown = true;
      setPhase(progressOf(progress));
    });
    try {
      const result = await bridge.importEveLog();
      if (result.outcome === 'done') {
        setPhase({ kind: 'done', summary: summaryOf(answerOf('importEve', result.summary)) });
        onImported();
      } else if (result.outcome === 'cancelled') setPhase(shown ? { kind: 'cancelled' } : { kind: 'idle' });
      else setPhase({ kind: 'failed', message: result.message });
    } finally {
      poll.current.stop();
    }
  };

  const percent = phase.kind === 'running' && phase.total > 0 ? Math.floor((phase.sent / phase.total) * 100) : 0;
  return (
    <section className="host-import" aria-labelledby="eve-import-title">
      <header className="detail-head">
        <h2 id="eve-import-title">Import an EVE log</h2>
        <button type="button" className="link" onClick={onClose} disabled={busy}>
          Close
        </button>
      </header>
      <p className="muted">
        A Suricata EVE log (<code>eve.json</code>, or gzipped). Hostnames, users, agents, fingerprints, services, roles and alert hits are derived from it;
        importing the same log again adds only what it gained since.
      </p>
      {bridge.kind === 'electron' ? (
        <div className="actions">
          <button type="button" className="primary" disabled={busy} onClick={() => void startNative()}>
            Choose an EVE log…
          </button>
          {busy && (
            <button type="button" onClick={() => void bridge.cancelEveImport()}>
              Cancel import
            </button>
          )}
        </div>
      ) : (
        <ImportForm
          id="eve-import-file"
          label="EVE log"
          action="Import log"
          ready={file !== undefined}
          busy={busy}
          onFile={(chosen) => {
            setFile(chosen);
            setPhase({ kind: 'idle' });
          }}
          onStart={() => void start()}
          onCancel={() => upload.current?.abort()}
        />
      )}
      <div className="import-progress" role="status" aria-live="polite">
        {phase.kind === 'running' && (
          <>
            <progress aria-label="EVE import progress" max={100} value={percent} />
            <span>
              {phase.waiting
                ? `Waiting: ${phase.waiting}.`
                : phase.receiving
                  ? `Receiving the log: ${percent}% (${formatBytes(phase.sent)} of ${formatBytes(phase.total)})`
                  : `Reading the log: ${percent}% (${formatBytes(phase.sent)} of ${formatBytes(phase.total)}), ${phase.events.toLocaleString()} events, ${phase.hosts.toLocaleString()} hosts`}
            </span>
          </>
        )}
        {phase.kind === 'cancelled' && <span>Import cancelled; nothing was imported.</span>}
      </div>
      {phase.kind === 'done' && <SummaryView summary={phase.summary} />}
      {phase.kind === 'failed' && (
        <p className="notice error" role="alert">
          <BoundedText value={phase.message} label="The message" />
        </p>
      )}
    </section>
  );
}
