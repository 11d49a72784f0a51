/**
 * Search, filters and ordering of a list, built from the resource's declaration: one control
 * per filter field (a select for choices and booleans), the ordering fields both ways. Values
 * are the API's list parameters, kept in the URL by the screen.
 */
import { useEffect, useState, type ReactElement } from 'react';
import type { Field, JsonValue, Resource } from '../../../shared/resources';

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

export function ListToolbar({ resource, params, onChange, hide = [] }: Props) {
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
            placeholder={resource.search.join(', ')}
            onChange={(e) => setSearch(e.target.value)}
          />
        </label>
      )}
      <details className="filters">
        <summary>Filters</summary>
        <div className="filter-grid">
          {resource.filters
            .filter((name) => !hide.includes(name))
            .map((name) => {
              const field = resource.fields[name];
              return field ? <FilterControl key={name} name={name} field={field} value={params[name] ?? ''} onChange={(v) => set(name, v)} /> : null;
            })}
        </div>
      </details>
      <label className="ordering" htmlFor={`ordering-${resource.name}`}>
        Order by
        <select id={`ordering-${resource.name}`} value={params.ordering ?? ''} onChange={(e) => set('ordering', e.target.value)}>
          <option value="">default ({resource.defaultOrdering.join(', ')})</option>
          {orderingOptions(resource.ordering)}
        </select>
      </label>
    </div>
  );
}

/** The `<option>`s of an ordering select: each orderable field ascending, then descending. */
export function orderingOptions(fields: readonly string[]): ReactElement[] {
  return fields.flatMap((name) => [
    <option key={name} value={name}>
      {name} ↑
    </option>,
    <option key={`-${name}`} value={`-${name}`}>
      {name} ↓
    </option>,
  ]);
}
