/**
 * One history entry in full (api.md §5): when, who and from where, the action, the description
 * with its linked objects opening their screens while they exist, the comment, the objects, and
 * the fields the write changed, before and after (recorded by the app, `/app/history/<pk>/changes`).
 * Values are shown bounded (components/BoundedText.tsx): a comment or a value may be 100 KB.
 */
import type { FieldChange } from '../../../shared/api/fieldChanges';
import { history, type JsonObject, type JsonValue } from '../../../shared/resources';
import { listPath } from '../../../shared/resources/derived';
import { BoundedText } from '../components/BoundedText';
import { boundedText } from '../components/bounded';
import { appCall } from '../api/client';
import { useQuery } from '../data/useQuery';
import { useObject } from '../hooks';
import { href } from '../router';
import { formatSeen } from './hostsFormat';
import {
  actionTitle,
  changedResource,
  dayOf,
  descriptionParts,
  linkedObjects,
  objectRoute,
  typeLabel,
  type LinkedObject,
} from './historyFormat';
import { fieldLabel, valueLines } from './syncFormat';

function ObjectLink({ object, onFollow }: { object: LinkedObject; onFollow?: () => void }) {
  const route = objectRoute(object);
  const name = boundedText(object.value);
  if (!route) return <span className={object.type !== undefined && object.pk === undefined ? 'deleted-object' : undefined}>{name}</span>;
  return (
    <a
      href={href(route)}
      title={`Open ${typeLabel(object.type)} ${name}`}
      onClick={(event) => {
        // Inside a list row, following the link must not also open the entry.
        event.stopPropagation();
        onFollow?.();
      }}
    >
      {name}
    </a>
  );
}

/** The objects an entry links to, for a list row: links where a screen shows them. */
export function ObjectLinks({ entry }: { entry: JsonObject }) {
  const objects = linkedObjects(entry.ua_objects).filter((o) => o.type !== undefined);
  if (objects.length === 0) return null;
  return (
    <span className="object-links">
      {objects.map((object, i) => (
        <span key={object.key}>
          {i > 0 ? ', ' : ''}
          <ObjectLink object={object} />
        </span>
      ))}
    </span>
  );
}

/** An entry's description, its objects linked; in a list row its text is cut, in the entry shown on request. */
export function Description({ entry, inRow = false }: { entry: JsonObject; inRow?: boolean }) {
  const objects = linkedObjects(entry.ua_objects);
  const parts = descriptionParts(String(entry.description_raw ?? ''), String(entry.username ?? ''), objects);
  const text = (value: string) => (inRow ? boundedText(value) : <BoundedText value={value} label="Description" />);
  if (!parts) return <>{text(String(entry.description ?? ''))}</>;
  return (
    <>
      {parts.map((part, i) => ('text' in part ? <span key={i}>{text(part.text)}</span> : <ObjectLink key={i} object={part.object} />))}
    </>
  );
}

/** A value before or after: one line, or a list (interfaces, protocols); absent as a dash. */
function ChangeValue({ field, value, present }: { field: string; value: JsonValue | undefined; present: boolean }) {
  if (!present) return <span className="muted">—</span>;
  const lines = valueLines(field, value);
  if (lines.length === 1 && !Array.isArray(value))
    return (
      <span className="change-value">
        <BoundedText value={lines[0] ?? ''} label={field} />
      </span>
    );
  return (
    <ul className="change-value list">
      {lines.map((line) => (
        <li key={line}>
          <BoundedText value={line} label={field} />
        </li>
      ))}
    </ul>
  );
}

function ChangeRow({ resource, change }: { resource: string; change: FieldChange }) {
  return (
    <tr>
      <th scope="row">{fieldLabel(resource, change.field)}</th>
      {change.secret ? (
        <td colSpan={2} className="secret-change">
          changed <span className="muted">(a secret: its values are never recorded)</span>
        </td>
      ) : (
        <>
          <td className="change-from">
            <ChangeValue field={change.field} value={change.from} present={'from' in change} />
          </td>
          <td className="change-to">
            <ChangeValue field={change.field} value={change.to} present={'to' in change} />
          </td>
        </>
      )}
    </tr>
  );
}

