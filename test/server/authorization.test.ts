/**
 * Issue 8, "authorization": who may call what, route by route, for an anonymous caller, a
 * read-only user and a manager; no answer and no export carries a password hash or a token; the
 * workspace always keeps an active superuser.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { RESOURCES } from '../../shared/resources';
import { APP_ROUTES, appRoleFor, matchAppRoute } from '../../shared/app/routes';
import type { Client } from '../helpers/http';
import { startAppServer, ADMIN_TOKEN, type TestAppServer } from '../helpers/server';

const VIEWER_TOKEN = 'c'.repeat(40);
let app: TestAppServer;
let viewer: Client;
let anonymous: Client;

beforeAll(async () => {
  app = await startAppServer();
  const { services } = app.host.current();
  services.store.write(() => {
    services.store.db
      .prepare("INSERT INTO user (username, password, role, is_active, date_joined) VALUES ('viewer', '', 'Read-only', 1, ?)")
      .run(services.store.now());
  });
  services.users.setToken(services.users.byUsername('viewer')!.pk, VIEWER_TOKEN);
  viewer = app.api.as(VIEWER_TOKEN);
  anonymous = app.api.as(null);
  expect((await app.api.post('/rest/accounts/sciriususer/1/password/', { new_password: 'correct horse battery staple' })).status).toBe(200);
});
afterAll(() => app.close());

/** Every /app/ route, with a body that changes nothing when the call is allowed (unknown names). */
const APP_CALLS: readonly [method: string, path: string, body?: unknown][] = [
  ['GET', '/app/status'],
  ['GET', '/app/central-link?ip=10.0.0.1'],
  ['GET', '/app/workspaces'],
  ['POST', '/app/workspaces', {}],
  ['POST', '/app/workspaces/import', {}],
  ['PATCH', '/app/workspaces/no-such', {}],
  ['DELETE', '/app/workspaces/no-such'],
  ['POST', '/app/workspaces/no-such/open'],
  ['GET', '/app/workspaces/default/export'],
  ['GET', '/app/remotes'],
  ['POST', '/app/remotes', {}],
  ['PATCH', '/app/remotes/no-such', {}],
  ['DELETE', '/app/remotes/no-such'],
  ['POST', '/app/remotes/no-such/test', {}],
  ['POST', '/app/hosts/import-eve', {}],
  ['GET', '/app/hosts/import-eve'],
  ['GET', '/app/hosts'],
  ['GET', '/app/hosts/facets'],
  ['GET', '/app/hosts/fields'],
  ['GET', '/app/hosts/values?field=ip&prefix=10'],
  ['GET', '/app/hosts/version'],
  ['GET', '/app/hosts/visits'],
  ['GET', '/app/hosts/changes?since=2020-01-01'],
  ['GET', '/app/hosts/export/csv'],
  ['GET', '/app/hosts/export/json'],
  ['GET', '/app/hosts/export/json/part?from=0&to=0'],
  ['GET', '/app/hosts/report'],
  ['GET', '/app/hosts/report/pdf'],
  ['GET', '/app/settings/home-nets'],
  ['PUT', '/app/settings/home-nets', {}],
  ['GET', '/app/history'],
  // Entry 1: the password change above.
  ['GET', '/app/history/1/changes'],
  ['GET', '/app/sync'],
  ['POST', '/app/sync', {}],
  ['GET', '/app/sync/conflicts'],
  ['GET', '/app/sync/remote-history'],
  ['DELETE', '/app/sync/entries/1'],
  ['POST', '/app/sync/entries/1/retry', {}],
  ['POST', '/app/sync/entries/1/resolve', {}],
  ['GET', '/app/sync/plan'],
  ['POST', '/app/sync/apply', {}],
  ['PUT', '/app/sync/push-mode', {}],
  ['POST', '/app/workspaces/no-such/connect/plan', {}],
  ['POST', '/app/workspaces/no-such/connect', {}],
  ['POST', '/app/templates/999999/preview', {}],
];

/** What the rule table grants a read-only user. */
function readOnlyMay(method: string, path: string): boolean {
  const segments = new URL(path, 'http://x').pathname.split('/').slice(2).filter((s) => s !== '');
  return appRoleFor(method, segments) === 'any';
}

test('the list above covers every route of the /app/ table (shared/app/routes.ts)', () => {
  const covered = new Set(
    APP_CALLS.map(([method, path]) => matchAppRoute(method, new URL(path, 'http://x').pathname.split('/').slice(2).filter((s) => s !== ''))?.name),
  );
  expect([...covered].sort()).toEqual(Object.keys(APP_ROUTES).sort());
});

