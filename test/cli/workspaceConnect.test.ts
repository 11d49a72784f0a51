/**
 * `outpost workspace connect NAME --remote R` (issue 25 §1), the bundled CLI run as a user runs it
 * against the reference server: without --yes the plan is printed (names made visible, differences
 * bounded) and nothing is sent or changed; bad decisions are refused with a clear message; with
 * --yes the workspace is connected and the next `outpost sync` sends what was decided.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { workspaceFile } from '../../electron/workspaces/dataFolder';
import { visible } from '../../shared/text/visible';
import { startReference, type ReferenceServer } from '../helpers/reference';
import { startAppServer } from '../helpers/server';
import { CLI, outpost } from '../helpers/syncCli';

const P = '/rest/appliances/vendor_probe/';

let reference: ReferenceServer;
const folders: string[] = [];
beforeAll(async () => {
  reference = await startReference();
}, 60_000);
afterAll(async () => {
  await reference?.stop();
  for (const dir of folders) fs.rmSync(dir, { recursive: true, force: true });
});

/**
 * Every row of every table, but the device describing the Outpost that opened the workspace last
 * (pk 1: this test's server, then the CLI's name and version), which any command rewrites.
 */
function dump(file: string): Record<string, unknown[]> {
  const db = new Database(file, { readonly: true });
  try {
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all() as string[];
    const where = (table: string) => (table === 'vendor_device' ? " WHERE kind <> 'central'" : '');
    return Object.fromEntries(tables.map((table) => [table, db.prepare(`SELECT * FROM "${table}"${where(table)} ORDER BY 1`).raw().all()]));
  } finally {
    db.close();
  }
}

let made = 0;

/** A standalone workspace `default` with a probe the central server has too, differently, one of its own, and one named with control characters. */
async function standalone(): Promise<{ dir: string; file: string; p: string; pks: Record<string, number> }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'outpost-connect-cli-'));
  folders.push(dir);
  const p = `cli${++made}-${Date.now() % 100000}`;
  const site = await startAppServer({ dir });
  const pks: Record<string, number> = {};
  try {
    site.host.remotes.add({ name: 'central', url: reference.url }, reference.token);
    for (const name of ['shared', 'mine']) pks[name] = (await site.api.post(P, { name: `${p}-${name}`, address: '10.0.0.1', location: 'rack 1' })).json().pk;
    pks.evil = (await site.api.post(P, { name: `${p}-evil\u001b[31m`, address: '10.0.0.2', location: 'x'.repeat(250) })).json().pk;
  } finally {
    await site.close();
  }
  await reference.api.post(P, { name: `${p}-shared`, address: '10.0.0.1', location: 'central rack' });
  await reference.api.post(P, { name: `${p}-evil\u001b[31m`, address: '10.0.0.2', location: 'y'.repeat(250) });
  return { dir, file: workspaceFile(dir, 'default'), p, pks };
}

/** `outpost ARGS` on a terminal (a pseudo-terminal made by script(1)), answering `answer` once asked; its output. */
function onTerminal(args: readonly string[], answer: string): Promise<{ status: number | null; output: string }> {
  const command = [process.execPath, CLI, ...args].map((word) => `'${word.replace(/'/g, "'\\''")}'`).join(' ');
  const child = spawn('script', ['-qec', command, '/dev/null'], { stdio: ['pipe', 'pipe', 'pipe'] });
  let output = '';
  let answered = false;
  const seen = (chunk: Buffer) => {
    output += chunk.toString();
    if (!answered && output.includes('Connect? [y/N]')) {
      answered = true;
      child.stdin.write(`${answer}\n`);
    }
  };
  child.stdout.on('data', seen);
  child.stderr.on('data', seen);
  return new Promise((resolve) => child.on('close', (status) => resolve({ status, output })));
}

const hasScript = spawnSync('script', ['--version']).status === 0;

