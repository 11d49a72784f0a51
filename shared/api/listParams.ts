/**
 * List parameters (api.md §2) parsed from a query string into a typed description, with no I/O.
 * The storage layer turns a `ListQuery` into SQL; every identifier in it comes from the
 * resource's declaration, never from the request.
 */
import type { Field, Resource } from '../resources';
import { ApiError, type FieldErrors } from './errors';
import { MESSAGES, message } from './messages';
import { queryGet, type QueryPairs } from './queryString';
import { parseIsoDateTime } from './datetime';
import { pythonInt } from './python';

export const DEFAULT_PAGE_SIZE = 30;
export const MAX_PAGE_SIZE = 10000;

export interface OrderTerm {
  readonly field: string;
  readonly descending: boolean;
}

export type FilterValue = string | number | boolean;

export interface FilterTerm {
  readonly field: string;
  readonly value: FilterValue;
}

export type PageRequest = number | 'last' | 'invalid';

export interface ListQuery {
  readonly page: PageRequest;
  readonly pageSize: number;
  /** Requested or default ordering; the storage appends `pk` to break ties. */
  readonly ordering: readonly OrderTerm[];
  readonly search: readonly string[];
  readonly filters: readonly FilterTerm[];
}

/** `page_size`: 1…10000 honoured (larger clamped), anything else means the default (DRF reads it with `int()`). */
export function parsePageSize(raw: string | undefined): number {
  const size = raw === undefined ? undefined : pythonInt(raw);
  if (size === undefined || size <= 0n) return DEFAULT_PAGE_SIZE;
  return size > BigInt(MAX_PAGE_SIZE) ? MAX_PAGE_SIZE : Number(size);
}

/** `page`: empty means 1, `last` the last page; otherwise Django's `int()`; a non-integer is only known invalid here. */
export function parsePage(raw: string | undefined): PageRequest {
  if (raw === undefined || raw === '') return 1;
  if (raw === 'last') return 'last';
  const n = pythonInt(raw);
  return n !== undefined && n >= 1n && n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : 'invalid';
}

const ORDER_TERM = /^[-+]?[.\w]+$/;

/**
 * DRF's OrderingFilter: unknown terms dropped; nothing valid left means the default. A field
 * named again adds nothing to the order (the first mention decides), so repeats are dropped:
 * the ORDER BY never grows past the resource's orderable fields, whatever the query's length.
 */
export function parseOrdering(raw: string | undefined, allowed: readonly string[], fallback: readonly string[]): OrderTerm[] {
  const toTerm = (term: string): OrderTerm =>
    term.startsWith('-') ? { field: term.slice(1), descending: true } : { field: term, descending: false };
  if (raw) {
    const terms = raw
      .split(',')
      .map((t) => t.trim())
      .filter((t) => ORDER_TERM.test(t) && allowed.includes(t.replace(/^-+/, '')) && !t.startsWith('+'));
    const seen = new Set<string>();
    const firsts = terms.map(toTerm).filter((term) => !seen.has(term.field) && seen.add(term.field));
    if (firsts.length > 0) return firsts;
  }
  return fallback.map(toTerm);
}

