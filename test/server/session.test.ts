/**
 * Browser sessions for the browsable API (api.md §1 "auth": a session cookie is accepted; unsafe
 * methods on a session need the CSRF token): /api-auth/login/ and /api-auth/logout/.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { selfSignedTls } from '../../electron/server/http/tls';
import { clearCookie, safeNextPath, setCookie, setCookieHeaders } from '../../electron/server/views/login';
import { request, type Reply } from '../helpers/http';
import { ADMIN_TOKEN, addUser, startServer, type TestServer } from '../helpers/server';

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.close());

const FORM = 'application/x-www-form-urlencoded';

/** A browser's cookie jar over the test client: sends its cookies, keeps what the server sets. */
class Browser {
  readonly jar = new Map<string, string>();
  /** Every Set-Cookie line of the last response. */
  lastSetCookies: string[] = [];

  constructor(readonly base: string) {}

  async send(method: string, path: string, options: { form?: Record<string, string>; json?: unknown; headers?: Record<string, string> } = {}): Promise<Reply> {
    const headers: Record<string, string> = { ...(options.headers ?? {}) };
    if (this.jar.size > 0) headers.Cookie = [...this.jar].map(([k, v]) => `${k}=${v}`).join('; ');
    let body: string | undefined;
    if (options.form) {
      headers['Content-Type'] = FORM;
      body = new URLSearchParams(options.form).toString();
    }
    const reply = await request(this.base, method, path, { headers, ...(body !== undefined ? { body } : {}), ...(options.json !== undefined ? { json: options.json } : {}) });
    this.lastSetCookies = [reply.headers['set-cookie'] ?? []].flat();
    for (const line of this.lastSetCookies) {
      const [pair = ''] = line.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq);
      if (/;\s*Max-Age=0/i.test(line)) this.jar.delete(name);
      else this.jar.set(name, pair.slice(eq + 1));
    }
    return reply;
  }

  cookieLine(name: string): string | undefined {
    return this.lastSetCookies.find((line) => line.startsWith(`${name}=`));
  }

  /** GET the login form; its hidden token. */
  async formToken(): Promise<string> {
    const page = await this.send('GET', '/api-auth/login/');
    const token = /name="csrfmiddlewaretoken" value="([^"]*)"/.exec(page.text)?.[1];
    if (!token) throw new Error('no form token on the login page');
    return token;
  }

  async logIn(fields: Record<string, string>): Promise<Reply> {
    const csrfmiddlewaretoken = await this.formToken();
    return this.send('POST', '/api-auth/login/', { form: { csrfmiddlewaretoken, ...fields } });
  }
}

let userCount = 0;
/** A user with a password, created as the admin would: POST /rest/accounts/sciriususer/. */
async function userWithPassword(password: string, extra: Record<string, unknown> = {}): Promise<string> {
  const username = `person${++userCount}`;
  const reply = await server.api.post('/rest/accounts/sciriususer/', { username, password, role: 'Admin', ...extra });
  expect(reply.status).toBe(201);
  return username;
}

describe('the login form', () => {
  test('GET shows a form whose hidden token equals the csrftoken cookie it sets', async () => {
    const browser = new Browser(server.url);
    const page = await browser.send('GET', '/api-auth/login/');
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['cache-control']).toBe('no-store');
    expect(page.text).toContain('name="username"');
    expect(page.text).toContain('name="password"');
    expect(page.text).toContain('name="token"');
    const token = /name="csrfmiddlewaretoken" value="([0-9a-f]{64})"/.exec(page.text)?.[1];
    expect(token).toBeDefined();
    expect(browser.jar.get('csrftoken')).toBe(token);
    expect(browser.cookieLine('csrftoken')).toBe(`csrftoken=${token}; Path=/; SameSite=Strict`);
  });

  test('the page is answered without its trailing slash too, and keeps a safe next', async () => {
    const page = await request(server.url, 'GET', '/api-auth/login?next=%2Frest%2Frules%2Fsource%2F');
    expect(page.status).toBe(200);
    expect(page.text).toContain('name="next" value="/rest/rules/source/"');
    const unsafe = await request(server.url, 'GET', '/api-auth/login/?next=%2F%2Fevil.example');
    expect(unsafe.text).not.toContain('evil.example');
  });

  test('its style carries the nonce of its Content-Security-Policy', async () => {
    const page = await request(server.url, 'GET', '/api-auth/login/');
    const nonce = /<style nonce="([^"]+)">/.exec(page.text)?.[1];
    expect(nonce).toBeDefined();
    expect(page.headers['content-security-policy']).toContain(`style-src 'nonce-${nonce}'`);
    expect(page.headers['content-security-policy']).toContain("default-src 'none'");
  });

  test('other methods are 405', async () => {
    const reply = await request(server.url, 'PUT', '/api-auth/login/');
    expect(reply.status).toBe(405);
    expect(reply.json()).toEqual({ detail: 'Method "PUT" not allowed.' });
  });
});

