/**
 * Hosts (app.md §4, api.md §7, issue 24): an address box and the host identity of that address
 * (`#/hosts/<ip>`, also where the server's `/rules/hunt?ip=` link lands); the known hosts from
 * the survey's list (`hostList`), virtualised, with the columns the engineer picks, one search
 * over every identity value, a query box that completes, facets with counts whose clicks filter
 * (each filter a chip with its query text), an import's hosts; the list follows the data (a
 * terminal's import shows up without Reload). Beside it, on demand: a host, the imports, the
 * Changes view, an import. Filters live in the URL (hostsSurveyModel.ts).
 */
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { useStore, type StoreApi } from 'zustand';
import type { HostColumnId, Visit, VisitChange } from '../../../shared/app/hostSurvey';
import { appPath } from '../../../shared/app/routes';
import { appCall } from '../api/client';
import { countText } from '../components/countText';
import { errorLineOf } from '../components/resourceFormModel';
import { emptyListText } from '../components/listModel';
import { VirtualTable } from '../components/VirtualTable';
import { useQuery } from '../data/useQuery';
import { paramsOf, useListParams, usePagedList } from '../hooks';
import { href, navigate, useRoute } from '../router';
import type { PagedListState } from '../stores/pagedList';
import { startPolling } from '../stores/poll';
import { checkAddress } from './hostsFormat';
import { HostView } from './hostsIdentity';
import { EveImport } from './hostsEve';
import { HostImport } from './hostsImport';
import { ChangesPanel } from './hostsChanges';
import { surveyColumns, useSurveyColumns } from './hostsColumns';
import { ExportButtons } from './hostsExport';
import { Chips, Facets, type ExtraChip } from './hostsFacets';
import { LookupForm, OpenOnCentral } from './hostsLookup';
import { QueryBox } from './hostsQueryBox';
import { CHIPS_PARAM, chipsOf, listQuery, QUERY_PARAM, surveyQuery, SURVEY_FILTERS, toggledChip } from './hostsSurveyModel';
import { SurveyToolbar } from './hostsToolbar';
import { VisitsPanel, visitName } from './hostsVisits';
import './hosts.css';

const LIST_PATH = appPath('hostList');
/** How often the screen asks whether the host data changed (a cheap read of one number). */
const VERSION_POLL_MS = 2000;
const FACETS_SHOWN_KEY = 'outpost.hostFacets';

type Panel = 'eve' | 'hosts' | 'visits' | 'changes';

/** Characters of the longest address among the rows read (the address column's width). */
function useLongestAddress(list: StoreApi<PagedListState>): number {
  return useStore(list, (s) => {
    let longest = 0;
    for (const row of s.rows.values()) longest = Math.max(longest, String(row.ip ?? '').length);
    return longest;
  });
}

/**
 * The host data's version, asked for while the screen is shown: when it changes (an import from a
 * terminal, a sync), the rows in view are read again in place, the selection and the scroll kept.
 * Returns how many changes were seen since the screen opened: what the counts, the imports and
 * the host open beside are read again on (the first read is no change: nothing is read twice).
 */
function useHostsChanges(list: StoreApi<PagedListState>): number {
  const [changes, setChanges] = useState(0);
  useEffect(() => {
    let last: string | undefined;
    const poller = startPolling(async (signal) => {
      const answer = await appCall('hostsVersion', { signal });
      if (last !== undefined && answer.version !== last) {
        await list.getState().reload();
        setChanges((n) => n + 1);
      }
      last = answer.version;
    }, () => VERSION_POLL_MS);
    return () => poller.stop();
  }, [list]);
  return changes;
}

/**
 * How long the filter must stay the same, once its rows are in, before its counts are asked for:
 * a search typed key by key asks for a list at each key, and the counts (the costlier read) only
 * once the typing pauses, so that they never hold up the next key's rows.
 */
const FACETS_SETTLE_MS = 300;

