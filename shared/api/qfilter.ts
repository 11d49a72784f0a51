/**
 * `host_id_qfilter` (api.md §7): the part of the Elasticsearch query-string syntax that real
 * clients of the host list send, parsed into a tree and evaluated against one host at a time.
 *
 *   query   = either
 *   either  = both { OR both }                      OR  or ||
 *   both    = single { [AND] single }               AND or &&; nothing between two terms is AND
 *   single  = NOT single | "(" either ")" | term    NOT or !
 *   term    = [field (":" | ":>" | ":>=" | ":<" | ":<=" | ">" | ">=" | "<" | "<=")] value
 *   value   = word (with * and ? wildcards, \x escapes) | "quoted string"
 *
 * A field is a path in the host (`ip`, `hits`, `host_id.services.port`; `host_id.` optional);
 * a field covers its sub-fields and list items share their list's path. `:` matches a whole
 * value case-insensitively; comparisons apply to numbers and dates; a value without a field
 * matches any text value except timestamps. A query that does not parse throws QueryError with
 * "character N: <why>." (N counts characters from 1 in the trimmed query).
 */
import type { JsonObject, JsonValue } from '../resources/fields';
import { parseDateTimeInput } from './datetime';
import { pyRepr } from './python';

export class QueryError extends Error {}

export type Comparator = '>' | '>=' | '<' | '<=';

/** What one term asks of a value. */
export type ValueTest =
  | { readonly kind: 'match'; readonly pattern: Glob }
  | { readonly kind: 'compare'; readonly op: Comparator; readonly bound: Ordinal };

export type QueryNode =
  | { readonly kind: 'or'; readonly nodes: readonly QueryNode[] }
  | { readonly kind: 'and'; readonly nodes: readonly QueryNode[] }
  | { readonly kind: 'not'; readonly node: QueryNode }
  /** `field` undefined: any text value but timestamps. */
  | { readonly kind: 'term'; readonly field: FieldScope | undefined; readonly test: ValueTest };

/**
 * Where a field looks: `path` and its sub-paths among the values of the whole entry (`ip`,
 * `hits` and the host_id object's paths); or, for `host_id` itself, every value of host_id.
 */
export interface FieldScope {
  readonly path: string;
  readonly within: 'entry' | 'host_id';
  /**
   * `.raw` or `.keyword` after the field (Elasticsearch's keyword sub-fields, which the vendor's
   * web UI queries): the value matches exactly, case included.
   */
  readonly exact?: boolean;
}

/** A number, or a date/time as epoch microseconds: the two kinds comparisons order. */
export interface Ordinal {
  readonly kind: 'number' | 'time';
  readonly value: number;
}

// ---------------------------------------------------------------------------------------------
// Values

const NUMERIC_TEXT = /^-?\d+(\.\d+)?$/;

/** The ordinal of a value: numbers, numeric text, ISO dates and date/times; else undefined. */
export function ordinalOf(value: JsonValue): Ordinal | undefined {
  if (typeof value === 'number') return { kind: 'number', value };
  if (typeof value !== 'string') return undefined;
  if (NUMERIC_TEXT.test(value)) return { kind: 'number', value: Number(value) };
  const when = parseDateTimeInput(value);
  return when === undefined ? undefined : { kind: 'time', value: when };
}

/** A scalar as text for matching: booleans read `true`/`false`, numbers as Python prints them. */
export function valueText(value: string | number | boolean): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  return pyRepr(value);
}

/** Limits that keep one query's cost bounded whatever a client sends (docs/decisions.md). */
export const QFILTER_LIMITS = {
  /** Characters in the whole query. */
  length: 4096,
  /** Terms (field:value pairs and bare values). */
  terms: 256,
  /** Nested NOT and parentheses. */
  depth: 32,
} as const;

/**
 * A whole-value pattern: `*` any text, `?` one character, everything else itself, compared
 * case-insensitively code point by code point. Matched without regular expressions, so that no
 * pattern a client writes can make the matcher backtrack: the text is scanned once per segment
 * between stars (`globMatch`).
 */
