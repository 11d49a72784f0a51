/**
 * History (app.md §4, api.md §5): the user-action history of this workspace, virtualised, with
 * its filters (username, action type, a range of days picked in a calendar, client address, one
 * object's entries) and ordering in the URL; each row shows date, user, action (in the app's
 * words), the rendered description, the comment and the linked objects; an entry opens in full
 * beside the list (`#/history/<pk>`), with the fields it changed. The local list is read from
 * `/app/history` (the API's parameters plus the range and the object, shared/app/history.ts).
 */
import { useEffect, useState, type ReactNode } from 'react';
import { useStore } from 'zustand';
import { HISTORY_EXTRA_PARAMS } from '../../../shared/app/history';
import { appPath } from '../../../shared/app/routes';
import { history as historyResource, type JsonObject } from '../../../shared/resources';
import { listPath } from '../../../shared/resources/derived';
import { orderingOptions, type FilterBarProps } from '../components/ListToolbar';
import { CENTRAL, HistoryTabs, RemoteHistory } from '../components/RemoteHistory';
import { boundedText } from '../components/bounded';
import { errorLineOf } from '../components/resourceFormModel';
import { VirtualTable, type Column } from '../components/VirtualTable';
import { paramsOf, useListParams, useObject, usePagedList } from '../hooks';
import { href, navigate, useRoute } from '../router';
import { formatSeen } from './hostsFormat';
import { Description, HistoryEntry, ObjectLinks } from './historyEntry';
import { actionTitle, objectFilterText } from './historyFormat';
import './history.css';

const LIST_PATH = listPath(historyResource);
/** The local list: the API's parameters plus a range of days and one object's entries. */
const LOCAL_PATH = appPath('history');
/** Every parameter that filters (what "Clear filters" takes away). */
const FILTER_PARAMS: readonly string[] = [...historyResource.filters, ...HISTORY_EXTRA_PARAMS];

const COLUMNS: readonly Column[] = [
  { key: 'date', title: 'Date (UTC)', width: '12.75rem', sort: 'date', render: (row) => formatSeen(row.date).replace(/ UTC$/, '') },
  { key: 'username', title: 'User', width: 'minmax(4.5rem, 0.5fr)', sort: 'username' },
  { key: 'title', title: 'Action', width: 'minmax(7.5rem, 0.8fr)', sort: 'action_type', render: (row) => actionTitle(String(row.action_type ?? ''), typeof row.title === 'string' ? row.title : undefined) },
  { key: 'description', title: 'Description', width: 'minmax(10rem, 2fr)', render: (row) => <Description entry={row} inRow /> },
  { key: 'comment', title: 'Comment', width: 'minmax(7rem, 1.4fr)', render: (row) => (typeof row.comment === 'string' ? row.comment : '') },
  { key: 'objects', title: 'Objects', width: 'minmax(6rem, 0.9fr)', render: (row) => <ObjectLinks entry={row} /> },
];

/** A filter's control with its label and, below it, the API's error for that parameter. */
function Filter({ id, label, error, children }: { id: string; label: string; error: string | undefined; children: ReactNode }) {
  return (
    <div className="history-filter">
      <label htmlFor={id}>{label}</label>
      {children}
      {error && (
        <p id={`${id}-error`} className="field-error">
          {error}
        </p>
      )}
    </div>
  );
}

/**
 * A text filter: applied after a pause in typing, or at once on Enter; `onEnterOnly` for values
 * that are only valid once complete (a date), so that half-typed values raise no error.
 */
function TextFilter({
  id,
  value,
  error,
  placeholder,
  onEnterOnly = false,
  onCommit,
}: {
  id: string;
  value: string;
  error: string | undefined;
  placeholder?: string;
  onEnterOnly?: boolean;
  onCommit: (value: string) => void;
}) {
  const [draft, setDraft] = useState(value);
  useEffect(() => setDraft(value), [value]);
  useEffect(() => {
    if (onEnterOnly || draft === value) return;
    const timer = window.setTimeout(() => onCommit(draft), 300);
    return () => window.clearTimeout(timer);
  }, [draft, value, onEnterOnly, onCommit]);
  return (
    <input
      id={id}
      value={draft}
      placeholder={placeholder}
      spellCheck={false}
      autoComplete="off"
      aria-invalid={error ? true : undefined}
      aria-describedby={error ? `${id}-error` : undefined}
      onChange={(event) => setDraft(event.target.value)}
      onBlur={() => draft !== value && onCommit(draft)}
      onKeyDown={(event) => {
        if (event.key === 'Enter') onCommit(draft);
      }}
    />
  );
}