describe('/app/: the role matrix', () => {
  test('the rule table lets a read-only user read its status, a host link, the site survey, the home networks and the local history, nothing else', () => {
    const granted = APP_CALLS.filter(([method, path]) => readOnlyMay(method, path)).map(([method, path]) => `${method} ${path}`);
    expect(granted).toEqual([
      'GET /app/status',
      'GET /app/central-link?ip=10.0.0.1',
      'GET /app/hosts',
      'GET /app/hosts/facets',
      'GET /app/hosts/fields',
      'GET /app/hosts/values?field=ip&prefix=10',
      'GET /app/hosts/version',
      'GET /app/hosts/visits',
      'GET /app/hosts/changes?since=2020-01-01',
      'GET /app/hosts/export/csv',
      'GET /app/hosts/export/json',
      'GET /app/hosts/export/json/part?from=0&to=0',
      'GET /app/hosts/report',
      'GET /app/hosts/report/pdf',
      'GET /app/settings/home-nets',
      'GET /app/history',
      'GET /app/history/1/changes',
    ]);
  });

  test.each(APP_CALLS)('%s %s: anonymous 403, read-only as the table says, managers past the permission check', async (method, path, body) => {
    const call = (client: Client) => client.send(method, path, body === undefined ? {} : { json: body });
    expect((await call(anonymous)).status).toBe(403);
    const asViewer = await call(viewer);
    if (readOnlyMay(method, path)) expect(asViewer.status).toBe(200);
    else expect([asViewer.status, asViewer.json()]).toEqual([403, { detail: 'You do not have permission to perform this action.' }]);
    const asManager = await call(app.api);
    expect(asManager.status).not.toBe(403);
    expect(asManager.status).toBeLessThan(500);
  });
});

describe('/rest/: the role matrix, endpoint by endpoint', () => {
  test.each(RESOURCES.map((r) => r.path))('%s: anonymous 403 on every method; read-only reads and writes nothing; managers may write', async (path) => {
    const list = `/rest/${path}/`;
    for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']) {
      expect([method, (await anonymous.send(method, list, { json: {} })).status]).toEqual([method, 403]);
    }
    expect((await viewer.get(list)).status).toBe(200);
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
      for (const target of [list, `${list}1/`]) {
        const reply = await viewer.send(method, target, { json: {} });
        expect([method, target, reply.status]).toEqual([method, target, 403]);
      }
    }
    const written = await app.api.post(list, {});
    expect(written.status).not.toBe(403);
    expect(written.status).toBeLessThan(500);
  });
});

describe('secrets stay where they are', () => {
  test('no answer of a read (lists, objects, /app/, the export) carries a password hash or a token', async () => {
    const { services } = app.host.current();
    const hash = services.users.get(1)!.password;
    expect(hash).toMatch(/^scrypt\$/);
    const paths = ['/app/status', '/app/workspaces', '/app/remotes', '/app/workspaces/default/export', '/rest/accounts/sciriususer/current_user/'];
    for (const resource of RESOURCES) paths.push(`/rest/${resource.path}/`, `/rest/${resource.path}/1/`);
    for (const path of paths) {
      const reply = await app.api.get(path);
      expect(reply.status, path).toBeLessThan(500);
      for (const secret of [hash, hash.split('$').pop()!, ADMIN_TOKEN, VIEWER_TOKEN]) expect(reply.text.includes(secret), `${path} shows a secret`).toBe(false);
    }
  });

  test('no answer lets another origin read it: no CORS header, even to a preflight', async () => {
    const origin = { Origin: 'https://evil.example' };
    for (const [method, path] of [['GET', '/rest/'], ['GET', '/app/status'], ['OPTIONS', '/rest/appliances/vendor_probe/']] as const) {
      const reply = await app.api.send(method, path, { headers: { ...origin, 'Access-Control-Request-Method': 'PATCH' } });
      expect(Object.keys(reply.headers).filter((h) => h.startsWith('access-control-'))).toEqual([]);
    }
  });

  test('a workspace export has every account, without its password', async () => {
    const bundle = (await app.api.get('/app/workspaces/default/export')).json();
    const users = bundle.tables.user as { username: string; password: string }[];
    expect(users.map((u) => u.username).sort()).toEqual(['admin', 'viewer']);
    expect(users.every((u) => u.password === '')).toBe(true);
  });

  test('a read-only user exports nothing (the report: every hash of every workspace)', async () => {
    const reply = await viewer.get('/app/workspaces/default/export');
    expect(reply.status).toBe(403);
    expect(reply.text).not.toContain('scrypt');
  });
});

describe('the last superuser', () => {
  test('cannot be deleted, demoted or deactivated; once there is another, it can', async () => {
    const refused = await app.api.delete('/rest/accounts/sciriususer/1/');
    expect(refused.status).toBe(400);
    expect(refused.json()).toEqual({ detail: 'This is the last active superuser of the workspace: make another user a superuser first.' });
    expect((await app.api.patch('/rest/accounts/sciriususer/1/', { role: 'Admin' })).json()).toEqual({
      role: ['This is the last active superuser of the workspace: make another user a superuser first.'],
    });
    expect((await app.api.patch('/rest/accounts/sciriususer/1/', { is_active: false })).status).toBe(400);
    expect((await app.api.get('/rest/accounts/sciriususer/1/')).json()).toMatchObject({ is_active: true });
    const second = await app.api.post('/rest/accounts/sciriususer/', { username: 'second', password: 'another good password', role: 'Superuser' });
    expect(second.status).toBe(201);
    const secondPk = second.json().pk as number;
    expect((await app.api.delete(`/rest/accounts/sciriususer/${secondPk}/`)).status).toBe(204);
  });
});