describe('logging in', () => {
  test('an API token logs in: sessionid (HttpOnly) and a fresh csrftoken, then 302 to next', async () => {
    const browser = new Browser(server.url);
    const formToken = await browser.formToken();
    const reply = await browser.send('POST', '/api-auth/login/', {
      form: { csrfmiddlewaretoken: formToken, token: ADMIN_TOKEN, next: '/rest/rules/source/?search=a%20b' },
    });
    expect(reply.status).toBe(302);
    expect(reply.headers.location).toBe('/rest/rules/source/?search=a%20b');
    const session = browser.jar.get('sessionid')!;
    expect(session).toMatch(/^[0-9a-f]{64}$/);
    expect(browser.cookieLine('sessionid')).toBe(`sessionid=${session}; Path=/; HttpOnly; SameSite=Strict`);
    const csrf = browser.jar.get('csrftoken')!;
    expect(csrf).not.toBe(formToken);
    expect(browser.cookieLine('csrftoken')).toBe(`csrftoken=${csrf}; Path=/; SameSite=Strict`);
  });

  test('a username and password log in; without next the browser goes to /rest/', async () => {
    const username = await userWithPassword('correct horse battery');
    const browser = new Browser(server.url);
    const reply = await browser.logIn({ username, password: 'correct horse battery' });
    expect(reply.status).toBe(302);
    expect(reply.headers.location).toBe('/rest/');
    const me = await browser.send('GET', '/rest/accounts/sciriususer/current_user/');
    expect(me.status).toBe(200);
    expect(me.json().username).toBe(username);
  });

  test('wrong credentials answer the form again (200) with an error, the username kept, and no session', async () => {
    const username = await userWithPassword('right password');
    const attempts: Record<string, string>[] = [
      { username, password: 'wrong password' },
      { username: 'nobody-at-all', password: 'right password' },
      { username: 'admin', password: '' },
      { username: 'admin', password: 'anything' },
      { token: 'f'.repeat(40) },
      { username, token: ADMIN_TOKEN },
      {},
    ];
    for (const fields of attempts) {
      const browser = new Browser(server.url);
      const reply = await browser.logIn(fields);
      expect(reply.status, JSON.stringify(fields)).toBe(200);
      expect(reply.text).toContain('Please enter a correct username and password, or a valid API token.');
      expect(reply.text).toContain(`name="username" autocomplete="username" value="${fields.username ?? ''}"`);
      expect(browser.jar.has('sessionid'), JSON.stringify(fields)).toBe(false);
    }
  });

  test('an inactive account cannot log in', async () => {
    const username = await userWithPassword('still valid', { is_active: false });
    const browser = new Browser(server.url);
    const reply = await browser.logIn({ username, password: 'still valid' });
    expect(reply.status).toBe(200);
    expect(reply.text).toContain('This account is inactive.');
    expect(browser.jar.has('sessionid')).toBe(false);
  });

  test('login CSRF: a form without its token, with another token, or from another origin is refused (403)', async () => {
    const browser = new Browser(server.url);
    const formToken = await browser.formToken();
    const forged: { form: Record<string, string>; headers?: Record<string, string> }[] = [
      { form: { token: ADMIN_TOKEN } },
      { form: { token: ADMIN_TOKEN, csrfmiddlewaretoken: 'a'.repeat(64) } },
      { form: { token: ADMIN_TOKEN, csrfmiddlewaretoken: formToken }, headers: { Origin: 'https://evil.example' } },
    ];
    for (const attempt of forged) {
      const reply = await browser.send('POST', '/api-auth/login/', attempt);
      expect(reply.status).toBe(403);
      expect(reply.text).toContain('This login form expired or was sent from another site.');
      expect(browser.jar.has('sessionid')).toBe(false);
    }
    // A cross-site form post arrives without the SameSite=Strict cookie.
    const cookieless = await request(server.url, 'POST', '/api-auth/login/', {
      headers: { 'Content-Type': FORM },
      body: new URLSearchParams({ token: ADMIN_TOKEN, csrfmiddlewaretoken: formToken }).toString(),
    });
    expect(cookieless.status).toBe(403);
    expect(cookieless.headers['set-cookie']?.some((c) => c.startsWith('sessionid='))).not.toBe(true);
  });

  test('logging in again replaces the previous session', async () => {
    const browser = new Browser(server.url);
    await browser.logIn({ token: ADMIN_TOKEN });
    const first = browser.jar.get('sessionid')!;
    await browser.logIn({ token: ADMIN_TOKEN });
    expect(browser.jar.get('sessionid')).not.toBe(first);
    const stale = await request(server.url, 'GET', '/rest/rules/source/', { headers: { Cookie: `sessionid=${first}` } });
    expect(stale.status).toBe(403);
  });
});

