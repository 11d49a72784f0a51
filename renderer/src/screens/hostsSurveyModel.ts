/**
 * Pure rules of the Hosts screen's survey list (no DOM, no I/O): what the screen keeps in its URL
 * (the query, the facet chips, the seen-in window, the search, an import's filter, the ordering)
 * and the `hostList` / `hostFacets` query it makes of them (the chips joined to the typed query by
 * shared/app/queryAssist.ts, which the query box also uses to complete and check); the columns
 * remembered per workspace; the fields a prefix completes.
 */
import { combineQuery } from '../../../shared/app/queryAssist';
import { DEFAULT_HOST_COLUMNS, HOST_COLUMN_IDS, SEARCH_MIN_CHARS, parseHostColumns, type HostColumnId, type QueryField } from '../../../shared/app/hostSurvey';

export type ScreenParams = Readonly<Record<string, string>>;

/** The URL parameter of the facet chips: their `host_id_qfilter` texts, one a line. */
export const CHIPS_PARAM = 'facet';
/** The URL parameter of the query box (the API's own name, so that a shared link reads as one). */
export const QUERY_PARAM = 'host_id_qfilter';

/** The filters of the screen (what "Clear filters" takes away; search and ordering stay). */
export const SURVEY_FILTERS = [QUERY_PARAM, CHIPS_PARAM, 'start_date', 'end_date', 'visit', 'visit_change'] as const;

/** The active chips, in the order they were added, each once. */
export function chipsOf(params: ScreenParams): string[] {
  const out: string[] = [];
  for (const line of (params[CHIPS_PARAM] ?? '').split('\n')) {
    const chip = line.trim();
    if (chip !== '' && !out.includes(chip)) out.push(chip);
  }
  return out;
}

function withParam(params: ScreenParams, name: string, value: string | undefined): Record<string, string> {
  const next: Record<string, string> = { ...params };
  if (value === undefined || value === '') delete next[name];
  else next[name] = value;
  return next;
}

/** The parameters with the chip `qfilter` added (a second click on the same bucket takes it off). */
export function toggledChip(params: ScreenParams, qfilter: string): Record<string, string> {
  const chips = chipsOf(params);
  const next = chips.includes(qfilter) ? chips.filter((c) => c !== qfilter) : [...chips, qfilter];
  return withParam(params, CHIPS_PARAM, next.join('\n'));
}

/** Epoch seconds (the seen-in window's parameters) as the ISO time a query compares with. */
function isoOf(seconds: string | undefined): string | undefined {
  if (seconds === undefined || seconds.trim() === '') return undefined;
  const value = Number(seconds);
  if (!Number.isFinite(value)) return undefined;
  const at = new Date(Math.floor(value) * 1000);
  return Number.isNaN(at.getTime()) ? undefined : at.toISOString().replace('.000Z', 'Z');
}

/**
 * The seen-in window as query terms (the list's rule: last seen on or after its start, first seen
 * on or before its end), so that the window is one more filter of the shared query language.
 */
export function windowTerms(params: ScreenParams): string[] {
  const terms: string[] = [];
  const start = isoOf(params.start_date);
  const end = isoOf(params.end_date === undefined ? undefined : String(Math.floor(Number(params.end_date))));
  if (start) terms.push(`host_id.last_seen:>="${start}"`);
  if (end) terms.push(`host_id.first_seen:<="${end.replace('Z', '')}.999999Z"`);
  return terms;
}

/** The search as sent: from its third character (shorter ones would match nearly everything). */
export function searchSent(text: string | undefined): string | undefined {
  const trimmed = (text ?? '').trim();
  return [...trimmed].length >= SEARCH_MIN_CHARS ? trimmed : undefined;
}

/** The filter of `hostList`, `hostFacets` and the exports, from the screen's parameters. */
export function surveyQuery(params: ScreenParams): Record<string, string> {
  const out: Record<string, string> = {};
  const q = combineQuery(params[QUERY_PARAM] ?? '', [...chipsOf(params), ...windowTerms(params)]);
  if (q) out.q = q;
  const search = searchSent(params.search);
  if (search) out.search = search;
  if (params.visit && /^[1-9]\d*$/.test(params.visit)) {
    out.visit = params.visit;
    out.visit_change = params.visit_change === 'new' ? 'new' : 'changed';
  }
  return out;
}