export interface Glob {
  /** The parts between stars, each a list of (folded, unless `exact`) code points where `undefined` is `?`. */
  readonly segments: readonly (readonly (string | undefined)[])[];
  /** Case counts (a `.raw` / `.keyword` field). */
  readonly exact?: boolean;
}

/** Case folding, one code point at a time (so that a folded part of a text is a part of the folded text). */
export function fold(char: string): string {
  return char.toLowerCase();
}

function globOf(parts: readonly { char: string; wild: boolean }[]): Glob {
  const segments: (string | undefined)[][] = [[]];
  for (const { char, wild } of parts) {
    if (wild && char === '*') segments.push([]);
    else segments[segments.length - 1]!.push(wild ? undefined : fold(char));
  }
  return { segments };
}

/** The same pattern, matched case included. */
function exactGlob(parts: readonly { char: string; wild: boolean }[]): Glob {
  const segments: (string | undefined)[][] = [[]];
  for (const { char, wild } of parts) {
    if (wild && char === '*') segments.push([]);
    else segments[segments.length - 1]!.push(wild ? undefined : char);
  }
  return { segments, exact: true };
}

function wordParts(word: string): { char: string; wild: boolean }[] {
  const chars = [...word];
  const parts: { char: string; wild: boolean }[] = [];
  for (let i = 0; i < chars.length; i++) {
    const char = chars[i]!;
    if (char === '\\' && i + 1 < chars.length) parts.push({ char: chars[++i]!, wild: false });
    else parts.push({ char, wild: char === '*' || char === '?' });
  }
  return parts;
}

/** An unquoted word as a whole-value pattern: `*` any text, `?` one character, `\x` x itself. */
export function wordPattern(word: string, exact = false): Glob {
  return exact ? exactGlob(wordParts(word)) : globOf(wordParts(word));
}

/** A quoted string (escapes removed) as a whole-value pattern: no wildcards. */
export function textPattern(text: string, exact = false): Glob {
  const parts = [...text].map((char) => ({ char, wild: false }));
  return exact ? exactGlob(parts) : globOf(parts);
}

function segmentAt(text: readonly string[], at: number, segment: readonly (string | undefined)[]): boolean {
  if (at + segment.length > text.length) return false;
  for (let k = 0; k < segment.length; k++) {
    const want = segment[k];
    if (want !== undefined && want !== text[at + k]) return false;
  }
  return true;
}

const ASCII = /^[\x00-\x7f]*$/;

/**
 * Does `value` match the whole pattern? The first segment is anchored at the start and the last
 * at the end; each middle segment takes its leftmost place after the previous one — leftmost is
 * always safe for `*`, so nothing is ever tried twice (at most |value| × |segment| comparisons).
 */
export function globMatch(glob: Glob, value: string): boolean {
  // ASCII folds as a whole string the same as code point by code point, and faster.
  const text = glob.exact ? [...value] : ASCII.test(value) ? [...value.toLowerCase()] : [...value].map(fold);
  const { segments } = glob;
  if (segments.length === 1) return text.length === segments[0]!.length && segmentAt(text, 0, segments[0]!);
  const head = segments[0]!;
  const tail = segments[segments.length - 1]!;
  if (head.length + tail.length > text.length) return false;
  if (!segmentAt(text, 0, head) || !segmentAt(text, text.length - tail.length, tail)) return false;
  let at = head.length;
  const limit = text.length - tail.length;
  for (let s = 1; s < segments.length - 1; s++) {
    const segment = segments[s]!;
    while (at + segment.length <= limit && !segmentAt(text, at, segment)) at++;
    if (at + segment.length > limit) return false;
    at += segment.length;
  }
  return true;
}

/** `\x` → `x` everywhere. */
export function unescapeQuery(text: string): string {
  return text.replace(/\\([\s\S])/gu, '$1');
}

/** Does one value pass a term's test? */
export function passes(test: ValueTest, value: string | number | boolean): boolean {
  if (test.kind === 'match') return globMatch(test.pattern, valueText(value));
  const ordinal = typeof value === 'boolean' ? undefined : ordinalOf(value);
  if (!ordinal || ordinal.kind !== test.bound.kind) return false;
  switch (test.op) {
    case '>':
      return ordinal.value > test.bound.value;
    case '>=':
      return ordinal.value >= test.bound.value;
    case '<':
      return ordinal.value < test.bound.value;
    case '<=':
      return ordinal.value <= test.bound.value;
  }
}

