/**
 * The one way the `outpost` command line writes to the terminal (issue 23 §4). A command prints
 * `Line`s, made by the `line` template tag, which shows every value put in it with its control
 * characters made visible (shared/text/visible.ts); JSON goes out with the same characters as
 * `\u` escapes. No other CLI module touches process.stdout or process.stderr (test/layering.test.ts
 * checks; test/cli/escapes.test.ts walks every command), so a file name, a host name or a central
 * server's answer cannot reach the terminal raw.
 */
import { CONTROL, visible, visibleJson } from '../../shared/text/visible';

/** Text fit for a terminal: the program's own words, every value from data made visible. */
export class Line {
  /** Use `line` or `ownWords`. */
  private constructor(readonly text: string) {}

  /** For this module's makers of Lines; a command uses `line`, `ownWords` or `jsonWords`. */
  static of(text: string): Line {
    return new Line(text);
  }

  toString(): string {
    return this.text;
  }
}

/** What a `line` template takes: text from data (made visible), a number, or a Line already made. */
export type Shown = Line | string | number;

/**
 * A Line from the program's own words (the template's literal text, newlines and tabs included)
 * and values: a string is made visible (its newlines, tabs and backslashes too, so a value can
 * neither add a line nor a column), a Line is kept as it is.
 */
export function line(words: TemplateStringsArray, ...values: readonly Shown[]): Line {
  let text = words[0]!;
  values.forEach((value, i) => {
    text += (value instanceof Line ? value.text : visible(String(value))) + words[i + 1]!;
  });
  return Line.of(text);
}

/** Text that is the program's own, built from its declarations (the help): shown as it is. */
export function ownWords(text: string): Line {
  return Line.of(text);
}

/** A value shown as compact JSON inside a line: its strings quoted, their control characters `\u` escapes. */
export function jsonWords(value: unknown): Line {
  return Line.of(visibleJson(value));
}

/** Lines joined by a separator of the program's own. */
export function joined(lines: readonly Line[], separator: string): Line {
  return Line.of(lines.map((l) => l.text).join(separator));
}

/** A failure whose message is a Line (several lines, data made visible): printed as it is. */
export class CliError extends Error {
  constructor(readonly shown: Line) {
    super(shown.text);
  }
}

/** One line on stderr that the next replaces: a progress report, on a terminal only. */
export interface Progress {
  show(text: Line): void;
  clear(): void;
}

export interface Output {
  /** The command's answer on stdout (a newline added unless it ends with one). */
  line(text: Line): void;
  /** The answer as JSON on stdout, indented, every control character a `\u` escape. */
  json(value: unknown): void;
  /** A message on stderr: a problem, a usage. */
  stderr(text: Line): void;
  /** Lines another layer wrote (a server's request log): each made visible, its line breaks kept. */
  log(text: string): void;
  /** Set when stderr is a terminal. */
  readonly progress: Progress | undefined;
}

/**
 * The last guard before a byte leaves: a control character in a Line (one made with `ownWords`
 * from text that was not the program's own) is made visible; the program's newlines and tabs stay.
 */
function guarded(text: string): string {
  return text.replace(CONTROL, (char) => (char === '\n' || char === '\t' ? char : visible(char)));
}

function ended(text: string): string {
  return text.endsWith('\n') ? text : `${text}\n`;
}

/** The process's stdout and stderr as an Output. */
export function processOutput(): Output {
  // A reader that goes away (`outpost import-eve … | head -3`) ends the output, not the command:
  // what the command did stands, and its exit status says so.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
  });
  return writtenOutput({ stdout: (text) => process.stdout.write(text), stderr: (text) => process.stderr.write(text), terminal: process.stderr.isTTY === true });
}

/** Where an Output's bytes go: the process's streams, or (a test running the CLI in its own process) strings. */
export interface OutputSinks {
  stdout(text: string): void;
  stderr(text: string): void;
  /** stderr is a terminal: progress lines are drawn there. */
  readonly terminal: boolean;
}

/** An Output writing to `sinks`: every line guarded and ended the one way. */
export function writtenOutput(sinks: OutputSinks): Output {
  const { stdout, stderr } = sinks;
  return {
    line: (text) => stdout(ended(guarded(text.text))),
    json: (value) => stdout(`${visibleJson(value, 2)}\n`),
    stderr: (text) => stderr(ended(guarded(text.text))),
    log: (text) => stderr(ended(text.split('\n').map(visible).join('\n'))),
    // The progress line's own control sequences (carriage return, erase to the end of the line) are
    // the only ones written raw.
    progress: sinks.terminal ? { show: (text) => stderr(`\r${guarded(text.text)}\u001b[K`), clear: () => stderr('\r\u001b[K') } : undefined,
  };
}
