/** api.md §6 accounts: users, roles, token regeneration and passwords. */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ADMIN_TOKEN, addUser, startServer, type TestServer } from '../helpers/server';
import type { Client } from '../helpers/http';

let server: TestServer;
let api: Client;
beforeAll(async () => {
  server = await startServer();
  api = server.api;
});
afterAll(() => server.close());

let counter = 0;
const unique = (prefix: string) => `${prefix}${++counter}`;

describe('users', () => {
  test('POST needs a password; it is never shown; defaults as §6', async () => {
    expect((await api.post('/rest/accounts/sciriususer/', { username: unique('u') })).json()).toEqual({ password: ['This field is required.'] });
    const reply = await api.post('/rest/accounts/sciriususer/', { username: unique('u'), password: 's3cret-pass', email: 'a@example.com' });
    expect(reply.status).toBe(201);
    const user = reply.json();
    expect(Object.keys(user)).toEqual(['pk', 'username', 'first_name', 'last_name', 'email', 'is_active', 'is_staff', 'timezone', 'role', 'date_joined']);
    expect(user).toMatchObject({ role: 'Read-only', timezone: 'UTC', is_active: true, is_staff: false });
  });

  test('usernames are unique and use Django username characters', async () => {
    const name = unique('dup');
    await api.post('/rest/accounts/sciriususer/', { username: name, password: 'x' });
    expect((await api.post('/rest/accounts/sciriususer/', { username: name, password: 'x' })).json()).toEqual({
      username: ['A user with that username already exists.'],
    });
    expect((await api.post('/rest/accounts/sciriususer/', { username: 'has space', password: 'x' })).json()).toEqual({
      username: ['Enter a valid username. This value may contain only letters, numbers, and @/./+/-/_ characters.'],
    });
  });

  test('current_user/ answers the caller', async () => {
    expect((await api.get('/rest/accounts/sciriususer/current_user/')).json()).toMatchObject({ username: 'admin', role: 'Superuser' });
  });

  test('user writes are in history with the Scirius wording', async () => {
    const user = (await api.post('/rest/accounts/sciriususer/', { username: unique('hist'), password: 'x', comment: 'new tech' })).json();
    await api.patch(`/rest/accounts/sciriususer/${user.pk}/`, { first_name: 'Ada' });
    await api.delete(`/rest/accounts/sciriususer/${user.pk}/`);
    const entries = (await api.get('/rest/rules/history/?ordering=-pk&page_size=3')).json().results;
    expect(entries.map((e: { description: string }) => e.description)).toEqual([
      `admin has deleted user ${user.username}`,
      `admin has edited user ${user.username}`,
      `admin has created new user ${user.username}`,
    ]);
    expect(entries[2].comment).toBe('new tech');
  });
});

describe('roles', () => {
  test('a Read-only user reads everything and writes nothing but its own token and password', async () => {
    const viewer = addUser(server, unique('viewer'), 'Read-only', '1'.repeat(39) + String(counter % 10));
    expect((await viewer.get('/rest/appliances/vendor_probe/')).status).toBe(200);
    for (const [method, path] of [
      ['POST', '/rest/rules/source/'],
      ['PATCH', '/rest/accounts/sciriususer/1/'],
      ['POST', '/rest/accounts/sciriususer/1/token/'],
    ] as const) {
      const reply = await viewer.send(method, path, { json: {} });
      expect(reply.status, `${method} ${path}`).toBe(403);
      expect(reply.json()).toEqual({ detail: 'You do not have permission to perform this action.' });
    }
    expect((await viewer.get('/rest/accounts/sciriususer/1/token/')).status).toBe(403);
    const me = (await viewer.get('/rest/accounts/sciriususer/current_user/')).json();
    const token = await viewer.post(`/rest/accounts/sciriususer/${me.pk}/token/`, {});
    expect(token.status).toBe(200);
  });

  test('an Admin manages other users', async () => {
    const admin2 = addUser(server, unique('admin'), 'Admin', '2'.repeat(40));
    expect((await admin2.post('/rest/accounts/sciriususer/', { username: unique('made'), password: 'x' })).status).toBe(201);
  });
});

describe('token (Edit Token / Regenerate)', () => {
  test('GET shows the current token; POST regenerates it and the old one stops working at once', async () => {
    const user = addUser(server, unique('tok'), 'Read-only', 'c'.repeat(40));
    const me = (await user.get('/rest/accounts/sciriususer/current_user/')).json();
    expect((await user.get(`/rest/accounts/sciriususer/${me.pk}/token/`)).json()).toEqual({ token: 'c'.repeat(40) });
    const reply = await user.post(`/rest/accounts/sciriususer/${me.pk}/token/`, { comment: 'rotate' });
    const fresh = reply.json().token;
    expect(fresh).toMatch(/^[0-9a-f]{40}$/);
    expect(fresh).not.toBe('c'.repeat(40));
    expect((await user.get('/rest/')).json()).toEqual({ detail: 'Invalid token.' });
    expect((await user.as(fresh).get('/rest/')).status).toBe(200);
    const entry = (await api.get('/rest/rules/history/?action_type=edit_user_token')).json().results[0];
    expect(entry).toMatchObject({ comment: 'rotate', description: `${me.username} has edited ${me.username} token` });
  });

  test('a user with no token sees an empty string', async () => {
    const user = (await api.post('/rest/accounts/sciriususer/', { username: unique('notoken'), password: 'x' })).json();
    expect((await api.get(`/rest/accounts/sciriususer/${user.pk}/token/`)).json()).toEqual({ token: '' });
  });

  test('the admin token given to the server works', async () => {
    expect((await api.as(ADMIN_TOKEN).get('/rest/')).status).toBe(200);
  });
});

describe('password', () => {
  test('a user changes their own password with the old one', async () => {
    const name = unique('pw');
    const created = (await api.post('/rest/accounts/sciriususer/', { username: name, password: 'first-pass', role: 'Read-only' })).json();
    const user = addUserToken(created.pk);
    const wrong = await user.post(`/rest/accounts/sciriususer/${created.pk}/password/`, { old_password: 'nope', new_password: 'second' });
    expect(wrong.json()).toEqual({ old_password: ['Wrong password.'] });
    const right = await user.post(`/rest/accounts/sciriususer/${created.pk}/password/`, { old_password: 'first-pass', new_password: 'second' });
    expect(right.json()).toEqual({ password: 'updated' });
    expect((await user.post(`/rest/accounts/sciriususer/${created.pk}/password/`, {})).json()).toEqual({ new_password: ['This field is required.'] });
  });
});

function addUserToken(pk: number): Client {
  const token = server.workspace.services.users.regenerateToken(pk);
  return api.as(token);
}
