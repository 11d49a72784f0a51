/**
 * Random malformed and hostile requests against a real Outpost server, over raw sockets (so that requests
 * node's own client refuses to send get through: odd methods, bytes that are not ASCII in
 * headers, broken percent escapes), among them the list parameters that once froze it (issue 8:
 * wildcard soups, thousands-deep nesting, a thousand search or ordering terms). The server must
 * never answer 5xx, must answer each within a bound, every answer must be
 * well-formed HTTP (with a JSON body wherever it says JSON), it must still serve afterwards, and
 * the database must still be sound: `PRAGMA integrity_check`, and every stored object readable and
 * valid as a write.
 *
 * The PRNG is seeded and requests go one at a time, so a run is replayed exactly with
 * `FUZZ_SEED=<seed>` (printed at the start); `FUZZ_REQUESTS` changes the count.
 */
import http from 'node:http';
import net from 'node:net';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { validateWrite } from '../../shared/api/validate';
import { RESOURCES, ruleset, source, user, type Resource } from '../../shared/resources';
import { addUser, startServer, ADMIN_TOKEN, type TestServer } from '../helpers/server';
import { prng } from '../helpers/prng';

const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : Math.floor(Math.random() * 2 ** 31);
const REQUESTS = Number(process.env.FUZZ_REQUESTS ?? 6000);
const VIEWER_TOKEN = '1'.repeat(40);
const SOCKET_TIMEOUT_MS = 15_000;
/** The longest any one answer may take (generous for a loaded 2-core CI machine). */
const ANSWER_BOUND_MS = Number(process.env.FUZZ_BOUND_MS ?? 3000);


class Dice {
  constructor(readonly random: () => number) {}
  chance(p: number): boolean {
    return this.random() < p;
  }
  int(min: number, max: number): number {
    return min + Math.floor(this.random() * (max - min + 1));
  }
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.random() * items.length)]!;
  }
  bytes(n: number): Buffer {
    const out = Buffer.alloc(n);
    for (let i = 0; i < n; i++) out[i] = Math.floor(this.random() * 256);
    return out;
  }
  text(n: number, alphabet = 'abcXYZ019 -_./%+&=?#"\'\\é😀\u0000\u2028'): string {
    const chars = Array.from(alphabet);
    let out = '';
    for (let i = 0; i < n; i++) out += this.pick(chars);
    return out;
  }
}

/** A request as bytes on the wire. */
interface RawRequest {
  readonly method: string;
  readonly target: string;
  readonly headers: readonly (readonly [string, string | Buffer])[];
  readonly body: Buffer;
  /** Send a Content-Length matching the body (false: the request carries its own, or none). */
  readonly contentLength: boolean;
}

interface RawResponse {
  readonly status: number;
  readonly headers: ReadonlyMap<string, string>;
  readonly body: Buffer;
}

function encodeRequest(req: RawRequest, host: string): Buffer {
  const lines: Buffer[] = [Buffer.from(`${req.method} ${req.target} HTTP/1.1\r\n`, 'latin1')];
  const names = new Set(req.headers.map(([name]) => name.toLowerCase()));
  if (!names.has('host')) lines.push(Buffer.from(`Host: ${host}\r\n`));
  for (const [name, value] of req.headers) {
    lines.push(Buffer.from(`${name}: `, 'latin1'), typeof value === 'string' ? Buffer.from(value, 'latin1') : value, Buffer.from('\r\n'));
  }
  if (req.contentLength && (req.body.length > 0 || req.method === 'POST')) lines.push(Buffer.from(`Content-Length: ${req.body.length}\r\n`));
  lines.push(Buffer.from('Connection: close\r\n\r\n'));
  return Buffer.concat([...lines, req.body]);
}

