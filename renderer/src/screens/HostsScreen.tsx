/**
 * Host lookup (app.md §4, api.md §7): an address box and the host identity of that address from
 * the local data (`#/hosts/<ip>`, also where the server's `/rules/hunt?ip=` link lands); the
 * known hosts, virtualised, with search, ordering, a seen-in window and a `host_id_qfilter`
 * query, all kept in the URL; import of a host-identity file; the central server's view.
 */
import { useEffect, useState } from 'react';
import { useStore } from 'zustand';
import { hostId, type JsonObject } from '../../../shared/resources';
import { listPath } from '../../../shared/resources/derived';
import { bridge } from '../api/bridge';
import { ListToolbar, type FilterBarProps } from '../components/ListToolbar';
import { errorLineOf } from '../components/resourceFormModel';
import { VirtualTable, type Column } from '../components/VirtualTable';
import { paramsOf, useListParams, usePagedList } from '../hooks';
import { href, navigate, useRoute } from '../router';
import { useStatus } from '../stores/status';
import { DateTime, dateTitle } from '../components/DateTime';
import { activeFilters, emptyListText } from '../components/listModel';
import { checkAddress, hostOrderingLabel, windowDay, windowParam } from './hostsFormat';
import { HostView } from './hostsIdentity';
import { EveImport } from './hostsEve';
import { HostImport } from './hostsImport';
import './hosts.css';

const LIST_PATH = listPath(hostId);

function hostIdOf(row: JsonObject): JsonObject {
  const value = row.host_id;
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? value : {};
}

function hostnames(row: JsonObject): string {
  const items = hostIdOf(row).hostname;
  if (!Array.isArray(items)) return '';
  return items.map((item) => (typeof item === 'object' && item !== null && !Array.isArray(item) ? String(item.host ?? '') : '')).join(', ');
}

function lastSeen(row: JsonObject): string {
  const value = hostIdOf(row).last_seen;
  return typeof value === 'string' ? value : '';
}

const COLUMNS: readonly Column[] = [
  { key: 'ip', title: 'Address', width: 'minmax(7.5rem, 1fr)', sort: 'ip' },
  { key: 'hostnames', title: 'Hostnames', width: 'minmax(8rem, 1.6fr)', render: hostnames, priority: 1 },
  { key: 'hits', title: 'Hits', width: '4.5rem', sort: 'hits', priority: 2 },
  { key: 'services', title: 'Services', width: '5.5rem', sort: 'host_id.services_count', priority: 3, render: (row) => String(hostIdOf(row).services_count ?? 0) },
  {
    key: 'last_seen',
    title: 'Last seen',
    width: 'minmax(9rem, 1fr)',
    sort: 'host_id.last_seen',
    render: (row) => <DateTime value={lastSeen(row)} />,
    text: (row) => dateTitle(lastSeen(row)),
  },
];

/** The address box: checked here, so that a typing mistake explains itself before any request. */
function LookupForm({ current, onLookup }: { current: string | undefined; onLookup: (ip: string) => void }) {
  const [draft, setDraft] = useState(current ?? '');
  const [error, setError] = useState<string | undefined>();
  useEffect(() => {
    setDraft(current ?? '');
    setError(undefined);
  }, [current]);
  return (
    <form
      className="lookup"
      role="search"
      aria-label="Look up an address"
      onSubmit={(event) => {
        event.preventDefault();
        const checked = checkAddress(draft);
        if ('error' in checked) setError(checked.error);
        else {
          setError(undefined);
          onLookup(checked.ip);
        }
      }}
    >
      <label htmlFor="lookup-ip">IP address</label>
      <input
        id="lookup-ip"
        value={draft}
        placeholder="10.0.0.5 or 2001:db8::1"
        autoComplete="off"
        spellCheck={false}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? 'lookup-error' : undefined}
        onChange={(event) => {
          setDraft(event.target.value);
          setError(undefined);
        }}
      />
      <button type="submit" className="primary">
        Look up
      </button>
      {error && (
        <p id="lookup-error" className="field-error" role="alert">
          {error}
        </p>
      )}
    </form>
  );
}