/** A day picked in the browser's calendar (`YYYY-MM-DD`), applied as soon as it is complete. */
function DayFilter({ id, value, error, onCommit }: { id: string; value: string; error: string | undefined; onCommit: (value: string) => void }) {
  return (
    <input
      id={id}
      type="date"
      value={value}
      aria-invalid={error ? true : undefined}
      aria-describedby={error ? `${id}-error` : undefined}
      onChange={(event) => onCommit(event.target.value)}
    />
  );
}

/**
 * The filter bar. `range`: the local history, filtered by a range of days and by object (the
 * app's own parameters); the central server's list knows only the API's exact `date`.
 */
/** The filters whose errors the filter bar shows beside their controls (the list does not repeat them). */
const HISTORY_FILTER_FIELDS = ['username', 'action_type', 'date_after', 'date_before', 'date', 'client_ip', 'ordering', 'object'];

function HistoryFilterBar({ params, errors, onChange, range }: FilterBarProps & { range: boolean }) {
  const actions = useObject(`${LIST_PATH}get_action_type_list/`);
  const actionList = actions.data?.action_type_list;
  const choices = typeof actionList === 'object' && actionList !== null && !Array.isArray(actionList) ? Object.entries(actionList) : [];
  const set = (name: string, value: string) => {
    const next: Record<string, string> = { ...params };
    if (value.trim() === '') delete next[name];
    else next[name] = value.trim();
    if ((next[name] ?? '') !== (params[name] ?? '')) onChange(next);
  };
  const clear = (name: string) => set(name, '');
  const current = params.action_type ?? '';
  return (
    <div className="toolbar history-filters" role="search" aria-label="History filters">
      <Filter id="history-username" label="Username" error={errorLineOf(errors.username)}>
        <TextFilter id="history-username" value={params.username ?? ''} error={errorLineOf(errors.username)} onCommit={(v) => set('username', v)} />
      </Filter>
      <Filter id="history-action" label="Action" error={errorLineOf(errors.action_type) ?? (actions.error ? actions.error.message : undefined)}>
        <select id="history-action" value={current} onChange={(e) => set('action_type', e.target.value)}>
          <option value="">any</option>
          {choices.map(([type, title]) => (
            <option key={type} value={type}>
              {actionTitle(type, typeof title === 'string' ? title : undefined)}
            </option>
          ))}
          {current !== '' && !choices.some(([type]) => type === current) && <option value={current}>{boundedText(current)}</option>}
        </select>
      </Filter>
      {range ? (
        <>
          <Filter id="history-date-after" label="From (UTC day)" error={errorLineOf(errors.date_after)}>
            <DayFilter id="history-date-after" value={params.date_after ?? ''} error={errorLineOf(errors.date_after)} onCommit={(v) => set('date_after', v)} />
          </Filter>
          <Filter id="history-date-before" label="To (UTC day, included)" error={errorLineOf(errors.date_before)}>
            <DayFilter id="history-date-before" value={params.date_before ?? ''} error={errorLineOf(errors.date_before)} onCommit={(v) => set('date_before', v)} />
          </Filter>
        </>
      ) : (
        <Filter id="history-date" label="Date (exact, press Enter)" error={errorLineOf(errors.date)}>
          <TextFilter id="history-date" value={params.date ?? ''} error={errorLineOf(errors.date)} placeholder="2026-11-21T09:14:03.120455Z" onEnterOnly onCommit={(v) => set('date', v)} />
        </Filter>
      )}
      <Filter id="history-client-ip" label="From address" error={errorLineOf(errors.client_ip)}>
        <TextFilter id="history-client-ip" value={params.client_ip ?? ''} error={errorLineOf(errors.client_ip)} onCommit={(v) => set('client_ip', v)} />
      </Filter>
      <Filter id="history-ordering" label="Order by" error={errorLineOf(errors.ordering)}>
        <select id="history-ordering" value={params.ordering ?? ''} onChange={(e) => set('ordering', e.target.value)}>
          <option value="">newest first (default)</option>
          {orderingOptions(historyResource.ordering)}
        </select>
      </Filter>
      {range && params.date && (
        <span className="filter-chip">
          At exactly <code>{boundedText(params.date)}</code>{' '}
          <button type="button" className="link" aria-label="Remove the exact date filter" onClick={() => clear('date')}>
            ×
          </button>
        </span>
      )}
      {range && params.object && (
        <span className="filter-chip" data-testid="history-object-filter">
          Only {boundedText(objectFilterText(params.object))}
          {errors.object ? <span className="field-error"> {errorLineOf(errors.object)}</span> : null}{' '}
          <button type="button" className="link" aria-label="Show the entries of every object" onClick={() => clear('object')}>
            ×
          </button>
        </span>
      )}
      {Object.keys(params).some((key) => FILTER_PARAMS.includes(key)) && (
        <button
          type="button"
          className="link clear-filters"
          onClick={() => onChange(Object.fromEntries(Object.entries(params).filter(([key]) => !FILTER_PARAMS.includes(key))))}
        >
          Clear filters
        </button>
      )}
    </div>
  );
}