/** Parse one HTTP/1.1 response read to the end of the connection; throws on anything malformed. */
function parseResponse(bytes: Buffer, method: string): RawResponse {
  // An interim `100 Continue` (after `Expect: 100-continue`) comes before the answer.
  while (/^HTTP\/1\.1 100 /.test(bytes.subarray(0, 13).toString('latin1'))) bytes = bytes.subarray(bytes.indexOf('\r\n\r\n') + 4);
  const end = bytes.indexOf('\r\n\r\n');
  if (end < 0) throw new Error(`no end of headers in ${JSON.stringify(bytes.subarray(0, 200).toString('latin1'))}`);
  const [statusLine, ...lines] = bytes.subarray(0, end).toString('latin1').split('\r\n');
  const match = /^HTTP\/1\.1 (\d{3}) [^\r\n]*$/.exec(statusLine!);
  if (!match) throw new Error(`bad status line ${JSON.stringify(statusLine)}`);
  const headers = new Map<string, string>();
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon <= 0 || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(line.slice(0, colon))) throw new Error(`bad header line ${JSON.stringify(line)}`);
    headers.set(line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim());
  }
  const status = Number(match[1]);
  let body = bytes.subarray(end + 4);
  const length = headers.get('content-length');
  if (headers.get('transfer-encoding')?.toLowerCase() === 'chunked') body = dechunk(body);
  else if (method === 'HEAD' || status === 204 || status === 304) {
    if (body.length !== 0) throw new Error(`${status} answer to ${method} with a body`);
  } else if (length !== undefined) {
    if (!/^\d+$/.test(length) || Number(length) !== body.length) throw new Error(`Content-Length ${length} but ${body.length} bytes`);
  }
  return { status, headers, body };
}

function dechunk(data: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const eol = data.indexOf('\r\n', at);
    if (eol < 0) throw new Error('bad chunked body');
    const size = parseInt(data.subarray(at, eol).toString('latin1'), 16);
    if (!Number.isFinite(size)) throw new Error('bad chunk size');
    if (size === 0) return Buffer.concat(parts);
    parts.push(data.subarray(eol + 2, eol + 2 + size));
    at = eol + 2 + size + 2;
  }
}

function sendRaw(port: number, bytes: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    const chunks: Buffer[] = [];
    socket.setTimeout(SOCKET_TIMEOUT_MS, () => socket.destroy(new Error('no answer in time')));
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', (error: NodeJS.ErrnoException) => {
      // The server may answer and close before it has read a huge body it refused.
      if ((error.code === 'EPIPE' || error.code === 'ECONNRESET') && chunks.length > 0) resolve(Buffer.concat(chunks));
      else reject(error);
    });
    socket.on('end', () => resolve(Buffer.concat(chunks)));
    socket.write(bytes);
  });
}

// --- What requests are made of ---

const WRITABLE: readonly Resource[] = [source, ruleset, user];

/** Values of the wrong type, and of the right type but wrong, for any field. */
function wrongValue(dice: Dice): unknown {
  return dice.pick<() => unknown>([
    () => null,
    () => true,
    () => false,
    () => 0,
    () => -1,
    () => 1.5,
    () => 1e400,
    () => 2 ** 53 + 1,
    () => '',
    () => '   ',
    () => dice.text(dice.int(1, 40)),
    () => 'x'.repeat(dice.int(90, 1100)),
    () => [],
    () => [dice.int(-2, 50)],
    () => [String(dice.int(0, 50)), null, {}],
    () => ({}),
    () => ({ a: [1, { b: null }] }),
    () => '\u0000',
    () => '\ud800',
    () => 'yes',
    () => 'Read-only',
    () => 'sigs',
    () => String(dice.int(-5, 99)),
    () => ' 7 ',
    () => '7.0',
    () => '1_000',
    () => 'ftp',
  ])();
}

/** A valid value for a field (names drawn from a small set, so that some collide). */
function validValue(dice: Dice, name: string, resource: Resource, known: ReadonlyMap<string, number[]>): unknown {
  const field = resource.fields[name]!;
  if (name === 'name' || name === 'username') return `fz${dice.int(0, 300)}`;
  if (name === 'email') return dice.pick(['', 'a@example.com']);
  if (name === 'password') return 'pw';
  switch (field.kind) {
    case 'choice':
      return dice.pick(field.choices);
    case 'boolean':
      return dice.chance(0.5);
    case 'refList':
      return (known.get(field.target) ?? []).filter(() => dice.chance(0.3));
    default:
      return dice.text(dice.int(0, 20), 'abc XYZ-é');
  }
}

