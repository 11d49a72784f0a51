/**
 * The README's shell examples read as a shell reads them, for test/cli/readmeExamples.test.ts: the
 * ```sh blocks, their logical lines (`\` continuations joined, comments dropped), words with
 * quotes and $VARIABLES as bash expands them, and a curl command line as the request it sends.
 * Only what the README uses is understood; anything else is an error, so that an example the
 * test cannot run is never skipped in silence. No I/O.
 */

export interface ShellBlock {
  /** The 1-based README line of the block's first line. */
  readonly line: number;
  readonly text: string;
}

/** The fenced blocks whose info string is `sh`, in order. */
export function shellBlocks(markdown: string): ShellBlock[] {
  const blocks: ShellBlock[] = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    if (lines[i]!.trim() !== '```sh') continue;
    const start = i + 1;
    let end = start;
    while (end < lines.length && lines[end]!.trim() !== '```') end++;
    blocks.push({ line: start + 1, text: lines.slice(start, end).join('\n') });
    i = end;
  }
  return blocks;
}

export interface LogicalLine {
  readonly line: number;
  readonly source: string;
}

/** A block's commands: continuation lines joined; blank and comment-only lines left out. */
export function logicalLines(block: ShellBlock): LogicalLine[] {
  const out: LogicalLine[] = [];
  const lines = block.text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = block.line + i;
    let source = lines[i]!;
    while (source.endsWith('\\') && i + 1 < lines.length) source = `${source.slice(0, -1).trimEnd()} ${lines[++i]!.trimStart()}`;
    if (source.trim() === '' || source.trimStart().startsWith('#')) continue;
    out.push({ line, source });
  }
  return out;
}

export interface Command {
  readonly words: readonly string[];
  /** Ended by `&`: runs in the background. */
  readonly background: boolean;
  /** `NAME=value` alone on its line. */
  readonly assignment?: { readonly name: string; readonly value: string };
}

const NAME = /^[A-Za-z_][A-Za-z0-9_]*/;

/** One logical line as bash splits and expands it (quotes, $NAME and ${NAME}, `#` comments, a final `&`). */
export function parseCommand(source: string, env: Readonly<Record<string, string>>): Command {
  const words: string[] = [];
  let word: string | undefined;
  let background = false;
  let i = 0;
  const variable = (): string => {
    const braced = source[i] === '{';
    const match = NAME.exec(source.slice(braced ? i + 1 : i));
    if (!match) throw new Error(`a "$" that names no variable in: ${source}`);
    const name = match[0];
    i += name.length + (braced ? 2 : 0);
    const value = env[name];
    if (value === undefined) throw new Error(`$${name} is not set in: ${source}`);
    return value;
  };
  while (i < source.length) {
    const c = source[i]!;
    if (c === ' ' || c === '\t') {
      if (word !== undefined) words.push(word);
      word = undefined;
      i++;
    } else if (c === '#' && word === undefined) {
      break;
    } else if (c === '&' && word === undefined && source.slice(i + 1).trim() === '') {
      background = true;
      break;
    } else if (c === "'") {
      const end = source.indexOf("'", i + 1);
      if (end === -1) throw new Error(`unclosed ' in: ${source}`);
      word = (word ?? '') + source.slice(i + 1, end);
      i = end + 1;
    } else if (c === '"') {
      word ??= '';
      i++;
      while (source[i] !== '"') {
        if (i >= source.length) throw new Error(`unclosed " in: ${source}`);
        if (source[i] === '\\' && '"\\$`'.includes(source[i + 1] ?? '')) {
          word += source[i + 1];
          i += 2;
        } else if (source[i] === '$') {
          i++;
          word += variable();
        } else word += source[i++];
      }
      i++;
    } else if (c === '$') {
      i++;
      word = (word ?? '') + variable();
    } else if (c === '\\') {
      word = (word ?? '') + (source[i + 1] ?? '');
      i += 2;
    } else if ('|;<>()`'.includes(c)) {
      throw new Error(`"${c}" is more shell than the README examples use: ${source}`);
    } else {
      word = (word ?? '') + c;
      i++;
    }
  }
  if (word !== undefined) words.push(word);
  const assigned = words.length === 1 && NAME.exec(source.trimStart());
  if (assigned && source.trimStart()[assigned[0].length] === '=') {
    return { words, background, assignment: { name: assigned[0], value: words[0]!.slice(assigned[0].length + 1) } };
  }
  return { words, background };
}

export interface CurlRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
}

/** `curl ARGS` as the request curl sends (the options the README uses: -H, -X, -d, -G, --data-urlencode). */
export function curlRequest(args: readonly string[]): CurlRequest {
  const headers: Record<string, string> = {};
  const data: string[] = [];
  let method: string | undefined;
  let url: string | undefined;
  let get = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const value = (): string => {
      const next = args[++i];
      if (next === undefined) throw new Error(`curl ${arg} needs a value`);
      return next;
    };
    switch (arg) {
      case '-H':
      case '--header': {
        const header = value();
        const colon = header.indexOf(':');
        if (colon <= 0) throw new Error(`curl -H "${header}" is not "Name: value"`);
        headers[header.slice(0, colon).trim()] = header.slice(colon + 1).trim();
        break;
      }
      case '-X':
      case '--request':
        method = value();
        break;
      case '-d':
      case '--data':
      case '--data-raw':
        data.push(value());
        break;
      case '--data-urlencode': {
        const part = value();
        const equals = part.indexOf('=');
        data.push(equals === -1 ? encodeURIComponent(part) : `${part.slice(0, equals)}${equals > 0 ? '=' : ''}${encodeURIComponent(part.slice(equals + 1))}`);
        break;
      }
      case '-G':
      case '--get':
        get = true;
        break;
      default:
        if (arg.startsWith('-')) throw new Error(`curl option ${arg} is not understood by the README test`);
        if (url !== undefined) throw new Error(`curl given two URLs: ${url} and ${arg}`);
        url = arg;
    }
  }
  if (url === undefined) throw new Error('curl without a URL');
  if (get || data.length === 0) {
    const query = data.join('&');
    return { method: method ?? 'GET', url: query ? `${url}${url.includes('?') ? '&' : '?'}${query}` : url, headers };
  }
  const named = Object.keys(headers).some((h) => h.toLowerCase() === 'content-type');
  return { method: method ?? 'POST', url, headers: named ? headers : { ...headers, 'Content-Type': 'application/x-www-form-urlencoded' }, body: data.join('&') };
}
