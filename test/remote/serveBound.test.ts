/**
 * `outpost serve --workspace NAME` on a bound workspace (issue 4, app.md §3): the server syncs on
 * its own — a first pull at start, and every local change pushed shortly after it is made — while
 * the API answers from the local database. Run as a user runs it: the bundled CLI.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { Client } from '../helpers/http';
import { startReference, type ReferenceServer } from '../helpers/reference';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const CLI = path.join(ROOT, 'dist/node/outpost.cjs');
const TOKEN = '0123456789abcdef0123456789abcdef01234567';

let remote: ReferenceServer;
let dir: string;

beforeAll(async () => {
  remote = await startReference();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'outpost-serve-bound-'));
}, 60_000);

afterAll(async () => {
  await remote?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

function cli(args: string[]) {
  return spawnSync(process.execPath, [CLI, ...args, '--data', dir], { encoding: 'utf8', timeout: 60_000 });
}

describe('serving a bound workspace', () => {
  test('pulls at start, pushes each local change on its own, and says which central server it follows', async () => {
    const seeded = await remote.api.post('/rest/rules/source/', { name: 'et-open', uri: 'https://rules.example/et.tar.gz' });
    expect(seeded.status).toBe(201);
    expect(cli(['remote', 'add', 'central', remote.url, '--token', remote.token]).status).toBe(0);
    expect(cli(['workspace', 'create', 'site', '--remote', 'central', '--push', 'automatic']).status).toBe(0);

    const child = spawn(process.execPath, [CLI, 'serve', '--data', dir, '--workspace', 'site', '--port', '0', '--admin-token', TOKEN], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    try {
      await expect.poll(() => /^listening on (\S+)$/m.exec(output)?.[1], { timeout: 20_000 }).toBeTruthy();
      expect(output).toContain(`central server: central (${remote.url}), synced automatically`);
      const local = new Client(/^listening on (\S+)$/m.exec(output)![1]!, TOKEN);

      // The first pull, with nobody asking.
      await expect.poll(async () => (await local.get('/rest/rules/source/?name=et-open')).json().count, { timeout: 20_000 }).toBe(1);
      const status = (await local.get('/app/status')).json();
      expect(status.mode).toBe('bound');
      expect(status.sync.connection).toBe('online');

      // A local change reaches the central server a moment later.
      const made = await local.post('/rest/rules/ruleset/', { name: 'site-rules', comment: 'made at the site' });
      expect(made.status).toBe(201);
      expect(made.json().pk).toBeLessThan(0);
      await expect.poll(async () => (await remote.api.get('/rest/rules/ruleset/?name=site-rules')).json().count, { timeout: 20_000 }).toBe(1);
      await expect.poll(async () => (await local.get('/app/sync')).json().entries.length, { timeout: 20_000 }).toBe(0);
      const mirrored = (await local.get('/rest/rules/ruleset/?name=site-rules')).json().results[0];
      expect(mirrored.pk).toBeGreaterThan(0);
    } finally {
      await new Promise<void>((done) => {
        child.once('exit', () => done());
        child.kill('SIGTERM');
      });
    }
  });
});
