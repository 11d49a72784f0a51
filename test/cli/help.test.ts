/**
 * `outpost --help`, `outpost COMMAND --help`, `outpost help COMMAND`, `--version`. The overview,
 * the version and the first mistakes are asked of the bundled CLI as a user runs it (its own
 * process: exit status, stdout and stderr); so is one command's help, checked equal to what the
 * command line gives when run in this process (test/helpers/cliInProcess.ts), which then
 * answers the per-command cases (25 commands, four cases each).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { COMMANDS } from '../../electron/cli/main';
import pkg from '../../package.json';
import { outpostInProcess as cli } from '../helpers/cliInProcess';
import { CLI } from '../helpers/syncCli';

function outpost(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', timeout: 30_000 });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

const DATA = ['--data'];
const WORKSPACE = ['--data', '--workspace'];

/** What each command's help must name: the options app.md §5 and the README give it. */
const OPTIONS: Readonly<Record<string, readonly string[]>> = {
  serve: [...WORKSPACE, '--host', '--port', '--tls', '--cert', '--key', '--admin-token'],
  'import-hosts': [...WORKSPACE, '--comment'],
  'import-threats': [...WORKSPACE, '--comment'],
  'import-eve': [...WORKSPACE, '--home-net', '--follow'],
  export: [...WORKSPACE, '--force'],
  import: [...WORKSPACE],
  'remote add': [...DATA, '--token', '--token-file', '--insecure', '--pin'],
  'remote list': [...DATA, '--json'],
  'remote set-url': [...DATA, '--token', '--token-file', '--insecure', '--pin', '--verify'],
  'remote set-token': [...DATA, '--token', '--token-file'],
  'remote test': [...DATA, '--json'],
  'remote remove': [...DATA],
  'workspace create': [...DATA, '--remote'],
  'workspace list': [...DATA, '--json'],
  'workspace connect': [...DATA, '--remote', '--decisions', '--push', '--yes', '--json'],
  'workspace delete': [...DATA],
  sync: [...WORKSPACE, '--json', '--allow-mass-delete', '--page-size'],
  conflicts: [...WORKSPACE, '--json'],
  resolve: [...WORKSPACE, '--mine', '--theirs', '--resource'],
  outbox: [...WORKSPACE, '--json'],
  'outbox retry': [...WORKSPACE],
  'outbox discard': [...WORKSPACE],
  'hosts diff': [...WORKSPACE, '--since', '--until', '--limit', '--json'],
  'hosts imports': [...WORKSPACE, '--json'],
  'hosts export': [...WORKSPACE, '--format', '--out', '--columns', '--q', '--search', '--visit', '--visit-change', '--ordering', '--delimiter', '--force'],
  report: [...WORKSPACE, '--out', '--since', '--users', '--q', '--search', '--visit', '--visit-change', '--force'],
};

const NAMES = Object.keys(OPTIONS);

describe('the overview', () => {
  test.each([['--help'], ['help'], ['-h']])('outpost %s lists every command and exits 0', (flag) => {
    const result = outpost(flag);
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/^Usage: outpost <command>/);
    for (const name of NAMES) expect(result.stdout).toMatch(new RegExp(`^  ${name}\\b`, 'm'));
    expect(result.stdout).toContain('outpost COMMAND --help');
  });

  test('outpost alone prints the overview on stderr and exits 1', () => {
    const result = outpost();
    expect(result.status).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^Usage: outpost <command>/);
  });

  test('every command the CLI dispatches is in this specification', () => {
    const declared = COMMANDS.flatMap(({ help }) => ('commands' in help ? help.commands.map((c) => c.name) : [help.name]));
    expect(declared.sort()).toEqual([...NAMES].sort());
  });
});