describe('outpost workspace connect', () => {
  test.runIf(hasScript)('on a terminal it asks; "n" changes nothing, "y" connects', async () => {
    const { dir, file } = await standalone();
    const before = dump(file);
    const declined = await onTerminal(['workspace', 'connect', 'default', '--remote', 'central', '--data', dir], 'n');
    expect(declined.status, declined.output).toBe(0);
    expect(declined.output).toContain('nothing was sent and nothing changed');
    expect(dump(file)).toEqual(before);
    const accepted = await onTerminal(['workspace', 'connect', 'default', '--remote', 'central', '--data', dir], 'y');
    expect(accepted.status, accepted.output).toBe(0);
    expect(accepted.output).toContain('workspace "default" is now bound to remote "central"');
  }, 60_000);

  test('without --yes prints the plan (names escaped, values bounded) and changes nothing', async () => {
    const { dir, file, p } = await standalone();
    const before = dump(file);
    const result = await outpost(['workspace', 'connect', 'default', '--remote', 'central', '--data', dir]);
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toContain(`1 sent as new objects:`);
    expect(result.stdout).toContain(`vendor_probe "${p}-mine"`);
    expect(result.stdout).toContain('location: mine "rack 1", central "central rack"');
    expect(result.stdout).not.toContain('\u001b');
    expect(result.stdout).toContain(`vendor_probe "${visible(`${p}-evil\u001b[31m`)}"`);
    // A long value is cut, not printed whole.
    expect(result.stdout).not.toContain('x'.repeat(100));
    expect(result.stdout).toMatch(/kept here: 0 host identities as local evidence/);
    expect(result.stdout).toContain(`nothing was sent and nothing changed; to connect: outpost workspace connect default --remote central --yes`);
    expect(dump(file)).toEqual(before);
  }, 60_000);

  test('--json without --yes prints the plan as JSON and changes nothing', async () => {
    const { dir, file, p, pks } = await standalone();
    const before = dump(file);
    const result = await outpost(['workspace', 'connect', 'default', '--remote', 'central', '--data', dir, '--json']);
    expect(result.status, result.stderr).toBe(0);
    const plan = JSON.parse(result.stdout);
    expect(plan.format).toBe('outpost-connect-plan');
    const shared = plan.items.find((i: { name: string }) => i.name === `${p}-shared`);
    expect(shared).toMatchObject({ resource: 'vendor_probe', pk: pks.shared, match: 'collision' });
    expect(dump(file)).toEqual(before);
  }, 60_000);

  test('bad decisions and an unknown remote are refused with a clear message, exit 1, nothing changed', async () => {
    const { dir, file, p } = await standalone();
    const before = dump(file);
    const decisions = path.join(dir, 'decisions.json');
    fs.writeFileSync(decisions, JSON.stringify({ [`vendor_probe:${p}-shared`]: { use: 'rename', name: `${p}-mine` } }));
    const bad = await outpost(['workspace', 'connect', 'default', '--remote', 'central', '--data', dir, '--yes', '--decisions', decisions]);
    expect(bad.status).toBe(1);
    expect(bad.stderr).toContain('the decisions are not valid');
    expect(bad.stderr).toContain(`this workspace has a vendor_probe named "${p}-mine" already`);
    fs.writeFileSync(decisions, '[1, 2');
    const unparsable = await outpost(['workspace', 'connect', 'default', '--remote', 'central', '--data', dir, '--yes', '--decisions', decisions]);
    expect(unparsable.status).toBe(1);
    expect(unparsable.stderr).toContain('is not valid JSON');
    const unknown = await outpost(['workspace', 'connect', 'default', '--remote', 'nowhere', '--data', dir, '--yes']);
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toContain('there is no remote "nowhere"');
    expect(dump(file)).toEqual(before);
    expect(fs.existsSync(path.join(dir, 'backups'))).toBe(false);
  }, 60_000);

  test('--yes connects with the decisions; the next sync sends what was decided', async () => {
    const { dir, p, pks } = await standalone();
    const decisions = path.join(dir, 'decisions.json');
    fs.writeFileSync(decisions, JSON.stringify({ [`vendor_probe:${pks.shared}`]: { use: 'rename', name: `${p}-shared-site` }, [`vendor_probe:${pks.evil}`]: { use: 'leave_out' } }));
    const result = await outpost(['workspace', 'connect', 'default', '--remote', 'central', '--data', dir, '--yes', '--push', 'automatic', '--decisions', decisions, '--json']);
    expect(result.status, result.stderr).toBe(0);
    const connected = JSON.parse(result.stdout);
    expect(connected).toMatchObject({ workspace: 'default', remote: 'central', queued: 2, matched: 0, leftOut: 1, pullError: null });
    expect(fs.existsSync(connected.backup)).toBe(true);

    const sync = await outpost(['sync', '--data', dir, '--workspace', 'default']);
    expect(sync.status, sync.stdout + sync.stderr).toBe(0);
    const named = async (name: string) => (await reference.api.get(`${P}?name=${encodeURIComponent(name)}`)).json().results;
    expect((await named(`${p}-shared-site`))[0].location).toBe('rack 1');
    expect((await named(`${p}-shared`))[0].location).toBe('central rack');
    expect((await named(`${p}-mine`))[0].location).toBe('rack 1');
  }, 60_000);
});
