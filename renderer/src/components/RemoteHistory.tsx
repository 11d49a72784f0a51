/**
 * History → Central server (app.md §3.4, §4 "History: local and (when reachable) remote"): the
 * central server's own history, read live through the proxy (`/remote/rest/rules/history/`)
 * with the same filters and ordering as the local view. When the proxy answers 502 (the central
 * server is unreachable), the copy mirrored at the last sync is shown instead, and says so.
 */
import { useEffect, useMemo, type JSX } from 'react';
import { useStore } from 'zustand';
import { appPath } from '../../../shared/app/routes';
import type { JsonObject } from '../../../shared/resources';
import { paramsOf, useListParams } from '../hooks';
import { href, navigate, useRoute } from '../router';
import { formatSeen } from '../screens/hostsFormat';
import { boundedText } from './bounded';
import { BoundedText } from './BoundedText';
import { Description } from '../screens/historyEntry';
import { actionTitle } from '../screens/historyFormat';
import { createPagedList } from '../stores/pagedList';
import { useStatus } from '../stores/status';
import type { FilterBarProps } from './ListToolbar';
import { VirtualTable, type Column } from './VirtualTable';
import './RemoteHistory.css';

/** The History screen's filter bar, lent to this view (same parameters as the local view). */
export type HistoryFilterBar = (props: FilterBarProps) => JSX.Element;

/** The route segment of the central server's view: `#/history/central`. */
export const CENTRAL = 'central';
/** A central server may cap page_size at 30; pages of 30 are read the same either way. */
const REMOTE_PAGE_SIZE = 30;
const LIVE_PATH = '/remote/rest/rules/history/';
const COPY_PATH = appPath('remoteHistory');

/** "This workspace" / "Central server": shown for a bound workspace only. */
export function HistoryTabs({ current, params }: { current: 'local' | 'central'; params: Record<string, string> }) {
  const bound = useStatus((s) => s.app?.mode === 'bound');
  if (!bound && current === 'local') return null;
  return (
    <nav className="history-tabs" aria-label="Whose history">
      <a href={href('/history', params)} aria-current={current === 'local' ? 'page' : undefined}>
        This workspace
      </a>
      <a href={href(`/history/${CENTRAL}`, params)} aria-current={current === 'central' ? 'page' : undefined}>
        Central server
      </a>
    </nav>
  );
}

function RemoteEntry({ entry }: { entry: JsonObject }) {
  const comment = typeof entry.comment === 'string' && entry.comment !== '' ? entry.comment : undefined;
  return (
    <article className="history-entry" aria-labelledby="remote-entry-title">
      <header className="detail-head">
        <h2 id="remote-entry-title">{boundedText(actionTitle(String(entry.action_type ?? ''), typeof entry.title === 'string' ? entry.title : undefined))}</h2>
        <span className="muted">central entry {boundedText(String(entry.pk))}</span>
      </header>
      <p className="entry-description">
        <Description entry={entry} />
      </p>
      <dl className="facts">
        <dt>Date</dt>
        <dd>
          <time title={boundedText(String(entry.date))}>{boundedText(formatSeen(entry.date))}</time>
        </dd>
        <dt>User</dt>
        <dd>{boundedText(String(entry.username ?? ''))}</dd>
        <dt>From address</dt>
        <dd>{boundedText(String(entry.client_ip ?? '')) || '—'}</dd>
        <dt>Action type</dt>
        <dd>
          <code>{boundedText(String(entry.action_type))}</code>
        </dd>
        <dt>Comment</dt>
        <dd className="entry-comment">{comment !== undefined ? <BoundedText value={comment} label="Comment" /> : <span className="muted">no comment</span>}</dd>
      </dl>
    </article>
  );
}

export function RemoteHistory({ columns, Filters, filterFields }: { columns: readonly Column[]; Filters: HistoryFilterBar; filterFields: readonly string[] }) {
  const route = useRoute();
  const app = useStatus((s) => s.app);
  const lastPull = useStatus((s) => s.app?.sync?.lastPull ?? null);
  const live = useMemo(() => createPagedList(LIVE_PATH, REMOTE_PAGE_SIZE), []);
  const copy = useMemo(() => createPagedList(COPY_PATH, REMOTE_PAGE_SIZE), []);
  const liveFailure = useStore(live, (s) => s.failure);
  const offline = liveFailure?.status === 502;
  const list = offline ? copy : live;
  const params = paramsOf(route.query);
  useListParams(live, params);
  useEffect(() => {
    if (offline) copy.getState().refresh();
  }, [copy, offline]);

  const selectedText = route.segments[2];
  const selected = selectedText !== undefined && /^\d+$/.test(selectedText) ? selectedText : undefined;
  const entry = useStore(list, (s) => (selected === undefined ? undefined : [...s.rows.values()].find((row) => String(row.pk) === selected)));
  const onParams = (next: Record<string, string>) => navigate(href(`/${route.segments.join('/')}`, next), { replace: true });

  if (app && app.mode === 'standalone') {
    return (
      <div className="screen history-screen">
        <h1>History of the central server</h1>
        <p className="notice info">
          This workspace is standalone: there is no central server to read. <a href={href('/history')}>Read this workspace’s history</a>.
        </p>
      </div>
    );
  }

  return (
    <div className="screen split history-screen">
      <section className="list-pane" aria-labelledby="history-title">
        <header className="pane-head">
          <h1 id="history-title">History</h1>
          <HistoryTabs current="central" params={params} />
          <div className="actions">
            <button type="button" onClick={() => live.getState().refresh()}>
              Reload
            </button>
          </div>
        </header>
        {offline ? (
          <p className="notice offline-copy" role="note">
            Offline: showing the copy from the last sync{lastPull ? ` (${formatSeen(lastPull)})` : ''}. Filters and ordering apply when the central server
            answers again; Reload tries it.
          </p>
        ) : (
          <Filters params={params} errors={liveFailure?.fieldErrors() ?? {}} onChange={onParams} />
        )}
        <VirtualTable
          label="Central server history entries"
          list={list}
          columns={columns}
          rowKey={(row: JsonObject) => String(row.pk)}
          selectedKey={selected}
          emptyText={offline ? 'No copy of the central server’s history yet: it is read at each sync.' : 'No history entry of the central server matches.'}
          onOpen={(row) => navigate(href(`/history/${CENTRAL}/${String(row.pk)}`, params))}
          fieldsShown={offline ? [] : filterFields}
        />
      </section>
      <div className="detail-pane">
        {entry ? (
          <RemoteEntry key={String(entry.pk)} entry={entry} />
        ) : (
          <p className="empty">Select an entry of the central server’s history to read it in full, with its comment.</p>
        )}
      </div>
    </div>
  );
}