/** A write payload: valid, valid but for one field, or wrong everywhere. */
function randomPayload(dice: Dice, resource: Resource, known: ReadonlyMap<string, number[]>): unknown {
  if (dice.chance(0.06)) return dice.pick<unknown>([[], [{}], 'x', 7, true, null, [[[]]]]);
  const writable = Object.entries(resource.fields).filter(([, field]) => !field.readOnly);
  const mode = writable.length === 0 ? 'chaos' : dice.pick(['valid', 'one-wrong', 'chaos'] as const);
  const wrong = mode === 'one-wrong' ? dice.pick(writable)[0] : undefined;
  const out: Record<string, unknown> = {};
  for (const [name] of Object.entries(resource.fields)) {
    if (dice.chance(mode === 'chaos' ? 0.4 : 0.2)) continue;
    out[name] = mode === 'chaos' || name === wrong ? wrongValue(dice) : validValue(dice, name, resource, known);
  }
  if (dice.chance(0.2)) out.comment = dice.chance(0.5) ? wrongValue(dice) : 'a comment';
  if (dice.chance(0.1)) out[dice.text(5)] = wrongValue(dice);
  return out;
}

function deepJson(levels: number, dice: Dice): string {
  return dice.chance(0.5) ? '['.repeat(levels) + ']'.repeat(levels) : '{"a":'.repeat(levels) + '1' + '}'.repeat(levels);
}

function randomBody(dice: Dice, resource: Resource, known: ReadonlyMap<string, number[]>): Buffer {
  const roll = dice.random();
  if (roll < 0.55) return Buffer.from(JSON.stringify(randomPayload(dice, resource, known)));
  if (roll < 0.6) return Buffer.alloc(0);
  if (roll < 0.63) return dice.bytes(dice.int(1, 300));
  if (roll < 0.7) return Buffer.concat([Buffer.from('{"name": "'), dice.bytes(dice.int(1, 8)), Buffer.from('"}')]);
  if (roll < 0.74) return Buffer.from(deepJson(dice.pick([257, 1000, 10_000]), dice));
  if (roll < 0.76) return Buffer.from(JSON.stringify({ name: 'big', descr: 'd'.repeat(dice.int(1, 4) * 1024 * 1024) }));
  if (roll < 0.85) {
    const valid = JSON.stringify(randomPayload(dice, resource, known));
    return Buffer.from(valid.slice(0, dice.int(0, Math.max(0, valid.length - 1))));
  }
  return Buffer.from(dice.pick(['null', '[]', '"x"', '12', 'NaN', '{"a": Infinity}', '{"a": 1e999}', '\ufeff{}', '{"comment": "c"}', '{,}']));
}

const CONTENT_TYPES = [
  'application/json',
  'application/json',
  'application/json; charset=utf-8',
  'application/json; charset=latin-1',
  'application/json; charset=ascii',
  'application/json; charset=utf-16',
  'application/json; charset=no-such',
  'application/json; charset=',
  'application/json; charset="utf-8',
  'application/json;;;',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=xyz',
  '*/*',
  'application/*',
  '',
  ';',
  'application/json\u00e9',
];

const ACCEPTS = [
  undefined,
  '*/*',
  'application/json',
  'application/json; indent=4',
  'application/json; indent=-3',
  'application/json; indent=abc',
  'application/json; indent=99999999999',
  'text/html',
  'text/html, application/json;q=0.1',
  'text/plain',
  'image/png',
  ';;;,,,',
  'application/json; q=0',
  '*/*;q=abc',
  'text/*',
  'x'.repeat(4000),
  'application/jsón',
];

function authorization(dice: Dice): string | Buffer | undefined {
  const roll = dice.random();
  if (roll < 0.7) return `Token ${ADMIN_TOKEN}`;
  if (roll < 0.76) return `Token ${VIEWER_TOKEN}`;
  if (roll < 0.82) return undefined;
  return dice.pick<() => string | Buffer>([
    () => 'Token',
    () => 'Token ',
    () => `Token ${ADMIN_TOKEN} extra`,
    () => `Bearer ${ADMIN_TOKEN}`,
    () => `token ${ADMIN_TOKEN.toUpperCase()}`,
    () => Buffer.concat([Buffer.from('Token '), dice.bytes(dice.int(1, 60)).map((b) => (b === 10 || b === 13 || b === 0 ? 0x41 : b))]),
    () => `Token ${'a'.repeat(5000)}`,
    () => `Token ${dice.text(40, 'abcdef0123456789')}`,
    () => 'Basic YWRtaW46YWRtaW4=',
    () => Buffer.from('Token \u00e9\u00e9', 'utf8'),
  ])();
}

