/**
 * Issue 8: a hostile central server cannot hurt the workspace. Pull answers that are huge, not
 * JSON, of the wrong shape, dribbled one byte at a time or redirected elsewhere are refused with
 * a clear sync error of kind `invalid` or `timeout`; the workspace keeps what it had, and a
 * redirect's target never sees a request (nor the token).
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createAppHandler } from '../../electron/app/appHandler';
import { listen, type RunningServer } from '../../electron/server/http/nodeAdapter';
import { WorkspaceHost } from '../../electron/workspaces/host';
import { Client } from '../helpers/http';
import { ADMIN_TOKEN } from '../helpers/server';

type Mode = 'huge' | 'not-json' | 'wrong-shape' | 'slowloris' | 'redirect';
let mode: Mode = 'huge';
const TOKEN = 'hostile-remote-token'.padEnd(40, 'z');

const servers: http.Server[] = [];
async function serve(handler: http.RequestListener): Promise<string> {
  const server = http.createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Where the redirect points: it must never be asked anything. */
const elsewhereSeen: string[] = [];
let elsewhere = '';

function hostile(req: http.IncomingMessage, res: http.ServerResponse): void {
  switch (mode) {
    case 'huge': {
      // An endless page: Outpost must stop reading it, not buffer it.
      res.writeHead(200, { 'Content-Type': 'application/json' });
      const chunk = Buffer.alloc(256 * 1024, 0x20);
      res.write('{"count": 1, "results": [');
      const pump = () => {
        while (res.write(chunk)) if (res.destroyed) return;
        res.once('drain', pump);
      };
      res.on('close', () => res.removeAllListeners('drain'));
      pump();
      return;
    }
    case 'not-json':
      res.writeHead(200, { 'Content-Type': 'text/html' }).end('<html><body>Welcome to the captive portal</body></html>');
      return;
    case 'wrong-shape':
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ count: 2, next: null, previous: null, results: [{ name: 'no pk' }, 'text'] }));
      return;
    case 'slowloris': {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      const timer = setInterval(() => res.write(' '), 100);
      res.on('close', () => clearInterval(timer));
      return;
    }
    case 'redirect':
      res.writeHead(302, { Location: `${elsewhere}${req.url ?? '/'}` }).end();
      return;
  }
}

let dir: string;
let host: WorkspaceHost;
let server: RunningServer;
let api: Client;

beforeAll(async () => {
  elsewhere = await serve((req, res) => {
    elsewhereSeen.push(`${req.method} ${req.url} ${req.headers.authorization ?? ''}`);
    res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"count":0,"next":null,"previous":null,"results":[]}');
  });
  const remote = await serve(hostile);
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'outpost-hostile-'));
  host = new WorkspaceHost({
    dataDir: dir,
    instance: { name: 'outpost-test', version: 'test', address: '127.0.0.1' },
    adminToken: ADMIN_TOKEN,
    sync: { client: { maxAnswerBytes: 4 * 1024 * 1024, deadlineMs: 1500, getAttempts: 1 } },
  });
  server = await listen(createAppHandler({ host, version: 'test' }), { host: '127.0.0.1', port: 0 });
  api = new Client(server.url, ADMIN_TOKEN);
  expect((await api.post('/app/remotes', { name: 'hostile', url: remote, token: TOKEN })).status).toBe(201);
  expect((await api.post('/app/workspaces', { name: 'site', remote: 'hostile' })).status).toBe(201);
  expect((await api.post('/app/workspaces/site/open', {})).status).toBe(200);
});
afterAll(async () => {
  await server.close();
  await host.close();
  for (const s of servers) {
    s.closeAllConnections();
    s.close();
  }
  fs.rmSync(dir, { recursive: true, force: true });
});

interface Status {
  syncing: boolean;
  lastError: string | null;
  lastErrorKind: string | null;
}

/** Sync now and wait for it to end; its status. */
async function syncOnce(): Promise<Status> {
  expect((await api.post('/app/sync', {})).status).toBe(202);
  const started = Date.now();
  for (;;) {
    const status = (await api.get('/app/sync')).json().status as Status;
    if (!status.syncing) return status;
    if (Date.now() - started > 20_000) throw new Error('the sync did not end');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** What the workspace holds: it must be the same after every refused pull. */
function snapshot(): { rows: number; integrity: string } {
  const { db } = host.current().services.store;
  const tables = ['appliance', 'vendor_probe_template', 'ruleset', 'source', 'threat', 'host_id', 'vendor_device'];
  const rows = tables.reduce((sum, t) => sum + Number(db.prepare(`SELECT count(*) FROM ${t}`).pluck().get()), 0);
  return { rows, integrity: String(db.prepare('PRAGMA integrity_check').pluck().get()) };
}

describe('a hostile central server', () => {
  test.each([
    ['huge', 'invalid', /larger than 4 MiB/],
    ['not-json', 'invalid', /is not JSON \(200, text\/html/],
    ['wrong-shape', 'invalid', /not vendor_device objects/],
    ['slowloris', 'timeout', /took more than 2 s/],
    ['redirect', 'invalid', /redirect \(302 to http:\/\/127\.0\.0\.1:\d+\/rest\/.*does not follow redirects/],
  ] as const)('%s: the pull is refused with a clear %s error, and nothing is written', async (which, kind, words) => {
    const before = snapshot();
    const rss = process.memoryUsage().rss;
    mode = which;
    const status = await syncOnce();
    expect(status.lastErrorKind).toBe(kind);
    expect(status.lastError).toMatch(words);
    expect(snapshot()).toEqual(before);
    expect(before.integrity).toBe('ok');
    // An endless answer is not gathered: memory stays near where it was.
    expect(process.memoryUsage().rss - rss).toBeLessThan(64 * 1024 * 1024);
  });

  test('the redirect target never received a request, nor the token', () => {
    expect(elsewhereSeen).toEqual([]);
  });
});
