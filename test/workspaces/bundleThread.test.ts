/**
 * app.md §2, docs/architecture.md: a workspace bundle's import and export run on a thread of their
 * own, so the server answers every other request meanwhile, however large the bundle; an import
 * writes a database under a temporary name that takes the workspace's name only once all of it
 * succeeded: the workspace appears whole or not at all, and a failed import leaves no file.
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { bundleWorkerCode } from '../../electron/server/http/workerSource';
import { baselineLateness, heldBy, watchEventLoop } from '../helpers/eventLoop';
import { enlarged, type BundleFile } from '../helpers/largeBundle';
import { ADMIN_TOKEN, startAppServer, type TestAppServer } from '../helpers/server';
import { tmpfsAvailable, tmpfsDisk } from '../helpers/tmpfs';


let server: TestAppServer;
/** A workspace of 20,000 hosts and 3,000 probes as a bundle file: its import takes seconds. Bytes made once (encoding them takes this process 0.1 s). */
let large: Buffer;
let base: BundleFile;

beforeAll(async () => {
  // Under the tests the worker's program is bundled from the sources at its first use, on this thread: done before anything is timed.
  expect(bundleWorkerCode()).toBeDefined();
  server = await startAppServer();
  const { api } = server;
  const template = (await api.post('/rest/appliances/vendor_probe_template/', { name: 'site', interfaces: [{ name: 'eth0' }, { name: 'eth1' }], protocols: [{ name: 'http' }] })).json();
  await api.post('/rest/appliances/vendor_probe/', { name: 'gate', address: '10.0.0.1', parent_tmpl: template.pk, comment: 'at the gate' });
  const seen = { first_seen: '2026-11-01T08:00:00Z', last_seen: '2026-11-02T08:00:00Z' };
  await api.post('/rest/appliances/host_id/import/', [{ ip: '10.9.8.7', hits: 3, host_id: { ...seen, hostname: [{ host: 'db.example', ...seen }] } }]);
  base = (await api.get('/app/workspaces/default/export')).json();
  large = Buffer.from(JSON.stringify(enlarged(base, { hosts: 20_000, probes: 3_000, history: 3_000 })));
});
afterAll(() => server.close());

const importBundle = (name: string, body: string | Buffer, on = server) =>
  on.api.post(`/app/workspaces/import?name=${name}`, undefined, { body, headers: { 'Content-Type': 'application/json' } });
const workspaceFiles = (on = server) => fs.readdirSync(path.join(on.dir, 'workspaces')).sort();

