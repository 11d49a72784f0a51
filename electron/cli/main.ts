/** The `outpost` command line. Every error is one clear line on stderr and a non-zero exit. */
import { DatabaseTooNewError } from '../server/store/database';
import { DataFolderError } from '../workspaces/dataFolder';
import { exportCommand, importBundleCommand } from './bundles';
import { importEveCommand } from './eve';
import { importCommand } from './imports';
import { remoteCommand, workspaceCommand } from './remotes';
import { conflictsCommand, outboxCommand, resolveCommand, syncCommand } from './sync';
import { serve } from './serve';
import { USAGE, UsageError } from './usage';

const out = (line: string) => process.stdout.write(line + '\n');

async function run(argv: readonly string[]): Promise<number> {
  const [command, ...args] = argv;
  switch (command) {
    case 'serve': {
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
      out('stopped');
      return 0;
    }
    case 'import-hosts':
      return importCommand('hosts', args, out);
    case 'import-threats':
      return importCommand('threats', args, out);
    case 'import-eve':
      return importEveCommand(args, out);
    case 'export':
      return exportCommand(args, out);
    case 'import':
      return importBundleCommand(args, out);
    case 'remote':
      return remoteCommand(args, out);
    case 'workspace':
      return workspaceCommand(args, out);
    case 'sync':
      return syncCommand(args, out);
    case 'conflicts':
      return conflictsCommand(args, out);
    case 'resolve':
      return resolveCommand(args, out);
    case 'outbox':
      return outboxCommand(args, out);
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      out(USAGE);
      return command === undefined ? 1 : 0;
    default:
      throw new UsageError(`unknown command "${command}"`);
  }
}

export function main(argv: readonly string[]): void {
  run(argv).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      const known = error instanceof UsageError || error instanceof DataFolderError || error instanceof DatabaseTooNewError;
      process.stderr.write(`outpost: ${error instanceof Error ? error.message : String(error)}\n`);
      if (error instanceof UsageError) process.stderr.write('Run "outpost help" for the commands and options.\n');
      else if (!known && error instanceof Error && process.env.OUTPOST_DEBUG) process.stderr.write(`${error.stack}\n`);
      process.exitCode = 1;
    },
  );
}