describe('next (no open redirect)', () => {
  test.each([
    ['/rest/appliances/vendor_probe/?page=2', '/rest/appliances/vendor_probe/?page=2'],
    ['/rest/../api-auth/login/', '/api-auth/login/'],
    ['//evil.example', undefined],
    ['//evil.example/rest/', undefined],
    ['https://evil.example', undefined],
    ['http://outpost.invalid/rest/', undefined],
    ['/\\evil.example', undefined],
    ['/\t/evil.example', undefined],
    ['/\n/evil.example', undefined],
    ['javascript:alert(1)', undefined],
    ['rest/', undefined],
    ['', undefined],
  ])('safeNextPath(%j) is %j', (raw, expected) => {
    expect(safeNextPath(raw)).toBe(expected);
  });

  test('a login with an unsafe next goes to /rest/ instead', async () => {
    for (const next of ['//evil.example', 'https://evil.example', '/\\evil', '/\t/evil.example']) {
      const browser = new Browser(server.url);
      const reply = await browser.logIn({ token: ADMIN_TOKEN, next });
      expect(reply.status, next).toBe(302);
      expect(reply.headers.location, next).toBe('/rest/');
    }
  });

  test('non-ASCII in next is percent-encoded in Location', async () => {
    const browser = new Browser(server.url);
    const reply = await browser.logIn({ token: ADMIN_TOKEN, next: '/rest/rules/source/?search=été' });
    expect(reply.headers.location).toBe('/rest/rules/source/?search=%C3%A9t%C3%A9');
  });
});

describe('a session authenticates API requests', () => {
  test('the session cookie authenticates GETs, without the CSRF header', async () => {
    const browser = new Browser(server.url);
    await browser.logIn({ token: ADMIN_TOKEN });
    const reply = await browser.send('GET', '/rest/rules/source/');
    expect(reply.status).toBe(200);
    expect(reply.json()).toHaveProperty('results');
  });

  test('unsafe methods need the X-CSRFToken header matching the session', async () => {
    const browser = new Browser(server.url);
    await browser.logIn({ token: ADMIN_TOKEN });
    const missing = await browser.send('POST', '/rest/rules/source/', { json: { name: 'csrf-less' } });
    expect(missing.status).toBe(403);
    expect(missing.json()).toEqual({ detail: 'CSRF Failed: CSRF token missing.' });
    const wrong = await browser.send('POST', '/rest/rules/source/', { json: { name: 'csrf-wrong' }, headers: { 'X-CSRFToken': 'b'.repeat(64) } });
    expect(wrong.status).toBe(403);
    expect(wrong.json()).toEqual({ detail: 'CSRF Failed: CSRF token incorrect.' });
    const csrf = browser.jar.get('csrftoken')!;
    const right = await browser.send('POST', '/rest/rules/source/', { json: { name: 'csrf-ok' }, headers: { 'X-CSRFToken': csrf } });
    expect(right.status).toBe(201);
    const entry = (await server.api.get('/rest/rules/history/?action_type=create_source')).json().results[0];
    expect(entry).toMatchObject({ username: 'admin', description: 'admin has created source csrf-ok' });
  });

  test('a session of a Read-only user reads but may not write', async () => {
    addUser(server, 'session-reader', 'Read-only', 'c'.repeat(40));
    const browser = new Browser(server.url);
    await browser.logIn({ token: 'c'.repeat(40) });
    expect((await browser.send('GET', '/rest/rules/source/')).status).toBe(200);
    const write = await browser.send('POST', '/rest/rules/source/', { json: { name: 'nope' }, headers: { 'X-CSRFToken': browser.jar.get('csrftoken')! } });
    expect(write.status).toBe(403);
    expect(write.json()).toEqual({ detail: 'You do not have permission to perform this action.' });
  });

  test('an unknown or expired session cookie is unauthenticated', async () => {
    const unknown = await request(server.url, 'GET', '/rest/rules/source/', { headers: { Cookie: `sessionid=${'0'.repeat(64)}` } });
    expect(unknown.status).toBe(403);
    expect(unknown.json()).toEqual({ detail: 'Authentication credentials were not provided.' });

    const browser = new Browser(server.url);
    await browser.logIn({ token: ADMIN_TOKEN });
    expect((await browser.send('GET', '/rest/rules/source/')).status).toBe(200);
    const { store } = server.workspace.services;
    store.write(() => store.db.prepare('UPDATE session SET expires = ?').run(Math.floor(Date.now() / 1000) - 1));
    const expired = await browser.send('GET', '/rest/rules/source/');
    expect(expired.status).toBe(403);
    expect(expired.json()).toEqual({ detail: 'Authentication credentials were not provided.' });
  });
});