/** A GET whose answer is kept as its chunks: decoding 20 MB would hold this process, the server's, for a tenth of a second. */
function download(where: string): Promise<{ status: number; headers: http.IncomingHttpHeaders; chunks: Buffer[] }> {
  return new Promise((resolve, reject) => {
    http
      .get(new URL(where, server.url), { headers: { Authorization: `Token ${ADMIN_TOKEN}` }, agent: false }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, chunks }));
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

interface Watched<T> {
  readonly result: T;
  /** Why the event loop was held meanwhile (test/helpers/eventLoop.ts), or undefined. */
  readonly loopHeld: string | undefined;
  /** Why the answers to GET /app/status, asked again and again, say it was, or undefined. */
  readonly answersHeld: string | undefined;
  readonly answers: number;
  /** The workspaces listed by each GET /app/workspaces asked meanwhile, with their sizes. */
  readonly listed: readonly Readonly<Record<string, number>>[];
}

/** An answer to GET /app/status takes this long at most, most of the time (the rule is ~100 ms for any request). */
const ANSWER_MS = 200;

/**
 * Run `work` while asking the server for its status and its workspaces, again and again. Paced, as
 * a screen polls: asked back to back, this process's main thread would never rest, and on a machine
 * shared with other work the scheduler then makes it wait for its turn as often as the work's thread.
 */
async function whileAsking<T>(work: () => Promise<T>, on = server): Promise<Watched<T>> {
  // The machine's own lateness, asking the same without the work, just before.
  const baseline = await baselineLateness(1000, async () => {
    expect((await on.api.get('/app/status')).status).toBe(200);
  });
  const loop = watchEventLoop();
  let done = false;
  const answerTimes: number[] = [];
  const listed: Record<string, number>[] = [];
  const asking = (async () => {
    while (!done) {
      const asked = performance.now();
      expect((await on.api.get('/app/status')).status).toBe(200);
      answerTimes.push(performance.now() - asked);
      const { workspaces } = (await on.api.get('/app/workspaces')).json();
      listed.push(Object.fromEntries(workspaces.map((w: { name: string; sizeBytes: number }) => [w.name, w.sizeBytes])));
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  })();
  const started = performance.now();
  const result = await work();
  const tookMs = performance.now() - started;
  done = true;
  await asking;
  const figures = loop.stop();
  // The work must have taken long enough for the figures to mean something.
  expect(tookMs).toBeGreaterThan(500);
  return { result, loopHeld: heldBy(figures.latenesses, undefined, baseline), answersHeld: heldBy(answerTimes, ANSWER_MS), answers: answerTimes.length, listed };
}

describe('a large bundle does not hold the server', () => {
  test('while a large bundle is imported, other requests are answered all along; the workspace is listed only once it is whole', async () => {
    const watched = await whileAsking(() => importBundle('large', large));
    expect(watched.result.status, watched.result.text).toBe(201);
    expect(watched.loopHeld).toBeUndefined();
    expect(watched.answersHeld).toBeUndefined();
    expect(watched.answers).toBeGreaterThan(5);
    // Listed, if at all, as it is once whole.
    const whole = (await server.api.get('/app/workspaces')).json().workspaces.find((w: { name: string }) => w.name === 'large');
    expect(whole.sizeBytes).toBeGreaterThan(large.length / 2);
    expect(watched.listed.filter((sizes) => 'large' in sizes && sizes.large !== whole.sizeBytes)).toEqual([]);
    expect(workspaceFiles().filter((name) => name.startsWith('.'))).toEqual([]);
  });

  test('while a large workspace is exported, likewise; the bundle comes whole', async () => {
    const watched = await whileAsking(() => download('/app/workspaces/large/export'));
    expect(watched.result.status).toBe(200);
    expect(watched.loopHeld).toBeUndefined();
    expect(watched.answersHeld).toBeUndefined();
    expect(watched.result.headers['content-type']).toBe('application/json');
    expect(watched.result.headers['content-disposition']).toBe('attachment; filename="large.outpost.json"');
    const exported = JSON.parse(Buffer.concat(watched.result.chunks).toString());
    const given = JSON.parse(large.toString()) as BundleFile;
    expect(exported.tables.host_id).toHaveLength(given.tables.host_id!.length);
    expect(exported.tables.appliance.map((row: { name: string }) => row.name)).toEqual(given.tables.appliance!.map((row) => row.name));
  });

  test('two imports of one name at once: one goes on, the other is refused at once (409), as is creating that name meanwhile', async () => {
    const replies: string[] = [];
    const imports = [importBundle('twice', large), importBundle('twice', large)].map((reply) => reply.then((r) => (replies.push(String(r.status)), r)));
    const refused = await Promise.race(imports);
    expect(refused.status, refused.text).toBe(409);
    expect(refused.json()).toEqual({ detail: 'a workspace named "twice" is being imported' });
    const created = await server.api.post('/app/workspaces', { name: 'twice' });
    expect(created.json()).toEqual({ detail: 'a workspace named "twice" is being imported' });
    replies.push(`create ${created.status}`);
    expect((await Promise.all(imports)).map((reply) => reply.status).sort()).toEqual([201, 409]);
    // The refusals came while the import went on, not after it.
    expect(replies).toEqual(['409', 'create 409', '201']);
    expect(workspaceFiles().filter((name) => name.startsWith('twice'))).toEqual(['twice.sqlite3']);
  });
});

describe.skipIf(!tmpfsAvailable)('an import that fails on its way', () => {
  test('a disk that fills while the bundle is written: 507 naming the workspace’s file, no file left, temporary or final, and the server answered all along', async () => {
    const disk = tmpfsDisk(16);
    const small = await startAppServer({ dir: path.join(disk.dir, 'data') });
    try {
      const before = workspaceFiles(small);
      const watched = await whileAsking(() => importBundle('filled', large, small), small);
      expect(watched.loopHeld).toBeUndefined();
      const reply = watched.result;
      expect(reply.status, reply.text).toBe(507);
      const file = path.join(small.dir, 'workspaces', 'filled.sqlite3');
      expect(reply.json().detail).toMatch(new RegExp(`^the disk holding ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is full \\(SQLITE_FULL`));
      expect(workspaceFiles(small)).toEqual(before);
      expect((await small.api.get('/app/workspaces')).json().workspaces.map((w: { name: string }) => w.name)).toEqual(['default']);
    } finally {
      await small.close();
    }
  });
});
