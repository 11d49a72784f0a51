/**
 * The server process under plain Node: with a fake parent port in this process, and as the
 * bundle (dist/electron/server.cjs) forked by Node, whose IPC stands in for Electron's port.
 */
import { fork, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { bundleElectron } from '../../build/electronBundle.mjs';
import type { ServerMessage } from '../../electron/main/serverMessages';
import { isPermanentFailure, parseServerProcessArgs, runServerProcess, type ParentPortLike } from '../../electron/serverProcess';
import { readSettings } from '../../electron/workspaces/dataFolder';
import { request } from '../helpers/http';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

class FakeParentPort implements ParentPortLike {
  readonly received: ServerMessage[] = [];
  private listener: ((event: { data: unknown }) => void) | undefined;

  on(_event: 'message', listener: (event: { data: unknown }) => void): void {
    this.listener = listener;
  }

  postMessage(message: ServerMessage): void {
    this.received.push(message);
  }

  /** The parent sends `data`. */
  send(data: unknown): void {
    this.listener?.({ data });
  }
}

let dir: string;
beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'outpost-serverprocess-'))));
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('in this process, with a fake parent port', () => {
  test('reports where it listens and its token, answers the API with that token only, and stops on the stop message', async () => {
    const port = new FakeParentPort();
    const exits: number[] = [];
    let exited!: () => void;
    const stopped = new Promise<void>((resolve) => (exited = resolve));
    await runServerProcess({ dataDir: dir, port, exit: (code) => (exits.push(code), exited()) });
    const ready = port.received[0]!;
    if (ready.type !== 'ready') throw new Error(`expected ready, got ${JSON.stringify(ready)}`);
    // The token is the data folder's local token, the one `outpost serve` uses too.
    expect(ready.token).toBe(readSettings(dir).localToken);
    const base = `http://127.0.0.1:${ready.port}`;
    expect((await request(base, 'GET', '/rest/', { token: ready.token })).status).toBe(200);
    expect((await request(base, 'GET', '/rest/', { token: 'f'.repeat(40) })).status).toBe(403);
    expect((await request(base, 'GET', '/app/status', { token: ready.token })).json().workspace).toBe('default');

    port.send({ type: 'hello' });
    port.send('stop');
    expect(exits).toEqual([]);
    port.send({ type: 'stop' });
    await stopped;
    expect(exits).toEqual([0]);
    await expect(request(base, 'GET', '/rest/', { token: ready.token })).rejects.toThrow(/ECONNREFUSED/);
  });

  test('reports a new local token when the admin regenerates it', async () => {
    const port = new FakeParentPort();
    const running = await runServerProcess({ dataDir: dir, port, exit: () => {} });
    const ready = port.received[0]!;
    if (ready.type !== 'ready') throw new Error('not ready');
    const base = `http://127.0.0.1:${ready.port}`;
    const admin = (await request(base, 'GET', '/rest/accounts/sciriususer/current_user/', { token: ready.token })).json();
    const fresh = (await request(base, 'POST', `/rest/accounts/sciriususer/${admin.pk}/token/`, { token: ready.token, json: {} })).json().token;
    expect(port.received.at(-1)).toEqual({ type: 'token', token: fresh });
    await running!.stop();
  });

  test('a data folder it cannot use is a permanent failure, reported, with exit code 1', async () => {
    const notAFolder = path.join(dir, 'file');
    fs.writeFileSync(notAFolder, 'x');
    const port = new FakeParentPort();
    const exits: number[] = [];
    const running = await runServerProcess({ dataDir: notAFolder, port, exit: (code) => exits.push(code), log: () => {} });
    expect(running).toBeUndefined();
    expect(exits).toEqual([1]);
    expect(port.received).toHaveLength(1);
    expect(port.received[0]).toMatchObject({ type: 'failed', permanent: true });
    expect((port.received[0] as { message: string }).message).toMatch(/cannot use .* as the data folder/);
  });

  test("the last used workspace's database lost or empty is a permanent failure naming the file; nothing is made in its place", async () => {
    const data = path.join(dir, 'lost');
    fs.mkdirSync(path.join(data, 'workspaces'), { recursive: true });
    fs.writeFileSync(path.join(data, 'outpost.json'), JSON.stringify({ lastWorkspace: 'site' }));
    const file = path.join(data, 'workspaces', 'site.sqlite3');
    for (const [lost, said] of [
      [() => fs.rmSync(file, { force: true }), `the database of workspace "site", the one used last, is missing: ${file}`],
      [() => fs.writeFileSync(file, ''), `the database of workspace "site", ${file}, is empty (0 bytes): restore it from a backup, or delete the workspace`],
    ] as const) {
      lost();
      const port = new FakeParentPort();
      const exits: number[] = [];
      expect(await runServerProcess({ dataDir: data, port, exit: (code) => exits.push(code), log: () => {} })).toBeUndefined();
      expect(exits).toEqual([1]);
      expect(port.received).toEqual([{ type: 'failed', permanent: true, message: expect.stringContaining(said) }]);
      expect(fs.readdirSync(path.join(data, 'workspaces'))).toEqual(fs.existsSync(file) ? ['site.sqlite3'] : []);
    }
    expect(fs.statSync(file).size).toBe(0);
  });

  test('a native module built for another runtime is a permanent failure', async () => {
    const port = new FakeParentPort();
    const bogus = path.join(dir, 'better_sqlite3.node');
    fs.writeFileSync(bogus, 'not a shared library');
    await runServerProcess({ dataDir: path.join(dir, 'data'), nativeBinding: bogus, port, exit: () => {}, log: () => {} });
    expect(port.received[0]).toMatchObject({ type: 'failed', permanent: true });
    expect(isPermanentFailure(Object.assign(new Error('was compiled against a different Node.js version using NODE_MODULE_VERSION 127'), {}))).toBe(true);
    expect(isPermanentFailure(new Error('EMFILE: too many open files'))).toBe(false);
  });

  test('its command line names the data folder, the renderer build and the native module', () => {
    fs.mkdirSync(path.join(dir, 'renderer'));
    fs.writeFileSync(path.join(dir, 'renderer', 'index.html'), '');
    expect(parseServerProcessArgs(['--data', '/d', '--renderer', path.join(dir, 'renderer'), '--native-binding', '/n.node'])).toEqual({
      dataDir: '/d',
      rendererDir: path.join(dir, 'renderer'),
      nativeBinding: '/n.node',
    });
    // A renderer folder without a build is left out: the API is still served.
    expect(parseServerProcessArgs(['--data', '/d', '--renderer', path.join(dir, 'missing')])).toEqual({ dataDir: '/d' });
    expect(() => parseServerProcessArgs([])).toThrow(/--data is required/);
    expect(() => parseServerProcessArgs(['--data', '/d', '--port', '1'])).toThrow();
  });
});