describe('logging out', () => {
  test('logout ends the session, clears both cookies and goes to the login page', async () => {
    const browser = new Browser(server.url);
    await browser.logIn({ token: ADMIN_TOKEN });
    const session = browser.jar.get('sessionid')!;
    const reply = await browser.send('POST', '/api-auth/logout/', { form: { csrfmiddlewaretoken: browser.jar.get('csrftoken')! } });
    expect(reply.status).toBe(302);
    expect(reply.headers.location).toBe('/api-auth/login/');
    expect(browser.cookieLine('sessionid')).toMatch(/^sessionid=; Path=\/; Max-Age=0; .*HttpOnly; SameSite=Strict$/);
    expect(browser.cookieLine('csrftoken')).toMatch(/^csrftoken=; Path=\/; Max-Age=0; .*SameSite=Strict$/);
    const after = await request(server.url, 'GET', '/rest/rules/source/', { headers: { Cookie: `sessionid=${session}` } });
    expect(after.status).toBe(403);
    expect(after.json()).toEqual({ detail: 'Authentication credentials were not provided.' });
  });

  test('POST /api-auth/logout (no slash) works too and follows a safe next only', async () => {
    const browser = new Browser(server.url);
    await browser.logIn({ token: ADMIN_TOKEN });
    const reply = await browser.send('POST', '/api-auth/logout', { form: { next: '/rest/', csrfmiddlewaretoken: browser.jar.get('csrftoken')! } });
    expect(reply.headers.location).toBe('/rest/');
    expect(browser.jar.has('sessionid')).toBe(false);
    const evil = await browser.send('POST', '/api-auth/logout/?next=%2F%2Fevil.example');
    expect(evil.headers.location).toBe('/api-auth/login/');
  });

  test('GET does not log out (405, as Django 5), nor a POST without the form token of this site', async () => {
    const browser = new Browser(server.url);
    await browser.logIn({ token: ADMIN_TOKEN });
    const get = await browser.send('GET', '/api-auth/logout/');
    expect(get.status).toBe(405);
    expect(get.headers.allow).toBe('POST');
    expect(get.json()).toEqual({ detail: 'Method "GET" not allowed.' });
    const forged = await browser.send('POST', '/api-auth/logout/', { form: { next: '/rest/' } });
    expect(forged.status).toBe(403);
    expect((await browser.send('GET', '/rest/rules/source/')).status).toBe(200);
    const page = await browser.send('GET', '/rest/', { headers: { Accept: 'text/html' } });
    expect(page.text).toMatch(/<form method="post" action="\/api-auth\/logout\/" class="logout"><input type="hidden" name="csrfmiddlewaretoken" value="[^"]+">/);
  });
});

