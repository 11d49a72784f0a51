/**
 * Search, filters and ordering of a list, built from the resource's declaration: one control
 * per filter field (a select for choices and booleans), the ordering fields both ways, in words.
 * The Filters button says how many are on and opens a popover that Esc and a click elsewhere
 * close; *Clear filters* takes them all off. Values are the API's list parameters, kept in the
 * URL by the screen.
 */
import { useCallback, useEffect, useId, useRef, useState, type ReactElement, type ReactNode, type RefObject } from 'react';
import type { Field, JsonValue, Resource } from '../../../shared/resources';
import { activeFilters, filtersButtonText, humanized, orderingText, withoutFilters, type OrderKind } from './listModel';

export type ListParams = Readonly<Record<string, string>>;

/** A screen's own filter bar: the list parameters, the API's errors about them, and a change. */
export interface FilterBarProps {
  params: ListParams;
  errors: Readonly<Record<string, JsonValue>>;
  onChange: (next: Record<string, string>) => void;
}

interface Props {
  readonly resource: Resource;
  readonly params: ListParams;
  readonly onChange: (params: ListParams) => void;
  /** Filters to leave out (e.g. fixed by the screen). */
  readonly hide?: readonly string[];
  /** An ordering field in words, when the declaration's label is not the one to show. */
  readonly orderingLabel?: (field: string) => { label: string; kind: OrderKind } | undefined;
  /** What the search box matches, in words (the declared search fields unless given). */
  readonly searchHint?: string;
  /** Parameters of the screen's own filter bar that count as filters (and are cleared with them). */
  readonly moreFilters?: readonly string[];
  /** Controls of the screen's own filters, shown in the popover after the declared ones. */
  readonly children?: ReactNode;
}

/** An ordering field of a resource in words: its label, and what ascending means for its kind. */
export function resourceOrderingLabel(resource: Resource, name: string): { label: string; kind: OrderKind } {
  const field = resource.fields[name];
  if (name === 'pk') return { label: 'ID', kind: 'number' };
  if (name === 'type') return { label: 'Family', kind: 'text' };
  const kind: OrderKind = field?.kind === 'datetime' || field?.kind === 'date' ? 'date' : field?.kind === 'integer' ? 'number' : 'text';
  return { label: field?.label ?? humanized(name), kind };
}

/** A popover that closes on Esc (focus back on its button) and on a click or focus outside it. */
function useDismiss(open: boolean, close: () => void, root: RefObject<HTMLElement | null>, button: RefObject<HTMLButtonElement | null>) {
  useEffect(() => {
    if (!open) return;
    const outside = (event: Event) => {
      if (root.current && event.target instanceof Node && !root.current.contains(event.target)) close();
    };
    const escape = (event: KeyboardEvent) => {
      if (event.key !== 'Escape') return;
      event.preventDefault();
      close();
      button.current?.focus();
    };
    document.addEventListener('mousedown', outside);
    document.addEventListener('focusin', outside);
    document.addEventListener('keydown', escape);
    return () => {
      document.removeEventListener('mousedown', outside);
      document.removeEventListener('focusin', outside);
      document.removeEventListener('keydown', escape);
    };
  }, [open, close, root, button]);
}

function FilterControl({ name, field, value, onChange }: { name: string; field: Field; value: string; onChange: (value: string) => void }) {
  const id = `filter-${name}`;
  const label = field.label;
  if (field.kind === 'boolean') {
    return (
      <label className="filter" htmlFor={id}>
        {label}
        <select id={id} value={value} onChange={(e) => onChange(e.target.value)}>
          <option value="">any</option>
          <option value="true">yes</option>
          <option value="false">no</option>
        </select>
      </label>
    );
  }
  if (field.kind === 'choice') {
    return (
      <label className="filter" htmlFor={id}>
        {label}
        <select id={id} value={value} onChange={(e) => onChange(e.target.value)}>
          <option value="">any</option>
          {field.choices.map((choice) => (
            <option key={choice} value={choice}>
              {choice}
            </option>
          ))}
        </select>
      </label>
    );
  }
  return (
    <label className="filter" htmlFor={id}>
      {label}
      <input id={id} value={value} inputMode={field.kind === 'integer' || field.kind === 'ref' ? 'numeric' : 'text'} onChange={(e) => onChange(e.target.value)} />
    </label>
  );
}