// ---------------------------------------------------------------------------------------------
// Tokens

type OperatorKind = 'AND' | 'OR' | 'NOT' | '(' | ')';

interface Token {
  readonly kind: OperatorKind | 'term' | 'end';
  /** 1-based character position. */
  readonly at: number;
  readonly term?: QueryNode;
}

const SYMBOLS: readonly (readonly [string, OperatorKind])[] = [
  ['&&', 'AND'],
  ['||', 'OR'],
  ['!', 'NOT'],
  ['(', '('],
  [')', ')'],
];
const WORD_OPERATORS: Readonly<Record<string, OperatorKind>> = { AND: 'AND', OR: 'OR', NOT: 'NOT' };
const SPACE = /^\s$/u;
/** Characters that end a field name (besides space); a backslash escapes any of them. */
const FIELD_STOP = new Set(['(', ')', '"', '\\', ':', '<', '>', '=', '!']);
/** Characters that end an unquoted word (besides space). */
const WORD_STOP = new Set(['(', ')', '"', '\\']);
const COMPARATOR_END = /(?<!\\)[:<>=]$/u;

interface Value {
  readonly end: number;
  readonly word?: string;
  readonly quoted?: string;
}

class Scanner {
  readonly chars: readonly string[];

  constructor(text: string) {
    this.chars = [...text];
  }

  get length(): number {
    return this.chars.length;
  }

  text(from: number, to: number): string {
    return this.chars.slice(from, to).join('');
  }

  isSpace(i: number): boolean {
    return i < this.length && SPACE.test(this.chars[i]!);
  }

  /** End of the run from `i` of characters not in `stop` (nor space), or escape pairs. */
  run(i: number, stop: ReadonlySet<string>): number {
    while (i < this.length) {
      const char = this.chars[i]!;
      if (char === '\\') {
        if (i + 1 >= this.length) break;
        i += 2;
      } else if (stop.has(char) || SPACE.test(char)) break;
      else i++;
    }
    return i;
  }

  /** A quoted string or a word starting at `i` (a word may not run into a quote). */
  value(i: number): Value | undefined {
    if (this.chars[i] === '"') {
      for (let j = i + 1; j < this.length; j++) {
        const char = this.chars[j]!;
        if (char === '"') return { end: j + 1, quoted: this.text(i + 1, j) };
        if (char === '\\') {
          if (j + 1 >= this.length) return undefined;
          j++;
        }
      }
      return undefined;
    }
    const end = this.run(i, WORD_STOP);
    if (end === i || this.chars[end] === '"') return undefined;
    return { end, word: this.text(i, end) };
  }

  /** Comparators that could start at `i`, longest first. */
  comparators(i: number): string[] {
    const [a, b, c] = [this.chars[i], this.chars[i + 1], this.chars[i + 2]];
    const angle = (x: string | undefined) => x === '<' || x === '>';
    const out: string[] = [];
    if (a === ':') {
      if (angle(b)) {
        if (c === '=') out.push(`:${b}=`);
        out.push(`:${b}`);
      }
      out.push(':');
    } else if (angle(a)) {
      if (b === '=') out.push(`${a}=`);
      out.push(a!);
    }
    return out;
  }
}

function termNode(field: string | undefined, comparator: string | undefined, value: Value, at: number): QueryNode {
  const scope = field === undefined ? undefined : fieldScope(unescapeQuery(field));
  if (comparator === undefined || comparator === ':') {
    const exact = scope?.exact === true;
    const pattern = value.quoted !== undefined ? textPattern(unescapeQuery(value.quoted), exact) : wordPattern(value.word!, exact);
    return { kind: 'term', field: scope, test: { kind: 'match', pattern } };
  }
  const bound = ordinalOf(unescapeQuery(value.quoted ?? value.word!));
  if (!bound) throw new QueryError(`character ${at}: "${comparator}" needs a number or a date.`);
  return { kind: 'term', field: scope, test: { kind: 'compare', op: comparator.replace(':', '') as Comparator, bound } };
}

