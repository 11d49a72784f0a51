/** `outpost serve` and the import commands, run as a user runs them: the bundled CLI in a child process. */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, test } from 'vitest';
import { request } from '../helpers/http';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const CLI = path.join(ROOT, 'dist/node/outpost.cjs');
const TOKEN = '0123456789abcdef0123456789abcdef01234567';

const folders: string[] = [];
function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'outpost-cli-'));
  folders.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of folders.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function run(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', timeout: 30_000 });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

interface Served {
  readonly url: string;
  readonly output: () => string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

function serve(args: string[]): Promise<Served> {
  const child = spawn(process.execPath, [CLI, 'serve', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr.on('data', (c: Buffer) => (output += c.toString()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no "listening on" line:\n${output}`)), 20_000);
    child.stdout.on('data', () => {
      const match = /^listening on (\S+)$/m.exec(output);
      if (!match) return;
      clearTimeout(timer);
      resolve({
        url: match[1]!,
        output: () => output,
        stop: (signal = 'SIGTERM') =>
          new Promise((done) => {
            child.once('exit', (code) => done(code));
            child.kill(signal);
          }),
      });
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`serve exited with ${code}:\n${output}`));
    });
  });
}

describe('outpost serve', () => {
  test('first start in an empty folder: admin token, vendor_device 1, a free port with --port 0; SIGTERM stops cleanly', async () => {
    const data = tempDir();
    const served = await serve(['--data', data, '--port', '0', '--admin-token', TOKEN]);
    expect(served.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(served.output()).toContain(`token: ${TOKEN}`);
    const device = await request(served.url, 'GET', '/rest/appliances/vendor_device/1/', { token: TOKEN });
    expect(device.json()).toMatchObject({ pk: 1, kind: 'central', probe: null });
    expect(await served.stop('SIGTERM')).toBe(0);
    expect(fs.statSync(data).mode & 0o777).toBe(0o700);
    const file = path.join(data, 'workspaces', 'default.sqlite3');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    const db = new Database(file, { readonly: true });
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    db.close();
  });

  test('without --admin-token a random 40-hex token is made, and kept on the next start', async () => {
    const data = tempDir();
    const first = await serve(['--data', data, '--port', '0']);
    const token = /^token: ([0-9a-f]{40})$/m.exec(first.output())?.[1];
    expect(token).toBeDefined();
    await first.stop('SIGINT');
    const second = await serve(['--data', data, '--port', '0']);
    expect(second.output()).toContain(`token: ${token}`);
    expect((await request(second.url, 'GET', '/rest/', { token: token! })).status).toBe(200);
    await second.stop();
  });

  test('--tls self-signed serves HTTPS', async () => {
    const served = await serve(['--data', tempDir(), '--port', '0', '--tls', 'self-signed', '--admin-token', TOKEN]);
    expect(served.url.startsWith('https://')).toBe(true);
    expect((await request(served.url, 'GET', '/rest/', { token: TOKEN })).status).toBe(200);
    await served.stop();
  });

  test.each([
    [['--port', 'eighty'], /--port must be a number/],
    [['--tls', 'yes'], /--tls takes only "self-signed"/],
    [['--cert', '/nonexistent.pem'], /--cert and --key go together/],
    [['--admin-token', 'has space'], /--admin-token must be/],
    [['--bogus'], /unknown option "--bogus"; see "outpost serve --help"/],
  ])('bad arguments %j: a clear message and exit 1', (args, pattern) => {
    const result = run(['serve', '--data', tempDir(), ...args]);
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(pattern);
  });

  test('an unusable data folder: a clear message and exit 1', () => {
    const file = path.join(tempDir(), 'not-a-folder');
    fs.writeFileSync(file, 'x');
    const result = run(['serve', '--data', file, '--port', '0']);
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/cannot use .* as the data folder/);
  });

  test('a database from a newer Outpost is refused and left untouched', () => {
    const data = tempDir();
    const file = path.join(data, 'workspaces', 'default.sqlite3');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const db = new Database(file);
    db.pragma('user_version = 999');
    db.close();
    const result = run(['serve', '--data', data, '--port', '0']);
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/newer Outpost/);
    const after = new Database(file, { readonly: true });
    expect(after.pragma('user_version', { simple: true })).toBe(999);
    after.close();
  });

  test('a port already in use: a clear message and exit 1', async () => {
    const data = tempDir();
    const served = await serve(['--data', data, '--port', '0']);
    const port = new URL(served.url).port;
    const result = run(['serve', '--data', tempDir(), '--port', port]);
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/already in use/);
    await served.stop();
  });

  test('unknown command: exit 1 with a hint', () => {
    const result = run(['frobnicate']);
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/unknown command "frobnicate"/);
  });
});

describe('outpost import-hosts', () => {
  test('imports host identities, completed to the full shape, with one history entry and its comment', () => {
    const data = tempDir();
    const file = path.join(data, 'hosts.json');
    const seen = { first_seen: '2026-11-01T08:00:00.000000+00:00', last_seen: '2026-11-02T08:00:00.000000+00:00' };
    fs.writeFileSync(file, JSON.stringify([{ ip: '10.7.5.101', hits: 3, host_id: { ...seen, hostname: [{ host: 'mail.example.com', ...seen }] } }]));
    const result = run(['import-hosts', file, '--data', data, '--comment', 'site survey']);
    expect(result.stderr).toBe('');
    expect(result.stdout).toMatch(/imported 1 host identities/);
    const db = new Database(path.join(data, 'workspaces', 'default.sqlite3'), { readonly: true });
    const row = db.prepare('SELECT ip, hits, data FROM host_id').get() as { ip: string; hits: number; data: string };
    expect(row).toMatchObject({ ip: '10.7.5.101', hits: 3 });
    expect(JSON.parse(row.data)).toMatchObject({ hostname_count: 1, services_count: 0, in_home_net: true });
    expect(db.prepare("SELECT comment FROM user_action WHERE action_type = 'import_host_id'").pluck().get()).toBe('site survey');
    db.close();
  });

  test('an entry with a bad address: exit 1 naming the entry, nothing imported', () => {
    const data = tempDir();
    const file = path.join(data, 'hosts.json');
    fs.writeFileSync(file, JSON.stringify([{ ip: '10.0.0.300', host_id: {} }]));
    const result = run(['import-hosts', file, '--data', data]);
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/entry 0: .*Enter a valid IPv4 or IPv6 address/);
  });
});

describe('outpost import-threats', () => {
  test('imports a JSON array into the workspace with one history entry; an invalid file imports nothing', () => {
    const data = tempDir();
    const good = path.join(data, 'threats.json');
    fs.writeFileSync(good, JSON.stringify([{ pk: 529, name: '000Stealer', family: 4 }, { pk: 7, name: 'Seven' }]));
    const ok = run(['import-threats', good, '--data', data]);
    expect(ok.stderr).toBe('');
    expect(ok.stdout).toMatch(/imported 2 threats/);
    const bad = path.join(data, 'bad.json');
    fs.writeFileSync(bad, JSON.stringify([{ pk: 8, name: 'Eight' }, { pk: 'x' }]));
    const refused = run(['import-threats', bad, '--data', data]);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toMatch(/nothing imported/);
    expect(refused.stderr).toMatch(/entry 1:/);
    const db = new Database(path.join(data, 'workspaces', 'default.sqlite3'), { readonly: true });
    expect(db.prepare('SELECT pk FROM threat ORDER BY pk').pluck().all()).toEqual([7, 529]);
    expect(db.prepare("SELECT count(*) FROM user_action WHERE action_type = 'import_threat'").pluck().get()).toBe(1);
    db.close();
  });

  test('a file that is not JSON: exit 1, nothing written', () => {
    const data = tempDir();
    const file = path.join(data, 'x.json');
    fs.writeFileSync(file, '[{"pk": 1,');
    const result = run(['import-threats', file, '--data', data]);
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/is not valid JSON/);
  });
});
