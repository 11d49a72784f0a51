/**
 * Which workspace a command works on (issue 23 §2), the bundled CLI run as a user runs it: a
 * `--workspace` that names no workspace is refused with the list, never made, and never becomes
 * the default; a lost, empty or damaged database is an error that names the file and what to do,
 * and nothing is made in its place. A data folder with no workspace still gets `default`.
 */
import { spawn, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { CLI } from '../helpers/syncCli';
import { tempWorkspaces } from '../helpers/tempWorkspaces';

const { tempDir } = tempWorkspaces('outpost-choice-');

function outpost(data: string, ...args: string[]) {
  return spawnSync(process.execPath, [CLI, ...args, '--data', data], { encoding: 'utf8', timeout: 30_000 });
}

const HOSTS = JSON.stringify([{ ip: '10.9.8.7', hits: 1, host_id: { first_seen: '2026-11-01T08:00:00.000000+00:00', last_seen: '2026-11-02T08:00:00.000000+00:00' } }]);

/** A data folder with the workspaces `default` and `paris`, and input files beside it. */
function siteFolder(): { data: string; hosts: string; threats: string; eve: string; file: (name: string) => string } {
  const root = tempDir();
  const data = path.join(root, 'data');
  expect(outpost(data, 'workspace', 'create', 'paris').status).toBe(0);
  const hosts = path.join(root, 'hosts.json');
  fs.writeFileSync(hosts, HOSTS);
  const threats = path.join(root, 'threats.json');
  fs.writeFileSync(threats, '[]');
  const eve = path.join(root, 'eve.json');
  fs.writeFileSync(eve, '');
  return { data, hosts, threats, eve, file: (name) => path.join(data, 'workspaces', `${name}.sqlite3`) };
}

const files = (data: string) => fs.readdirSync(path.join(data, 'workspaces')).filter((f) => f.endsWith('.sqlite3')).sort();
const settings = (data: string): Record<string, unknown> => (fs.existsSync(path.join(data, 'outpost.json')) ? JSON.parse(fs.readFileSync(path.join(data, 'outpost.json'), 'utf8')) : {});
const digest = (file: string) => crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex');

/** Every command that works on one workspace, with arguments that are otherwise right. */
const COMMANDS: readonly [string, (site: ReturnType<typeof siteFolder>) => string[]][] = [
  ['serve', () => ['serve', '--port', '0']],
  ['import-hosts', (site) => ['import-hosts', site.hosts]],
  ['import-threats', (site) => ['import-threats', site.threats]],
  ['import-eve', (site) => ['import-eve', site.eve]],
  ['export', (site) => ['export', path.join(path.dirname(site.data), 'out.json')]],
  ['sync', () => ['sync']],
  ['conflicts', () => ['conflicts']],
  ['resolve', () => ['resolve', '1', 'name', '--mine']],
  ['outbox', () => ['outbox']],
  ['outbox retry', () => ['outbox', 'retry', '1']],
  ['outbox discard', () => ['outbox', 'discard', '1']],
];

describe('--workspace names a workspace that exists', () => {
  test.each(COMMANDS)('%s --workspace lyon, where there is no lyon: refused with the list, exit 1, nothing made', (_name, args) => {
    const site = siteFolder();
    const before = settings(site.data);
    const result = outpost(site.data, ...args(site), '--workspace', 'lyon');
    expect(result.status, result.stderr).toBe(1);
    expect(result.stderr).toContain(`there is no workspace "lyon" in ${site.data} (its workspaces: default, paris)`);
    expect(files(site.data)).toEqual(['default.sqlite3', 'paris.sqlite3']);
    expect(settings(site.data)).toEqual(before);
  });

  test("a command's --workspace does not change the default", () => {
    const site = siteFolder();
    const imported = outpost(site.data, 'import-hosts', site.hosts, '--workspace', 'paris');
    expect(imported.stdout).toContain('into workspace "paris"');
    expect(settings(site.data).lastWorkspace).not.toBe('paris');
    expect(outpost(site.data, 'workspace', 'list').stdout).toMatch(/^\* default\b/m);
    expect(outpost(site.data, 'import-hosts', site.hosts).stdout).toContain('into workspace "default"');
  });

  test('a data folder with no workspace gets its default at the first start; another name is refused', () => {
    const root = tempDir();
    const hosts = path.join(root, 'hosts.json');
    fs.writeFileSync(hosts, HOSTS);
    const refused = outpost(path.join(root, 'a'), 'import-hosts', hosts, '--workspace', 'lyon');
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain(`there is no workspace "lyon" in ${path.join(root, 'a')} (it has none yet); to make one: outpost workspace create lyon`);
    expect(files(path.join(root, 'a'))).toEqual([]);
    const first = outpost(path.join(root, 'b'), 'import-hosts', hosts);
    expect(first.status, first.stderr).toBe(0);
    expect(files(path.join(root, 'b'))).toEqual(['default.sqlite3']);
  });
});

describe("a workspace's database lost, empty or damaged", () => {
  test('the last used workspace whose database is gone: an error naming the file; nothing made in its place', () => {
    const site = siteFolder();
    fs.writeFileSync(path.join(site.data, 'outpost.json'), JSON.stringify({ lastWorkspace: 'paris' }));
    fs.rmSync(site.file('paris'));
    for (const args of [['import-hosts', site.hosts], ['serve', '--port', '0'], ['outbox']]) {
      const result = outpost(site.data, ...args);
      expect(result.status, args[0]).toBe(1);
      expect(result.stderr).toContain(`the database of workspace "paris", the one used last, is missing: ${site.file('paris')}. Restore it from a backup, or delete the workspace`);
      expect(fs.existsSync(site.file('paris'))).toBe(false);
    }
  });

  test.each(COMMANDS)('%s on a workspace whose database is empty (0 bytes): an error naming it; it stays empty', (_name, args) => {
    const site = siteFolder();
    fs.writeFileSync(site.file('paris'), '');
    const result = outpost(site.data, ...args(site), '--workspace', 'paris');
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(`the database of workspace "paris", ${site.file('paris')}, is empty (0 bytes): restore it from a backup, or delete the workspace`);
    expect(fs.statSync(site.file('paris')).size).toBe(0);
  });

  test.each([
    ['not a database', (file: string) => fs.writeFileSync(file, crypto.randomBytes(64 * 1024)), /is not a workspace database \(SQLITE_NOTADB/],
    ['cut short', (file: string) => fs.truncateSync(file, Math.floor(fs.statSync(file).size / 4)), /is damaged \(SQLITE_CORRUPT/],
  ])('a database %s: the CLI and serve name the file and say to restore or delete it; it is left as it was', (_what, damage, fault) => {
    const site = siteFolder();
    damage(site.file('paris'));
    const before = digest(site.file('paris'));
    for (const args of [['import-hosts', site.hosts], ['serve', '--port', '0'], ['export', path.join(path.dirname(site.data), 'out.json')]]) {
      const result = outpost(site.data, ...args, '--workspace', 'paris');
      expect(result.status, args[0]).toBe(1);
      expect(result.stderr).toContain(`outpost: ${site.file('paris')} `);
      expect(result.stderr).toMatch(fault);
      expect(result.stderr).toContain('restore it from a backup, or delete the workspace');
      expect(digest(site.file('paris'))).toBe(before);
    }
  });

  test('workspace list and create work beside a lost default; workspace delete gives it up and names the new default', () => {
    const site = siteFolder();
    fs.writeFileSync(path.join(site.data, 'outpost.json'), JSON.stringify({ lastWorkspace: 'lyon' }));
    expect(outpost(site.data, 'workspace', 'list').stdout).toBe('  default\tstandalone\n  paris\tstandalone\n');
    expect(outpost(site.data, 'workspace', 'create', 'nice').status).toBe(0);
    const deleted = outpost(site.data, 'workspace', 'delete', 'lyon');
    expect(deleted.status, deleted.stderr).toBe(0);
    expect(deleted.stdout).toBe('workspace "lyon" deleted\nthe default workspace is now "default"\n');
    expect(settings(site.data).lastWorkspace).toBe('default');
    expect(outpost(site.data, 'import-hosts', site.hosts).stdout).toContain('into workspace "default"');
    const unknown = outpost(site.data, 'workspace', 'delete', 'lyon');
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toContain('there is no workspace "lyon"');
  });
});

describe('workspace delete', () => {
  test('a workspace another process has open (outpost serve) is not deleted under it; once it is closed, it is', async () => {
    const site = siteFolder();
    const child = spawn(process.execPath, [CLI, 'serve', '--workspace', 'paris', '--port', '0', '--data', site.data], { stdio: ['ignore', 'pipe', 'pipe'] });
    const stopped = new Promise<number | null>((resolve) => child.once('exit', resolve));
    try {
      await new Promise<void>((resolve, reject) => {
        let output = '';
        child.stdout.on('data', (chunk: Buffer) => {
          output += chunk.toString();
          if (/^listening on /m.test(output)) resolve();
        });
        child.once('exit', (code) => reject(new Error(`serve exited with ${code}: ${output}`)));
      });
      const refused = outpost(site.data, 'workspace', 'delete', 'paris');
      expect(refused.status).toBe(1);
      expect(refused.stderr).toBe('outpost: workspace "paris" is open in another Outpost process (the app, or outpost serve): close it there first, then delete it\n');
      expect(fs.existsSync(site.file('paris'))).toBe(true);
    } finally {
      child.kill('SIGTERM');
      await stopped;
    }
    const deleted = outpost(site.data, 'workspace', 'delete', 'paris');
    expect(deleted.status, deleted.stderr).toBe(0);
    expect(fs.readdirSync(path.join(site.data, 'workspaces')).filter((f) => f.startsWith('paris'))).toEqual([]);
  });

  test('deleting the default of a folder that never recorded one names the next default', () => {
    const site = siteFolder();
    expect(outpost(site.data, 'import-hosts', site.hosts).status).toBe(0);
    fs.rmSync(path.join(site.data, 'outpost.json'), { force: true });
    const deleted = outpost(site.data, 'workspace', 'delete', 'default');
    expect(deleted.status, deleted.stderr).toBe(0);
    expect(deleted.stdout).toBe('workspace "default" deleted\nthe default workspace is now "paris"\n');
    expect(outpost(site.data, 'workspace', 'list').stdout).toBe('* paris\tstandalone\n');
  });

  test('the next default is a workspace whose database opens, not a damaged one', () => {
    const site = siteFolder();
    expect(outpost(site.data, 'import-hosts', site.hosts).status).toBe(0);
    // "broken" sorts before "paris": a file that is no SQLite database.
    fs.writeFileSync(site.file('broken'), 'not a database, not even its header');
    const deleted = outpost(site.data, 'workspace', 'delete', 'default');
    expect(deleted.status, deleted.stderr).toBe(0);
    expect(deleted.stdout).toBe('workspace "default" deleted\nthe default workspace is now "paris"\n');
    expect(settings(site.data).lastWorkspace).toBe('paris');
  });
});
