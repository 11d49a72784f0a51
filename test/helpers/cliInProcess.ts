/**
 * The `outpost` command line run inside the test's own process: the same `exitStatus` the
 * bundled CLI's `main` runs, its stdout and stderr gathered as strings. For the commands that
 * only parse and print (help, usage errors), where a process of its own per case costs a
 * quarter of a second of CPU and teaches nothing more; the tests that run a command's work
 * (files, servers, exit on a signal) spawn the bundle as a user runs it.
 */
import { exitStatus } from '../../electron/cli/main';
import { writtenOutput } from '../../electron/cli/output';

export interface CliRun {
  readonly status: number;
  readonly stdout: string;
  readonly stderr: string;
}

export async function outpostInProcess(...args: string[]): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const out = writtenOutput({ stdout: (text) => (stdout += text), stderr: (text) => (stderr += text), terminal: false });
  const status = await exitStatus(args, out);
  return { status, stdout, stderr };
}