describe('a command\'s help', () => {
  test.each(['import-eve', 'remote set-url', 'hosts'])('the bundled CLI prints the help of outpost %s as the command line run in this process does', async (name) => {
    const bundled = outpost(...name.split(' '), '--help');
    const inProcess = await cli(...name.split(' '), '--help');
    expect(bundled.status).toBe(0);
    expect(inProcess).toEqual({ status: 0, stdout: bundled.stdout, stderr: bundled.stderr });
  });

  test.each(NAMES)('outpost %s --help prints its usage and options, exits 0', async (name) => {
    const result = await cli(...name.split(' '), '--help');
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(new RegExp(`^Usage: outpost ${name}\\b`));
    for (const option of OPTIONS[name]!) expect(result.stdout).toMatch(new RegExp(`^  ${option}\\b`, 'm'));
  });

  test.each(NAMES)('outpost help %s prints the same as --help', async (name) => {
    const help = await cli('help', ...name.split(' '));
    expect(help.status).toBe(0);
    expect(help.stdout).toBe((await cli(...name.split(' '), '--help')).stdout);
  });

  test('-h anywhere among the arguments asks for the help; nothing is run, the data folder is not created', () => {
    const data = path.join(os.tmpdir(), `outpost-help-${process.pid}`);
    const result = outpost('serve', '--port', '0', '--data', data, '-h');
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/^Usage: outpost serve/);
    expect(fs.existsSync(data)).toBe(false);
  });

  test.each([['remote'], ['workspace'], ['outbox'], ['hosts']])('outpost %s --help shows every subcommand with its options', async (group) => {
    const result = await cli(group, '--help');
    expect(result.status).toBe(0);
    for (const name of NAMES.filter((n) => n === group || n.startsWith(`${group} `))) {
      expect(result.stdout).toMatch(new RegExp(`^outpost ${name}\\b`, 'm'));
      for (const option of OPTIONS[name]!) expect(result.stdout).toContain(option);
    }
    expect((await cli('help', group)).stdout).toBe(result.stdout);
  });

  test('the help shows defaults and exit statuses', async () => {
    expect((await cli('serve', '--help')).stdout).toMatch(/--port PORT .*\(default: 8000\)/);
    expect((await cli('sync', '--help')).stdout).toMatch(/Exit status: 0 .*; 2 .*; 1 error/);
  });
});

describe('--version', () => {
  test.each([['--version'], ['-v']])('outpost %s prints the package version and exits 0', (flag) => {
    const result = outpost(flag);
    expect(result.status).toBe(0);
    expect(result.stdout).toBe(`outpost ${pkg.version}\n`);
  });
});

describe('mistakes', () => {
  test('help of an unknown command: exit 1, a message naming it', () => {
    const result = outpost('help', 'frobnicate');
    expect(result.status).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe('outpost: unknown command "frobnicate"; see "outpost help"\n');
  });

  test('an unknown option before any command: exit 1, naming it', () => {
    const result = outpost('--frobnicate');
    expect(result.status).toBe(1);
    expect(result.stderr).toBe('outpost: unknown option "--frobnicate"; see "outpost help"\n');
  });

  test('the bundled CLI: an unknown option of a command is one line on stderr and exit 1', () => {
    const result = outpost('sync', '--bogus');
    expect(result.status).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe('outpost: unknown option "--bogus"; see "outpost sync --help"\n');
  });

  test.each(NAMES)('outpost %s --bogus: one line naming the option and the command\'s help, exit 1', async (name) => {
    const result = await cli(...name.split(' '), '--bogus');
    expect(result.status).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(`outpost: unknown option "--bogus"; see "outpost ${name} --help"\n`);
  });

  test('a missing option value and a missing argument name the command\'s help', async () => {
    expect((await cli('serve', '--port')).stderr).toBe('outpost: --port needs a value; see "outpost serve --help"\n');
    // Followed by another option, the value is still missing; a switch given a value takes none.
    expect((await cli('import-eve', 'eve.json', '--home-net', '--data', 'x')).stderr).toBe('outpost: --home-net needs a value; see "outpost import-eve --help"\n');
    expect((await cli('import-eve', 'eve.json', '--follow=yes')).stderr).toBe('outpost: --follow takes no value; see "outpost import-eve --help"\n');
    expect((await cli('export')).stderr).toBe('outpost: expected FILE, got none; see "outpost export --help"\n');
    expect((await cli('remote', 'add', 'central')).stderr).toBe('outpost: expected NAME URL, got 1 argument; see "outpost remote add --help"\n');
  });
});
