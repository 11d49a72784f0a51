/**
 * Escape sequences never reach the terminal (issue 23 §4, README "Control characters in output"). Every
 * command of the command table (main.ts's COMMANDS: a new command fails "every command is walked"
 * until it is given a walk) is run as a user runs it — the bundled CLI in a child process — on
 * data full of control characters: a data folder, EVE, host and bundle files named with them,
 * probes, templates and conflicts holding them on the reference central server, a central server
 * whose answers hold them, a remotes.json written by hand. Nothing raw comes out but newlines and
 * tabs; the plain output shows the characters escaped; --json parses back to the very strings.
 * One walk of each command, an unknown option named with the sequences, is refused before the
 * command does anything: it runs in this process, through the output the bundle uses.
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { COMMANDS } from '../../electron/cli/main';
import type { CommandSpec } from '../../electron/cli/usage';
import { workspaceFile } from '../../electron/workspaces/dataFolder';
import { visible, visibleJson } from '../../shared/text/visible';
import type { Client } from '../helpers/http';
import { startReference, type ReferenceServer } from '../helpers/reference';
import { startBound } from '../helpers/sync';
import { outpostInProcess } from '../helpers/cliInProcess';
import { CLI, outpost, type CliResult } from '../helpers/syncCli';

/**
 * Clear the screen, set the window title, write the clipboard (OSC 52), a C1 CSI, a right-to-left
 * override and an isolate, marks, DEL, backspace, SOH: each would act on a terminal written raw.
 */
const H = 'x\u001b[2J\u001b]0;owned\u0007\u001b]52;c;cHduZWQK\u0007\u009b31m\u202ed\u2066\u200f\u061c\u007f\u0008\u0001z';
/** What the lying central server answers: the same, a line separator and a lone surrogate. */
const SERVER_SAYS = `denied ${H}\u2028\ud800`;

/** Characters that must never reach stdout or stderr raw: all of shared/text/visible.ts's but newline and tab; U+FFFD is what a lone surrogate becomes when written. */
const RAW = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufffd]/u;

const T = '/rest/appliances/vendor_probe_template/';
const P = '/rest/appliances/vendor_probe/';

interface Walk {
  readonly args: readonly string[];
  /** Strings from data the plain output must show (in their visible form). */
  readonly shows?: readonly string[];
  /** Values the plain output must show as JSON (in visibleJson's form). */
  readonly showsAsJson?: readonly string[];
  /** --json: a check of the parsed output against the strings the data holds. */
  readonly json?: (parsed: unknown) => void;
  /** `serve`: run until it listens, then stopped. */
  readonly serve?: true;
  /**
   * Run in this process (test/helpers/cliInProcess.ts), through the same output as the bundle's:
   * for an unknown option, refused before a command does anything. Every command is also run in
   * a process of its own by its other walks.
   */
  readonly inProcess?: true;
}

let remote: ReferenceServer;
let liar: http.Server;
let root: string;
/** The data folder: its own name holds the sequences, and so does every path under it. */
let data: string;
/** A data folder whose remotes.json was written by hand with a hostile remote. */
let odd: string;
let files: { hosts: string; badHosts: string; threats: string; eveFile: string; eveFolder: string; bundle: string };
let probePk: number;
let parkedSeq: number;

async function made(api: Client, endpoint: string, body: unknown): Promise<{ pk: number }> {
  const reply = await api.post(endpoint, body);
  if (reply.status !== 201) throw new Error(`POST ${endpoint}: ${reply.status} ${reply.text}`);
  return reply.json();
}

async function must(args: readonly string[], status = 0): Promise<CliResult> {
  const result = await outpost(args);
  if (result.status !== status) throw new Error(`outpost ${args.join(' ')}: ${result.status}\n${result.stdout}\n${result.stderr}`);
  return result;
}

const at = (...args: string[]) => [...args, '--data', data];

function eveLine(seconds: number, hostname: string): string {
  const timestamp = `2025-03-01T10:00:${String(seconds).padStart(2, '0')}.000000+0000`;
  return JSON.stringify({ timestamp, event_type: 'http', src_ip: '10.0.0.1', src_port: 50000 + seconds, dest_ip: '10.0.0.2', dest_port: 80, proto: 'TCP', http: { hostname, url: '/', http_method: 'GET' } });
}

