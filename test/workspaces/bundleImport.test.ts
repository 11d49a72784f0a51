/**
 * app.md §2: a workspace bundle is a file from a USB stick or a mail, so its import trusts none of
 * it. Secrets are ignored (its accounts sign in once a manager of this Outpost lets them), every
 * row is checked against its table's schema, and a crafted bundle is refused whole, naming the
 * table, the row and the reason, with nothing left behind.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { hashPassword } from '../../electron/server/store/users';
import { MAX_HISTORY_ENTRY } from '../../electron/workspaces/bundleCheck';
import { importedAccountsText } from '../../shared/app/importedAccounts';
import { request, type Reply } from '../helpers/http';
import { startAppServer, type TestAppServer } from '../helpers/server';

let server: TestAppServer;
/** The default workspace with one object of every kind a bundle carries, exported. */
let base: Bundle;

type Row = Record<string, unknown>;
interface Bundle {
  name: string;
  tables: Record<string, Row[]>;
  [key: string]: unknown;
}

beforeAll(async () => {
  server = await startAppServer();
  const { api } = server;
  const source = (await api.post('/rest/rules/source/', { name: 'emerging' })).json();
  const ruleset = (await api.post('/rest/rules/ruleset/', { name: 'baseline', sources: [source.pk] })).json();
  const template = (await api.post('/rest/appliances/vendor_probe_template/', { name: 'site', interfaces: [{ name: 'eth0' }], protocols: [{ name: 'http' }] })).json();
  await api.post('/rest/appliances/vendor_probe/', { name: 'gate', address: '10.0.0.1', parent_tmpl: template.pk, comment: 'at the gate' });
  await api.post('/rest/appliances/engine_probe/', { name: 'core', address: '10.0.0.2', ruleset: ruleset.pk });
  await api.post('/rest/appliances/host_id/import/', [
    { ip: '10.9.8.7', hits: 3, host_id: { first_seen: '2026-11-01T08:00:00Z', last_seen: '2026-11-02T08:00:00Z', hostname: [{ host: 'db.example', first_seen: '2026-11-01T08:00:00Z', last_seen: '2026-11-02T08:00:00Z' }] } },
  ]);
  await api.post('/rest/appliances/threat/import/', [{ pk: 5, name: 'Trojan', creation_date: '2024-01-02', links: { ref: 'x' } }]);
  await api.post('/rest/accounts/sciriususer/', { username: 'bob', password: 'a long enough password', role: 'Read-only' });
  base = (await api.get('/app/workspaces/default/export')).json();
});
afterAll(() => server.close());

const copy = (): Bundle => structuredClone(base);
const rowOf = (bundle: Bundle, table: string, match: (row: Row) => boolean): Row => bundle.tables[table]!.find(match)!;
const importBundle = (name: string, bundle: unknown) =>
  server.api.post(`/app/workspaces/import?name=${name}`, undefined, { body: JSON.stringify(bundle), headers: { 'Content-Type': 'application/json' } });
const workspaceFiles = () => fs.readdirSync(path.join(server.dir, 'workspaces')).sort();

/** Sign in at /api-auth/login/ as the app's sign-in screen does (the form, its token, JSON asked). */
async function signIn(username: string, password: string): Promise<Reply> {
  const page = await request(server.url, 'GET', '/api-auth/login/');
  const token = /name="csrfmiddlewaretoken" value="([^"]*)"/.exec(page.text)![1]!;
  const cookie = [page.headers['set-cookie'] ?? []].flat().map((line) => line.split(';')[0]).join('; ');
  return request(server.url, 'POST', '/api-auth/login/', {
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json', Cookie: cookie },
    body: new URLSearchParams({ csrfmiddlewaretoken: token, username, password }).toString(),
  });
}

describe('a bundle from elsewhere', () => {
  test('a normal export → import brings every row back as it was', async () => {
    const imported = await importBundle('round-trip', base);
    expect(imported.status, imported.text).toBe(201);
    const again = (await server.api.get('/app/workspaces/round-trip/export')).json();
    expect(again.tables).toEqual(base.tables);
  });

  test('a Superuser with a known password hash and a token cannot sign in; the manager is told how many accounts came and what they may do', async () => {
    const bundle = copy();
    const known = 'the attacker knows this one';
    bundle.tables.user!.push({ ...rowOf(bundle, 'user', (u) => u.username === 'bob'), pk: 90, username: 'mallory', role: 'Superuser', is_superuser: 1, is_staff: 1, password: hashPassword(known) });
    const planted = 'f'.repeat(40);
    bundle.tables.token = [{ digest: 'x', key: planted, user: 90, created: 1 }];

    const imported = await importBundle('planted', bundle);
    expect(imported.status, imported.text).toBe(201);
    // bob (Read-only) and mallory (Superuser) came; admin is this Outpost's own.
    expect(imported.json()).toEqual({ name: 'planted', accounts: { count: 2, roles: { Superuser: 1, Admin: 0, 'Read-only': 1 } } });
    expect(importedAccountsText(imported.json().accounts)).toMatch(/^2 accounts came with it \(1 Superuser, 1 Read-only\): none can sign in until a manager/);

    await server.api.post('/app/workspaces/planted/open');
    try {
      const refused = await signIn('mallory', known);
      expect(refused.status).toBe(400);
      expect(refused.json()).toEqual({ non_field_errors: [expect.stringMatching(/^Please enter a correct username and password/)] });
      expect((await request(server.url, 'GET', '/app/workspaces', { token: planted })).status).toBe(403);
      expect((await request(server.url, 'GET', '/rest/', { token: planted })).status).toBe(403);

      // Once a manager of this Outpost sets a password, the account signs in, with its role.
      const mallory = (await server.api.get('/rest/accounts/sciriususer/?username=mallory')).json().results[0];
      expect(mallory).toMatchObject({ pk: 90, role: 'Superuser' });
      expect((await server.api.post(`/rest/accounts/sciriususer/90/password/`, { new_password: 'set by the manager here' })).status).toBe(200);
      expect((await signIn('mallory', known)).status).toBe(400);
      expect((await signIn('mallory', 'set by the manager here')).status).toBe(200);
    } finally {
      await server.api.post('/app/workspaces/default/open');
    }
  });

  test('the account admin is this Outpost’s own: a bundle cannot take it away from the data folder’s token', async () => {
    const bundle = copy();
    Object.assign(rowOf(bundle, 'user', (u) => u.username === 'admin'), { role: 'Read-only', is_superuser: 0, is_active: 0 });
    expect((await importBundle('demoted', bundle)).status).toBe(201);
    await server.api.post('/app/workspaces/demoted/open');
    try {
      expect((await server.api.get('/app/workspaces')).status).toBe(200);
    } finally {
      expect((await server.api.post('/app/workspaces/default/open')).status).toBe(200);
    }
  });
});

