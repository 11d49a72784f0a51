/**
 * The sync commands of the `outpost` CLI (issue 4, app.md §5), run as a user runs them — the
 * bundled CLI in a child process — against the real reference DRF server: `remote add`,
 * `workspace create --remote`, `sync` and its exit codes (0 done, 2 waiting for the user, 1
 * error), `conflicts`, `resolve`, `outbox`, `outbox retry|discard`, `remote set-token`.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Client } from '../helpers/http';
import { startReference, type ReferenceServer } from '../helpers/reference';
import { Relay } from '../helpers/relay';
import { writeOffline } from '../helpers/sync';
import { freePort, outpost, startOutpost } from '../helpers/syncCli';

const T = '/rest/appliances/vendor_probe_template/';
const P = '/rest/appliances/vendor_probe/';
const PIN = 'AB:'.repeat(31) + 'AB';

let remote: ReferenceServer;
const folders: string[] = [];
const relays: Relay[] = [];

beforeAll(async () => {
  remote = await startReference();
}, 60_000);

afterAll(async () => {
  for (const relay of relays) await relay.close();
  await remote?.stop();
  for (const dir of folders) fs.rmSync(dir, { recursive: true, force: true });
});

function dataDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'outpost-sync-cli-'));
  folders.push(dir);
  return dir;
}

async function made(api: Client, endpoint: string, body: unknown): Promise<{ pk: number; name: string }> {
  const reply = await api.post(endpoint, body);
  if (reply.status !== 201) throw new Error(`POST ${endpoint}: ${reply.status} ${reply.text}`);
  return reply.json();
}

/** A data folder with remote "central" added and workspace "site" bound to it, both by the CLI. */
async function boundFolder(url = remote.url, token = remote.token): Promise<string> {
  const data = dataDir();
  const added = await outpost(['remote', 'add', 'central', url, '--token', token, '--data', data]);
  expect(added.status, added.stderr).toBe(0);
  const created = await outpost(['workspace', 'create', 'site', '--remote', 'central', '--data', data]);
  expect(created.status, created.stderr).toBe(0);
  return data;
}

/** Local writes (the CLI has none): the workspace opened in this process for a moment. */
const offline = (data: string, write: (api: Client) => Promise<void>) => writeOffline(remote, data, write);

const sync = (data: string, ...extra: string[]) => outpost(['sync', '--workspace', 'site', '--data', data, ...extra]);
const json = (stdout: string) => JSON.parse(stdout);

