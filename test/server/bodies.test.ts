/**
 * Request bodies (docs/decisions.md, "Bodies"), on the whole server as `outpost serve` runs it:
 * nothing of a body is read before the caller is known; each kind of request has a size limit,
 * answered 413 in the API's shape without reading the rest; large imports are parsed and checked
 * off the main thread while other requests keep answering; a refused import reports a bounded
 * number of errors; requests node's parser refuses are answered in JSON.
 *
 * Big bodies are streamed from one reused chunk, so that the test itself never holds them.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { BODY_LIMITS } from '../../electron/app/bodyPolicy';
import { withEntries, type WorkerMessage } from '../../electron/server/http/bodyWorkerMessages';
import { runImportJob, type ImportJob } from '../../electron/server/http/importJob';
import { bodyWorkerCode, WORKER_BUNDLE } from '../../electron/server/http/workerSource';
import { MAX_REPORTED_MESSAGES } from '../../shared/api/imports';
import { baselineLateness, heldBy, LATE_MS, watchEventLoop, type LoopFigures } from '../helpers/eventLoop';
import { Client, request } from '../helpers/http';
import { ADMIN_TOKEN, startAppServer, type TestAppServer } from '../helpers/server';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const MiB = 1024 * 1024;
const VIEWER_TOKEN = 'b1'.repeat(20);
const HOSTS = '/rest/appliances/host_id';
const THREATS = '/rest/appliances/threat';

let server: TestAppServer;
let admin: Client;

beforeAll(async () => {
  server = await startAppServer();
  admin = server.api;
  const { services } = server.host.current();
  services.store.write(() => {
    services.store.db
      .prepare('INSERT INTO user (username, password, role, is_active, date_joined) VALUES (?, ?, ?, ?, ?)')
      .run('viewer', '', 'Read-only', 1, services.store.now());
  });
  services.users.setToken(services.users.byUsername('viewer')!.pk, VIEWER_TOKEN);
  // From the TypeScript sources the worker's program is bundled on first use (a bundle reads a
  // file): done here, so that no test measures it.
  expect(bodyWorkerCode()).toBeDefined();
});
afterAll(() => server?.close());

// --- A client that streams a body and notes how much it had sent when the answer came ---

interface Streamed {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly text: string;
  /** Bytes of the body handed to the connection when the answer's head arrived. */
  readonly sentAtAnswer: number;
}

interface StreamOptions {
  readonly method?: string;
  readonly headers?: Record<string, string>;
  /** Body size; sent with Content-Length unless `chunked`. */
  readonly size: number;
  readonly chunked?: boolean;
  readonly token?: string;
  /** The first bytes of the body (the rest are spaces). */
  readonly prefix?: string;
}

/**
 * POST a body of `size` bytes made of one reused 64 KiB chunk, with backpressure; stop sending as
 * soon as an answer arrives. Fails if the connection breaks before a whole answer was read.
 */
function streamBody(path: string, options: StreamOptions): Promise<Streamed> {
  const chunk = Buffer.alloc(64 * 1024, 0x20);
  const headers: Record<string, string> = { 'Content-Type': 'application/json', ...(options.headers ?? {}) };
  if (!options.chunked) headers['Content-Length'] = String(options.size);
  if (options.token) headers.Authorization = `Token ${options.token}`;
  return new Promise((resolve, reject) => {
    let sent = 0;
    let answered = false;
    const req = http.request(new URL(path, server.url), { method: options.method ?? 'POST', headers, agent: false }, (res) => {
      answered = true;
      const sentAtAnswer = sent;
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (piece: string) => (text += piece));
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, sentAtAnswer });
        req.destroy();
      });
      res.on('error', reject);
    });
    req.on('error', (error) => {
      if (!answered) reject(error);
    });
    const pump = () => {
      if (sent === 0 && options.prefix) {
        sent += options.prefix.length;
        req.write(options.prefix);
      }
      while (!answered && sent < options.size) {
        const piece = options.size - sent >= chunk.length ? chunk : chunk.subarray(0, options.size - sent);
        sent += piece.length;
        if (!req.write(piece)) {
          req.once('drain', pump);
          return;
        }
      }
      if (!answered) req.end();
    };
    pump();
  });
}

/** One raw exchange: bytes out, everything the server sends until it closes. */
function rawExchange(bytes: string | Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(new URL(server.url).port), '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.setTimeout(10_000, () => socket.destroy(new Error('no answer in time')));
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('end', () => resolve(Buffer.concat(chunks).toString('latin1')));
    socket.on('error', reject);
    socket.write(bytes);
  });
}

