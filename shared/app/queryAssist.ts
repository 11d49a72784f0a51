/**
 * The query box of the host list (issue 24 §1), with no I/O: the `host_id_qfilter` text of a
 * value and of a facet chip, a typed query combined with the chips, the fields a query names and
 * those the workspace does not know ("no such field: … — did you mean …?"), and what is being
 * typed at the cursor, so that the box can complete a field name or a value. The API itself keeps
 * answering an unknown field as the central server does (no match): only the box warns.
 */
import { fieldScope, parseQFilter, QueryError, type FieldScope, type QueryNode } from '../api/qfilter';

// ---------------------------------------------------------------------------------------------
// Values and chips

/** A word the query language reads as itself unquoted: no wildcard, operator, quote, escape or space. */
const BARE_WORD = /^[A-Za-z0-9_.-]+$/;
const OPERATOR_WORDS = new Set(['AND', 'OR', 'NOT']);

/**
 * A value as query text that matches exactly that whole value (case aside, as `:` does): left bare
 * when it is a plain word, else quoted with `"` and `\` escaped, so that wildcards, spaces,
 * operators and any other character stay the value's own.
 */
export function qfilterValue(value: string): string {
  if (BARE_WORD.test(value) && !OPERATOR_WORDS.has(value)) return value;
  return `"${value.replace(/[\\"]/g, (char) => `\\${char}`)}"`;
}

/** `field:value`, the value quoted as it needs. */
export function qfilterTerm(field: string, value: string): string {
  return `${field}:${qfilterValue(value)}`;
}

/** Is the text one term (a chip needs no parentheses then)? */
function isSingleTerm(text: string): boolean {
  try {
    return parseQFilter(text)?.kind === 'term';
  } catch {
    return false;
  }
}

/**
 * The query the list is asked for: the typed query (in parentheses, so that its OR stays inside)
 * AND each chip. Blank parts are left out; a blank whole is ''.
 */
export function combineQuery(typed: string, chips: readonly string[]): string {
  const parts: string[] = [];
  const query = typed.trim();
  const others = chips.map((chip) => chip.trim()).filter((chip) => chip !== '');
  if (query !== '') parts.push(others.length === 0 || isSingleTerm(query) ? query : `(${query})`);
  for (const chip of others) parts.push(isSingleTerm(chip) ? chip : `(${chip})`);
  return parts.join(' AND ');
}

// ---------------------------------------------------------------------------------------------
// Fields named and unknown

/** A field as the query language names it in full: `ip`, `hits`, `host_id`, `host_id.<path>`. */
export function fieldName(scope: FieldScope): string {
  if (scope.within === 'host_id') return 'host_id';
  return scope.path === 'ip' || scope.path === 'hits' ? scope.path : `host_id.${scope.path}`;
}

/** The fields a query names, in full and each once, in order; or why the query does not parse. */
export function fieldsNamed(query: string): { readonly fields: readonly string[] } | { readonly error: string } {
  let tree: QueryNode | undefined;
  try {
    tree = parseQFilter(query);
  } catch (error) {
    if (error instanceof QueryError) return { error: error.message };
    throw error;
  }
  const fields: string[] = [];
  const walk = (node: QueryNode): void => {
    if (node.kind === 'term') {
      if (node.field) {
        const name = fieldName(node.field);
        if (!fields.includes(name)) fields.push(name);
      }
    } else if (node.kind === 'not') walk(node.node);
    else node.nodes.forEach(walk);
  };
  if (tree) walk(tree);
  return { fields };
}

/** Is `name` (in full) a field of the list, or a field that holds some of them (`host_id.services` holds `host_id.services.port`)? */
function isKnown(name: string, known: readonly string[]): boolean {
  if (name === 'host_id') return true;
  return known.some((field) => field === name || field.startsWith(`${name}.`));
}

/** Edit distance (insert, delete, replace, swap of two neighbours), for "did you mean". */
export function editDistance(a: string, b: string): number {
  const rows: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) rows[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = best;
    }
  }
  return rows[a.length]![b.length]!;
}

/** Every name a field can be written as: each known field and each field holding some (`host_id.services`). */
function allNames(known: readonly string[]): string[] {
  const names = new Set<string>();
  for (const field of known) {
    const parts = field.split('.');
    for (let n = 1; n <= parts.length; n++) names.add(parts.slice(0, n).join('.'));
  }
  return [...names];
}

export interface UnknownField {
  readonly field: string;
  /** The nearest field the workspace has, when one is near. */
  readonly suggestion?: string;
  /** `no such field: host_id.role.name — did you mean host_id.roles.name?` */
  readonly message: string;
}

/**
 * The fields a query names that the workspace does not have (given its fields, in full, as
 * `hostFields` lists them), each with the nearest one. A query that does not parse names none.
 */
