/**
 * Conflicts (app.md §3 "update", "delete"): a change made here to a field the central server
 * also changed, to another value, waits for the user. Each is shown with its base (what both
 * sides had), mine and theirs, and resolved field by field; a delete of an object changed on
 * the central server meanwhile is confirmed ("Delete anyway") or given up ("Keep it"). Values are
 * shown bounded (components/BoundedText.tsx), whichever side they come from.
 */
import { useEffect, useRef, useState } from 'react';
import type { ConflictField, EntryView } from '../../../shared/app/sync';
import type { JsonValue } from '../../../shared/resources';
import { boundedText } from '../components/bounded';
import { BoundedText } from '../components/BoundedText';
import { href } from '../router';
import { useSync } from '../stores/sync';
import { formatSeen } from './hostsFormat';
import { ageText, comparedLines, entryRoute, fieldLabel, resourceText, valueLines, type LineChange } from './syncFormat';

const CHANGE_TITLE: Readonly<Record<LineChange, string | undefined>> = {
  same: undefined,
  changed: 'changed from the base',
  added: 'added since the base',
  removed: 'removed since the base',
};

/** A value; against `base`, the items of interfaces and protocols that changed stand out. */
function Value({ field, value, base, className }: { field: string; value: JsonValue; base?: JsonValue; className?: string }) {
  const lines = valueLines(field, value);
  const placeholder = (line: string) => line === '(empty)' || line === '(none)';
  const compared = base === undefined ? lines.map((text) => ({ text, change: 'same' as const })) : comparedLines(field, value, base);
  if (compared.length > 1 || (Array.isArray(value) && value.length > 0)) {
    return (
      <ul className={`conflict-value list ${className ?? ''}`}>
        {compared.map((line) => (
          <li key={line.text} className={`item-${line.change}`} title={CHANGE_TITLE[line.change]}>
            <BoundedText value={line.text} label={field} />
          </li>
        ))}
      </ul>
    );
  }
  const line = lines[0] ?? '';
  return (
    <span className={`conflict-value ${placeholder(line) ? 'placeholder-value' : ''} ${className ?? ''}`}>
      <BoundedText value={line} label={field} />
    </span>
  );
}

function ObjectName({ entry }: { entry: EntryView }) {
  const route = entryRoute(entry);
  return route ? <a href={href(route)}>{boundedText(entry.label)}</a> : <>{boundedText(entry.label)}</>;
}

function EntryHead({ entry, now }: { entry: EntryView; now: number }) {
  const title = `conflict-${entry.seq}-title`;
  return (
    <header className="conflict-head">
      <h2 id={title}>
        <span className="muted kind">{resourceText(entry.resource)}</span> <ObjectName entry={entry} />
      </h2>
      <p className="muted">
        {entry.op === 'delete' ? 'Deleted here' : 'Changed here'}{' '}
        <time dateTime={entry.created} title={formatSeen(entry.created)}>
          {ageText(entry.created, now)}
        </time>
        {entry.comment ? (
          <>
            {' '}
            with the comment{' '}
            <q className="comment">
              <BoundedText value={entry.comment} label="Comment" />
            </q>
          </>
        ) : (
          ', without comment'
        )}
      </p>
    </header>
  );
}