function host(dice: Dice, port: number): string | undefined {
  if (dice.chance(0.9)) return undefined;
  return dice.pick([`localhost:${port}`, 'evil.example.com', '', `127.0.0.1:${port + 1}`, `[::1]:${port}`, '127.0.0.1', 'h'.repeat(3000), `127.0.0.1:${port}\u00e9`, `LOCALHOST:${port}`]);
}

/** A pk of an object that exists (most of the time), or junk. */
function idFor(dice: Dice, resource: Resource, known: ReadonlyMap<string, number[]>): string {
  const pks = known.get(resource.name) ?? [];
  const roll = dice.random();
  if (roll < 0.6 && pks.length > 0) return String(dice.pick(pks));
  return dice.pick(['0', '-1', '999999', '9'.repeat(dice.int(20, 400)), 'abc', '1.5', '%2B2', '%202', '2_0', '%C3%A9', '%ff%fe', '..', '%00', '2.json', '%D9%A2']);
}

const ODD_METHODS = http.METHODS.filter((m) => m !== 'CONNECT');
const INVALID_METHODS = ['FOO', 'get', 'G\u00c9T', 'POST ', ''];

function randomPath(dice: Dice, port: number, known: ReadonlyMap<string, number[]>, resource: Resource, method: string): string {
  const base = `/rest/${resource.path}/`;
  // Mostly the route a method is meant for, so that validation is reached.
  const roll = dice.random() * (method === 'POST' ? 0.5 : 1) + (['PUT', 'PATCH', 'DELETE'].includes(method) ? 0.35 * dice.random() : 0);
  if (roll < 0.35) return base;
  if (roll < 0.6) {
    let id = idFor(dice, resource, known);
    // The admin itself is never changed (the fuzz would lock itself out).
    if (resource === user && id === '1') id = '2';
    return `${base}${id}/`;
  }
  if (roll < 0.66 && resource === user) return `${base}${dice.pick(['2', '3', '999', 'x'])}/${dice.pick(['token', 'password', 'nope'])}/`;
  return dice.pick<() => string>([
    () => '/rest/',
    () => '/rest',
    () => '/',
    () => '/rest/nothing/',
    () => `/rest/${'a/'.repeat(dice.int(1, 3000))}`,
    () => `/rest/${dice.text(dice.int(1, 50), '%0123456789ABCDEFGHXYZ/')}`,
    () => `${base}..%2F..%2F/`,
    () => `/rest/../rest/${resource.path}/`,
    () => `/rest/rules/history/get_action_type_list/`,
    () => `/rest/accounts/sciriususer/current_user/`,
    () => `/rules/hunt?session=temporary&page=HOSTS_LIST&ip=${dice.pick(['10.0.0.1', '%ff', 'x', '::1'])}`,
    () => `${base.slice(0, -1)}.${dice.pick(['json', 'api', 'xml', 'JSON'])}`,
    () => `//rest//${resource.path}//`,
    () => `/rest/${resource.path}/${'9'.repeat(10_000)}/`,
    () => `http://127.0.0.1:${port}/rest/`,
    () => '*',
  ])();
}