/** A crafted row: how it is made from the exported bundle, and the table, row and reason the refusal names. */
const CRAFTED: readonly { readonly kind: string; readonly craft: (bundle: Bundle) => void; readonly table: string; readonly row: number; readonly reason: RegExp }[] = [
  {
    kind: 'a value of the wrong type',
    craft: (b) => Object.assign(b.tables.source![0]!, { version: 'one' }),
    table: 'source',
    row: 1,
    reason: /version: expected an integer, got text/,
  },
  {
    kind: 'a value too long',
    craft: (b) => Object.assign(rowOf(b, 'appliance', (a) => a.name === 'core'), { name: 'x'.repeat(101) }),
    table: 'appliance',
    row: 2,
    reason: /name: Ensure this field has no more than 100 characters\./,
  },
  {
    kind: 'a reference to no row of the bundle',
    craft: (b) => Object.assign(rowOf(b, 'appliance', (a) => a.name === 'gate'), { parent_tmpl: 999 }),
    table: 'appliance',
    row: 1,
    reason: /parent_tmpl: Invalid pk "999" - object does not exist\./,
  },
  {
    kind: 'a choice not among the choices',
    craft: (b) => Object.assign(rowOf(b, 'user', (u) => u.username === 'bob'), { role: 'God' }),
    table: 'user',
    row: 2,
    reason: /role: "God" is not a valid choice\./,
  },
  {
    kind: 'a host identity the host import refuses',
    craft: (b) => {
      const host = b.tables.host_id![0]!;
      host.data = JSON.stringify({ ...JSON.parse(host.data as string), first_seen: 'yesterday' });
    },
    table: 'host_id',
    row: 1,
    reason: /data: host_id: first_seen: Datetime has wrong format/,
  },
  {
    kind: 'a history entry larger than a write makes',
    craft: (b) => Object.assign(b.tables.user_action![0]!, { comment: 'x'.repeat(MAX_HISTORY_ENTRY) }),
    table: 'user_action',
    row: 1,
    reason: /more than 1048576 characters/,
  },
  {
    kind: 'a history entry of no action',
    craft: (b) => Object.assign(b.tables.user_action![0]!, { action_type: 'grant_root' }),
    table: 'user_action',
    row: 1,
    reason: /action_type: not an action of the history/,
  },
  {
    kind: 'a pk sequence out of range',
    craft: (b) => Object.assign(rowOf(b, 'sqlite_sequence', (s) => s.name === 'appliance'), { seq: Number.MAX_SAFE_INTEGER }),
    table: 'sqlite_sequence',
    row: 1,
    reason: /seq: out of range/,
  },
  {
    kind: 'a template that is its own parent',
    craft: (b) => Object.assign(b.tables.vendor_probe_template![0]!, { parent_tmpl: b.tables.vendor_probe_template![0]!.pk }),
    table: 'vendor_probe_template',
    row: 1,
    reason: /parent_tmpl: its parents lead back to itself/,
  },
  {
    kind: 'an unknown column',
    craft: (b) => Object.assign(b.tables.threat![0]!, { evil: 1 }),
    table: 'threat',
    row: 1,
    reason: /unknown column "evil"/,
  },
];

describe('a crafted bundle is refused whole, naming the table, the row and the reason', () => {
  test.each(CRAFTED.map((crafted, at) => ({ ...crafted, name: `crafted-${at}` })))('$kind', async ({ craft, table, row, reason, name }) => {
    const bundle = copy();
    craft(bundle);
    const before = workspaceFiles();
    const reply = await importBundle(name, bundle);
    expect(reply.status).toBe(400);
    expect(reply.json()).toEqual({ detail: expect.stringContaining(`table "${table}", row ${row}: `) });
    expect(reply.json().detail).toMatch(reason);
    expect(workspaceFiles()).toEqual(before);
  });

  test('an unknown table', async () => {
    const bundle = copy();
    bundle.tables.outbox = [];
    const reply = await importBundle('crafted-table', bundle);
    expect(reply.status).toBe(400);
    expect(reply.json()).toEqual({ detail: 'the bundle has an unknown table "outbox"' });
  });
});