/** `host_id.x` and `x` both name `x` of the entry; `host_id` alone names the whole host_id object. */
export function fieldScope(field: string): FieldScope {
  const keyword = /\.(?:raw|keyword)$/.exec(field);
  const named = keyword ? field.slice(0, keyword.index) : field;
  if (named === 'host_id') return { path: '', within: 'host_id', ...(keyword ? { exact: true } : {}) };
  return { path: named.startsWith('host_id.') ? named.slice('host_id.'.length) : named, within: 'entry', ...(keyword ? { exact: true } : {}) };
}

function tokenize(query: string): Token[] {
  const scan = new Scanner(query);
  const tokens: Token[] = [];
  let i = 0;
  for (;;) {
    while (scan.isSpace(i)) i++;
    if (i >= scan.length) {
      tokens.push({ kind: 'end', at: scan.length + 1 });
      return tokens;
    }
    const at = i + 1;
    const symbol = SYMBOLS.find(([text]) => scan.text(i, i + text.length) === text);
    if (symbol) {
      tokens.push({ kind: symbol[1], at });
      i += symbol[0].length;
      continue;
    }
    const fieldEnd = scan.run(i, FIELD_STOP);
    if (fieldEnd > i) {
      const field = scan.text(i, fieldEnd);
      let found: QueryNode | undefined;
      for (const comparator of scan.comparators(fieldEnd)) {
        const value = scan.value(fieldEnd + [...comparator].length);
        if (value) {
          found = termNode(field, comparator, value, at);
          i = value.end;
          break;
        }
      }
      if (found) {
        tokens.push({ kind: 'term', at, term: found });
        continue;
      }
    }
    const value = scan.value(i);
    if (!value) {
      const rest = scan.chars.slice(i);
      const quotes = rest.filter((c) => c === '"').length;
      if (quotes % 2 === 1) throw new QueryError(`character ${i + rest.indexOf('"') + 1}: unterminated quoted string.`);
      throw new QueryError(`character ${at}: unexpected "${scan.chars[i]}".`);
    }
    const operator = value.word !== undefined ? WORD_OPERATORS[value.word] : undefined;
    if (operator) tokens.push({ kind: operator, at });
    else if (value.word !== undefined && COMPARATOR_END.test(value.word)) {
      throw new QueryError(`character ${value.end + 1}: a value is missing after "${value.word}".`);
    } else tokens.push({ kind: 'term', at, term: termNode(undefined, undefined, value, at) });
    i = value.end;
  }
}

// ---------------------------------------------------------------------------------------------
// Grammar

class Parser {
  private next = 0;
  /** NOT and parentheses open around the current token: the grammar recurses only through them. */
  private depth = 0;

  constructor(private readonly tokens: readonly Token[]) {}

  private get current(): Token {
    return this.tokens[this.next]!;
  }

  private take(kind: Token['kind']): Token | undefined {
    if (this.current.kind !== kind) return undefined;
    return this.tokens[this.next++];
  }

  query(): QueryNode {
    const node = this.either();
    if (this.current.kind !== 'end') throw new QueryError(`character ${this.current.at}: unexpected "${this.current.kind}".`);
    return node;
  }

  private either(): QueryNode {
    const nodes = [this.both()];
    while (this.take('OR')) nodes.push(this.both());
    return nodes.length === 1 ? nodes[0]! : { kind: 'or', nodes };
  }

  private both(): QueryNode {
    const nodes = [this.single()];
    while (!['OR', ')', 'end'].includes(this.current.kind)) {
      this.take('AND');
      nodes.push(this.single());
    }
    return nodes.length === 1 ? nodes[0]! : { kind: 'and', nodes };
  }

  private nested<T>(at: number, inner: () => T): T {
    if (++this.depth > QFILTER_LIMITS.depth) {
      throw new QueryError(`character ${at}: more than ${QFILTER_LIMITS.depth} nested NOT or parentheses.`);
    }
    const result = inner();
    this.depth--;
    return result;
  }