function randomQuery(dice: Dice, resource: Resource): string {
  if (dice.chance(0.45)) return '';
  const pairs: string[] = [];
  const keys = ['page', 'page_size', 'ordering', 'search', 'format', 'host_id_qfilter', ...resource.filters, 'comment', 'unknown', ''];
  const values = () =>
    dice.pick<() => string>([
      () => String(dice.int(-3, 40)),
      () => 'last',
      () => '',
      () => '%00',
      () => '%zz',
      () => '%',
      () => '%e9',
      () => '%C3%A9',
      () => '%ff%fe%fd',
      () => encodeURIComponent(dice.text(dice.int(1, 30))),
      () => dice.pick([...resource.ordering, ...resource.ordering.map((f) => `-${f}`), 'nope', '--x']).concat(dice.chance(0.3) ? ',-pk' : ''),
      () => '9'.repeat(dice.int(10, 500)),
      () => 'true',
      () => 'False',
      () => 'x'.repeat(dice.int(1000, 6000)),
      () => '"quoted+phrase"',
      () => 'a,b,,c',
      () => 'json',
      () => 'api',
      // The hostile values of issue 8: each once froze the server or ended in a 500.
      () => encodeURIComponent(dice.pick(['host_id.http.user_agent.agent:', 'hostname.host:', '']) + '*?'.repeat(dice.int(3, 40)) + '#'),
      () => encodeURIComponent(`hostname.host:${'*a'.repeat(dice.int(10, 400))}*b`),
      () => encodeURIComponent('!'.repeat(dice.int(10, 4000)) + 'x'),
      () => encodeURIComponent('('.repeat(dice.int(10, 2000)) + 'x' + ')'.repeat(dice.int(0, 2000))),
      () => Array.from({ length: dice.int(30, 1200) }, (_, n) => n.toString(36)).join('+'),
      () => Array(dice.int(100, 2000)).fill(dice.pick([...resource.ordering, 'pk'])).join(','),
    ])();
  const count = dice.int(1, 8);
  for (let i = 0; i < count; i++) pairs.push(`${dice.pick(keys)}=${values()}`);
  if (dice.chance(0.05)) pairs.push('&&&=&');
  if (dice.chance(0.01)) pairs.push(dice.pick(['raw=\u0000', 'raw=\u00e9', 'raw=a b', 'raw=\t']));
  return `?${pairs.join('&')}`;
}

function randomRequest(dice: Dice, port: number, known: ReadonlyMap<string, number[]>): RawRequest {
  const writing = dice.chance(0.6);
  const resource = writing ? dice.pick(WRITABLE) : dice.pick(RESOURCES);
  const method = writing
    ? dice.pick(['POST', 'POST', 'PUT', 'PATCH', 'PATCH', 'DELETE'])
    : dice.chance(0.85)
      ? dice.pick(['GET', 'GET', 'GET', 'HEAD', 'OPTIONS'])
      : dice.chance(0.85)
        ? dice.pick(ODD_METHODS)
        : dice.pick(INVALID_METHODS);
  const target = randomPath(dice, port, known, resource, method) + randomQuery(dice, resource);
  const headers: [string, string | Buffer][] = [];
  const auth = authorization(dice);
  if (auth !== undefined) headers.push(['Authorization', auth]);
  const accept = dice.chance(0.75) ? dice.pick([undefined, '*/*', 'application/json']) : dice.pick(ACCEPTS);
  if (accept !== undefined) headers.push(['Accept', accept]);
  const hostHeader = host(dice, port);
  if (hostHeader !== undefined) headers.push(['Host', hostHeader]);
  if (dice.chance(0.03)) headers.push(['Host', `127.0.0.1:${port}`]);
  if (dice.chance(0.02)) headers.push(['Expect', dice.pick(['100-continue', 'nonsense'])]);
  if (dice.chance(0.05)) headers.push(['Cookie', `sessionid=${dice.text(dice.int(1, 70), 'abcdef0123456789;= ')}`], ['X-CSRFToken', dice.text(10)]);
  let body: Buffer = Buffer.alloc(0);
  if (writing || dice.chance(0.1)) {
    body = randomBody(dice, resource, known);
    if (dice.chance(0.95)) headers.push(['Content-Type', dice.chance(0.75) ? 'application/json' : dice.pick(CONTENT_TYPES)]);
  }
  let contentLength = true;
  if (dice.chance(0.02)) {
    contentLength = false;
    headers.push(['Content-Length', dice.pick(['abc', '-1', `${body.length} , ${body.length}`, '1e3'])]);
  } else if (dice.chance(0.02)) {
    contentLength = false;
    const chunked = body.length === 0 ? '0\r\n\r\n' : `${body.length.toString(16)}\r\n${body.toString('latin1')}\r\n0\r\n\r\n`;
    headers.push(['Transfer-Encoding', 'chunked']);
    body = Buffer.from(chunked, 'latin1');
  }
  return { method, target, headers, body, contentLength };
}

