/**
 * Import of a host-identity file (api.md §7: a JSON array of `{ip, hits?, host_id}` entries) to
 * `host_id/import/?comment=…`: the upload's progress, then the server's answer; a cancel button;
 * the count imported, or the first entries in error with their messages (nothing is imported
 * then: the server takes the file whole or not at all).
 */
import { useEffect, useRef, useState } from 'react';
import { hostId, type JsonValue } from '../../../shared/resources';
import { listPath } from '../../../shared/resources/derived';
import { ApiFailure, withQuery } from '../api/client';
import { ImportForm } from '../components/ImportForm';
import { boundedText } from '../components/bounded';
import { BoundedText } from '../components/BoundedText';
import { formatBytes, invalidEntries, type InvalidEntry } from './hostsFormat';
import { uploadJsonFile, type Upload } from './hostsUpload';

const IMPORT_PATH = `${listPath(hostId)}import/`;
/** Entries in error listed with their messages; the rest are counted. */
const LISTED_ERRORS = 10;

type Phase =
  | { readonly kind: 'idle' }
  | { readonly kind: 'sending'; readonly loaded: number; readonly total: number }
  | { readonly kind: 'importing'; readonly total: number }
  | { readonly kind: 'done'; readonly imported: number; readonly total: number }
  | { readonly kind: 'cancelled'; readonly afterSending: boolean }
  | { readonly kind: 'failed'; readonly message: string; readonly entries?: { readonly total: number; readonly inError: number; readonly first: readonly InvalidEntry[] } };

function failureOf(error: unknown): Phase {
  if (!(error instanceof ApiFailure)) return { kind: 'failed', message: String(error) };
  const entries = invalidEntries(error.body, LISTED_ERRORS);
  if (entries) {
    return {
      kind: 'failed',
      message: `${entries.inError} of ${entries.total} ${entries.total === 1 ? 'entry is' : 'entries are'} invalid; nothing was imported.`,
      entries,
    };
  }
  const fields = error.fieldErrors();
  const messages = Object.values(fields).flatMap((value: JsonValue) => (Array.isArray(value) ? value.map(String) : [String(value)]));
  return { kind: 'failed', message: messages.length > 0 ? `The file was refused: ${messages.join(' ')}` : error.message };
}

function ProgressLine({ phase }: { phase: Phase }) {
  if (phase.kind === 'sending') {
    const percent = phase.total > 0 ? Math.floor((phase.loaded / phase.total) * 100) : 0;
    return (
      <>
        <progress aria-label="Import progress" max={100} value={percent} />
        <span>
          Sending the file: {percent}% ({formatBytes(phase.loaded)} of {formatBytes(phase.total)})
        </span>
      </>
    );
  }
  if (phase.kind === 'importing') {
    // The file is sent; how long the server takes is unknown: an indeterminate bar.
    return (
      <>
        <progress aria-label="Import progress" max={100} />
        <span>File sent ({formatBytes(phase.total)}); the local server is checking and importing it…</span>
      </>
    );
  }
  if (phase.kind === 'done') {
    return (
      <>
        <progress aria-label="Import progress" max={100} value={100} />
        <span>
          Imported {phase.imported.toLocaleString()} host {phase.imported === 1 ? 'identity' : 'identities'}.
        </span>
      </>
    );
  }
  return null;
}

export function HostImport({ onImported, onClose }: { onImported: (count: number) => void; onClose: () => void }) {
  const [file, setFile] = useState<File | undefined>();
  const [comment, setComment] = useState('');
  const [phase, setPhase] = useState<Phase>({ kind: 'idle' });
  const upload = useRef<Upload | undefined>(undefined);
  const sent = useRef(false);
  useEffect(() => () => upload.current?.abort(), []);

  const busy = phase.kind === 'sending' || phase.kind === 'importing';

  const start = async () => {
    if (!file) return;
    sent.current = false;
    setPhase({ kind: 'sending', loaded: 0, total: file.size });
    const current = uploadJsonFile(withQuery(IMPORT_PATH, { comment: comment.trim() || undefined }), file, {
      onProgress: (loaded, total) => {
        if (!sent.current) setPhase({ kind: 'sending', loaded, total });
      },
      onSent: () => {
        sent.current = true;
        setPhase({ kind: 'importing', total: file.size });
      },
    });
    upload.current = current;
    try {
      const answer = await current.done;
      const imported = typeof answer === 'object' && answer !== null && !Array.isArray(answer) ? Number(answer.imported) : 0;
      setPhase({ kind: 'done', imported, total: file.size });
      onImported(imported);
    } catch (error) {
      if (error instanceof DOMException && error.name === 'AbortError') setPhase({ kind: 'cancelled', afterSending: sent.current });
      else setPhase(failureOf(error));
    } finally {
      upload.current = undefined;
    }
  };

  return (
    <section className="host-import" aria-labelledby="host-import-title">
      <header className="detail-head">
        <h2 id="host-import-title">Import host identities</h2>
        <button type="button" className="link" onClick={onClose} disabled={busy}>
          Close
        </button>
      </header>
      <p className="muted">
        A JSON array of host entries as the API serves them (<code>{'{"ip", "hits", "host_id"}'}</code>). Each entry adds the host of its address or
        replaces it; a file with any invalid entry is refused whole.
      </p>
      <ImportForm
        id="host-import-file"
        label="Host identity file (JSON)"
        accept=".json,application/json"
        action="Import file"
        ready={file !== undefined}
        busy={busy}
        onFile={(chosen) => {
          setFile(chosen);
          setPhase({ kind: 'idle' });
        }}
        onStart={() => void start()}
        onCancel={() => upload.current?.abort()}
      >
        <label htmlFor="host-import-comment">Comment (optional)</label>
        <input id="host-import-comment" value={comment} disabled={busy} onChange={(event) => setComment(event.target.value)} placeholder="Why: e.g. hosts seen at the customer's site" />
      </ImportForm>
      <div className="import-progress" role="status" aria-live="polite">
        <ProgressLine phase={phase} />
        {phase.kind === 'cancelled' && (
          <span>
            {phase.afterSending
              ? 'Cancelled after the file was sent: the server may have imported it already; check the known hosts and the history.'
              : 'Import cancelled; nothing was imported.'}
          </span>
        )}
      </div>
      {phase.kind === 'failed' && (
        <div className="notice error" role="alert">
          <p>
            <BoundedText value={phase.message} label="The message" />
          </p>
          {phase.entries && phase.entries.first.length > 0 && (
            <ul className="entry-errors" aria-label="Entries in error">
              {phase.entries.first.map((entry) => (
                <li key={entry.position}>
                  <strong>Entry {entry.position}</strong>
                  <ul>
                    {entry.problems.map((problem, i) => (
                      <li key={i}>
                        {problem.path ? <code>{boundedText(problem.path)}</code> : null}
                        {problem.path ? ': ' : ''}
                        <BoundedText value={problem.message} label="The message" />
                      </li>
                    ))}
                  </ul>
                </li>
              ))}
            </ul>
          )}
          {phase.entries && phase.entries.inError > phase.entries.first.length && (
            <p>…and {(phase.entries.inError - phase.entries.first.length).toLocaleString()} more entries in error.</p>
          )}
        </div>
      )}
    </section>
  );
}