beforeAll(async () => {
  remote = await startReference();
  liar = http.createServer((_req, res) => {
    res.writeHead(403, { 'content-type': 'application/json' });
    // Written by hand: JSON.stringify would escape the lone surrogate the same way.
    res.end(`{"detail": ${JSON.stringify(SERVER_SAYS)}}`);
  });
  await new Promise<void>((resolve) => liar.listen(0, '127.0.0.1', resolve));
  const liarUrl = `http://127.0.0.1:${(liar.address() as { port: number }).port}`;

  root = fs.mkdtempSync(path.join(os.tmpdir(), 'outpost-escapes-'));
  data = path.join(root, `data-${H}`);
  fs.mkdirSync(data);
  odd = path.join(root, 'odd');
  fs.mkdirSync(odd);
  fs.writeFileSync(path.join(odd, 'remotes.json'), JSON.stringify({ remotes: { [H]: { url: `http://127.0.0.1:1/${H}` } } }));

  const stamp = '2026-11-01T08:00:00.000000+00:00';
  const identity = (host: string) => ({ first_seen: stamp, last_seen: stamp, hostname: [{ host, first_seen: stamp, last_seen: stamp }] });
  files = {
    hosts: path.join(root, `hosts-${H}.json`),
    badHosts: path.join(root, `bad-${H}.json`),
    threats: path.join(root, `threats-${H}.json`),
    eveFile: path.join(root, `eve-${H}.json`),
    eveFolder: path.join(root, `logs-${H}`),
    bundle: path.join(root, `bundle-${H}.json`),
  };
  fs.writeFileSync(files.hosts, JSON.stringify([{ ip: '10.9.8.7', hits: 1, host_id: identity(`db-${H}`) }]));
  fs.writeFileSync(files.badHosts, JSON.stringify([{ ip: `10.9.8.${H}`, host_id: identity(H) }, { ip: '10.9.8.6', host_id: { [H]: H } }]));
  fs.writeFileSync(files.threats, JSON.stringify([{ name: H, [H]: H }]));
  fs.writeFileSync(files.eveFile, `${eveLine(1, `web-${H}`)}\nnot json ${H}\n${eveLine(2, 'plain.example')}\n`);
  fs.mkdirSync(files.eveFolder);
  fs.writeFileSync(path.join(files.eveFolder, 'eve.json'), `${eveLine(3, `folder-${H}`)}\n`);
  fs.writeFileSync(path.join(files.eveFolder, `notes-${H}.txt`), 'not a log\n');

  // A bound workspace with a refused change and a conflict, both holding the sequences.
  await must(at('remote', 'add', 'central', remote.url, '--token', remote.token));
  await must(at('workspace', 'create', 'site', '--remote', 'central'));
  const probe = await made(remote.api, P, { name: `probe-${H}`, address: '10.11.0.1', location: 'hall', descr: `base-${H}` });
  probePk = probe.pk;
  await must(at('sync', '--workspace', 'site'));
  const site = await startBound(remote, { dir: data });
  try {
    await made(site.api, T, { name: `tpl-${H}` });
    const patched = await site.api.patch(`${P}${probe.pk}/`, { descr: `mine-${H}` });
    if (patched.status !== 200) throw new Error(`PATCH: ${patched.status} ${patched.text}`);
  } finally {
    await site.close();
  }
  await made(remote.api, T, { name: `tpl-${H}` });
  const theirs = await remote.api.patch(`${P}${probe.pk}/`, { descr: `theirs-${H}` });
  if (theirs.status !== 200) throw new Error(`PATCH: ${theirs.status} ${theirs.text}`);
  await must(at('sync', '--workspace', 'site'), 2);
  const outbox = JSON.parse((await must(at('outbox', '--json', '--workspace', 'site'))).stdout) as { seq: number; state: string }[];
  parkedSeq = outbox.find((e) => e.state === 'parked')!.seq;

  // A workspace bound to a central server whose every answer holds the sequences.
  await must(at('remote', 'add', 'liar', liarUrl, '--token', 'c'.repeat(40)));
  await must(at('workspace', 'create', 'lied', '--remote', 'liar'));
  // A workspace for `workspace delete` to delete.
  await must(at('workspace', 'create', 'spare'));
}, 120_000);

afterAll(async () => {
  await remote?.stop();
  await new Promise<void>((resolve) => (liar ? liar.close(() => resolve()) : resolve()));
  if (root) fs.rmSync(root, { recursive: true, force: true });
});

/** Every string a parsed JSON value holds, keys included. */
function strings(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(strings);
  if (value && typeof value === 'object') return Object.entries(value).flatMap(([k, v]) => [k, ...strings(v)]);
  return [];
}