export function ListToolbar({ resource, params, onChange, hide = [], orderingLabel, searchHint, moreFilters = [], children }: Props) {
  const [open, setOpen] = useState(false);
  const popover = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  const popoverId = useId();
  const close = useCallback(() => setOpen(false), []);
  useDismiss(open, close, popover, button);
  const shownFilters = resource.filters.filter((name) => !hide.includes(name));
  const filterNames = [...shownFilters, ...moreFilters];
  const on = activeFilters(params, filterNames);
  const labelOf = (name: string) => orderingLabel?.(name) ?? resourceOrderingLabel(resource, name);
  const [search, setSearch] = useState(params.search ?? '');
  useEffect(() => setSearch(params.search ?? ''), [params.search]);
  // Every keystroke asks for its list at once; the list drops answers to superseded searches.
  useEffect(() => {
    if (search === (params.search ?? '')) return;
    const timer = window.setTimeout(() => onChange({ ...params, search }), 0);
    return () => window.clearTimeout(timer);
  }, [search, params, onChange]);

  const set = (name: string, value: string) => {
    const next: Record<string, string> = { ...params, [name]: value };
    if (value === '') delete next[name];
    onChange(next);
  };

  return (
    <div className="toolbar" role="search" aria-label={`${resource.title} list parameters`}>
      {resource.search.length > 0 && (
        <label className="search" htmlFor={`search-${resource.name}`}>
          Search
          <input
            id={`search-${resource.name}`}
            type="search"
            value={search}
            placeholder={searchHint ?? resource.search.join(', ')}
            onChange={(e) => setSearch(e.target.value)}
          />
        </label>
      )}
      {(shownFilters.length > 0 || children) && (
        <div className={`filters${on.length > 0 ? ' filters-on' : ''}`} ref={popover}>
          <button ref={button} type="button" className="filters-button" aria-expanded={open} aria-controls={popoverId} onClick={() => setOpen((v) => !v)}>
            {filtersButtonText(on.length)}
          </button>
          <div id={popoverId} className="filter-grid" role="group" aria-label={`${resource.title} filters`} hidden={!open}>
            {shownFilters.map((name) => {
              const field = resource.fields[name];
              return field ? <FilterControl key={name} name={name} field={field} value={params[name] ?? ''} onChange={(v) => set(name, v)} /> : null;
            })}
            {children}
          </div>
        </div>
      )}
      {on.length > 0 && (
        <button type="button" className="link clear-filters" onClick={() => onChange(withoutFilters(params, filterNames))}>
          Clear filters
        </button>
      )}
      <label className="ordering" htmlFor={`ordering-${resource.name}`}>
        Order by
        <select id={`ordering-${resource.name}`} value={params.ordering ?? ''} onChange={(e) => set('ordering', e.target.value)}>
          <option value="">default: {resource.defaultOrdering.map((term) => orderingText(term, labelOf(term.replace(/^-/, '')).label, labelOf(term.replace(/^-/, '')).kind)).join(', ')}</option>
          {orderingOptions(resource.ordering, labelOf)}
        </select>
      </label>
    </div>
  );
}

/** The `<option>`s of an ordering select: each orderable field ascending, then descending, in words. */
export function orderingOptions(fields: readonly string[], labelOf: (field: string) => { label: string; kind: OrderKind } = (f) => ({ label: humanized(f), kind: 'text' })): ReactElement[] {
  return fields.flatMap((name) => {
    const { label, kind } = labelOf(name);
    return [
      <option key={name} value={name}>
        {orderingText(name, label, kind)}
      </option>,
      <option key={`-${name}`} value={`-${name}`}>
        {orderingText(`-${name}`, label, kind)}
      </option>,
    ];
  });
}