/** Django's `smart_split`: whitespace-separated, quoted strings kept whole (quotes included). */
function smartSplit(text: string): string[] {
  const pattern = /((?:[^\s'"]*(?:(?:"(?:[^"\\]|\\[\s\S])*"|'(?:[^'\\]|\\[\s\S])*')[^\s'"]*)+)|\S+)/g;
  return text.match(pattern) ?? [];
}

function unescapeStringLiteral(term: string): string {
  const quote = term[0]!;
  return term.slice(1, -1).replace(new RegExp(`\\\\${quote}`, 'g'), quote).replace(/\\\\/g, '\\');
}

/** DRF 3.15 `search_smart_split`: commas and whitespace separate terms; a quoted phrase is one term. */
export function splitSearchTerms(raw: string): string[] {
  const terms: string[] = [];
  for (const token of smartSplit(raw)) {
    const term = token.replace(/^,+|,+$/g, '');
    if ((term.startsWith('"') || term.startsWith("'")) && term.length >= 2 && term[0] === term[term.length - 1]) {
      terms.push(unescapeStringLiteral(term));
    } else {
      for (const sub of term.split(',')) if (sub) terms.push(sub.trim());
    }
  }
  return terms.filter((t) => t !== '');
}

/**
 * Bounds of `search` (docs/decisions.md, "Query bounds"): every term is one more clause over every
 * search field, and SQLite refuses an expression tree past 1,000 levels. A repeated term adds
 * nothing (all terms must match), so repeats are dropped before counting.
 */
export const SEARCH_LIMITS = { length: 4096, terms: 32 } as const;

export function parseSearch(raw: string | undefined): string[] {
  if (!raw) return [];
  if (raw.includes('\0')) throw new ApiError(400, [MESSAGES.nullCharacters]);
  if (raw.length > SEARCH_LIMITS.length) throw ApiError.validation({ search: [message.searchTooLong(SEARCH_LIMITS.length)] });
  const terms = [...new Set(splitSearchTerms(raw))];
  if (terms.length > SEARCH_LIMITS.terms) throw ApiError.validation({ search: [message.searchTooManyTerms(SEARCH_LIMITS.terms)] });
  return terms;
}

const TRUE_FILTER = new Set(['true', '1']);
const FALSE_FILTER = new Set(['false', '0']);
const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/** One filter value, as django-filter's form field for the field's kind reads it. */
export function parseFilterValue(field: Field, raw: string): { value?: FilterValue; error?: string } {
  switch (field.kind) {
    case 'boolean': {
      const lower = raw.toLowerCase();
      if (TRUE_FILTER.has(lower)) return { value: true };
      if (FALSE_FILTER.has(lower)) return { value: false };
      return {};
    }
    case 'choice':
      if (raw === '') return {};
      return field.choices.includes(raw) ? { value: raw } : { error: message.filterChoice(raw) };
    case 'integer':
    case 'ref': {
      const text = raw.trim();
      if (text === '') return {};
      if (!NUMBER.test(text) || !Number.isFinite(Number(text))) return { error: MESSAGES.enterNumber };
      return { value: Number(text) };
    }
    case 'datetime': {
      const text = raw.trim();
      if (text === '') return {};
      // django-filter's IsoDateTimeField: Django's parse_datetime only (a bare date is invalid).
      const when = parseIsoDateTime(text);
      return when === undefined ? { error: MESSAGES.enterDateTime } : { value: when };
    }
    default: {
      if (raw.includes('\0')) return { error: MESSAGES.nullCharacters };
      const text = raw.trim();
      return text === '' ? {} : { value: text };
    }
  }
}

/** Filters of the resource present in the query; every invalid one reported at once (400). */
export function parseFilters(resource: Resource, pairs: QueryPairs): FilterTerm[] {
  const terms: FilterTerm[] = [];
  const errors: FieldErrors = {};
  for (const name of resource.filters) {
    const raw = queryGet(pairs, name);
    const field = resource.fields[name];
    if (raw === undefined || !field) continue;
    const parsed = parseFilterValue(field, raw);
    if (parsed.error) errors[name] = [parsed.error];
    else if (parsed.value !== undefined) terms.push({ field: name, value: parsed.value });
  }
  if (Object.keys(errors).length > 0) throw ApiError.validation(errors);
  return terms;
}

/**
 * Everything a list GET asks for. Errors come in DRF's order: filters (400), then search (400);
 * an invalid page is only known once the count is (404, raised by the caller).
 */
export function parseListQuery(resource: Resource, pairs: QueryPairs): ListQuery {
  const filters = parseFilters(resource, pairs);
  const ordering = parseOrdering(queryGet(pairs, 'ordering'), resource.ordering, resource.defaultOrdering);
  const search = resource.search.length > 0 ? parseSearch(queryGet(pairs, 'search')) : [];
  return {
    page: parsePage(queryGet(pairs, 'page')),
    pageSize: parsePageSize(queryGet(pairs, 'page_size')),
    ordering,
    search,
    filters,
  };
}

/** The 1-based page to serve, or undefined past the end (or for a page that is not a number). */
export function pageNumber(page: PageRequest, count: number, pageSize: number): number | undefined {
  const pages = Math.max(1, Math.ceil(count / pageSize));
  const n = page === 'last' ? pages : page;
  return n === 'invalid' || n < 1 || n > pages ? undefined : n;
}

/** The 1-based page to serve, or an ApiError 404 `Invalid page.` */
export function resolvePage(page: PageRequest, count: number, pageSize: number): number {
  const n = pageNumber(page, count, pageSize);
  if (n === undefined) throw ApiError.detail(404, MESSAGES.invalidPage);
  return n;
}
