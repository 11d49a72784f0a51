/**
 * Issue 25 §4 from the command line (the bundled CLI in a child process): `outpost remote set-url`
 * changes a remote's address with the origin rule (a new scheme, host or port drops the token
 * unless a new one is given; a path change keeps it), and `outpost remote test` reports each step
 * of the connection test, exit status 0 when it works and 1 when a step failed.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { RemoteTestResult } from '../../shared/app/remoteTest';
import { startReference, type ReferenceServer } from '../helpers/reference';
import { outpost } from '../helpers/syncCli';

let reference: ReferenceServer;
const folders: string[] = [];

beforeAll(async () => {
  reference = await startReference();
}, 60_000);
afterAll(async () => {
  await reference?.stop();
  for (const folder of folders) fs.rmSync(folder, { recursive: true, force: true });
});

/** A data folder with remote "central" at `url`, its token given. */
async function folderWith(url: string, token = reference.token): Promise<string> {
  const data = fs.mkdtempSync(path.join(os.tmpdir(), 'outpost-cli-remotes-'));
  folders.push(data);
  const added = await outpost(['remote', 'add', 'central', url, '--token', token, '--data', data]);
  expect(added.status).toBe(0);
  return data;
}

const tokenFile = (data: string) => path.join(data, 'remotes', 'central.token');
const remotesJson = (data: string) => JSON.parse(fs.readFileSync(path.join(data, 'remotes.json'), 'utf8')) as { remotes: Record<string, unknown> };

describe('outpost remote set-url', () => {
  test('a new path on the same origin keeps the token', async () => {
    const data = await folderWith('http://127.0.0.1:8001');
    const changed = await outpost(['remote', 'set-url', 'central', 'http://127.0.0.1:8001/central', '--data', data]);
    expect(changed.status).toBe(0);
    expect(changed.stdout).toContain('remote "central" now at http://127.0.0.1:8001/central');
    expect(changed.stdout).not.toContain('token was dropped');
    expect(fs.readFileSync(tokenFile(data), 'utf8').trim()).toBe(reference.token);
  });

  test('another port is another server: the token is dropped and the output says how to give one', async () => {
    const data = await folderWith('http://127.0.0.1:8001');
    const changed = await outpost(['remote', 'set-url', 'central', 'http://127.0.0.1:8002', '--data', data]);
    expect(changed.status).toBe(0);
    expect(changed.stdout).toContain('the token was dropped: the origin changes');
    expect(changed.stdout).toContain('outpost remote set-token central --token TOKEN');
    expect(fs.existsSync(tokenFile(data))).toBe(false);
    expect(remotesJson(data).remotes.central).toEqual({ url: 'http://127.0.0.1:8002' });
  });

  test('a token given with the new origin is kept', async () => {
    const data = await folderWith('http://127.0.0.1:8001');
    const other = 'e'.repeat(40);
    const changed = await outpost(['remote', 'set-url', 'central', 'http://127.0.0.1:8002', '--token', other, '--data', data]);
    expect(changed.stdout).not.toContain('token was dropped');
    expect(fs.readFileSync(tokenFile(data), 'utf8').trim()).toBe(other);
  });

  test('the certificate choice stays unless --insecure, --pin or --verify changes it; two of them are refused', async () => {
    const pin = 'AB:'.repeat(31) + 'AB';
    const data = fs.mkdtempSync(path.join(os.tmpdir(), 'outpost-cli-remotes-'));
    folders.push(data);
    expect((await outpost(['remote', 'add', 'lab', 'https://lab.example', '--token', 'x'.repeat(40), '--pin', pin, '--data', data])).status).toBe(0);
    expect((await outpost(['remote', 'set-url', 'lab', 'https://lab.example/api', '--data', data])).status).toBe(0);
    // The pin as remotes.json keeps it: colons removed, lower case.
    expect(remotesJson(data).remotes.lab).toEqual({ url: 'https://lab.example/api', pin: 'ab'.repeat(32) });
    expect((await outpost(['remote', 'set-url', 'lab', 'https://lab.example/api', '--verify', '--data', data])).status).toBe(0);
    expect(remotesJson(data).remotes.lab).toEqual({ url: 'https://lab.example/api' });
    const both = await outpost(['remote', 'set-url', 'lab', 'https://lab.example', '--insecure', '--pin', pin, '--data', data]);
    expect(both.status).not.toBe(0);
    expect(both.stderr).toContain('give one of --insecure, --pin SHA256 or --verify');
  });

  test('an unknown remote or a URL that cannot work is refused, nothing changed', async () => {
    const data = await folderWith('http://127.0.0.1:8001');
    const before = fs.readFileSync(path.join(data, 'remotes.json'), 'utf8');
    const unknown = await outpost(['remote', 'set-url', 'nope', 'http://127.0.0.1:8002', '--data', data]);
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toContain('there is no remote "nope"');
    const plain = await outpost(['remote', 'set-url', 'central', 'http://central.example.com', '--data', data]);
    expect(plain.status).toBe(1);
    expect(plain.stderr).toContain('loopback address only');
    expect(fs.readFileSync(path.join(data, 'remotes.json'), 'utf8')).toBe(before);
    expect(fs.readFileSync(tokenFile(data), 'utf8').trim()).toBe(reference.token);
  });
});

describe('outpost remote test', () => {
  test('a working remote: every step, its time, exit status 0', async () => {
    const data = await folderWith(reference.url);
    const run = await outpost(['remote', 'test', 'central', '--data', data]);
    expect(run.status).toBe(0);
    const port = new URL(reference.url).port;
    expect(run.stdout).toMatch(new RegExp(`ok +Reachable +127\\.0\\.0\\.1:${port} accepts connections \\(\\d+ ms\\)`));
    expect(run.stdout).toMatch(/skip +TLS certificate +plain http:\/\//);
    expect(run.stdout).toMatch(/ok +Token accepted/);
    expect(run.stdout).toMatch(/ok +Central server API/);
    expect(run.stdout).toContain('the connection works');
  });

  test('--json: the steps as the app route answers them', async () => {
    const data = await folderWith(reference.url, 'f'.repeat(40));
    const run = await outpost(['remote', 'test', 'central', '--json', '--data', data]);
    expect(run.status).toBe(1);
    const result = JSON.parse(run.stdout) as RemoteTestResult;
    expect(result).toMatchObject({ remote: 'central', url: reference.url, ok: false });
    expect(result.steps.map((s) => s.outcome)).toEqual(['passed', 'skipped', 'failed', 'not-tried']);
    expect(result.steps[2]!.message).toMatch(/^token refused/);
  });

  test('an unreachable remote: the failed step named, the rest not tried, exit status 1', async () => {
    const data = await folderWith('http://127.0.0.1:9');
    const run = await outpost(['remote', 'test', 'central', '--data', data]);
    expect(run.status).toBe(1);
    expect(run.stdout).toMatch(/FAILED Reachable +127\.0\.0\.1:9: /);
    expect(run.stdout).toMatch(/- +Token accepted +not tried/);
    expect(run.stdout).toContain('the connection does not work');
  });
});