function UpdateConflict({ entry, busy, onChoose }: { entry: EntryView; busy: boolean; onChoose: (field: string, choice: 'mine' | 'theirs') => void }) {
  return (
    <>
      <p>
        This change and the central server changed the same {entry.conflicts.length === 1 ? 'field' : 'fields'} to different values. Choose, field by
        field, which value stays; the other fields of the change were sent already.
      </p>
      <table className="data conflict-table" aria-label={`Conflicting fields of ${boundedText(entry.label)}`}>
        <thead>
          <tr>
            <th scope="col">Field</th>
            <th scope="col">Before (base)</th>
            <th scope="col">Mine (this workspace)</th>
            <th scope="col">Theirs (central server)</th>
            <th scope="col">Keep</th>
          </tr>
        </thead>
        <tbody>
          {entry.conflicts.map((c: ConflictField) => {
            const label = fieldLabel(entry.resource, c.field);
            return (
              <tr key={c.field}>
                <th scope="row">{label}</th>
                <td>
                  <Value field={c.field} value={c.base} className="base" />
                </td>
                <td className="mine">
                  <Value field={c.field} value={c.mine} base={c.base} />
                </td>
                <td className="theirs">
                  <Value field={c.field} value={c.theirs} base={c.base} />
                </td>
                <td className="choose">
                  <button type="button" disabled={busy} aria-label={`Keep mine for ${label}`} onClick={() => onChoose(c.field, 'mine')}>
                    Keep mine
                  </button>
                  <button type="button" disabled={busy} aria-label={`Take theirs for ${label}`} onClick={() => onChoose(c.field, 'theirs')}>
                    Take theirs
                  </button>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </>
  );
}

function DeleteConflict({ entry, busy, onDelete, onKeep }: { entry: EntryView; busy: boolean; onDelete: () => void; onKeep: () => void }) {
  return (
    <>
      <p className="notice warn">You deleted this; it was changed on the central server meanwhile.</p>
      <table className="data conflict-table" aria-label={`Changes to ${boundedText(entry.label)} on the central server`}>
        <thead>
          <tr>
            <th scope="col">Field</th>
            <th scope="col">When you deleted it</th>
            <th scope="col">Now on the central server</th>
          </tr>
        </thead>
        <tbody>
          {entry.conflicts.map((c) => (
            <tr key={c.field}>
              <th scope="row">{fieldLabel(entry.resource, c.field)}</th>
              <td>
                <Value field={c.field} value={c.base} className="base" />
              </td>
              <td className="theirs">
                <Value field={c.field} value={c.theirs} base={c.base} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <div className="actions">
        <button type="button" className="danger" disabled={busy} onClick={onDelete}>
          Delete anyway
        </button>
        <button type="button" disabled={busy} onClick={onKeep}>
          Keep it
        </button>
      </div>
    </>
  );
}

function ConflictEntry({ entry, now, onResolved }: { entry: EntryView; now: number; onResolved: () => void }) {
  const [busy, setBusy] = useState(false);
  const resolve = useSync((s) => s.resolve);
  const run = async (steps: readonly { field: string; choice: 'mine' | 'theirs' }[]) => {
    setBusy(true);
    try {
      for (const step of steps) await resolve(entry.seq, step.field, step.choice);
    } finally {
      setBusy(false);
      onResolved();
    }
  };
  return (
    <article className="conflict" aria-labelledby={`conflict-${entry.seq}-title`}>
      <EntryHead entry={entry} now={now} />
      {entry.op === 'delete' ? (
        <DeleteConflict
          entry={entry}
          busy={busy}
          // Every changed field confirmed as "mine" lets the delete go.
          onDelete={() => void run(entry.conflicts.map((c) => ({ field: c.field, choice: 'mine' })))}
          onKeep={() => void run(entry.conflicts.slice(0, 1).map((c) => ({ field: c.field, choice: 'theirs' })))}
        />
      ) : (
        <UpdateConflict entry={entry} busy={busy} onChoose={(field, choice) => void run([{ field, choice }])} />
      )}
    </article>
  );
}

/** Every conflict, or the one of `seq`; when none is left, says so and offers a sync. */
export function ConflictView({ seq, now }: { seq: number | undefined; now: number }) {
  const entries = useSync((s) => s.entries);
  const syncing = useSync((s) => s.status?.syncing === true);
  const syncNow = useSync((s) => s.syncNow);
  const conflicts = entries.filter((e) => e.state === 'conflict');
  const shown = seq === undefined ? conflicts : conflicts.filter((e) => e.seq === seq);
  const section = useRef<HTMLElement>(null);
  const [resolved, setResolved] = useState(0);
  useEffect(() => {
    // The row whose button had the focus is gone: the keyboard goes on from the next choice.
    const focused = document.activeElement;
    if (resolved === 0 || (focused && focused !== document.body && section.current?.contains(focused))) return;
    section.current?.querySelector<HTMLButtonElement>('button:not([disabled])')?.focus();
  }, [resolved, entries]);
  return (
    <section ref={section} className="conflicts" aria-label="Conflicts">
      {conflicts.length > 0 && (
        <p className="muted conflicts-count">
          {conflicts.length === 1 ? 'One change waits' : `${conflicts.length} changes wait`} for your choice.
          {seq !== undefined && conflicts.length > 1 && (
            <>
              {' '}
              <a href={href('/sync/conflicts')}>Show all conflicts</a>
            </>
          )}
        </p>
      )}
      {shown.length === 0 ? (
        <div className="notice ok conflicts-done" role="status">
          <p>{seq !== undefined && conflicts.length > 0 ? 'This conflict is resolved.' : 'No conflicts wait.'} Sync to send the changes you kept.</p>
          <div className="actions">
            <button type="button" className="primary" disabled={syncing} onClick={() => void syncNow()}>
              {syncing ? 'Syncing…' : 'Sync now'}
            </button>
            {seq !== undefined && conflicts.length > 0 && <a href={href('/sync/conflicts')}>Other conflicts</a>}
          </div>
        </div>
      ) : (
        shown.map((entry) => <ConflictEntry key={entry.seq} entry={entry} now={now} onResolved={() => setResolved((n) => n + 1)} />)
      )}
    </section>
  );
}