describe('the bundle, forked by Node', () => {
  beforeAll(() => bundleElectron({ root: ROOT, quiet: true }));

  test('runs the same server, reports ready over IPC, and exits 0 on stop', async () => {
    const child = fork(path.join(ROOT, 'dist/electron/server.cjs'), ['--data', dir, '--renderer', path.join(ROOT, 'dist/renderer')], { stdio: 'pipe' });
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const ready = await new Promise<{ port: number; token: string }>((resolve, reject) => {
      child.on('message', (message: { type: string; port: number; token: string }) => (message.type === 'ready' ? resolve(message) : reject(new Error(JSON.stringify(message)))));
      child.on('exit', (code) => reject(new Error(`exited with ${code}`)));
    });
    const base = `http://127.0.0.1:${ready.port}`;
    expect((await request(base, 'GET', '/rest/', { token: ready.token })).status).toBe(200);
    child.send({ type: 'stop' });
    expect(await exited).toBe(0);
  });

  test("starts when imported the way Electron's utility process loads it (ESM loader, process.parentPort)", async () => {
    // Stands in for Electron's utility-process bootstrap: a parentPort on process, the entry
    // imported as a URL, its arguments after it in argv. Messages cross stdin/stdout as JSON lines.
    const bootstrap = `
      import { EventEmitter } from 'node:events';
      import { createInterface } from 'node:readline';
      import { pathToFileURL } from 'node:url';
      const port = new EventEmitter();
      port.postMessage = (message) => process.stdout.write(JSON.stringify(message) + '\\n');
      createInterface({ input: process.stdin }).on('line', (line) => port.emit('message', { data: JSON.parse(line), ports: [] }));
      Object.defineProperty(process, 'parentPort', { value: port });
      await import(pathToFileURL(process.argv[1]).href);
    `;
    const child = spawn(process.execPath, ['--input-type=module', '-e', bootstrap, path.join(ROOT, 'dist/electron/server.cjs'), '--data', dir], {
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    const ready = await new Promise<{ type: string; port: number; token: string }>((resolve, reject) => {
      let out = '';
      child.stdout!.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes('\n')) resolve(JSON.parse(out.slice(0, out.indexOf('\n'))));
      });
      child.on('exit', (code) => reject(new Error(`exited with ${code}`)));
      setTimeout(() => (child.kill(), reject(new Error('no message from the server process within 15 s'))), 15_000).unref();
    });
    expect(ready.type).toBe('ready');
    expect((await request(`http://127.0.0.1:${ready.port}`, 'GET', '/rest/', { token: ready.token })).status).toBe(200);
    child.stdin!.write(JSON.stringify({ type: 'stop' }) + '\n');
    expect(await exited).toBe(0);
  });

  test('without a parent to report to, it says what it is and exits', async () => {
    const child = spawn(process.execPath, [path.join(ROOT, 'dist/electron/server.cjs'), '--data', dir], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code).toBe(2);
    expect(stderr).toMatch(/Outpost app's server process/);
  });
});
