/**
 * Issue 8: a write lands in the workspace it was made in. The app's pages name the workspace they
 * were loaded for (`X-Outpost-Workspace`); a write naming another workspace than the open one is
 * refused with a 409 that says which one is open, and nothing is written.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startAppServer, type TestAppServer } from '../helpers/server';

let app: TestAppServer;
const PROBES = '/rest/appliances/engine_probe/';
const as = (workspace: string) => ({ headers: { 'X-Outpost-Workspace': encodeURIComponent(workspace) } });

beforeAll(async () => {
  app = await startAppServer();
  expect((await app.api.post(PROBES, { name: 'in-default', address: '10.0.0.1' })).status).toBe(201);
  expect((await app.api.post('/app/workspaces', { name: 'other-site' })).status).toBe(201);
  expect((await app.api.post('/app/workspaces/other-site/open', {}, as('default'))).status).toBe(200);
  expect((await app.api.post(PROBES, { name: 'in-other', address: '10.0.0.2' })).status).toBe(201);
});
afterAll(() => app.close());

test('a save from a page loaded for the old workspace is refused with a 409 naming the open one', async () => {
  const stale = await app.api.patch(`${PROBES}1/`, { name: 'overwritten' }, as('default'));
  expect(stale.status).toBe(409);
  expect(stale.json()).toEqual({
    detail: 'This page was opened for workspace "default", but the open workspace is now "other-site": nothing was saved. Reload to continue.',
    code: 'workspace_changed',
    workspace: 'other-site',
  });
  expect((await app.api.get(`${PROBES}1/`)).json()).toMatchObject({ name: 'in-other' });
  for (const method of ['POST', 'PUT', 'DELETE'] as const) {
    expect((await app.api.send(method, method === 'POST' ? PROBES : `${PROBES}1/`, { json: { name: 'x', address: '10.9.9.9' }, ...as('default') })).status).toBe(409);
  }
  expect((await app.api.get(PROBES)).json()).toMatchObject({ count: 1, results: [{ name: 'in-other' }] });
});

test('reads, writes naming the open workspace and requests without the header go through', async () => {
  expect((await app.api.get(PROBES, as('default'))).status).toBe(200);
  expect((await app.api.patch(`${PROBES}1/`, { descr: 'from a fresh page' }, as('other-site'))).status).toBe(200);
  expect((await app.api.patch(`${PROBES}1/`, { descr: 'from the API' })).status).toBe(200);
});

test('switching back, from any page, is a request of the data folder and is not refused', async () => {
  expect((await app.api.post('/app/workspaces/default/open', {}, as('other-site'))).status).toBe(200);
  expect((await app.api.get(`${PROBES}1/`)).json()).toMatchObject({ name: 'in-default' });
});