/** The walks of each command, by the name the command table gives it. */
const WALKS: Readonly<Record<string, () => readonly Walk[]>> = {
  serve: () => [{ args: at('serve', '--port', '0', '--workspace', 'lied'), serve: true, shows: [data] }],
  'import-hosts': () => [
    { args: at('import-hosts', files.hosts, '--workspace', 'site', '--comment', H) },
    { args: at('import-hosts', files.badHosts, '--workspace', 'site'), shows: [files.badHosts] },
  ],
  'import-threats': () => [{ args: at('import-threats', files.threats, '--workspace', 'site'), shows: [files.threats] }],
  'import-eve': () => [
    { args: at('import-eve', files.eveFile, '--workspace', 'site'), shows: [files.eveFile] },
    { args: at('import-eve', files.eveFolder, '--workspace', 'site'), shows: [path.join(files.eveFolder, `notes-${H}.txt`)] },
  ],
  // The hosts and EVE files imported above into "site", whose names and values hold the sequences.
  'hosts imports': () => [
    { args: at('hosts', 'imports', '--workspace', 'site'), shows: [files.eveFile] },
    { args: at('hosts', 'imports', '--workspace', 'site', '--json'), json: (parsed) => expect(strings(parsed)).toEqual(expect.arrayContaining([files.eveFile, files.hosts])) },
  ],
  'hosts diff': () => {
    // Since the EVE file's import: the folder's import gave 10.0.0.2 the name folder-<sequences>.
    const db = new Database(workspaceFile(data, 'site'), { readonly: true });
    const since = String(db.prepare("SELECT min(pk) FROM host_visit WHERE kind = 'eve'").pluck().get());
    db.close();
    return [
      { args: at('hosts', 'diff', '--since', since, '--workspace', 'site'), shows: [`folder-${H}`] },
      { args: at('hosts', 'diff', '--since', since, '--workspace', 'site', '--json'), json: (parsed) => expect(strings(parsed)).toEqual(expect.arrayContaining([`folder-${H}`])) },
      { args: at('hosts', 'diff', '--since', H, '--workspace', 'site'), shows: [H] },
    ];
  },
  export: () => [{ args: at('export', files.bundle, '--workspace', 'site'), shows: [files.bundle] }],
  import: () => [{ args: at('import', files.bundle, '--workspace', 'copy'), shows: [files.bundle] }],
  'remote add': () => [{ args: at('remote', 'add', 'other', `http://127.0.0.1:1/${H}`, '--token', 'd'.repeat(40)) }],
  'remote list': () => [
    { args: ['remote', 'list', '--data', odd], shows: [H, `http://127.0.0.1:1/${H}`] },
    {
      args: ['remote', 'list', '--json', '--data', odd],
      json: (parsed) => expect(parsed).toMatchObject([{ name: H, url: `http://127.0.0.1:1/${H}` }]),
    },
  ],
  'remote set-url': () => [{ args: ['remote', 'set-url', H, `http://127.0.0.1:2/${H}`, '--data', odd], shows: [H] }],
  'remote test': () => [
    { args: ['remote', 'test', H, '--data', odd], shows: [H] },
    { args: at('remote', 'test', 'liar') },
    { args: at('remote', 'test', 'liar', '--json'), json: (parsed) => expect(parsed).toMatchObject({ remote: 'liar', ok: false }) },
  ],
  'remote set-token': () => [{ args: at('remote', 'set-token', 'liar', '--token', 'c'.repeat(40)) }],
  'remote remove': () => [{ args: ['remote', 'remove', H, '--data', odd], shows: [H] }],
  'workspace create': () => [{ args: at('workspace', 'create', 'third') }],
  'workspace delete': () => [{ args: at('workspace', 'delete', 'spare') }],
  // Plans only (no --yes): a bound workspace's (a problem, its objects' names), and one over a central server whose answers hold the sequences.
  'workspace connect': () => [
    { args: at('workspace', 'connect', 'site', '--remote', 'central'), shows: [`probe-${H}`] },
    { args: at('workspace', 'connect', 'site', '--remote', 'central', '--json'), json: (parsed) => expect(strings(parsed)).toEqual(expect.arrayContaining([`probe-${H}`])) },
    { args: at('workspace', 'connect', 'lied', '--remote', 'liar') },
  ],
  'workspace list': () => [{ args: at('workspace', 'list') }, { args: at('workspace', 'list', '--json'), json: (parsed) => expect(Array.isArray(parsed)).toBe(true) }],
  sync: () => [
    { args: at('sync', '--workspace', 'lied'), shows: [SERVER_SAYS] },
    { args: at('sync', '--workspace', 'lied', '--json'), json: (parsed) => expect((parsed as { error: { message: string } }).error.message).toContain(SERVER_SAYS) },
    { args: at('sync', '--workspace', 'site') },
    { args: at('sync', '--workspace', 'site', '--json'), json: (parsed) => expect(parsed).toMatchObject({ outcome: 'conflicts' }) },
  ],
  conflicts: () => [
    { args: at('conflicts', '--workspace', 'site'), shows: [`probe-${H}`], showsAsJson: [`base-${H}`, `mine-${H}`, `theirs-${H}`] },
    {
      args: at('conflicts', '--workspace', 'site', '--json'),
      json: (parsed) =>
        expect(parsed).toEqual([expect.objectContaining({ pk: probePk, label: `probe-${H}`, conflicts: [{ field: 'descr', base: `base-${H}`, mine: `mine-${H}`, theirs: `theirs-${H}` }] })]),
    },
  ],
  resolve: () => [{ args: at('resolve', String(probePk), H, '--mine', '--workspace', 'site'), shows: [H] }],
  outbox: () => [
    { args: at('outbox', '--workspace', 'site'), shows: [`tpl-${H}`, `probe-${H}`] },
    { args: at('outbox', '--workspace', 'site', '--json'), json: (parsed) => expect(strings(parsed)).toEqual(expect.arrayContaining([`tpl-${H}`, `probe-${H}`])) },
  ],
  'outbox retry': () => [{ args: at('outbox', 'retry', String(parkedSeq), '--workspace', 'site') }],
  'outbox discard': () => [{ args: at('outbox', 'discard', String(parkedSeq), '--workspace', 'site') }],
  report: () => [
    { args: at('report', '--out', path.join(root, `site-${H}.html`), '--workspace', 'site', '--users'), shows: [path.join(root, `site-${H}.html`)] },
    { args: at('report', '--out', path.join(root, `site-${H}.pdf`), '--workspace', 'site', '--q', H), shows: [H] },
    { args: at('report', '--out', path.join(root, `site2-${H}.html`), '--since', H), shows: [H] },
  ],
  'hosts export': () => [
    { args: at('hosts', 'export', '--out', path.join(root, `hosts-${H}.csv`), '--workspace', 'site'), shows: [path.join(root, `hosts-${H}.csv`)] },
    { args: at('hosts', 'export', '--format', 'json', '--out', path.join(root, `parts-${H}`), '--workspace', 'site', '--q', H), shows: [H] },
    { args: at('hosts', 'export', '--columns', `ip,${H}`, '--out', path.join(root, `cols-${H}.csv`)), shows: [H] },
  ],
};

