/**
 * The `outpost` command line declared once: each command's synopsis, summary and options. The same
 * declaration is given to node:util parseArgs (context.ts, `parseCommand`) and rendered here as the
 * command's `--help`, so the help cannot list an option the command refuses, nor miss one it takes.
 */

export interface OptionSpec {
  readonly type: 'string' | 'boolean';
  /** The value's placeholder in the help (`--data DIR`); string options only. */
  readonly value?: string;
  readonly help: string;
  readonly default?: string;
}

export type OptionSpecs = Readonly<Record<string, OptionSpec>>;

export interface CommandSpec<O extends OptionSpecs = OptionSpecs> {
  /** As typed after `outpost`: `serve`, `remote add`. */
  readonly name: string;
  /** The positional arguments in the synopsis: `NAME URL`, `PATH...`. */
  readonly args?: string;
  /** How many positional arguments it takes; -1: any number (the command checks). */
  readonly positionals: number;
  readonly summary: string;
  /** Paragraphs after the options: exit codes, defaults worth knowing. */
  readonly notes?: readonly string[];
  readonly options: O;
}

/** A command with subcommands (`remote add | list | …`); its help shows every subcommand. */
export interface CommandGroup {
  readonly name: string;
  readonly summary: string;
  readonly commands: readonly CommandSpec[];
}

/** Identity, typed: keeps the options' literal types for parseArgs. */
export function defineCommand<const O extends OptionSpecs>(spec: CommandSpec<O>): CommandSpec<O> {
  return spec;
}

export const DATA_OPTION = {
  type: 'string',
  value: 'DIR',
  help: "the data folder (default: $OUTPOST_DATA, else the platform's Outpost folder)",
} as const satisfies OptionSpec;

export const WORKSPACE_OPTION = {
  type: 'string',
  value: 'NAME',
  help: 'the workspace (default: the last one used, or "default")',
} as const satisfies OptionSpec;

export const COMMON_OPTIONS = { data: DATA_OPTION, workspace: WORKSPACE_OPTION } as const;

/** A mistake in how a command was called: one line on stderr naming the help to read, exit 1. */
export class UsageError extends Error {
  constructor(
    message: string,
    /** The command whose help explains the mistake (`serve`, `remote add`); unset: the overview. */
    public command?: string,
  ) {
    super(message);
  }
}

const COLUMN = 26;

function row(left: string, right: string): string {
  return left.length < COLUMN - 2 ? `  ${left.padEnd(COLUMN - 2)}${right}` : `  ${left}\n${' '.repeat(COLUMN)}${right}`;
}

export function synopsis(spec: CommandSpec): string {
  return `outpost ${spec.name}${spec.args ? ` ${spec.args}` : ''}${Object.keys(spec.options).length > 0 ? ' [options]' : ''}`;
}

function optionLines(spec: CommandSpec): string[] {
  const lines = Object.entries(spec.options).map(([name, option]) =>
    row(`--${name}${option.type === 'string' ? ` ${option.value ?? 'VALUE'}` : ''}`, option.help + (option.default === undefined ? '' : ` (default: ${option.default})`)),
  );
  lines.push(row('--help', 'this help'));
  return lines;
}

/** `outpost COMMAND --help` for a command without subcommands. */
export function commandHelp(spec: CommandSpec): string {
  const lines = [`Usage: ${synopsis(spec)}`, '', spec.summary, '', 'Options:', ...optionLines(spec)];
  for (const note of spec.notes ?? []) lines.push('', note);
  return lines.join('\n') + '\n';
}

/** `outpost GROUP --help`: every subcommand with its options. */
export function groupHelp(group: CommandGroup): string {
  const bare = group.commands.some((spec) => spec.name === group.name);
  const lines = [`Usage: outpost ${group.name} ${bare ? '[SUBCOMMAND]' : 'SUBCOMMAND'} [options]`, '', group.summary];
  for (const spec of group.commands) {
    lines.push('', synopsis(spec), `  ${spec.summary}`, ...optionLines(spec).filter((line) => !line.includes('--help')));
    for (const note of spec.notes ?? []) lines.push(`  ${note}`);
  }
  lines.push('', `Run "outpost ${group.name} SUBCOMMAND --help" for one of them.`);
  return lines.join('\n') + '\n';
}

/** `outpost help`: the commands, one line each. */
export function overview(entries: readonly (CommandSpec | CommandGroup)[]): string {
  const lines = ['Usage: outpost <command> [options]', '', 'Commands:'];
  for (const entry of entries) {
    if ('commands' in entry) for (const spec of entry.commands) lines.push(row(`${spec.name}${spec.args ? ` ${spec.args}` : ''}`, spec.summary));
    else lines.push(row(`${entry.name}${entry.args ? ` ${entry.args}` : ''}`, entry.summary));
  }
  lines.push(
    '',
    'Every command takes --data DIR (default: $OUTPOST_DATA, else the platform\'s Outpost folder);',
    'those that work on one workspace take --workspace NAME (default: the last one used).',
    '',
    '  outpost COMMAND --help     a command\'s options (also: outpost help COMMAND)',
    '  outpost --version          the version of Outpost',
  );
  return lines.join('\n') + '\n';
}