function parsedRaw(raw: string): { status: number; headers: Map<string, string>; body: string } {
  const end = raw.indexOf('\r\n\r\n');
  const [statusLine, ...lines] = raw.slice(0, end).split('\r\n');
  const headers = new Map(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
  return { status: Number(/^HTTP\/1\.1 (\d{3}) /.exec(statusLine!)![1]), headers, body: raw.slice(end + 4) };
}

/** Every string in an error tree: the messages a refusal reports. */
function messages(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(messages);
  if (value !== null && typeof value === 'object') return Object.values(value).flatMap(messages);
  return [];
}

/**
 * While `work` runs: the times of GET /app/status sent one after another, and the event loop's
 * latenesses (test/helpers/eventLoop.ts tells a held loop from a busy machine).
 */
async function whileRunning<T>(start: () => Promise<T>): Promise<{ result: T; latencies: number[]; loop: LoopFigures; baseline: number[] }> {
  // The machine's own lateness, asking the same without the work, just before (another test file
  // runs beside this one): the loop is judged held only against it (test/helpers/eventLoop.ts).
  const baseline = await baselineLateness(1000, async () => {
    expect((await admin.get('/app/status')).status).toBe(200);
  });
  const latencies: number[] = [];
  const watching = watchEventLoop(5);
  let done = false;
  const settled = start().finally(() => (done = true));
  const probe = (async () => {
    while (!done) {
      const started = performance.now();
      const reply = await admin.get('/app/status');
      expect(reply.status).toBe(200);
      latencies.push(performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  })();
  const result = await settled;
  await probe;
  return { result, latencies, loop: watching.stop(), baseline };
}

const hostEntry = (i: number, services: string) =>
  `{"ip":"10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}","hits":1,"host_id":{"first_seen":"2024-01-01T00:00:00Z","last_seen":"2024-01-02T00:00:00Z","services":${services}}}`;

/** A valid host import of about `megabytes` MB: hosts with a hundred services each. */
function validHostImport(megabytes: number): { text: string; hosts: number } {
  const services = JSON.stringify(
    Array.from({ length: 100 }, (_, i) => ({ proto: 'tcp', port: 1000 + i, values: [{ app_proto: 'http', banner: 'b'.repeat(40) }] })),
  );
  const hosts = Math.ceil((megabytes * 1e6) / hostEntry(0, services).length);
  return { text: `[${Array.from({ length: hosts }, (_, i) => hostEntry(i, services)).join(',')}]`, hosts };
}

// --- Admission: the caller is known before the body is read ---

describe('nothing of a body is read before the caller is known', () => {
  test('an unauthenticated 400 MB POST is answered 403 before the client has sent a few MB', async () => {
    const reply = await streamBody('/rest/rules/source/', { size: 400 * MiB });
    expect(reply.status).toBe(403);
    expect(JSON.parse(reply.text)).toEqual({ detail: 'Authentication credentials were not provided.' });
    expect(reply.headers['content-type']).toBe('application/json');
    expect(reply.headers.connection).toBe('close');
    expect(reply.sentAtAnswer).toBeLessThan(8 * MiB);
  });

  test("four at once leave the server's memory where it was", async () => {
    const before = process.memoryUsage().rss;
    const replies = await Promise.all(
      ['/rest/rules/source/', '/rest/appliances/host_id/import/', '/app/workspaces/import?name=x', '/remote/rest/rules/source/'].map((path, i) =>
        streamBody(path, { size: 400 * MiB, chunked: i % 2 === 1 }),
      ),
    );
    expect(replies.map((r) => r.status)).toEqual([403, 403, 403, 403]);
    for (const reply of replies) expect(reply.sentAtAnswer).toBeLessThan(8 * MiB);
    // Before, each was read whole first: 1.2 GB more for four.
    expect(process.memoryUsage().rss - before).toBeLessThan(100 * MiB);
  });

  test.each([
    ['an unknown token', { token: 'f'.repeat(40) }, 403, { detail: 'Invalid token.' }],
    ['another scheme', { headers: { Authorization: 'Bearer x' } }, 403, { detail: 'Authentication credentials were not provided.' }],
    ['an Accept it cannot satisfy (406 comes before authentication, as in DRF)', { headers: { Accept: 'text/csv' } }, 406, { detail: 'Could not satisfy the request Accept header.' }],
  ])('%s: the answer DRF gives, at once', async (_name, options, status, body) => {
    const reply = await streamBody('/rest/rules/source/', { size: 100 * MiB, ...options });
    expect(reply.status).toBe(status);
    expect(JSON.parse(reply.text)).toEqual(body);
    expect(reply.sentAtAnswer).toBeLessThan(8 * MiB);
  });

  test('the answer at once is the one the same request gets with a small body', async () => {
    for (const path of ['/rest/rules/source/', '/app/workspaces', '/rest/appliances/host_id/import/', '/nowhere']) {
      const small = await request(server.url, 'POST', path, { json: { name: 'x' } });
      const big = await streamBody(path, { size: 50 * MiB });
      expect({ status: big.status, body: JSON.parse(big.text) }, path).toEqual({ status: small.status, body: small.json() });
    }
  });

  test('a browser session without its CSRF token is refused at once', async () => {
    const { users } = server.host.current().services;
    const session = users.openSession(users.byUsername('admin')!.pk);
    const reply = await streamBody('/rest/rules/source/', { size: 100 * MiB, headers: { Cookie: `sessionid=${session.key}` } });
    expect(reply.status).toBe(403);
    expect(JSON.parse(reply.text)).toEqual({ detail: 'CSRF Failed: CSRF token missing.' });
  });

  test('an unknown path with a huge body is 404 at once, whoever asks', async () => {
    for (const token of [undefined, ADMIN_TOKEN]) {
      const reply = await streamBody('/nowhere/at/all', { size: 400 * MiB, ...(token ? { token } : {}) });
      expect(reply.status).toBe(404);
      expect(JSON.parse(reply.text)).toEqual({ detail: 'Not found.' });
      expect(reply.sentAtAnswer).toBeLessThan(8 * MiB);
    }
  });

  test("a read-only user's import is 403 at once (imports are for managers)", async () => {
    const reply = await streamBody(`${HOSTS}/import/`, { size: 60 * MiB, token: VIEWER_TOKEN });
    expect(reply.status).toBe(403);
    expect(JSON.parse(reply.text)).toEqual({ detail: 'You do not have permission to perform this action.' });
    expect(reply.sentAtAnswer).toBeLessThan(8 * MiB);
  });

  test('`Expect: 100-continue`: a refused client is not invited to send its body; an admitted one is', async () => {
    const exchange = (auth: string) =>
      rawExchange(
        `POST /rest/rules/source/ HTTP/1.1\r\nHost: ${new URL(server.url).host}\r\n${auth}Content-Type: application/json\r\nContent-Length: 13\r\nExpect: 100-continue\r\n\r\n`,
      );
    const refused = await exchange('');
    expect(refused).toMatch(/^HTTP\/1\.1 403 /);
    expect(refused).not.toContain('100 Continue');
    // Admitted: `100 Continue`, and the body is sent only then.
    const admitted = await new Promise<string>((resolve) => {
      const socket = net.connect(Number(new URL(server.url).port), '127.0.0.1');
      let seen = '';
      socket.on('data', (chunk: Buffer) => {
        const continued = seen === '' && chunk.toString('latin1').startsWith('HTTP/1.1 100 Continue\r\n\r\n');
        seen += chunk.toString('latin1');
        if (continued) socket.write('{"name":"e1"}');
        if (/HTTP\/1\.1 201 [\s\S]*\r\n\r\n\{[^]*\}$/.test(seen)) {
          socket.destroy();
          resolve(seen);
        }
      });
      socket.write(
        `POST /rest/rules/source/ HTTP/1.1\r\nHost: ${new URL(server.url).host}\r\nAuthorization: Token ${ADMIN_TOKEN}\r\nContent-Type: application/json\r\nContent-Length: 13\r\nExpect: 100-continue\r\n\r\n`,
      );
    });
    expect(admitted).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 201 /);
  });
});

// --- Limits ---

describe('each kind of request has a size limit, answered 413 without reading the rest', () => {
  test.each([
    ['an object write', '/rest/rules/source/', BODY_LIMITS.object, '256 KiB'],
    ['a host import', `${HOSTS}/import/`, BODY_LIMITS.import, '64 MiB'],
    ['a threat import', `${THREATS}/import/`, BODY_LIMITS.import, '64 MiB'],
    ['a workspace bundle', '/app/workspaces/import?name=big', BODY_LIMITS.import, '64 MiB'],
    ['an /app/ write', '/app/workspaces', BODY_LIMITS.object, '256 KiB'],
  ])('%s: one byte over %s is 413 at once (Content-Length)', async (_kind, path, limit, words) => {
    const reply = await streamBody(path, { size: limit + 1, token: ADMIN_TOKEN });
    expect(reply.status).toBe(413);
    expect(reply.headers['content-type']).toBe('application/json');
    expect(JSON.parse(reply.text)).toEqual({ detail: `Request body is too large: at most ${words} here.` });
    expect(reply.sentAtAnswer).toBeLessThan(8 * MiB);
  });

  test('a chunked body is cut when it passes the limit, and the client reads the 413 (not a reset)', async () => {
    for (const [path, limit] of [
      ['/rest/rules/source/', BODY_LIMITS.object],
      [`${HOSTS}/import/`, BODY_LIMITS.import],
    ] as const) {
      const reply = await streamBody(path, { size: 400 * MiB, chunked: true, token: ADMIN_TOKEN });
      expect(reply.status, path).toBe(413);
      expect(reply.sentAtAnswer).toBeLessThan(limit + 8 * MiB);
    }
  });

  test('the login form takes 64 KiB at most, before anyone is known', async () => {
    const reply = await streamBody('/api-auth/login/', { size: BODY_LIMITS.form + 1, headers: { 'Content-Type': 'application/x-www-form-urlencoded' } });
    expect(reply.status).toBe(413);
  });

  test('a body within its limit is read and answered as before', async () => {
    const uri = 'u'.repeat(BODY_LIMITS.object - 100);
    const reply = await admin.post('/rest/rules/source/', { name: 'long-uri', uri });
    expect(reply.status).toBe(400);
    expect(reply.json()).toEqual({ uri: ['Ensure this field has no more than 400 characters.'] });
    const ok = await admin.post('/rest/rules/source/', { name: 'small' });
    expect(ok.status).toBe(201);
  });

  test('the 5 MB body of 2.5M integers in `interfaces` that took 21 s is now a 413 at once', async () => {
    const started = performance.now();
    const body = `{"name":"t","interfaces":[${'1,'.repeat(2_500_000 - 1)}1]}`;
    const reply = await admin.post('/rest/appliances/vendor_probe_template/', undefined, { body, headers: { 'Content-Type': 'application/json' } });
    expect(reply.status).toBe(413);
    expect(performance.now() - started).toBeLessThan(1000);
  });
});

// --- Imports off the main thread, and bounded refusals ---

describe('large imports are parsed and checked without holding the event loop', () => {
  test('the 5 MB body of 2.5M numbers (67 s before) is a bounded 400 in moments, and GETs keep answering meanwhile', async () => {
    const body = `[${'1,'.repeat(2_500_000 - 1)}1]`;
    const run = await whileRunning(() => admin.post(`${HOSTS}/import/`, undefined, { body, headers: { 'Content-Type': 'application/json' } }));
    const reply = run.result;
    expect(reply.status).toBe(400);
    const report = reply.json();
    expect(report).toHaveLength(MAX_REPORTED_MESSAGES);
    expect(report[0]).toEqual({ non_field_errors: ['Invalid data. Expected a dictionary, but got int.'] });
    expect(heldBy(run.latencies, 200)).toBeUndefined();
    expect(heldBy(run.loop.latenesses, LATE_MS, run.baseline)).toBeUndefined();
  });

  test('a valid 30 MB import: GETs answer within 200 ms while it is parsed and checked, then it is all written', async () => {
    const { text, hosts } = validHostImport(30);
    const started = performance.now();
    const run = await whileRunning(() => admin.post(`${HOSTS}/import/?comment=big`, undefined, { body: text, headers: { 'Content-Type': 'application/json' } }));
    const took = performance.now() - started;
    expect(run.result.status).toBe(201);
    expect(run.result.json()).toEqual({ imported: hosts });
    // Parsing and checking (seconds) left the loop free; the one pause is the final write, one
    // transaction on the main thread (a write is applied whole or not at all), ~20 ms per MB with
    // the import's record of what it changed (0.55-0.65 s here alone, twice that beside other work):
    // that one pause is bounded apart, and the loop is free the rest of the time.
    const [write, ...rest] = [...run.loop.latenesses].sort((a, b) => b - a);
    expect(write).toBeLessThan(3000);
    expect(heldBy(rest, LATE_MS, run.baseline)).toBeUndefined();
    expect(run.latencies.length).toBeGreaterThan(10);
    expect(heldBy(run.latencies, 200)).toBeUndefined();
    expect(took).toBeLessThan(30_000);
    const last = hosts - 1;
    const stored = (await admin.get(`${HOSTS}/10.${(last >> 16) & 255}.${(last >> 8) & 255}.${last & 255}/`)).json();
    expect(stored.host_id.services_count).toBe(100);
    expect(stored.host_id.in_home_net).toBe(true);
  });

  test('a large import is stored exactly as the same entries imported in a small body', async () => {
    const services = JSON.stringify([{ proto: 'tcp', port: 22 }]);
    const padding = Array.from({ length: 3000 }, (_, i) => hostEntry(100_000 + i, services));
    const probe = hostEntry(200_000, JSON.stringify([{ proto: 'udp', port: 53, values: [{ app_proto: 'dns' }] }]));
    const large = `[${[...padding, probe].join(',')}]`;
    expect(large.length).toBeGreaterThan(256 * 1024);
    expect((await admin.post(`${HOSTS}/import/`, undefined, { body: large, headers: { 'Content-Type': 'application/json' } })).status).toBe(201);
    const ip = '10.3.13.64';
    const fromLarge = (await admin.get(`${HOSTS}/${ip}/`)).json();
    expect((await admin.post(`${HOSTS}/import/`, undefined, { body: `[${probe}]`, headers: { 'Content-Type': 'application/json' } })).status).toBe(201);
    expect((await admin.get(`${HOSTS}/${ip}/`)).json()).toEqual(fromLarge);
  });

  test('a large body that is not JSON gets the JSON parse error of a small one', async () => {
    const body = `[${'{"ip": "10.0.0.1"},'.repeat(30_000)} oops]`;
    const reply = await admin.post(`${HOSTS}/import/`, undefined, { body, headers: { 'Content-Type': 'application/json' } });
    expect(reply.status).toBe(400);
    expect(reply.json().detail).toMatch(/^JSON parse error - Expecting value: line 1 column \d+ \(char \d+\)$/);
    const wrongType = await admin.post(`${HOSTS}/import/`, undefined, { body, headers: { 'Content-Type': 'text/plain' } });
    expect(wrongType.status).toBe(415);
  });
});

describe('a refused import reports at most 100 messages', () => {
  test('300k bad threats (11 s before): a quick 400 listing the entries up to the 100th message', async () => {
    const body = JSON.stringify(Array.from({ length: 300_000 }, () => ({ pk: 'x' })));
    const started = performance.now();
    const reply = await admin.post(`${THREATS}/import/`, undefined, { body, headers: { 'Content-Type': 'application/json' } });
    expect(performance.now() - started).toBeLessThan(3000);
    expect(reply.status).toBe(400);
    const report = reply.json();
    // Two messages per entry (pk, name): fifty entries.
    expect(report[0]).toEqual({ pk: ['A valid integer is required.'], name: ['This field is required.'] });
    expect(report).toHaveLength(MAX_REPORTED_MESSAGES / 2);
    expect(messages(report)).toHaveLength(MAX_REPORTED_MESSAGES);
    expect(reply.text.length).toBeLessThan(10_000);
  });

  test('one host with 2.5M bad items in a list: the first messages of that list only', async () => {
    const body = `[{"ip":"10.0.0.1","host_id":{"first_seen":"2024-01-01T00:00:00Z","last_seen":"2024-01-01T00:00:00Z","hostname":[${'7,'.repeat(2_500_000 - 1)}7]}}]`;
    const started = performance.now();
    const reply = await admin.post(`${HOSTS}/import/`, undefined, { body, headers: { 'Content-Type': 'application/json' } });
    expect(performance.now() - started).toBeLessThan(5000);
    expect(reply.status).toBe(400);
    const [errors] = reply.json();
    expect(Object.keys(errors.host_id.hostname)).toHaveLength(MAX_REPORTED_MESSAGES);
    expect(errors.host_id.hostname['99']).toEqual(['Expected a dictionary of items but got type "int".']);
  });

  test('valid entries before the errors are listed `{}`, as DRF lists them; the cut falls on the 100th message', async () => {
    const valid = hostEntry(1, '[]');
    const body = `[${valid},${valid},${Array(150).fill('"x"').join(',')}]`;
    const report = (await admin.post(`${HOSTS}/import/`, undefined, { body, headers: { 'Content-Type': 'application/json' } })).json();
    expect(report.slice(0, 2)).toEqual([{}, {}]);
    expect(report).toHaveLength(2 + MAX_REPORTED_MESSAGES);
  });
});

// --- Requests the parser refuses ---

describe("requests node's parser refuses are answered in JSON", () => {
  const host = () => new URL(server.url).host;
  test.each([
    ['an unknown method', () => `FROB / HTTP/1.1\r\nHost: ${host()}\r\n\r\n`, 400, 'Malformed request: unknown HTTP method.'],
    ['a raw space in the path', () => `GET /rest/a b/ HTTP/1.1\r\nHost: ${host()}\r\n\r\n`, 400, undefined],
    ['a header name with a space', () => `GET / HTTP/1.1\r\nHost: ${host()}\r\nBad Header: x\r\n\r\n`, 400, undefined],
    ['headers beyond 16 KiB', () => `GET / HTTP/1.1\r\nHost: ${host()}\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`, 431, 'Request header fields are too large.'],
  ])('%s', async (_name, bytes, status, detail) => {
    const answer = parsedRaw(await rawExchange(bytes()));
    expect(answer.status).toBe(status);
    expect(answer.headers.get('content-type')).toBe('application/json');
    expect(answer.headers.get('connection')).toBe('close');
    expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
    expect(Number(answer.headers.get('content-length'))).toBe(Buffer.byteLength(answer.body));
    const body = JSON.parse(answer.body);
    expect(typeof body.detail).toBe('string');
    if (detail) expect(body.detail).toBe(detail);
    // The server goes on serving.
    expect((await admin.get('/app/status')).status).toBe(200);
  });

  test('HEAD gets the head of that answer only', async () => {
    const answer = parsedRaw(await rawExchange(`HEAD / HTTP/1.1\r\nHost: ${host()}\r\nBad Header: x\r\n\r\n`));
    expect(answer.status).toBe(400);
    expect(answer.headers.get('content-type')).toBe('application/json');
    expect(answer.body).toBe('');
  });

  test('an expectation other than 100-continue: 417 in JSON', async () => {
    const answer = parsedRaw(await rawExchange(`POST /rest/rules/source/ HTTP/1.1\r\nHost: ${host()}\r\nExpect: teapot\r\nContent-Length: 2\r\n\r\n{}`));
    expect(answer.status).toBe(417);
    expect(answer.headers.get('content-type')).toBe('application/json');
    expect(JSON.parse(answer.body)).toEqual({ detail: 'Expectation failed: only "Expect: 100-continue" is supported.' });
  });
});

// --- The bundles ---

describe('the bundled server parses large imports in its worker', () => {
  test(`dist/node/${WORKER_BUNDLE}, run as a worker, prepares an import as the main thread does`, async () => {
    const code = fs.readFileSync(path.join(ROOT, 'dist/node', WORKER_BUNDLE), 'utf8');
    for (const entries of [[hostEntry(1, '[]'), '"x"'], Array.from({ length: 4500 }, (_, i) => hostEntry(i, '[]'))]) {
      const job: ImportJob = { name: 'host_id', contentType: 'application/json', body: Buffer.from(`[${entries.join(',')}]`) };
      const worker = new Worker(code, { eval: true });
      const result = await new Promise((resolve, reject) => {
        const slices: (readonly unknown[])[] = [];
        worker.on('message', (message: WorkerMessage) => {
          if ('entries' in message) slices.push(message.entries);
          else resolve(withEntries(message.done, slices));
        });
        worker.once('error', reject);
        worker.postMessage(job);
      });
      await worker.terminate();
      expect(result).toEqual(runImportJob(job));
    }
  });

  test('`outpost serve` takes a large import', async () => {
    const data = fs.mkdtempSync(path.join(os.tmpdir(), 'outpost-bodies-'));
    const child = spawn(process.execPath, [path.join(ROOT, 'dist/node/outpost.cjs'), 'serve', '--data', data, '--port', '0', '--admin-token', ADMIN_TOKEN], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      let output = '';
      const url = await new Promise<string>((resolve, reject) => {
        child.stdout.on('data', (chunk: Buffer) => {
          output += chunk.toString();
          const match = /^listening on (\S+)$/m.exec(output);
          if (match) resolve(match[1]!);
        });
        child.once('exit', (code) => reject(new Error(`serve exited with ${code}: ${output}`)));
      });
      const { text, hosts } = validHostImport(2);
      const reply = await request(url, 'POST', `${HOSTS}/import/`, { token: ADMIN_TOKEN, body: text, headers: { 'Content-Type': 'application/json' } });
      expect(reply.json()).toEqual({ imported: hosts });
    } finally {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await new Promise((resolve) => child.once('exit', resolve));
      }
      fs.rmSync(data, { recursive: true, force: true });
    }
  });
});