const SPECS: readonly CommandSpec[] = COMMANDS.flatMap(({ help }) => ('commands' in help ? help.commands : [help]));


/** `outpost serve` until it says where it listens, then stopped as Ctrl-C stops it. */
function serveOnce(args: readonly string[]): Promise<CliResult> {
  const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    if (/^web UI: /m.test(stdout)) child.kill('SIGINT');
  });
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`outpost serve did not start:\n${stdout}\n${stderr}`));
    }, 30_000);
    child.on('close', (status, signal) => {
      clearTimeout(timer);
      resolve({ status, signal, stdout, stderr });
    });
  });
}

/** Where the first raw control character of `text` is, with what surrounds it, or undefined. */
function firstRaw(text: string): string | undefined {
  const match = RAW.exec(text);
  return match ? `U+${match[0].charCodeAt(0).toString(16).padStart(4, '0')} at ${match.index}: ${JSON.stringify(text.slice(Math.max(0, match.index - 40), match.index + 40))}` : undefined;
}

function expectShownSafely(args: readonly string[], result: CliResult, walk?: Walk): void {
  const what = `outpost ${args.map((a) => JSON.stringify(a)).join(' ')}`;
  expect(firstRaw(result.stdout), `${what}: stdout`).toBeUndefined();
  expect(firstRaw(result.stderr), `${what}: stderr`).toBeUndefined();
  for (const value of walk?.shows ?? []) expect(result.stdout + result.stderr, `${what} shows ${JSON.stringify(value)}`).toContain(visible(value));
  for (const value of walk?.showsAsJson ?? []) expect(result.stdout, `${what} shows ${JSON.stringify(value)}`).toContain(visibleJson(value));
  if (walk?.json) walk.json(JSON.parse(result.stdout));
}

describe('no control character from data reaches the terminal', () => {
  test('every command of the command table is walked', () => {
    expect(Object.keys(WALKS).sort()).toEqual(SPECS.map((spec) => spec.name).sort());
  });

  test.each(SPECS.map((spec) => [spec.name, spec] as const))('outpost %s', async (name, spec) => {
    const words = name.split(' ');
    // Arguments of the command line are data too: values (paths where nothing is, so that no command writes), an option and a workspace named with the sequences.
    const absent = path.join(root, 'absent', H);
    const walks: Walk[] = [
      ...(WALKS[name]?.() ?? []),
      { args: [...words, ...Array<string>(Math.max(spec.positionals, 1)).fill(absent), ...(name.startsWith('remote') || name.startsWith('workspace') ? ['--data', odd] : at())] },
      { args: [...words, `--${H}`], shows: [`--${H}`], inProcess: true },
      ...('workspace' in spec.options ? [{ args: at(...words, '--workspace', H) }] : []),
    ];
    for (const walk of walks) {
      const result = walk.serve ? await serveOnce(walk.args) : walk.inProcess ? { ...(await outpostInProcess(...walk.args)), signal: null } : await outpost(walk.args);
      expectShownSafely(walk.args, result, walk);
    }
  }, 120_000);
});