  private single(): QueryNode {
    const { at } = this.current;
    if (this.take('NOT')) return this.nested(at, () => ({ kind: 'not', node: this.single() }));
    if (this.take('(')) {
      return this.nested(at, () => {
        const node = this.either();
        if (!this.take(')')) throw new QueryError(`character ${this.current.at}: ")" expected.`);
        return node;
      });
    }
    const term = this.take('term');
    if (term) return term.term!;
    const { kind } = this.current;
    throw new QueryError(`character ${at}: a term is expected${kind === 'end' ? ' at the end of the query.' : `, not "${kind}".`}`);
  }
}

/** The query's tree, or undefined for a blank query (no filter); QueryError when it does not parse. */
export function parseQFilter(query: string): QueryNode | undefined {
  const text = query.trim();
  if (text === '') return undefined;
  if (text.length > QFILTER_LIMITS.length) throw new QueryError(`the query is longer than ${QFILTER_LIMITS.length} characters.`);
  const tokens = tokenize(text);
  const terms = tokens.filter((t) => t.kind === 'term');
  if (terms.length > QFILTER_LIMITS.terms) {
    throw new QueryError(`character ${terms[QFILTER_LIMITS.terms]!.at}: more than ${QFILTER_LIMITS.terms} terms.`);
  }
  return new Parser(tokens).query();
}

// ---------------------------------------------------------------------------------------------
// Evaluation

type Scalar = string | number | boolean;
type Pair = readonly [path: string, value: Scalar];

/** (path, value) of every scalar of `data`; list items share their list's path; nulls skipped. */
export function flatten(data: JsonValue, prefix = '', out: Pair[] = []): Pair[] {
  if (data === null) return out;
  if (Array.isArray(data)) {
    for (const item of data) flatten(item, prefix, out);
  } else if (typeof data === 'object') {
    for (const [key, value] of Object.entries(data)) flatten(value, prefix === '' ? key : `${prefix}.${key}`, out);
  } else {
    out.push([prefix, data]);
  }
  return out;
}

/** One host as the query sees it; host_id is read (and parsed, when given as JSON text) lazily. */
export class QueryHost {
  private pairs: Pair[] | undefined;

  constructor(
    readonly ip: string,
    readonly hits: number,
    private readonly hostId: JsonObject | string | undefined,
  ) {}

  /** False only when host_id certainly has no top-level key starting with `segment`. */
  mayHaveKey(segment: string): boolean {
    if (typeof this.hostId !== 'string' || !/^[\x20-\x7e]*$/.test(segment) || /["\\]/.test(segment)) return true;
    return this.hostId.includes(`"${segment}`);
  }

  hostPairs(): readonly Pair[] {
    if (!this.pairs) {
      const data = typeof this.hostId === 'string' ? (JSON.parse(this.hostId) as JsonValue) : (this.hostId ?? null);
      this.pairs = flatten(data);
    }
    return this.pairs;
  }
}

/** Does the field look at this path (the path itself or one of its sub-paths)? */
export function covers(field: FieldScope, path: string): boolean {
  if (field.within === 'host_id') return true;
  return path === field.path || (path.startsWith(field.path) && path[field.path.length] === '.');
}

/** Does one term match the host (the reference the SQL translation of a term must agree with)? */
export function termMatches(field: FieldScope | undefined, test: ValueTest, host: QueryHost): boolean {
  if (field === undefined) {
    if (passes(test, host.ip)) return true;
    return host.hostPairs().some(([path, value]) => typeof value === 'string' && !path.endsWith('_seen') && passes(test, value));
  }
  if (field.within === 'entry') {
    if (covers(field, 'ip') && passes(test, host.ip)) return true;
    if (covers(field, 'hits') && passes(test, host.hits)) return true;
    if (!host.mayHaveKey(field.path.split('.')[0]!)) return false;
  }
  return host.hostPairs().some(([path, value]) => covers(field, path) && passes(test, value));
}

export function matchesHost(node: QueryNode, host: QueryHost): boolean {
  switch (node.kind) {
    case 'or':
      return node.nodes.some((n) => matchesHost(n, host));
    case 'and':
      return node.nodes.every((n) => matchesHost(n, host));
    case 'not':
      return !matchesHost(node.node, host);
    case 'term':
      return termMatches(node.field, node.test, host);
  }
}
