/**
 * The `outpost` command line: the command table, `--help` / `help COMMAND` from each command's
 * declaration (usage.ts), `--version`. Every error is one clear line on stderr and a non-zero exit.
 */
import { DatabaseTooNewError } from '../server/store/database';
import { StorageError } from '../server/store/storageErrors';
import { DataFolderError } from '../workspaces/dataFolder';
import { EXPORT, IMPORT_BUNDLE, exportCommand, importBundleCommand } from './bundles';
import { VERSION } from './context';
import { IMPORT_EVE, importEveCommand } from './eve';
import { HOSTS, hostsCommand } from './hosts';
import { IMPORT_HOSTS, IMPORT_THREATS, importCommand } from './imports';
import { REPORT, reportCommand } from './report';
import { REMOTE, WORKSPACE, remoteCommand, workspaceCommand } from './remotes';
import { CONFLICTS, OUTBOX, RESOLVE, SYNC, conflictsCommand, outboxCommand, resolveCommand, syncCommand } from './sync';
import { SERVE, serve } from './serve';
import { CliError, line, ownWords, processOutput, type Output } from './output';
import { UsageError, commandHelp, groupHelp, overview, type CommandGroup, type CommandSpec } from './usage';

interface Command {
  readonly help: CommandSpec | CommandGroup;
  run(args: readonly string[], out: Output): Promise<number> | number;
}

async function serveUntilSignal(args: readonly string[], out: Output): Promise<number> {
  const stop = await serve(args, out);
  await new Promise<void>((resolve) => {
    const onSignal = () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      resolve();
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
  await stop();
  out.line(line`stopped`);
  return 0;
}

/** Every command, in the order `outpost help` lists them. */
export const COMMANDS: readonly Command[] = [
  { help: SERVE, run: serveUntilSignal },
  { help: IMPORT_HOSTS, run: (args, out) => importCommand('hosts', args, out) },
  { help: IMPORT_THREATS, run: (args, out) => importCommand('threats', args, out) },
  { help: IMPORT_EVE, run: importEveCommand },
  { help: HOSTS, run: hostsCommand },
  { help: EXPORT, run: exportCommand },
  { help: IMPORT_BUNDLE, run: importBundleCommand },
  { help: REPORT, run: reportCommand },
  { help: REMOTE, run: remoteCommand },
  { help: WORKSPACE, run: workspaceCommand },
  { help: SYNC, run: syncCommand },
  { help: CONFLICTS, run: conflictsCommand },
  { help: RESOLVE, run: resolveCommand },
  { help: OUTBOX, run: outboxCommand },
];

export const OVERVIEW = overview(COMMANDS.map((command) => command.help));

function find(name: string | undefined): Command | undefined {
  return COMMANDS.find((command) => command.help.name === name);
}

/** The help of `outpost NAME [SUBCOMMAND]`: a subcommand's own when one is named, else the command's. */
function helpOf(command: Command, sub: string | undefined): string {
  const help = command.help;
  if (!('commands' in help)) return commandHelp(help);
  const spec = help.commands.find((c) => c.name === `${help.name} ${sub}`);
  return spec ? commandHelp(spec) : groupHelp(help);
}

/** `--help` or `-h` among a command's arguments (before a `--`, after which arguments are positional). */
function asksHelp(args: readonly string[]): boolean {
  const end = args.indexOf('--');
  return (end === -1 ? args : args.slice(0, end)).some((arg) => arg === '--help' || arg === '-h');
}

async function run(argv: readonly string[], out: Output): Promise<number> {
  const [name, ...args] = argv;
  if (name === undefined) {
    out.stderr(ownWords(OVERVIEW));
    return 1;
  }
  if (name === 'help' || name === '--help' || name === '-h') {
    if (args[0] === undefined) {
      out.line(ownWords(OVERVIEW));
      return 0;
    }
    const command = find(args[0]);
    if (!command) throw new UsageError(`unknown command "${args[0]}"`);
    out.line(ownWords(helpOf(command, args[1])));
    return 0;
  }
  if (name === '--version' || name === '-v') {
    out.line(line`outpost ${VERSION}`);
    return 0;
  }
  const command = find(name);
  if (!command) throw new UsageError(name.startsWith('-') ? `unknown option "${name}"` : `unknown command "${name}"`);
  if (asksHelp(args)) {
    out.line(ownWords(helpOf(command, args[0])));
    return 0;
  }
  try {
    return await command.run(args, out);
  } catch (error) {
    if (error instanceof UsageError) error.command ??= name;
    throw error;
  }
}

/** Run a command line to its exit status: an error is one line on stderr (the command's help named for a usage error) and 1. */
export async function exitStatus(argv: readonly string[], out: Output): Promise<number> {
  try {
    return await run(argv, out);
  } catch (error) {
    const known = error instanceof UsageError || error instanceof DataFolderError || error instanceof DatabaseTooNewError || error instanceof StorageError;
    // A message made elsewhere quotes data (a file name, a server's answer) among its words: all of it made visible.
    const message = error instanceof CliError ? error.shown : line`${error instanceof Error ? error.message : String(error)}`;
    const hint = error instanceof UsageError ? line`; see "outpost ${error.command === undefined ? 'help' : `${error.command} --help`}"` : '';
    out.stderr(line`outpost: ${message}${hint}`);
    if (!known && error instanceof Error && process.env.OUTPOST_DEBUG) out.log(error.stack ?? '');
    return 1;
  }
}

export function main(argv: readonly string[], out: Output = processOutput()): void {
  void exitStatus(argv, out).then((code) => {
    process.exitCode = code;
  });
}
