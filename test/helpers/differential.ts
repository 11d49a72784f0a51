/**
 * Differential testing: the same request sent to Outpost and to the reference DRF server, and
 * both answers reduced to what must be equal. What legitimately differs is removed by the named
 * normalisations below, each one citing the api.md or reference-README item that allows it; a
 * test opts into the deliberate-difference ones explicitly, so every one of them is visible in
 * the test that relies on it (and listed in docs/differences.md).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { Client, type Reply, type RequestOptions } from './http';
import { startReference, type ReferenceServer } from './reference';
import { addUser, startServer, ADMIN_TOKEN, type TestServer } from './server';

/** A parsed JSON body or the raw text of any other body; tests read bodies loosely. */
export type Body = any;

/** What is compared of one answer. */
export interface Observed {
  readonly status: number;
  /** The headers api.md §1 names, by lower-case name (absent ones left out). */
  readonly headers: Readonly<Record<string, string>>;
  /** Parsed JSON when the answer says JSON, the text otherwise, null when there is no body. */
  readonly body: Body;
}

export interface Answers {
  readonly outpost: Observed;
  readonly reference: Observed;
}

/** A user that exists on both servers with the same pk, role and token. */
export interface TwinUser {
  readonly username: string;
  readonly role: 'Superuser' | 'Admin' | 'Read-only';
  readonly token: string;
  readonly active: boolean;
}

export const VIEWER: TwinUser = { username: 'viewer', role: 'Read-only', token: '1'.repeat(40), active: true };
export const FORMER: TwinUser = { username: 'former', role: 'Read-only', token: '3'.repeat(40), active: false };

/** One request as sent to one server. */
export interface Sent {
  readonly method: string;
  readonly path: string;
  readonly options?: RequestOptions;
}

