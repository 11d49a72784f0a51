/**
 * Issue 8: a hostile central server cannot hurt the workspace. Pull answers that are huge, not
 * JSON, of the wrong shape, dribbled one byte at a time, redirected elsewhere or announcing an
 * impossible count are refused with a clear sync error of kind `invalid` or `timeout`; the
 * workspace keeps what it had, and a redirect's target never sees a request (nor the token).
 * Issue 25: the review plan and the connect plan read the same server the same way: a 502
 * saying what was wrong, nothing sent but GETs, nothing changed.
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

type Mode = 'huge' | 'not-json' | 'wrong-shape' | 'slowloris' | 'redirect' | 'lying-count' | 'server-error';
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

/** Every request the hostile server received, by method: the plans may only GET. */
const methodsSeen: string[] = [];

function hostile(req: http.IncomingMessage, res: http.ServerResponse): void {
  methodsSeen.push(req.method ?? '');
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
    case 'lying-count': {
      // One plausible object and a count no list could hold: paging through it would ask for 10^15 pages.
      const next = `http://${req.headers.host ?? ''}${(req.url ?? '/').replace(/page=\d+/, 'page=2')}`;
      const object = { pk: 1, name: 'one', ip: '10.0.0.1' };
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ count: Number.MAX_SAFE_INTEGER, next, previous: null, results: [object] }));
      return;
    }
    case 'server-error':
      res.writeHead(500, { 'Content-Type': 'text/html' }).end('<h1>Server Error (500)</h1>');
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

/**
 * Each hostile answer: the kind of error it is, the words the pull's error says, and those of
 * the plans (which read other endpoints first: the words that do not name one).
 */
const HOSTILE_CASES = [
  ['huge', 'invalid', /larger than 4 MiB/, /larger than 4 MiB/],
  ['not-json', 'invalid', /is not JSON \(200, text\/html/, /is not JSON \(200, text\/html/],
  ['wrong-shape', 'invalid', /not vendor_device objects/, /not (vendor_probe|source) objects/],
  ['slowloris', 'timeout', /took more than 2 s/, /took more than 2 s/],
  ['redirect', 'invalid', /redirect \(302 to http:\/\/127\.0\.0\.1:\d+\/rest\/.*does not follow redirects/, /does not follow redirects/],
  ['lying-count', 'invalid', /cannot be paged through: its count \(9007199254740991\) in pages of 1 would take 9007199254740991 pages; more than 1000000 is refused/, /cannot be paged through/],
  ['server-error', 'network', /answered 500/, /500/],
] as const;

describe('a hostile central server', () => {
  test.each(HOSTILE_CASES.map(([which, kind, words]) => [which, kind, words] as const))('%s: the pull is refused with a clear %s error, and nothing is written', async (which, kind, words) => {
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

/** The outbox as stored: the plans must leave it as it was. */
function outbox(): unknown[] {
  return host.current().services.store.db.prepare('SELECT seq, pk, op FROM outbox ORDER BY seq').all();
}

const PLAN_CASES = HOSTILE_CASES.map(([which, kind, , words]) => [which, kind, words] as const);

describe('the review plan and the connect plan from a hostile central server', () => {
  beforeAll(async () => {
    // A change waiting for review in the bound workspace, and a standalone workspace to connect.
    expect((await api.put('/app/sync/push-mode', { mode: 'review' })).status).toBe(200);
    expect((await api.post('/rest/appliances/vendor_probe/', { name: 'waiting', address: '10.0.0.9' })).status).toBe(201);
    expect((await api.post('/app/workspaces', { name: 'alone' })).status).toBe(201);
  });

  test.each(PLAN_CASES.filter(([which]) => which !== 'lying-count'))('%s: the review plan is a 502 of kind %s saying why; only GETs were sent, the outbox is as it was', async (which, kind, words) => {
    const before = outbox();
    expect(before).toHaveLength(1);
    mode = which;
    methodsSeen.length = 0;
    const answer = await api.get('/app/sync/plan');
    expect(answer.status, answer.text).toBe(502);
    expect(answer.json().kind).toBe(kind);
    expect(answer.json().detail).toMatch(words);
    expect(methodsSeen.length).toBeGreaterThan(0);
    expect(new Set(methodsSeen)).toEqual(new Set(['GET']));
    expect(outbox()).toEqual(before);
  });

  test('lying-count: the review plan reads the create\'s name itself; the object the filtered list gives under another name is no collision', async () => {
    mode = 'lying-count';
    methodsSeen.length = 0;
    const answer = await api.get('/app/sync/plan');
    expect(answer.status, answer.text).toBe(200);
    const [entry] = answer.json().entries as { op: string; label: string; outcome: string; fields: { field: string; now: unknown }[] }[];
    expect(entry).toMatchObject({ op: 'create', label: 'waiting', outcome: 'send' });
    expect(entry!.fields.map((f) => f.now)).toEqual([null, null]);
    expect(new Set(methodsSeen)).toEqual(new Set(['GET']));
  });

  test.each(PLAN_CASES)('%s: the connect plan is a 502 of kind %s saying why; only GETs were sent, the workspace stays standalone', async (which, kind, words) => {
    mode = which;
    methodsSeen.length = 0;
    const answer = await api.post('/app/workspaces/alone/connect/plan', { remote: 'hostile' });
    expect(answer.status, answer.text).toBe(502);
    expect(answer.json().kind).toBe(kind);
    expect(answer.json().detail).toMatch(words);
    expect(new Set(methodsSeen)).toEqual(new Set(['GET']));
    const alone = ((await api.get('/app/workspaces')).json().workspaces as { name: string; remote: string | null }[]).find((w) => w.name === 'alone');
    expect(alone?.remote ?? null).toBeNull();
  });

  test('the redirect target never received a request from the plans either', () => {
    expect(elsewhereSeen).toEqual([]);
  });
});