/** The seen-in window (`start_date`/`end_date`, epoch seconds), in the Filters popover. */
function SeenWindow({ params, errors, onChange }: FilterBarProps) {
  const set = (name: string, value: string | undefined) => {
    const next: Record<string, string> = { ...params };
    if (value === undefined || value === '') delete next[name];
    else next[name] = value;
    onChange(next);
  };
  const windowErrors = [errorLineOf(errors.start_date), errorLineOf(errors.end_date)].filter((m) => m !== undefined);
  return (
    <>
      <label htmlFor="hosts-start">
        Seen from (UTC day)
        <input id="hosts-start" type="date" value={windowDay(params.start_date)} onChange={(e) => set('start_date', windowParam(e.target.value, 'start'))} />
      </label>
      <label htmlFor="hosts-end">
        Seen until (UTC day)
        <input id="hosts-end" type="date" value={windowDay(params.end_date)} onChange={(e) => set('end_date', windowParam(e.target.value, 'end'))} />
      </label>
      {windowErrors.length > 0 && <p className="field-error">{windowErrors.join(' ')}</p>}
    </>
  );
}

/** Filters of the screen's own beside the declared ones: the window and the query. */
const HOST_FILTERS = ['start_date', 'end_date', 'host_id_qfilter'];

/** The `host_id_qfilter` query (api.md §7). */
function HostFilters({
  params,
  errors,
  onChange,
}: FilterBarProps) {
  const applied = params.host_id_qfilter ?? '';
  const [query, setQuery] = useState(applied);
  useEffect(() => setQuery(applied), [applied]);
  const set = (name: string, value: string | undefined) => {
    const next: Record<string, string> = { ...params };
    if (value === undefined || value === '') delete next[name];
    else next[name] = value;
    onChange(next);
  };
  const queryError = errorLineOf(errors.host_id_qfilter);
  return (
    <div className="host-filters">
      <form
        className="qfilter"
        onSubmit={(event) => {
          event.preventDefault();
          set('host_id_qfilter', query.trim());
        }}
      >
        <label htmlFor="hosts-qfilter">Query</label>
        <div className="qfilter-row">
          <input
            id="hosts-qfilter"
            value={query}
            spellCheck={false}
            autoComplete="off"
            placeholder='host_id.services.port:443 AND NOT host_id.net_info.agg:internet'
            aria-invalid={queryError ? true : undefined}
            aria-describedby={queryError ? 'hosts-qfilter-error' : 'hosts-qfilter-help'}
            onChange={(e) => setQuery(e.target.value)}
          />
          <button type="submit">Apply query</button>
          {applied && (
            <button type="button" onClick={() => set('host_id_qfilter', undefined)}>
              Clear query
            </button>
          )}
        </div>
        {queryError ? (
          <p id="hosts-qfilter-error" className="field-error">
            {queryError}
          </p>
        ) : (
          <p id="hosts-qfilter-help" className="muted hint">
            Filters the hosts by their identity, in Elasticsearch query-string syntax: <code>field:value</code>, <code>*</code> wildcards, <code>AND</code>/<code>OR</code>/<code>NOT</code>,
            parentheses, <code>&gt;</code> on numbers and dates.
          </p>
        )}
      </form>
    </div>
  );
}

/** The central server's host view, in the system browser; a standalone workspace has none. */
function OpenOnCentral({ ip }: { ip: string }) {
  const mode = useStatus((s) => s.app?.mode);
  const [problem, setProblem] = useState<string | undefined>();
  const bound = mode === 'bound';
  const hint =
    mode === undefined
      ? 'Reading the workspace…'
      : bound
        ? 'Opens the central server’s host view of this address in your browser.'
        : 'This workspace is standalone: there is no central server to open this address on.';
  return (
    <div className="central">
      <button
        type="button"
        disabled={!bound}
        aria-describedby="central-hint"
        onClick={() => {
          setProblem(undefined);
          bridge
            .openOnCentral(ip)
            .then((opened) => {
              if (!opened) setProblem('The central server’s address is not known for this workspace.');
            })
            .catch((error: unknown) => setProblem(error instanceof Error ? error.message : String(error)));
        }}
      >
        Open on central server
      </button>
      <span id="central-hint" className="muted">
        {hint}
      </span>
      {problem && (
        <p className="notice error" role="alert">
          {problem}
        </p>
      )}
    </div>
  );
}