/** The fields the write changed, as recorded with the entry. */
function EntryChanges({ pk, entry }: { pk: number; entry: JsonObject }) {
  const answer = useQuery(`history-changes-${pk}`, (signal) => appCall('historyChanges', { params: { pk }, signal }));
  if (answer.error) return <p className="notice error">{answer.error.message}</p>;
  if (!answer.data?.recorded) return null;
  const { changes } = answer.data;
  const resource = changedResource(entry.ua_objects) ?? '';
  return (
    <section className="entry-changes" aria-labelledby="history-changes-title">
      <h3 id="history-changes-title">Changes</h3>
      {changes.length === 0 ? (
        <p className="muted">This write changed no field.</p>
      ) : (
        <table className="data changes" aria-labelledby="history-changes-title">
          <thead>
            <tr>
              <th scope="col">Field</th>
              <th scope="col">Before</th>
              <th scope="col">After</th>
            </tr>
          </thead>
          <tbody>
            {changes.map((change) => (
              <ChangeRow key={change.field} resource={resource} change={change} />
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

/**
 * An import's entry leads to its hosts: the import (a visit) that names this entry as its own,
 * among the latest 50 (those a comparison keeps), filters the Hosts screen to what it brought.
 */
function ImportHosts({ pk }: { pk: number }) {
  const visits = useQuery(`visits-of-history#${pk}`, (signal) => appCall('visits', { query: { page_size: 50 }, signal }));
  const visit = visits.data?.results.find((v) => v.historyPk === pk);
  if (!visit) return null;
  return (
    <p className="import-hosts">
      Import {visit.pk}: {visit.hostsNew} new, {visit.hostsUpdated} updated —{' '}
      <a href={href('/hosts', { visit: String(visit.pk), visit_change: 'new' })}>its new hosts</a>,{' '}
      <a href={href('/hosts', { visit: String(visit.pk), visit_change: 'changed' })}>the hosts it changed</a>
    </p>
  );
}

export function HistoryEntry({ pk, onFilter }: { pk: number; onFilter: (changes: Record<string, string>) => void }) {
  const entry = useObject(`${listPath(history)}${pk}/`);
  if (entry.error) {
    return (
      <p className="notice error" role="alert">
        {entry.error.message}
      </p>
    );
  }
  if (!entry.data) {
    return (
      <p className="loading" role="status">
        Loading…
      </p>
    );
  }
  const data = entry.data;
  const objects = linkedObjects(data.ua_objects);
  const comment = typeof data.comment === 'string' && data.comment !== '' ? data.comment : undefined;
  return (
    <article className="history-entry" aria-labelledby="history-entry-title">
      <header className="detail-head">
        <h2 id="history-entry-title">{boundedText(actionTitle(String(data.action_type), typeof data.title === 'string' ? data.title : undefined))}</h2>
        <span className="muted">entry {pk}</span>
      </header>
      <p className="entry-description">
        <Description entry={data} />
      </p>
      <dl className="facts">
        <dt>Date</dt>
        <dd>
          <time title={String(data.date)}>{formatSeen(data.date)}</time>{' '}
          {dayOf(data.date) !== undefined && (
            <button type="button" className="link" onClick={() => onFilter({ date_after: dayOf(data.date)!, date_before: dayOf(data.date)! })}>
              only this day
            </button>
          )}
        </dd>
        <dt>User</dt>
        <dd>
          {boundedText(String(data.username))}{' '}
          <button type="button" className="link" onClick={() => onFilter({ username: String(data.username) })}>
            only this user
          </button>
        </dd>
        <dt>From address</dt>
        <dd>{boundedText(String(data.client_ip ?? '')) || '—'}</dd>
        <dt>Action type</dt>
        <dd>
          <code>{boundedText(String(data.action_type))}</code>{' '}
          <button type="button" className="link" onClick={() => onFilter({ action_type: String(data.action_type) })}>
            only this action
          </button>
        </dd>
        <dt>Comment</dt>
        <dd className="entry-comment">{comment !== undefined ? <BoundedText value={comment} label="Comment" /> : <span className="muted">no comment</span>}</dd>
      </dl>
      {data.action_type === 'import_host_id' && <ImportHosts pk={pk} />}
      <EntryChanges pk={pk} entry={data} />
      {objects.length > 0 && (
        <>
          <h3 id="history-objects-title">Linked objects</h3>
          <table className="data" aria-labelledby="history-objects-title">
            <thead>
              <tr>
                <th scope="col">Role</th>
                <th scope="col">Kind</th>
                <th scope="col">Name</th>
                <th scope="col">State</th>
              </tr>
            </thead>
            <tbody>
              {objects.map((object) => (
                <tr key={object.key}>
                  <td>
                    <code>{boundedText(object.key)}</code>
                  </td>
                  <td>{typeLabel(object.type)}</td>
                  <td>
                    <ObjectLink object={object} />
                  </td>
                  <td>{object.type === undefined ? '—' : object.pk === undefined ? 'deleted since' : `exists (pk ${object.pk})`}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </article>
  );
}