describe('cookies', () => {
  test('over https the session cookies are Secure', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'outpost-tls-'));
    const secure = await startServer({ tls: await selfSignedTls(dir, '127.0.0.1') });
    try {
      expect(secure.url.startsWith('https://')).toBe(true);
      const browser = new Browser(secure.url);
      await browser.logIn({ token: ADMIN_TOKEN });
      expect(browser.cookieLine('sessionid')).toMatch(/; HttpOnly; SameSite=Strict; Secure$/);
      expect(browser.cookieLine('csrftoken')).toMatch(/; SameSite=Strict; Secure$/);
      expect((await browser.send('GET', '/rest/rules/source/')).status).toBe(200);
    } finally {
      await secure.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('cookie lines', () => {
    expect(setCookie('sessionid', 'k', { httpOnly: true, secure: false })).toBe('sessionid=k; Path=/; HttpOnly; SameSite=Strict');
    expect(clearCookie('csrftoken', { httpOnly: false, secure: true })).toBe(
      'csrftoken=; Path=/; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT; SameSite=Strict; Secure',
    );
  });

  test('several cookies go out as separate Set-Cookie headers', () => {
    expect(setCookieHeaders(['a=1', 'b=2', 'c=3'])).toEqual({ 'Set-Cookie': ['a=1', 'b=2', 'c=3'] });
  });
});

describe('the app’s own sign-in screen: /api-auth/session/ and the login form answered in JSON', () => {
  test('the session check answers 200 signed out (null) and gives the form token cookie', async () => {
    const browser = new Browser(server.url);
    const reply = await browser.send('GET', '/api-auth/session/', { headers: { Accept: 'application/json' } });
    expect(reply.status).toBe(200);
    expect(reply.json()).toEqual({ user: null });
    expect(browser.jar.get('csrftoken')).toMatch(/^[0-9a-f]{64}$/);
    expect((await browser.send('POST', '/api-auth/session/')).status).toBe(405);
  });

  test('the session check names the user of a token (the desktop app) or of a session', async () => {
    const byToken = await request(server.url, 'GET', '/api-auth/session/', { token: ADMIN_TOKEN });
    expect(byToken.json()).toEqual({ user: { pk: 1, username: 'admin', role: 'Superuser' } });
    const bad = await request(server.url, 'GET', '/api-auth/session/', { headers: { Authorization: 'Token nope nope' } });
    expect([bad.status, bad.json()]).toEqual([200, { user: null }]);
  });

  test('a JSON sign-in answers the user and opens the session; wrong credentials a 400 in DRF’s shape, not a page', async () => {
    const browser = new Browser(server.url);
    await browser.send('GET', '/api-auth/session/');
    const csrfmiddlewaretoken = browser.jar.get('csrftoken')!;
    const wrong = await browser.send('POST', '/api-auth/login/', { form: { csrfmiddlewaretoken, token: 'f'.repeat(40) }, headers: { Accept: 'application/json' } });
    expect(wrong.status).toBe(400);
    expect(wrong.json().non_field_errors[0]).toContain('Please enter a correct username and password, or a valid API token.');
    const right = await browser.send('POST', '/api-auth/login/', { form: { csrfmiddlewaretoken, token: ADMIN_TOKEN }, headers: { Accept: 'application/json' } });
    expect(right.status).toBe(200);
    expect(right.json()).toEqual({ user: { pk: 1, username: 'admin', role: 'Superuser' } });
    expect(browser.jar.get('sessionid')).toBeTruthy();
    expect((await browser.send('GET', '/api-auth/session/')).json().user.username).toBe('admin');

    // Sign-out asked in JSON: 204, cookies cleared, and the session check says so.
    const out = await browser.send('POST', '/api-auth/logout/', { headers: { Accept: 'application/json', 'X-CSRFToken': browser.jar.get('csrftoken')! } });
    expect(out.status).toBe(204);
    expect((await browser.send('GET', '/api-auth/session/')).json()).toEqual({ user: null });
  });

  test('a JSON sign-in without the form token is refused as forged (403), as the form is', async () => {
    const browser = new Browser(server.url);
    const reply = await browser.send('POST', '/api-auth/login/', { form: { token: ADMIN_TOKEN }, headers: { Accept: 'application/json' } });
    expect(reply.status).toBe(403);
    expect(reply.json().detail).toContain('expired or was sent from another site');
  });
});