function LocalHistoryFilters(props: FilterBarProps) {
  return <HistoryFilterBar {...props} range />;
}

function CentralHistoryFilters(props: FilterBarProps) {
  return <HistoryFilterBar {...props} range={false} />;
}

/** This workspace's history, or the central server's (`#/history/central`) for a bound workspace. */
export function HistoryScreen() {
  const route = useRoute();
  return route.segments[1] === CENTRAL ? <RemoteHistory columns={COLUMNS} Filters={CentralHistoryFilters} filterFields={HISTORY_FILTER_FIELDS} /> : <LocalHistory />;
}

function LocalHistory() {
  const route = useRoute();
  const list = usePagedList(LOCAL_PATH);
  const failure = useStore(list, (s) => s.failure);
  const params = paramsOf(route.query);
  useListParams(list, params);

  const selected = route.segments[1] !== undefined && /^\d+$/.test(route.segments[1]) ? Number(route.segments[1]) : undefined;
  const onParams = (next: Record<string, string>) => navigate(href(`/${route.segments.join('/')}`, next), { replace: true });

  return (
    <div className="screen split history-screen">
      <section className="list-pane" aria-labelledby="history-title">
        <header className="pane-head">
          <h1 id="history-title">History</h1>
          <HistoryTabs current="local" params={params} />
          <div className="actions">
            <button type="button" onClick={() => list.getState().refresh()}>
              Reload
            </button>
          </div>
        </header>
        <LocalHistoryFilters params={params} errors={failure?.fieldErrors() ?? {}} onChange={onParams} />
        <VirtualTable
          label="History entries"
          list={list}
          columns={COLUMNS}
          sorting={{ ordering: params.ordering, defaultOrdering: historyResource.defaultOrdering, onSort: (ordering) => onParams({ ...params, ordering }) }}
          rowKey={(row: JsonObject) => String(row.pk)}
          selectedKey={selected === undefined ? undefined : String(selected)}
          emptyText="No history entry matches. Every change made in this workspace is recorded here."
          onOpen={(row) => navigate(href(`/history/${String(row.pk)}`, params))}
          fieldsShown={HISTORY_FILTER_FIELDS}
        />
      </section>
      <div className="detail-pane">
        {selected === undefined ? (
          <p className="empty">Select an entry to read it in full: its comment, its description and the objects it names.</p>
        ) : (
          <HistoryEntry
            key={selected}
            pk={selected}
            onFilter={(changes) => navigate(href(`/history/${selected}`, { ...params, ...changes }), { replace: true })}
          />
        )}
      </div>
    </div>
  );
}