describe('outpost remote add', () => {
  test('adds the remote: its URL in remotes.json, its token only in a 0600 file, never printed', async () => {
    const data = dataDir();
    const added = await outpost(['remote', 'add', 'central', `${remote.url}/`, '--token', remote.token, '--data', data]);
    expect(added.status, added.stderr).toBe(0);
    expect(added.stdout).toContain(`remote "central" added (${remote.url})`);
    expect(added.stdout).toMatch(/warning: plain http:\/\/ \(loopback only\)/);
    expect(added.stdout).not.toContain(remote.token);
    const tokenFile = path.join(data, 'remotes', 'central.token');
    expect(fs.statSync(tokenFile).mode & 0o777).toBe(0o600);
    expect(fs.readFileSync(tokenFile, 'utf8').trim()).toBe(remote.token);
    const config = JSON.parse(fs.readFileSync(path.join(data, 'remotes.json'), 'utf8'));
    expect(config).toEqual({ remotes: { central: { url: remote.url } } });

    const listed = await outpost(['remote', 'list', '--json', '--data', data]);
    expect(json(listed.stdout)).toEqual([{ name: 'central', url: remote.url, hasToken: true }]);
    expect(listed.stdout).not.toContain(remote.token);

    const again = await outpost(['remote', 'add', 'central', remote.url, '--token', 'other', '--data', data]);
    expect(again.status).toBe(1);
    expect(again.stderr).toMatch(/a remote named "central" exists already/);

    const file = path.join(data, 'token.txt');
    fs.writeFileSync(file, 'from-a-file\n');
    const fromFile = await outpost(['remote', 'add', 'lab', 'https://lab.example.com', '--token-file', file, '--insecure', '--data', data]);
    expect(fromFile.status, fromFile.stderr).toBe(0);
    expect(fromFile.stdout).toMatch(/warning: the certificate of this central server will not be verified/);
    expect(fs.readFileSync(path.join(data, 'remotes', 'lab.token'), 'utf8').trim()).toBe('from-a-file');
    const pinned = await outpost(['remote', 'add', 'pinned', 'https://central.example.com', '--token', 't', '--pin', PIN, '--data', data]);
    expect(pinned.status, pinned.stderr).toBe(0);
    expect(JSON.parse(fs.readFileSync(path.join(data, 'remotes.json'), 'utf8')).remotes.pinned).toEqual({ url: 'https://central.example.com', pin: 'ab'.repeat(32) });
  });

  // Independent folders: run side by side.
  test.concurrent.each([
    ['a URL that is not one', ['central', 'central.example.com', '--token', 't'], /"central\.example\.com" is not a URL/],
    ['plain http:// to another machine', ['central', 'http://central.example.com', '--token', 't'], /plain http:\/\/ central server is accepted on a loopback address only; use https:\/\//],
    ['both --insecure and --pin', ['central', 'https://central.example.com', '--token', 't', '--insecure', '--pin', PIN], /either turn certificate verification off or pin the certificate, not both/],
    ['a pin that is no SHA-256', ['central', 'https://central.example.com', '--token', 't', '--pin', 'abc123'], /the pinned certificate is given by its SHA-256 fingerprint: 64 hex digits/],
    ['no token', ['central', 'https://central.example.com'], /remote add needs --token TOKEN \(or --token-file FILE\)/],
    ['a token with a space', ['central', 'https://central.example.com', '--token', 'a b'], /the token must be 1 to 128 printable characters without spaces/],
    ['a bad name', ['no/slash', 'https://central.example.com', '--token', 't'], /"no\/slash" is not a valid remote name/],
    ['a missing URL', ['central', '--token', 't'], /expected NAME URL, got 1 argument; see "outpost remote add --help"/],
  ])('%s: a clear message, exit 1, nothing written', async (_what, args, message) => {
    const data = dataDir();
    const result = await outpost(['remote', 'add', ...args, '--data', data]);
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(message);
    expect(result.stdout).toBe('');
    expect(fs.existsSync(path.join(data, 'remotes.json'))).toBe(false);
    expect(fs.existsSync(path.join(data, 'remotes'))).toBe(false);
    const workspaces = path.join(data, 'workspaces');
    expect(fs.existsSync(workspaces) ? fs.readdirSync(workspaces) : [], 'no workspace made on the way').toEqual([]);
  });
});

describe('outpost workspace create --remote', () => {
  test('an unknown remote: exit 1 and no workspace; a known one: bound, and listed so', async () => {
    const data = dataDir();
    const unknown = await outpost(['workspace', 'create', 'site', '--remote', 'nowhere', '--data', data]);
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toMatch(/there is no remote "nowhere"; add it first/);
    expect(fs.existsSync(path.join(data, 'workspaces', 'site.sqlite3'))).toBe(false);

    expect((await outpost(['remote', 'add', 'central', remote.url, '--token', remote.token, '--data', data])).status).toBe(0);
    const created = await outpost(['workspace', 'create', 'site', '--remote', 'central', '--data', data]);
    expect(created.status, created.stderr).toBe(0);
    expect(created.stdout).toMatch(/workspace "site" created, bound to remote "central"/);
    const listed = json((await outpost(['workspace', 'list', '--json', '--data', data])).stdout) as { name: string; remote: string | null }[];
    expect(listed.find((w) => w.name === 'site')?.remote).toBe('central');
    expect(listed.find((w) => w.name === 'default')?.remote).toBeNull();
  });
});

describe('outpost sync', () => {
  test('exit 0 when everything went through; --json is the report', async () => {
    await made(remote.api, T, { name: 'cli-ok-base', ntp_server: 'ntp.cli' });
    const data = await boundFolder();
    const first = await sync(data, '--json');
    expect(first.status, first.stderr).toBe(0);
    expect(first.stderr).toBe('');
    expect(json(first.stdout)).toMatchObject({ workspace: 'site', remote: 'central', outcome: 'done', pushed: 0, conflicts: 0, parked: 0, waiting: 0 });
    expect(json(first.stdout).pulled).toBeGreaterThan(0);

    await offline(data, async (api) => {
      const base = (await api.get(`${T}?name=cli-ok-base`)).json().results[0];
      await made(api, T, { name: 'cli-ok-child', parent_tmpl: base.pk, comment: 'from the CLI test' });
    });
    const second = await sync(data);
    expect(second.status, second.stderr).toBe(0);
    expect(second.stdout).toMatch(/^pushed 1 change, pulled \d+ changes?$/m);
    expect((await remote.api.get(`${T}?name=cli-ok-child`)).json().count).toBe(1);
    const outbox = await outpost(['outbox', '--workspace', 'site', '--data', data]);
    expect(outbox.stdout.trim()).toBe('the outbox is empty: every local change is on the central server');
  });

  test('exit 1 when the central server cannot be reached; the outbox kept for the next sync', async () => {
    const port = await freePort();
    const data = await boundFolder(`http://127.0.0.1:${port}`);
    await offline(data, async (api) => void (await made(api, T, { name: 'cli-unreachable' })));
    const text = await sync(data);
    expect(text.status).toBe(1);
    expect(text.stderr).toMatch(/^outpost: sync of "site" stopped: the central server 127\.0\.0\.1:\d+ cannot be reached: the connection was refused \(is the server running\?\) \[ECONNREFUSED\]$/m);
    expect(text.stdout).toMatch(/^pushed 0 changes, pulled 0 changes$/m);
    const report = await sync(data, '--json');
    expect(report.status).toBe(1);
    expect(json(report.stdout)).toMatchObject({ outcome: 'error', error: { kind: 'network' } });
    const outbox = json((await outpost(['outbox', '--json', '--workspace', 'site', '--data', data])).stdout) as { op: string; label: string }[];
    expect(outbox.map((e) => [e.op, e.label])).toEqual([['create', 'cli-unreachable']]);
  });

  test('exit 1 when the token is refused; remote set-token, then exit 0', async () => {
    const data = await boundFolder(remote.url, 'wrong-token');
    await offline(data, async (api) => void (await made(api, T, { name: 'cli-token' })));
    const refused = await sync(data);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toMatch(/the central server refused the token \(403: Invalid token\.\)/);
    const setToken = await outpost(['remote', 'set-token', 'central', '--token', remote.token, '--data', data]);
    expect(setToken.status, setToken.stderr).toBe(0);
    expect(setToken.stdout).not.toContain(remote.token);
    const unknown = await outpost(['remote', 'set-token', 'elsewhere', '--token', remote.token, '--data', data]);
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toMatch(/there is no remote "elsewhere"/);
    const again = await sync(data, '--json');
    expect(again.status, again.stderr).toBe(0);
    expect(json(again.stdout)).toMatchObject({ outcome: 'done', pushed: 1 });
    expect((await remote.api.get(`${T}?name=cli-token`)).json().count).toBe(1);
  });

  test('a standalone workspace, a workspace whose remote is gone, a bad --page-size: exit 1 with the reason', async () => {
    const data = await boundFolder();
    expect((await outpost(['workspace', 'create', 'alone', '--data', data])).status).toBe(0);
    const alone = await outpost(['sync', '--workspace', 'alone', '--data', data]);
    expect(alone.status).toBe(1);
    expect(alone.stderr).toMatch(/workspace "alone" is standalone: it has no central server/);
    const badSize = await sync(data, '--page-size', 'many');
    expect(badSize.status).toBe(1);
    expect(badSize.stderr).toMatch(/--page-size must be a positive number, not "many"/);
    expect((await outpost(['remote', 'remove', 'central', '--data', data])).status).toBe(0);
    const unlinked = await sync(data);
    expect(unlinked.status).toBe(1);
    expect(unlinked.stderr).toMatch(/the remote "central" is not configured in this data folder/);
  });
});

describe('refused changes: outpost outbox, outbox retry, outbox discard', () => {
  test('exit 2 while a refused change waits; retry after the cause is gone, discard what is not wanted', async () => {
    const data = await boundFolder();
    expect((await sync(data)).status).toBe(0);
    await offline(data, async (api) => {
      await made(api, T, { name: 'cli-taken', comment: 'first try' });
      await made(api, T, { name: 'cli-unwanted' });
    });
    const colleague = await made(remote.api, T, { name: 'cli-taken' });
    await made(remote.api, T, { name: 'cli-unwanted' });

    const refused = await sync(data);
    expect(refused.status).toBe(2);
    expect(refused.stdout).toMatch(/^2 changes were refused by the central server: outpost outbox \(then retry or discard\)$/m);
    const listed = await outpost(['outbox', '--workspace', 'site', '--data', data]);
    expect(listed.status).toBe(0);
    const lines = listed.stdout.trim().split('\n');
    expect(lines).toEqual([
      expect.stringMatching(/^\d+\tparked\tvendor probe template "cli-taken" \(pk -\d+\), create, entry \d+$/),
      '\tname: vendor probe template with this name already exists.',
      expect.stringMatching(/^\d+\tparked\tvendor probe template "cli-unwanted" \(pk -\d+\), create, entry \d+$/),
      '\tname: vendor probe template with this name already exists.',
    ]);
    const entries = json((await outpost(['outbox', '--json', '--workspace', 'site', '--data', data])).stdout) as { seq: number; state: string; label: string; message: string; comment: string | null }[];
    expect(entries.map((e) => [e.label, e.state, e.message, e.comment])).toEqual([
      ['cli-taken', 'parked', 'name: vendor probe template with this name already exists.', 'first try'],
      ['cli-unwanted', 'parked', 'name: vendor probe template with this name already exists.', null],
    ]);
    const [taken, unwanted] = entries as [(typeof entries)[0], (typeof entries)[0]];

    for (const [args, message] of [
      [['retry', '999'], /there is no outbox entry 999/],
      [['retry', 'one'], /ENTRY must be an outbox entry number, not "one"/],
      [['discard'], /expected ENTRY, got none; see "outpost outbox discard --help"/],
    ] as const) {
      const wrong = await outpost(['outbox', ...args, '--workspace', 'site', '--data', data]);
      expect(wrong.status, args.join(' ')).toBe(1);
      expect(wrong.stderr).toMatch(message);
    }

    // The colleague renames theirs: the first create is retried and goes through.
    expect((await remote.api.patch(`${T}${colleague.pk}/`, { name: 'cli-theirs' })).status).toBe(200);
    const retried = await outpost(['outbox', 'retry', String(taken.seq), '--workspace', 'site', '--data', data]);
    expect(retried.status, retried.stderr).toBe(0);
    expect(retried.stdout).toMatch(new RegExp(`^entry ${taken.seq} will be sent again at the next sync$`, 'm'));
    const notParked = await outpost(['outbox', 'retry', String(taken.seq), '--workspace', 'site', '--data', data]);
    expect(notParked.status).toBe(1);
    expect(notParked.stderr).toMatch(new RegExp(`outbox entry ${taken.seq} is not a refused change`));
    const discarded = await outpost(['outbox', 'discard', String(unwanted.seq), '--workspace', 'site', '--data', data]);
    expect(discarded.status, discarded.stderr).toBe(0);

    const done = await sync(data, '--json');
    expect(done.status, done.stdout + done.stderr).toBe(0);
    expect(json(done.stdout)).toMatchObject({ outcome: 'done', pushed: 1, parked: 0 });
    expect((await remote.api.get(`${T}?name=cli-taken`)).json().results.map((t: { pk: number }) => t.pk)).not.toContain(colleague.pk);
    expect((await remote.api.get(`${T}?name=cli-unwanted`)).json().count).toBe(1);
    expect(json((await outpost(['outbox', '--json', '--workspace', 'site', '--data', data])).stdout)).toEqual([]);
  });
});

describe('conflicts: outpost conflicts, outpost resolve', () => {
  test('exit 2 while conflicts wait; --json shows base, mine and theirs; resolve field by field; then exit 0', async () => {
    const probe = await made(remote.api, P, { name: 'cli-conflict', address: '10.11.0.1', location: 'hall', descr: 'as made' });
    const other = await made(remote.api, P, { name: 'cli-conflict-2', address: '10.11.0.2', location: 'hall' });
    const data = await boundFolder();
    expect((await sync(data)).status).toBe(0);
    await offline(data, async (api) => {
      expect((await api.patch(`${P}${probe.pk}/`, { location: 'rack A', descr: 'mine', comment: 'moved here' })).status).toBe(200);
      expect((await api.patch(`${P}${other.pk}/`, { location: 'rack C' })).status).toBe(200);
    });
    expect((await remote.api.patch(`${P}${probe.pk}/`, { location: 'rack B', descr: 'theirs' })).status).toBe(200);
    expect((await remote.api.patch(`${P}${other.pk}/`, { location: 'rack D' })).status).toBe(200);

    const waiting = await sync(data);
    expect(waiting.status).toBe(2);
    expect(waiting.stdout).toMatch(/^2 conflicts wait: outpost conflicts, then outpost resolve PK FIELD --mine\|--theirs$/m);
    const listed = await outpost(['conflicts', '--json', '--workspace', 'site', '--data', data]);
    expect(listed.status).toBe(0);
    const conflicts = json(listed.stdout) as { pk: number; op: string; state: string; comment: string | null; conflicts: unknown[] }[];
    expect(conflicts.map((c) => ({ pk: c.pk, op: c.op, state: c.state, comment: c.comment, conflicts: c.conflicts }))).toEqual([
      {
        pk: probe.pk,
        op: 'update',
        state: 'conflict',
        comment: 'moved here',
        conflicts: [
          { field: 'location', base: 'hall', mine: 'rack A', theirs: 'rack B' },
          { field: 'descr', base: 'as made', mine: 'mine', theirs: 'theirs' },
        ],
      },
      { pk: other.pk, op: 'update', state: 'conflict', comment: null, conflicts: [{ field: 'location', base: 'hall', mine: 'rack C', theirs: 'rack D' }] },
    ]);
    const text = await outpost(['conflicts', '--workspace', 'site', '--data', data]);
    expect(text.stdout).toContain(`vendor probe "cli-conflict" (pk ${probe.pk}), update, entry`);
    expect(text.stdout).toContain('  location: base "hall", mine "rack A", theirs "rack B"');

    const resolve = (...args: string[]) => outpost(['resolve', ...args, '--workspace', 'site', '--data', data]);
    for (const [args, message] of [
      [[String(probe.pk), 'location', '--mine', '--theirs'], /resolve takes exactly one of --mine .* and --theirs/],
      [[String(probe.pk), 'location'], /resolve takes exactly one of --mine/],
      [['edge', 'location', '--mine'], /PK must be an object's pk \(a number\), not "edge"/],
      [['424242', 'location', '--mine'], /no conflict on an object with pk 424242 \(outpost conflicts lists them\)/],
      [[String(probe.pk), 'address', '--mine'], new RegExp(`field "address" is not in conflict on pk ${probe.pk}; conflicting: location, descr`)],
    ] as const) {
      const wrong = await resolve(...args);
      expect(wrong.status, args.join(' ')).toBe(1);
      expect(wrong.stderr).toMatch(message);
    }

    const mine = await resolve(String(probe.pk), 'location', '--mine');
    expect(mine.status, mine.stderr).toBe(0);
    expect(mine.stdout).toBe(`location of vendor probe ${probe.pk}: the local value will be pushed\nstill in conflict on this object: descr\n`);
    expect((await sync(data)).status, 'one field of the first and the second still wait').toBe(2);
    const theirs = await resolve(String(probe.pk), 'descr', '--theirs');
    expect(theirs.status, theirs.stderr).toBe(0);
    expect(theirs.stdout).toMatch(/run outpost sync to push the result/);
    expect((await resolve(String(other.pk), 'location', '--theirs')).status).toBe(0);

    const done = await sync(data, '--json');
    expect(done.status, done.stdout).toBe(0);
    expect(json(done.stdout)).toMatchObject({ outcome: 'done', conflicts: 0 });
    const remoteProbe = (await remote.api.get(`${P}${probe.pk}/`)).json();
    expect([remoteProbe.location, remoteProbe.descr]).toEqual(['rack A', 'theirs']);
    expect((await remote.api.get(`${P}${other.pk}/`)).json().location).toBe('rack D');
    const history = (await remote.api.get('/rest/rules/history/?ordering=-pk&page_size=20')).json().results as { comment: string | null }[];
    expect(history.map((h) => h.comment)).toContain('moved here');
    expect(json((await outpost(['conflicts', '--json', '--workspace', 'site', '--data', data])).stdout)).toEqual([]);
    await offline(data, async (api) => {
      const local = (await api.get(`${P}${probe.pk}/`)).json();
      expect([local.location, local.descr]).toEqual(['rack A', 'theirs']);
      expect((await api.get(`${P}${other.pk}/`)).json().location).toBe('rack D');
    });
  });
});

describe('one sync at a time across processes (the sync lease)', () => {
  /** A relay in front of the remote whose next request's answer is held `holdMs`: a sync that takes its time. */
  async function slowRemote(): Promise<{ relay: Relay; holdNext(holdMs: number): () => Promise<void> }> {
    const relay = await Relay.start(remote.url);
    relays.push(relay);
    return {
      relay,
      holdNext: (holdMs) => {
        const next = relay.requests.length;
        relay.decide = (_request, index) => (index === next ? { holdMs } : 'forward');
        // Resolves once that request has arrived: its sender holds the lease from then on.
        return async () => {
          while (relay.requests.length <= next) await new Promise((resolve) => setTimeout(resolve, 20));
        };
      },
    };
  }

  test('outpost sync run at once after outpost serve is stopped in the middle of its sync is not refused', async () => {
    const { relay, holdNext } = await slowRemote();
    const data = await boundFolder(relay.url);
    const serveSyncing = holdNext(1_500);
    const served = startOutpost(['serve', '--workspace', 'site', '--data', data, '--port', '0']);
    await served.waitFor(/^listening on /m);
    await serveSyncing();
    served.kill('SIGTERM');
    const synced = await sync(data);
    expect(synced.stderr).not.toContain('is syncing');
    expect(synced.status, synced.stderr).toBe(0);
    const stopped = await served.result;
    expect(stopped.status, stopped.stderr).toBe(0);
  });

  test('a sync running in another process is waited for, saying whose, then refused after the wait', async () => {
    const { relay, holdNext } = await slowRemote();
    const data = await boundFolder(relay.url);
    const firstSyncing = holdNext(4_000);
    const first = startOutpost(['sync', '--workspace', 'site', '--data', data]);
    await firstSyncing();
    const started = Date.now();
    const second = await outpost(['sync', '--workspace', 'site', '--data', data], { OUTPOST_SYNC_WAIT_MS: '1000' });
    const waited = Date.now() - started;
    expect(second.status, second.stderr).toBe(1);
    expect(second.stderr).toContain(`outpost: waiting for the sync of process ${first.pid} (sync) to end (up to 1 s)…\n`);
    expect(second.stderr).toContain(`another Outpost process (pid ${first.pid}) is syncing this workspace; try again when it is done`);
    expect(waited).toBeGreaterThanOrEqual(1_000);
    const done = await first.result;
    expect(done.status, done.stderr).toBe(0);
  });
});