// --- The run ---

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
  addUser(server, 'viewer', 'Read-only', VIEWER_TOKEN);
  // Hosts with long values, for the host_id_qfilter wildcard soups to run over.
  const seen = { first_seen: '2024-01-01T00:00:00+00:00', last_seen: '2024-01-02T00:00:00+00:00' };
  const agent = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36 Edg/1';
  const hosts = Array.from({ length: 50 }, (_, i) => ({
    ip: `10.7.0.${i}`,
    host_id: { ...seen, hostname: [{ host: i === 0 ? 'a'.repeat(3000) : `host-${i}.corp.local`, ...seen }], 'http.user_agent': [{ agent, ...seen }] },
  }));
  expect((await server.api.post('/rest/appliances/host_id/import/', hosts)).status).toBe(201);
});
afterAll(() => server?.close());

test(`${REQUESTS} random malformed and hostile requests: no 5xx, each answered within a bound, well-formed answers, a sound database afterwards`, async () => {
  console.log(`fuzz seed ${SEED} (replay: FUZZ_SEED=${SEED}), ${REQUESTS} requests`);
  const port = Number(new URL(server.url).port);
  const hostName = `127.0.0.1:${port}`;
  const dice = new Dice(prng(SEED));
  const known = new Map<string, number[]>([['sciriususer', [2]]]);
  const statuses = new Map<number, number>();
  const failures: string[] = [];
  const started = Date.now();

  for (let i = 0; i < REQUESTS; i++) {
    const req = randomRequest(dice, port, known);
    const label = `#${i} ${req.method} ${req.target.slice(0, 120)} (${req.body.length} bytes)`;
    let response: RawResponse;
    const sent = performance.now();
    try {
      response = parseResponse(await sendRaw(port, encodeRequest(req, hostName)), req.method);
    } catch (error) {
      failures.push(`${label}: ${(error as Error).message}`);
      continue;
    }
    // No request may hold the server: every answer comes within a bound, whatever was asked.
    const ms = performance.now() - sent;
    if (ms > ANSWER_BOUND_MS) failures.push(`${label}: answered after ${Math.round(ms)} ms`);
    statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
    if (response.status >= 500) failures.push(`${label}: ${response.status} ${response.body.subarray(0, 300).toString('utf8')}`);
    const type = response.headers.get('content-type') ?? '';
    if (/^application\/json\b/.test(type) && response.body.length > 0) {
      try {
        const parsed = JSON.parse(response.body.toString('utf8'));
        const created = WRITABLE.find((r) => req.target.startsWith(`/rest/${r.path}/`));
        if (response.status === 201 && typeof parsed?.pk === 'number' && created) {
          known.set(created.name, [...(known.get(created.name) ?? []), parsed.pk]);
        }
      } catch {
        failures.push(`${label}: says JSON but is not: ${response.body.subarray(0, 200).toString('latin1')}`);
      }
    }
  }
  const seconds = (Date.now() - started) / 1000;
  console.log(`fuzz: ${REQUESTS} requests in ${seconds.toFixed(1)} s; statuses ${JSON.stringify(Object.fromEntries([...statuses].sort((a, b) => a[0] - b[0])))}`);
  expect(failures.slice(0, 20), `seed ${SEED}: ${failures.length} failures`).toEqual([]);

  // Still serving, and the database still sound.
  const root = await fetch(`${server.url}/rest/`, { headers: { Authorization: `Token ${ADMIN_TOKEN}` } });
  expect(root.status).toBe(200);
  const db = server.workspace.services.store.db;
  expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
  expect(db.pragma('foreign_key_check')).toEqual([]);

  // Every stored object is listed, and valid as a write of itself.
  const lookups = {
    refExists: (target: string, pk: number) => server.workspace.services.exists(target, pk),
    uniqueTaken: () => false,
  };
  for (const resource of [...WRITABLE, RESOURCES.find((r) => r.name === 'history')!]) {
    let next: string | null = `${server.url}/rest/${resource.path}/?page_size=500`;
    let seen = 0;
    let count = -1;
    while (next) {
      const page = await fetch(next, { headers: { Authorization: `Token ${ADMIN_TOKEN}` } });
      expect(page.status, next).toBe(200);
      const body = (await page.json()) as { count: number; next: string | null; results: Record<string, never>[] };
      count = body.count;
      seen += body.results.length;
      if (resource.access === 'read-write') {
        for (const object of body.results) expect(() => validateWrite(resource, object, 'update', lookups), JSON.stringify(object)).not.toThrow();
      }
      next = body.next;
    }
    expect(seen).toBe(count);
  }
}, 120_000);