export function HostsScreen() {
  const route = useRoute();
  const list = usePagedList(LIST_PATH);
  const params = paramsOf(route.query);
  const failure = useStore(list, (s) => s.failure);
  const [importing, setImporting] = useState<'hosts' | 'eve' | undefined>(undefined);
  const [imports, setImports] = useState(0);
  useListParams(list, params);

  const address = route.segments[1];
  const checked = address === undefined ? undefined : checkAddress(address);
  const onParams = (next: Record<string, string>) => navigate(href(`/${route.segments.map(encodeURIComponent).join('/')}`, next), { replace: true });
  const open = (ip: string) => navigate(href(`/hosts/${encodeURIComponent(ip)}`, params));

  return (
    <div className="screen split hosts-screen">
      <section className="list-pane" aria-labelledby="hosts-title">
        <header className="pane-head">
          <h1 id="hosts-title">Host lookup</h1>
          <div className="actions">
            <button type="button" onClick={() => list.getState().refresh()}>
              Reload
            </button>
            <button type="button" aria-expanded={importing === 'eve'} onClick={() => setImporting((v) => (v === 'eve' ? undefined : 'eve'))}>
              Import EVE log…
            </button>
            <button type="button" aria-expanded={importing === 'hosts'} onClick={() => setImporting((v) => (v === 'hosts' ? undefined : 'hosts'))}>
              Import hosts file…
            </button>
          </div>
        </header>
        <LookupForm current={checked && 'ip' in checked ? checked.ip : address} onLookup={open} />
        <h2 className="known-title">Known hosts</h2>
        <ListToolbar resource={hostId} params={params} onChange={onParams} orderingLabel={hostOrderingLabel} searchHint="address, host name" moreFilters={HOST_FILTERS}>
          <SeenWindow params={params} errors={failure?.fieldErrors() ?? {}} onChange={onParams} />
        </ListToolbar>
        <HostFilters params={params} errors={failure?.fieldErrors() ?? {}} onChange={onParams} />
        <VirtualTable
          label="Known hosts"
          list={list}
          columns={COLUMNS}
          rowKey={(row) => String(row.ip)}
          selectedKey={checked && 'ip' in checked ? checked.ip : undefined}
          sorting={{ ordering: params.ordering, defaultOrdering: hostId.defaultOrdering, onSort: (ordering) => onParams({ ...params, ordering }) }}
          emptyText={emptyListText(
            'known host',
            activeFilters(params, [...hostId.filters, ...HOST_FILTERS]).length,
            (params.search ?? '') !== '',
            'No host is known yet. Import an EVE log or a host identity file.',
          )}
          onOpen={(row) => open(String(row.ip))}
          fieldsShown={HOST_FILTERS}
        />
      </section>
      <div className="detail-pane">
        {importing === 'eve' && (
          <EveImport
            onClose={() => setImporting(undefined)}
            onImported={() => {
              list.getState().refresh();
              setImports((n) => n + 1);
            }}
          />
        )}
        {importing === 'hosts' && (
          <HostImport
            onClose={() => setImporting(undefined)}
            onImported={() => {
              list.getState().refresh();
              setImports((n) => n + 1);
            }}
          />
        )}
        {checked === undefined ? (
          !importing && <p className="empty">Type an address, or pick a known host, to see what is known of it.</p>
        ) : 'error' in checked ? (
          <p className="notice error" role="alert">
            {checked.error}
          </p>
        ) : (
          <HostView key={`${checked.ip}#${imports}`} ip={checked.ip} actions={<OpenOnCentral ip={checked.ip} />} />
        )}
      </div>
    </div>
  );
}
