/**
 * Pure rules of a list's parameters (api.md §2) as the list screens show them: how many filters
 * are on, clearing them, what a column header click asks for (`ordering`), ordering in words,
 * and what an empty result says. No DOM, no I/O.
 */

export type Params = Readonly<Record<string, string>>;

/** The filters of `filterNames` that have a value (search and ordering are not filters). */
export function activeFilters(params: Params, filterNames: readonly string[]): string[] {
  return filterNames.filter((name) => (params[name] ?? '').trim() !== '');
}

/** The parameters without any filter of `filterNames`: search, ordering and the rest stay. */
export function withoutFilters(params: Params, filterNames: readonly string[]): Record<string, string> {
  return Object.fromEntries(Object.entries(params).filter(([key]) => !filterNames.includes(key)));
}

/** The Filters button: `Filters`, or `Filters (2)` when two are on. */
export function filtersButtonText(count: number): string {
  return count === 0 ? 'Filters' : `Filters (${count})`;
}

export type SortDirection = 'ascending' | 'descending';

/** The first ordering term (`-updated` → updated, descending), from the list's or the default. */
export function primaryOrdering(ordering: string | undefined, defaultOrdering: readonly string[]): { field: string; direction: SortDirection } | undefined {
  const first = (ordering && ordering.trim() !== '' ? ordering.split(',') : [...defaultOrdering])[0]?.trim();
  if (!first) return undefined;
  return first.startsWith('-') ? { field: first.slice(1), direction: 'descending' } : { field: first, direction: 'ascending' };
}

/** How a column sorted by `field` is sorted now, if the list is sorted by it first. */
export function sortStateOf(field: string, ordering: string | undefined, defaultOrdering: readonly string[]): SortDirection | undefined {
  const primary = primaryOrdering(ordering, defaultOrdering);
  return primary?.field === field ? primary.direction : undefined;
}

/** The `ordering` a click on the header of `field` asks for: ascending first, then the other way. */
export function nextOrdering(field: string, ordering: string | undefined, defaultOrdering: readonly string[]): string {
  return sortStateOf(field, ordering, defaultOrdering) === 'ascending' ? `-${field}` : field;
}

export type OrderKind = 'text' | 'number' | 'date';

/** What ascending means for a kind of value, in words. */
const DIRECTION_WORDS: Record<OrderKind, Record<SortDirection, string>> = {
  text: { ascending: 'A to Z', descending: 'Z to A' },
  number: { ascending: 'lowest first', descending: 'highest first' },
  date: { ascending: 'oldest first', descending: 'newest first' },
};

/** An ordering term in words: `-updated` → `Updated (newest first)`. */
export function orderingText(term: string, label: string, kind: OrderKind): string {
  const direction: SortDirection = term.startsWith('-') ? 'descending' : 'ascending';
  return `${label} (${DIRECTION_WORDS[kind][direction]})`;
}

/** A field name as words when no label is given: `log_retention_days` → `Log retention days`. */
export function humanized(name: string): string {
  const text = name.replace(/[._]+/g, ' ').trim();
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** What an empty list says: with filters or a search on, that they hide what there may be. */
export function emptyListText(noun: string, filterCount: number, searching: boolean, otherwise: string): string {
  if (filterCount > 0 && searching) return `No ${noun} matches the search and ${filterCount === 1 ? 'the filter' : `the ${filterCount} filters`} that are on.`;
  if (filterCount > 0) return `No ${noun} matches: ${filterCount === 1 ? 'a filter is' : `${filterCount} filters are`} on.`;
  if (searching) return `No ${noun} matches the search.`;
  return otherwise;
}