/** Resolves once the list has its first page for the parameters now and a moment has passed (the counts come after the rows). */
function rowsFirst(list: StoreApi<PagedListState>, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const ready = (s: PagedListState) => s.count !== undefined || s.error !== undefined;
    let timer: number | undefined;
    const settle = () => {
      timer = window.setTimeout(resolve, FACETS_SETTLE_MS);
    };
    const stop = list.subscribe((s) => {
      if (!ready(s) || timer !== undefined) return;
      stop();
      settle();
    });
    if (ready(list.getState())) {
      stop();
      settle();
    }
    signal.addEventListener('abort', () => {
      stop();
      window.clearTimeout(timer);
      reject(new DOMException('aborted', 'AbortError'));
    });
  });
}

/** The detail pane, brought into view when what it shows changes (under the list in a narrow window). */
function useShownWhenOpened(what: string | undefined) {
  const pane = useRef<HTMLDivElement>(null);
  useLayoutEffect(() => {
    const element = pane.current;
    if (!what || !element) return;
    const box = element.getBoundingClientRect();
    if (box.top > window.innerHeight - 120 || box.bottom < 0) element.scrollIntoView({ block: 'start' });
  }, [what]);
  return pane;
}

export function HostsScreen() {
  const route = useRoute();
  const params = useMemo(() => paramsOf(route.query), [route.query]);
  const list = usePagedList(LIST_PATH);
  useListParams(list, listQuery(params));
  const [columnIds, setColumnIds] = useSurveyColumns();
  const longest = useLongestAddress(list);
  const columns = useMemo(() => surveyColumns(columnIds, longest), [columnIds, longest]);
  const changes = useHostsChanges(list);
  const failure = useStore(list, (s) => s.failure);
  const [panel, setPanel] = useState<Panel | undefined>(undefined);
  const [imports, setImports] = useState(0);
  const [facetsShown, setFacetsShown] = useState(() => localStorage.getItem(FACETS_SHOWN_KEY) !== 'hidden');

  const filter = surveyQuery(params);
  const filterKey = JSON.stringify(filter);
  const facets = useQuery(
    facetsShown ? JSON.stringify([filterKey, changes]) : undefined,
    async (signal) => {
      await rowsFirst(list, signal);
      return appCall('hostFacets', { query: JSON.parse(filterKey) as Record<string, string>, signal });
    },
    { keepPrevious: true },
  );

  const address = route.segments[1];
  const checked = address === undefined ? undefined : checkAddress(address);
  const selected = checked && 'ip' in checked ? checked.ip : undefined;
  const path = `/${route.segments.map(encodeURIComponent).join('/')}`;
  const onParams = useCallback((next: Record<string, string>) => navigate(href(path, next), { replace: true }), [path]);
  const open = (ip: string) => navigate(href(`/hosts/${encodeURIComponent(ip)}`, params));
  // What was asked for last comes first in the detail pane: a host picked while the imports are
  // open shows above them, the Changes view opened while a host is shown above the host.
  const [hostFirst, setHostFirst] = useState(true);
  useEffect(() => setHostFirst(true), [address]);
  const toggle = (p: Panel) => {
    setHostFirst(false);
    setPanel((v) => (v === p ? undefined : p));
  };
  const chips = chipsOf(params);
  const onChip = (qfilter: string) => onParams(toggledChip(params, qfilter));
  const onVisit = (visit: Visit, change: VisitChange) => onParams({ ...params, visit: String(visit.pk), visit_change: change });
  const extra: ExtraChip[] = params.visit
    ? [
        {
          key: 'visit',
          label: `${params.visit_change === 'new' ? 'New in' : 'Changed by'} ${visitName({ pk: Number(params.visit), kind: 'eve' })}`,
          code: `visit=${params.visit} visit_change=${params.visit_change === 'new' ? 'new' : 'changed'}`,
          onRemove: () => onParams(Object.fromEntries(Object.entries(params).filter(([k]) => k !== 'visit' && k !== 'visit_change'))),
        },
      ]
    : [];
  const count = useStore(list, (s) => s.count);
  const detail = panel ?? selected ?? (checked && 'error' in checked ? 'error' : undefined);
  const pane = useShownWhenOpened(detail === undefined ? undefined : `${detail}#${address ?? ''}`);
  const onImported = () => {
    void list.getState().reload();
    setImports((n) => n + 1);
  };
  const activeCount = SURVEY_FILTERS.filter((name) => (params[name] ?? '') !== '').length;
  const columnsShown: readonly HostColumnId[] = columnIds;

  const panelView = (
    <>
      {panel === 'eve' && <EveImport onClose={() => setPanel(undefined)} onImported={onImported} />}
      {panel === 'hosts' && <HostImport onClose={() => setPanel(undefined)} onImported={onImported} />}
      {panel === 'visits' && <VisitsPanel changes={changes} onFilter={onVisit} onClose={() => setPanel(undefined)} />}
      {panel === 'changes' && <ChangesPanel changes={changes} onClose={() => setPanel(undefined)} />}
    </>
  );
  const hostView =
    checked === undefined ? null : 'error' in checked ? (
      <p className="notice error" role="alert">
        {checked.error}
      </p>
    ) : (
      <HostView key={`${checked.ip}#${imports}#${changes}`} ip={checked.ip} actions={<OpenOnCentral ip={checked.ip} />} />
    );

  return (
    <div className={`screen split hosts-screen${detail === undefined ? ' no-detail' : ''}`}>
      <section className="list-pane" aria-labelledby="hosts-title">
        <header className="pane-head">
          <h1 id="hosts-title">Hosts</h1>
          <div className="actions">
            <button type="button" onClick={() => list.getState().refresh()}>
              Reload
            </button>
            <button type="button" aria-expanded={panel === 'visits'} onClick={() => toggle('visits')}>
              Imports
            </button>
            <button type="button" aria-expanded={panel === 'changes'} onClick={() => toggle('changes')}>
              Changes
            </button>
            <button type="button" aria-expanded={panel === 'eve'} onClick={() => toggle('eve')}>
              Import EVE log…
            </button>
            <button type="button" aria-expanded={panel === 'hosts'} onClick={() => toggle('hosts')}>
              Import hosts file…
            </button>
          </div>
        </header>
        <ExportButtons filter={filter} ordering={params.ordering} columns={columnsShown} changes={changes} />
        <LookupForm current={selected ?? address} onLookup={open} />
        {detail === undefined && <p className="muted lookup-hint">Type an address, or pick a known host, to see what is known of it.</p>}
        <h2 className="known-title">Known hosts</h2>
        <SurveyToolbar
          params={params}
          onChange={onParams}
          columns={columnIds}
          onColumns={setColumnIds}
          facetsShown={facetsShown}
          onFacets={() => {
            localStorage.setItem(FACETS_SHOWN_KEY, facetsShown ? 'hidden' : 'shown');
            setFacetsShown(!facetsShown);
          }}
        />
        <QueryBox applied={params[QUERY_PARAM] ?? ''} error={errorLineOf(failure?.fieldErrors().q)} onApply={(q) => onParams({ ...params, [QUERY_PARAM]: q ?? '' })} />
        <Chips answer={facets.data} chips={chips} extra={extra} onToggle={onChip} />
        <p className="print-only print-note">
          {count === undefined ? '' : `${countText(count)} hosts in this list. A printout holds the rows on screen only: export the CSV for all of them.`}
        </p>
        <div className={`survey-body${facetsShown ? '' : ' no-facets'}`}>
          {facetsShown && <Facets answer={facets.data} loading={facets.loading} error={facets.error?.message} chips={chips} onToggle={onChip} />}
          <VirtualTable
            label="Known hosts"
            list={list}
            columns={columns}
            rowKey={(row) => String(row.ip)}
            selectedKey={selected}
            sorting={{ ordering: params.ordering, defaultOrdering: ['-last_seen'], onSort: (ordering) => onParams({ ...params, ordering }) }}
            emptyText={emptyListText('known host', activeCount, (params.search ?? '') !== '', 'No host is known yet. Import an EVE log or a host identity file.')}
            onOpen={(row) => open(String(row.ip))}
            fieldsShown={['q', QUERY_PARAM, CHIPS_PARAM]}
          />
        </div>
      </section>
      {detail !== undefined && (
        <div className="detail-pane" ref={pane}>
          {!hostFirst && panelView}
          {hostView}
          {hostFirst && panelView}
        </div>
      )}
    </div>
  );
}