export function unknownFields(query: string, known: readonly string[]): UnknownField[] {
  const named = fieldsNamed(query);
  if ('error' in named) return [];
  const names = allNames(known);
  return named.fields
    .filter((field) => !isKnown(field, known))
    .map((field) => {
      let suggestion: string | undefined;
      let best = Math.max(2, Math.floor(field.length / 4)) + 1;
      for (const name of names) {
        const distance = editDistance(field.toLowerCase(), name.toLowerCase());
        if (distance < best) {
          best = distance;
          suggestion = name;
        }
      }
      const message = `no such field: ${field}${suggestion ? ` — did you mean ${suggestion}?` : ''}`;
      return suggestion ? { field, suggestion, message } : { field, message };
    });
}

// ---------------------------------------------------------------------------------------------
// What is typed at the cursor

/** What the cursor is in: a field name being typed, or a value of a field; `from`–`to` is what a completion replaces. */
export type CursorContext =
  | { readonly kind: 'field'; readonly prefix: string; readonly from: number; readonly to: number }
  | { readonly kind: 'value'; readonly field: string; readonly prefix: string; readonly from: number; readonly to: number };

/** Characters that end a token outside quotes (the grammar's own). */
const TOKEN_STOP = /[\s()]/u;
const COMPARATORS = [':>=', ':<=', ':>', ':<', '>=', '<=', ':', '>', '<'];

/** Where the token holding `at` starts and ends (quotes and escapes kept inside it): one pass, so an escape or a quote before `at` counts after it. */
function tokenAround(query: string, at: number): { from: number; to: number } {
  let from = 0;
  let quoted = false;
  for (let i = 0; i < query.length; i++) {
    const char = query[i]!;
    if (char === '\\') i++;
    else if (char === '"') quoted = !quoted;
    else if (!quoted && TOKEN_STOP.test(char)) {
      if (i < at) from = i + 1;
      else return { from, to: i };
    }
  }
  return { from, to: query.length };
}

/** The first unescaped, unquoted comparator of a token: where its field ends and its value starts. */
function comparatorIn(token: string): { fieldEnd: number; valueStart: number } | undefined {
  for (let i = 0; i < token.length; i++) {
    const char = token[i]!;
    if (char === '\\') {
      i++;
      continue;
    }
    if (char === '"') return undefined;
    const comparator = COMPARATORS.find((c) => token.startsWith(c, i));
    if (comparator) return { fieldEnd: i, valueStart: i + comparator.length };
  }
  return undefined;
}

/** A value as typed so far, its quotes and escapes taken away (up to a closing quote). */
function unquoted(typed: string): string {
  const chars = [...typed];
  const quoted = chars[0] === '"';
  let out = '';
  for (let i = quoted ? 1 : 0; i < chars.length; i++) {
    const char = chars[i]!;
    if (char === '\\' && i + 1 < chars.length) out += chars[++i];
    else if (quoted && char === '"') break;
    else out += char;
  }
  return out;
}

/**
 * What is being typed at `cursor` (a UTF-16 index, as a text box gives it): a field name, or a
 * value of a field (its prefix unquoted and unescaped); undefined in an operator or between
 * tokens. A leading `!` is not part of the field.
 */
export function cursorContext(query: string, cursor: number): CursorContext | undefined {
  const at = Math.max(0, Math.min(cursor, query.length));
  let { from, to } = tokenAround(query, at);
  while (from < at && query[from] === '!') from++;
  const token = query.slice(from, to);
  const before = query.slice(from, at);
  const comparator = comparatorIn(token);
  if (comparator && from + comparator.fieldEnd < at) {
    const field = query.slice(from, from + comparator.fieldEnd).replace(/\\(.)/gu, '$1');
    const valueFrom = from + comparator.valueStart;
    if (at < valueFrom) return undefined;
    return { kind: 'value', field: fieldName(fieldScope(field)), prefix: unquoted(query.slice(valueFrom, at)), from: valueFrom, to };
  }
  if (before.startsWith('"') || OPERATOR_WORDS.has(token) || token === '&&' || token === '||') return undefined;
  return { kind: 'field', prefix: before.replace(/\\(.)/gu, '$1'), from, to: comparator ? from + comparator.fieldEnd : to };
}

/** The query with a completion put in the context's place: a field name (with its `:`) or a value (quoted as it needs); and the cursor after it. */
export function applyCompletion(query: string, context: CursorContext, completion: string): { readonly query: string; readonly cursor: number } {
  const text = context.kind === 'field' ? `${completion}:` : qfilterValue(completion);
  return { query: query.slice(0, context.from) + text + query.slice(context.to), cursor: context.from + text.length };
}