export interface Twins {
  readonly outpost: TestServer;
  readonly reference: ReferenceServer;
  /** Send to both and observe both answers, normalised by the common normalisations and `extra`. */
  compare(method: string, path: string, options?: RequestOptions, ...extra: Normalisation[]): Promise<Answers>;
  /**
   * Send one request to Outpost and another to the reference: when the request itself must
   * differ (each server's own token, or a documented difference in what a request means).
   */
  compareRequests(toOutpost: Sent, toReference: Sent, ...extra: Normalisation[]): Promise<Answers>;
  /**
   * A series of requests sent to both, each server getting them one after the other in the given
   * order, the two series at the same time: each server sees what `compare` one by one would show
   * it (so pks agree), in about half the time. For setting up many objects.
   */
  compareMany(requests: readonly Sent[], ...extra: Normalisation[]): Promise<Answers[]>;
  /**
   * Both servers back to the state `startTwins` gave them (the admin and the extra users only;
   * the next object created gets pk 1 again), so that what a test created before is gone:
   * Outpost is replaced by a fresh server (it starts in a few ms; `outpost` is then the new one),
   * the reference keeps running and its database is put back as it was just after it started
   * (starting a reference server takes about 0.7 s). Only while no request is under way.
   */
  reset(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Both servers, fresh, with the admin token `ADMIN_TOKEN` and the same extra users created in
 * the same order (so that their pks agree): on the reference through a seed file, on Outpost
 * directly in its database.
 */
export async function startTwins(users: readonly TwinUser[] = [VIEWER, FORMER]): Promise<Twins> {
  const seedDir = fs.mkdtempSync(path.join(os.tmpdir(), 'outpost-diff-seed-'));
  const seedFile = path.join(seedDir, 'seed.json');
  fs.writeFileSync(
    seedFile,
    JSON.stringify({ users: users.map((u) => ({ username: u.username, role: u.role, is_active: u.active, token: u.token })) }),
  );
  const startOutpost = async (): Promise<TestServer> => {
    const server = await startServer();
    for (const user of users) addUser(server, user.username, user.role, user.token, user.active);
    return server;
  };
  const [firstOutpost, reference] = await Promise.all([startOutpost(), startReference({ seed: seedFile, token: ADMIN_TOKEN })]);
  let outpost = firstOutpost;
  const referenceDatabase = path.join(reference.dataDir, 'db.sqlite3');
  const referenceStart = path.join(seedDir, 'reference-start.sqlite3');
  copyDatabase(referenceDatabase, referenceStart);

  const compareRequests = async (toOutpost: Sent, toReference: Sent, ...extra: Normalisation[]): Promise<Answers> => {
    // One after the other: a write must land on both before the next request reads it, and
    // the two servers must see requests in the same order.
    const o = await new Client(outpost.url, ADMIN_TOKEN).send(toOutpost.method, toOutpost.path, toOutpost.options);
    const r = await new Client(reference.url, ADMIN_TOKEN).send(toReference.method, toReference.path, toReference.options);
    return {
      outpost: normalise(observe(o), outpost.url, 'outpost', extra),
      reference: normalise(observe(r), reference.url, 'reference', extra),
    };
  };
  const series = async (server: TestServer | ReferenceServer, side: 'outpost' | 'reference', requests: readonly Sent[], extra: readonly Normalisation[]) => {
    const client = new Client(server.url, ADMIN_TOKEN);
    const observed: Observed[] = [];
    for (const sent of requests) observed.push(normalise(observe(await client.send(sent.method, sent.path, sent.options)), server.url, side, extra));
    return observed;
  };
  return {
    get outpost() {
      return outpost;
    },
    reference,
    compareRequests,
    compare: (method, path, options = {}, ...extra) => compareRequests({ method, path, options }, { method, path, options }, ...extra),
    async compareMany(requests, ...extra) {
      const [o, r] = await Promise.all([series(outpost, 'outpost', requests, extra), series(reference, 'reference', requests, extra)]);
      return o.map((answer, i) => ({ outpost: answer, reference: r[i]! }));
    },
    async reset() {
      await outpost.close();
      outpost = await startOutpost();
      restoreDatabase(referenceDatabase, referenceStart);
    },
    async close() {
      await Promise.all([outpost.close(), reference.stop()]);
      fs.rmSync(seedDir, { recursive: true, force: true });
    },
  };
}

/** A consistent copy of an SQLite database (which may be in use) to a new file. */
function copyDatabase(file: string, copy: string): void {
  const db = new Database(file, { timeout: 30_000 });
  try {
    db.prepare('VACUUM INTO ?').run(copy);
  } finally {
    db.close();
  }
}

/**
 * Every table of the database `file` given back the rows it has in `copy` (made by `copyDatabase`
 * from it; same schema), `sqlite_sequence` included so that new rows get the same pks again: in
 * one transaction, which the reference server's next request sees whole (Django opens a new
 * connection for each request).
 */
function restoreDatabase(file: string, copy: string): void {
  const db = new Database(file, { timeout: 30_000 });
  try {
    db.pragma('foreign_keys = OFF');
    db.prepare('ATTACH DATABASE ? AS copy').run(copy);
    const tables = db.prepare("SELECT name FROM main.sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'").pluck().all() as string[];
    const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`;
    db.transaction(() => {
      for (const table of [...tables, 'sqlite_sequence']) {
        db.exec(`DELETE FROM main.${quoted(table)}; INSERT INTO main.${quoted(table)} SELECT * FROM copy.${quoted(table)};`);
      }
    }).immediate();
  } finally {
    db.close();
  }
}

/** Headers api.md §1 lists for every answer, plus the ones that say what the body is. */
export const COMPARED_HEADERS = [
  'allow',
  'vary',
  'x-content-type-options',
  'x-frame-options',
  'referrer-policy',
  'content-type',
  'www-authenticate',
] as const;

export function observe(reply: Reply): Observed {
  const headers: Record<string, string> = {};
  for (const name of COMPARED_HEADERS) {
    const value = reply.headers[name];
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  const type = headers['content-type'] ?? '';
  let body: Body = reply.text === '' ? null : reply.text;
  if (body !== null && /^application\/json\b/.test(type)) body = JSON.parse(reply.text);
  return { status: reply.status, headers, body };
}

/** One normalisation: the answer of `side`, with what may differ made equal. */
export type Normalisation = (answer: Observed, side: 'outpost' | 'reference') => Observed;

function normalise(answer: Observed, origin: string, side: 'outpost' | 'reference', extra: readonly Normalisation[]): Observed {
  let out = withoutOrigin(answer, origin);
  out = withoutTimestamps(out);
  for (const step of extra) out = step(out, side);
  return out;
}

/** Apply `fn` to every string in a JSON value. */
function mapStrings(value: Body, fn: (text: string) => string): Body {
  if (typeof value === 'string') return fn(value);
  if (Array.isArray(value)) return value.map((item) => mapStrings(item, fn));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, mapStrings(v, fn)]));
  }
  return value;
}

/**
 * api.md §2 "Absolute URLs use the request's own scheme and Host": each server names itself,
 * so `http://127.0.0.1:<port>` becomes `<origin>` (the rest of the URL is compared).
 */
export function withoutOrigin(answer: Observed, origin: string): Observed {
  return { ...answer, body: mapStrings(answer.body, (text) => (text.startsWith(origin) ? `<origin>${text.slice(origin.length)}` : text)) };
}

/** DRF's datetime form (api.md §1 "datetimes"): ISO 8601 UTC with `Z`, microseconds unless zero. */
export const DRF_DATETIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{6})?Z$/;

/**
 * api.md §1 "datetimes": the servers write at different instants, so a value in DRF's exact form
 * becomes `<datetime>`; a value in any other form is left as it is and shows as a difference.
 */
export function withoutTimestamps(answer: Observed): Observed {
  return { ...answer, body: mapStrings(answer.body, (text) => (DRF_DATETIME.test(text) ? '<datetime>' : text)) };
}

// --- Deliberate differences (docs/differences.md); a test names the ones it relies on. ---

/**
 * Reference README difference 9, and api.md §1 OPTIONS: `description` is the endpoint's own
 * documentation (the reference has empty docstrings) and `parses` lists only JSON (difference 3:
 * the reference also parses form bodies). Both keys must be present; their values are not compared.
 */
export const optionsDocumentation: Normalisation = (answer) => {
  if (answer.body === null || typeof answer.body !== 'object') return answer;
  const { description, parses, ...rest } = answer.body;
  return {
    ...answer,
    body: { ...rest, description: typeof description === 'string' ? '<text>' : description, parses: Array.isArray(parses) ? '<list>' : parses },
  };
};

/**
 * Reference README difference 3, api.md §1 "media type": a body sent without Content-Type is
 * 415 `Unsupported media type "" in request.`; the reference's WSGI server calls it text/plain.
 */
export const missingContentTypeIsEmpty: Normalisation = (answer, side) => {
  if (side !== 'reference' || answer.status !== 415) return answer;
  return { ...answer, body: { detail: 'Unsupported media type "" in request.' } };
};

/**
 * Reference README difference 2, api.md §1 "not found": an unknown path is the JSON 404
 * `{"detail": "Not found."}` on Outpost; the reference answers Django's HTML page. (Neither has
 * Allow or Vary there: no view was found.)
 */
export const unknownPathIsJson404: Normalisation = (answer, side) => {
  if (side !== 'reference' || answer.status !== 404 || !String(answer.headers['content-type']).startsWith('text/html')) return answer;
  if (!/<h1>Not Found<\/h1>/.test(String(answer.body))) return answer;
  return {
    ...answer,
    headers: { ...answer.headers, 'content-type': 'application/json' },
    body: { detail: 'Not found.' },
  };
};

/**
 * api.md §6 `token/`: a regenerated key is random on each server; it must be 40 lowercase hex
 * characters, then it becomes `<token>`.
 */
export const regeneratedToken: Normalisation = (answer) => {
  if (answer.body === null || typeof answer.body !== 'object' || typeof answer.body.token !== 'string') return answer;
  if (!/^[0-9a-f]{40}$/.test(answer.body.token)) return answer;
  return { ...answer, body: { ...answer.body, token: '<token>' } };
};

/** A list page's `results`, or the body itself when it is a list. */
function resultsOf(body: Body): Body[] | undefined {
  if (Array.isArray(body)) return body;
  if (body !== null && typeof body === 'object' && Array.isArray(body.results)) return body.results;
  return undefined;
}

/**
 * Reference README difference 7, api.md §2 "ordering": Outpost breaks ties by `pk` ascending;
 * DRF orders by exactly the requested terms. So the reference's results are re-sorted (stably)
 * by the same terms with `pk` last; the set of objects and their order by the requested terms
 * are still compared. Only meaningful on a whole result set, not on one page of it.
 */
export function tiesByPk(ordering: string): Normalisation {
  const terms = ordering
    .split(',')
    .map((t) => t.trim())
    .filter((t) => t !== '')
    .map((t) => (t.startsWith('-') ? { field: t.slice(1), sign: -1 } : { field: t, sign: 1 }));
  const compare = (a: Body, b: Body): number => {
    for (const { field, sign } of terms) {
      const x = a[field];
      const y = b[field];
      if (x !== y) return (x < y ? -1 : 1) * sign;
    }
    return a.pk - b.pk;
  };
  return (answer, side) => {
    const results = resultsOf(answer.body);
    if (side !== 'reference' || !results) return answer;
    const sorted = [...results].sort(compare);
    return { ...answer, body: Array.isArray(answer.body) ? sorted : { ...answer.body, results: sorted } };
  };
}
