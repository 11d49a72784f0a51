/**
 * The survey list's toolbar: one search box over every identity field (a substring, sent from
 * its third character after a pause in typing), the ordering in words, the seen-in window (in a
 * Filters popover), the facets' toggle and the column picker. Values live in the URL.
 */
import { useEffect, useRef, useState } from 'react';
import type { HostColumnId } from '../../../shared/app/hostSurvey';
import { SEARCH_MIN_CHARS } from '../../../shared/app/hostSurvey';
import { ColumnPicker } from './hostsColumns';
import { windowDay, windowParam } from './hostsFormat';
import { ORDERINGS, searchSent, type ScreenParams } from './hostsSurveyModel';

/**
 * The pause after a keystroke before the list is asked for. None beyond the end of the task, as
 * the probe list: a superseded search's request is aborted and its answer dropped (stores/
 * pagedList.ts), and any pause would be paid on every keystroke against the 100 ms target from
 * key to list (bench:ui's hosts-survey case). What a typist's bursts do cost, the facet counts,
 * wait for the search to settle (HostsScreen.tsx).
 */
const SEARCH_PAUSE_MS = 0;

interface Props {
  readonly params: ScreenParams;
  readonly onChange: (next: Record<string, string>) => void;
  readonly columns: readonly HostColumnId[];
  readonly onColumns: (next: HostColumnId[]) => void;
  readonly facetsShown: boolean;
  readonly onFacets: () => void;
}

function withParam(params: ScreenParams, name: string, value: string | undefined): Record<string, string> {
  const next: Record<string, string> = { ...params };
  if (value === undefined || value === '') delete next[name];
  else next[name] = value;
  return next;
}

function SearchBox({ params, onChange }: Pick<Props, 'params' | 'onChange'>) {
  const applied = params.search ?? '';
  const [draft, setDraft] = useState(applied);
  const latest = useRef({ params, onChange });
  latest.current = { params, onChange };
  useEffect(() => setDraft(applied), [applied]);
  useEffect(() => {
    if (draft === applied) return;
    // Only what changes the list is worth a request: 1–2 characters are not sent.
    const changes = searchSent(draft) !== searchSent(applied);
    const timer = window.setTimeout(() => latest.current.onChange(withParam(latest.current.params, 'search', draft)), changes ? SEARCH_PAUSE_MS : 600);
    return () => window.clearTimeout(timer);
  }, [draft, applied]);
  const short = draft.trim() !== '' && searchSent(draft) === undefined;
  return (
    <label className="search" htmlFor="hosts-search">
      Search
      <input
        id="hosts-search"
        type="search"
        value={draft}
        placeholder="any address, name, user, role, certificate, hash…"
        spellCheck={false}
        autoComplete="off"
        aria-describedby="hosts-search-hint"
        onChange={(e) => setDraft(e.target.value)}
      />
      <span id="hosts-search-hint" className={short ? 'hint' : 'visually-hidden'}>
        {short ? `Type at least ${SEARCH_MIN_CHARS} characters.` : 'Finds hosts with the text in any of their values.'}
      </span>
    </label>
  );
}

function SeenWindow({ params, onChange }: Pick<Props, 'params' | 'onChange'>) {
  const [open, setOpen] = useState(false);
  const on = [params.start_date, params.end_date].filter((v) => (v ?? '') !== '').length;
  return (
    <div className={`filters${on > 0 ? ' filters-on' : ''}`} onKeyDown={(e) => e.key === 'Escape' && setOpen(false)}>
      <button type="button" className="filters-button" aria-expanded={open} aria-controls="hosts-window" onClick={() => setOpen((v) => !v)}>
        {on === 0 ? 'Filters' : `Filters (${on})`}
      </button>
      <div id="hosts-window" className="filter-grid" role="group" aria-label="Seen-in window" hidden={!open}>
        <label htmlFor="hosts-start">
          Seen from (UTC day)
          <input id="hosts-start" type="date" value={windowDay(params.start_date)} onChange={(e) => onChange(withParam(params, 'start_date', windowParam(e.target.value, 'start')))} />
        </label>
        <label htmlFor="hosts-end">
          Seen until (UTC day)
          <input id="hosts-end" type="date" value={windowDay(params.end_date)} onChange={(e) => onChange(withParam(params, 'end_date', windowParam(e.target.value, 'end')))} />
        </label>
      </div>
    </div>
  );
}

export function SurveyToolbar({ params, onChange, columns, onColumns, facetsShown, onFacets }: Props) {
  return (
    <div className="toolbar survey-toolbar" role="search" aria-label="Known hosts list parameters">
      <SearchBox params={params} onChange={onChange} />
      <SeenWindow params={params} onChange={onChange} />
      <label className="ordering" htmlFor="hosts-ordering">
        Order by
        <select id="hosts-ordering" value={params.ordering ?? ''} onChange={(e) => onChange(withParam(params, 'ordering', e.target.value))}>
          {ORDERINGS.map((o) => (
            <option key={o.value} value={o.value}>
              {o.value === '' ? `default: ${o.label}` : o.label}
            </option>
          ))}
        </select>
      </label>
      <ColumnPicker columns={columns} onChange={onColumns} />
      <button type="button" aria-pressed={facetsShown} onClick={onFacets}>
        Facets
      </button>
    </div>
  );
}