/** The list's query: the filter and the ordering. */
export function listQuery(params: ScreenParams): Record<string, string> {
  const out = surveyQuery(params);
  if (params.ordering) out.ordering = params.ordering;
  return out;
}

/** The orderings of the list, in words. */
export const ORDERINGS: readonly { readonly value: string; readonly label: string }[] = [
  { value: '', label: 'Last seen (newest first)' },
  { value: 'last_seen', label: 'Last seen (oldest first)' },
  { value: '-first_seen', label: 'First seen (newest first)' },
  { value: 'first_seen', label: 'First seen (oldest first)' },
  { value: '-learned', label: 'Learned (newest first)' },
  { value: 'learned', label: 'Learned (oldest first)' },
  { value: 'ip', label: 'Address (lowest first)' },
  { value: '-ip', label: 'Address (highest first)' },
  { value: '-hits', label: 'Hits (highest first)' },
  { value: 'hits', label: 'Hits (lowest first)' },
];

// ---------------------------------------------------------------------------------------------
// Columns remembered per workspace

/** The storage key of a workspace's columns (its name may hold any character: it is encoded). */
export function columnsKey(workspace: string): string {
  return `outpost.hostColumns.${encodeURIComponent(workspace)}`;
}

/** The columns stored (a comma list); the defaults when nothing or nothing known is stored. */
export function storedColumns(text: string | null): HostColumnId[] {
  if (text === null) return [...DEFAULT_HOST_COLUMNS];
  return parseHostColumns(text);
}

/** The columns with `id` shown or not, in the declared order; the address always first and shown. */
export function toggledColumn(columns: readonly HostColumnId[], id: HostColumnId): HostColumnId[] {
  if (id === 'ip') return [...columns];
  const shown = new Set(columns);
  if (shown.has(id)) shown.delete(id);
  else shown.add(id);
  return HOST_COLUMN_IDS.filter((c) => c === 'ip' || shown.has(c));
}

/**
 * The address column's width for the longest address read: digits and colons of the list's
 * font are about 0.6rem each; 39 characters (an IPv6 address written whole) fit in 25rem.
 */
export function addressWidth(longest: number): string {
  return `${Math.max(7.5, Math.ceil((longest * 0.6 + 1.4) * 4) / 4)}rem`;
}

// ---------------------------------------------------------------------------------------------
// The query box

/** A field name as the query writes it, without the optional `host_id.` and in lower case. */
function bare(name: string): string {
  const lower = name.toLowerCase();
  return lower.startsWith('host_id.') ? lower.slice('host_id.'.length) : lower === 'host_id' ? '' : lower;
}

/** The fields that complete `prefix` (matched at the start of the full name or of its part after `host_id.`). */
export function fieldSuggestions(prefix: string, fields: readonly QueryField[], limit = 12): QueryField[] {
  const p = prefix.toLowerCase();
  const starts = fields.filter((f) => f.field.toLowerCase().startsWith(p) || bare(f.field).startsWith(p));
  const contains = fields.filter((f) => !starts.includes(f) && f.field.toLowerCase().includes(p));
  return [...starts, ...contains].slice(0, limit);
}

/**
 * The CSV's separator as the engineer's spreadsheet expects it: where the language writes decimals
 * with a comma (French, German…), spreadsheets split a line on `;`, and a comma file would open
 * as one column.
 */
export function csvDelimiter(language: string): 'comma' | 'semicolon' {
  return (1.5).toLocaleString(language).includes(',') ? 'semicolon' : 'comma';
}

/** A SHA-256 as the list shows it: its first 12 digits (the whole on demand). */
export function shortHash(sha256: string): string {
  return sha256.length > 12 ? `${sha256.slice(0, 12)}…` : sha256;
}
