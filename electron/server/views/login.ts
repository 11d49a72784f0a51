/**
 * Browser sessions for the browsable API: `/api-auth/login/` and `/api-auth/logout/` (trailing
 * slash optional), as DRF's `rest_framework.urls` offers them.
 *
 * The login form takes a username and password, or an API token instead (the admin that
 * `outpost serve` creates has no password). It is itself protected against login CSRF: the
 * form carries a token that must equal the `csrftoken` cookie, a SameSite=Strict cookie that
 * another site can neither read nor send. On success the session's own CSRF token replaces
 * that cookie (rotation at login), `sessionid` is set, and the browser goes to `next` when it
 * is a path on this origin. Wrong credentials answer the form again, status 200, as Django's
 * LoginView does. routing/auth.ts authenticates the cookies afterwards.
 */
import crypto from 'node:crypto';
import { MESSAGES, message } from '../../../shared/api/messages';
import { parseQuery, queryGet, type QueryPairs } from '../../../shared/api/queryString';
import type { ApiRequest, ApiResponse, HeaderValue, PageRoute } from '../http/types';
import { ApiError } from '../../../shared/api/errors';
import { authenticate, CSRF_COOKIE, parseCookies, SESSION_COOKIE } from '../routing/auth';
import { jsonResponse, originOf, SECURITY_HEADERS } from '../http/responses';
import type { Services } from '../store/services';
import { sameSecret } from '../store/secrets';
import { checkPassword, hashPassword, type UserRecord } from '../store/users';
import { browsableHeaders, escapeHtml, htmlDocument, logoutForm, newNonce } from './browsable';

export const LOGIN_PATH = '/api-auth/login/';
export const LOGOUT_PATH = '/api-auth/logout/';
/** Outpost's own: who the request is signed in as (the app's sign-in screen asks it first). */
export const SESSION_PATH = '/api-auth/session/';
const DEFAULT_NEXT = '/rest/';

// ---------------------------------------------------------------------------------------------
// Pure rules: where to go next, and the cookies.

/**
 * `next` when it is a path on this origin, normalised as a browser would resolve it; otherwise
 * undefined. Resolving with the URL standard's parser against a fixed base sees exactly what a
 * browser would: `//evil`, `/\evil` and `/<tab>/evil` (tabs and newlines are dropped) all
 * name another host.
 */
export function safeNextPath(raw: string | undefined): string | undefined {
  if (!raw || !raw.startsWith('/')) return undefined;
  const base = 'http://outpost.invalid';
  let url: URL;
  try {
    url = new URL(raw, base);
  } catch {
    return undefined;
  }
  if (url.origin !== base) return undefined;
  return `${url.pathname}${url.search}${url.hash}`;
}

export interface CookieOptions {
  readonly httpOnly: boolean;
  readonly secure: boolean;
}

/** A cookie for the whole origin, never sent by another site's requests (SameSite=Strict). */
export function setCookie(name: string, value: string, options: CookieOptions): string {
  return [`${name}=${value}`, 'Path=/', ...(options.httpOnly ? ['HttpOnly'] : []), 'SameSite=Strict', ...(options.secure ? ['Secure'] : [])].join('; ');
}

export function clearCookie(name: string, options: CookieOptions): string {
  return setCookie(name, '', options).replace('; Path=/', '; Path=/; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT');
}

/** Several cookies: one Set-Cookie line each. */
export function setCookieHeaders(cookies: readonly string[]): Record<string, readonly string[]> {
  return { 'Set-Cookie': [...cookies] };
}

const FORM_TOKEN = /^[0-9a-f]{64}$/;

function newFormToken(): string {
  return crypto.randomBytes(32).toString('hex');
}

// ---------------------------------------------------------------------------------------------
// Pages.

function htmlResponse(status: number, html: string, nonce: string, headers: Readonly<Record<string, HeaderValue>> = {}): ApiResponse {
  return {
    status,
    headers: {
      'Content-Type': 'text/html; charset=utf-8',
      ...SECURITY_HEADERS,
      ...browsableHeaders(nonce),
      'Cache-Control': 'no-store',
      ...headers,
    },
    body: html,
  };
}

function redirect(location: string, cookies: readonly string[]): ApiResponse {
  return { status: 302, headers: { Location: location, ...SECURITY_HEADERS, 'Cache-Control': 'no-store', ...setCookieHeaders(cookies) }, body: null };
}

interface LoginForm {
  readonly formToken: string;
  readonly next: string | undefined;
  readonly username: string;
  readonly error?: string;
  readonly current?: UserRecord;
}

function loginHtml(form: LoginForm, nonce: string): string {
  const hidden = (name: string, value: string) => `<input type="hidden" name="${name}" value="${escapeHtml(value)}">`;
  const already = form.current
    ? `<p>You are logged in as <b>${escapeHtml(form.current.username)}</b>.</p>${logoutForm(form.formToken)}`
    : '';
  const main = `<div class="login">
<h1>Log in</h1>
${already}${form.error ? `<p class="error" role="alert">${escapeHtml(form.error)}</p>` : ''}
<form method="post" action="${LOGIN_PATH}">
${hidden('csrfmiddlewaretoken', form.formToken)}
${form.next ? hidden('next', form.next) : ''}
<label><span>Username</span><input name="username" autocomplete="username" value="${escapeHtml(form.username)}"></label>
<label><span>Password</span><input type="password" name="password" autocomplete="current-password"></label>
<p class="or">or</p>
<label><span>API token</span><input type="password" name="token" autocomplete="off" spellcheck="false"></label>
<div class="actions"><button type="submit" class="primary">Log in</button></div>
</form>
</div>`;
  return htmlDocument({ title: 'Log in', nonce, who: '', main });
}

/** The form token bound to the browser's `csrftoken` cookie (a new cookie when it has none). */
function formTokenOf(req: ApiRequest): { token: string; cookie?: string } {
  const existing = parseCookies(req.headers.cookie).get(CSRF_COOKIE);
  if (existing && FORM_TOKEN.test(existing)) return { token: existing };
  const token = newFormToken();
  return { token, cookie: setCookie(CSRF_COOKIE, token, { httpOnly: false, secure: req.scheme === 'https' }) };
}

function sessionUser(req: ApiRequest, services: Services): UserRecord | undefined {
  const key = parseCookies(req.headers.cookie).get(SESSION_COOKIE);
  return key ? services.users.session(key)?.user : undefined;
}

function showForm(req: ApiRequest, services: Services, status: number, fields: { next?: string; username?: string; error?: string }): ApiResponse {
  const nonce = newNonce();
  const { token, cookie } = formTokenOf(req);
  const current = sessionUser(req, services);
  const html = loginHtml(
    { formToken: token, next: safeNextPath(fields.next), username: fields.username ?? '', ...(fields.error ? { error: fields.error } : {}), ...(current ? { current } : {}) },
    nonce,
  );
  return htmlResponse(status, html, nonce, cookie ? setCookieHeaders([cookie]) : {});
}

function formFields(req: ApiRequest): QueryPairs {
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  return type === 'application/x-www-form-urlencoded' ? parseQuery(req.body.toString('utf8')) : [];
}

/** Django's rule: an Origin header, when sent, must be this origin. */
function sameOriginPost(req: ApiRequest, fields: QueryPairs): boolean {
  const origin = req.headers.origin;
  if (origin !== undefined && origin !== originOf(req)) return false;
  const cookie = parseCookies(req.headers.cookie).get(CSRF_COOKIE);
  const sent = queryGet(fields, 'csrfmiddlewaretoken');
  return cookie !== undefined && sent !== undefined && FORM_TOKEN.test(cookie) && sameSecret(sent, cookie);
}

let unusableHash: string | undefined;

/** The user the credentials name, checked in about the same time whether the user exists or not. */
function credentialsUser(services: Services, fields: QueryPairs): UserRecord | undefined {
  const username = (queryGet(fields, 'username') ?? '').trim();
  const token = (queryGet(fields, 'token') ?? '').trim();
  if (token !== '') {
    const user = services.users.byToken(token);
    return user && (username === '' || username === user.username) ? user : undefined;
  }
  const password = queryGet(fields, 'password') ?? '';
  const user = username === '' ? undefined : services.users.byUsername(username);
  const stored = user?.password || (unusableHash ??= hashPassword(newFormToken()));
  const matches = password !== '' && checkPassword(password, stored);
  return user && user.password !== '' && matches ? user : undefined;
}

/**
 * The app's own sign-in screen posts the same form asking for JSON (`Accept: application/json`):
 * it is answered with the user (200) or the form's error in DRF's shape (400, 403) instead of a
 * redirect or a page. The checks are the same.
 */
function wantsJson(req: ApiRequest): boolean {
  return /\bapplication\/json\b/i.test(req.headers.accept ?? '');
}

function userJson(user: UserRecord): { pk: number; username: string; role: string } {
  return { pk: user.pk, username: user.username, role: user.role };
}

function jsonWithCookies(status: number, body: Parameters<typeof jsonResponse>[1], cookies: readonly string[]): ApiResponse {
  const response = jsonResponse(status, body);
  return { ...response, headers: { ...response.headers, 'Cache-Control': 'no-store', ...(cookies.length > 0 ? setCookieHeaders(cookies) : {}) } };
}

/**
 * `GET /api-auth/session/`: who the request is signed in as (a session, or the token the desktop
 * app's protocol adds), or `null`; always 200, so that a first visit logs no failed request. A
 * browser without a `csrftoken` cookie gets one: the sign-in form's token.
 */
function sessionAnswer(req: ApiRequest, services: Services): ApiResponse {
  let user: UserRecord | undefined;
  try {
    user = authenticate(req, services.users)?.user;
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
  }
  const { cookie } = formTokenOf(req);
  return jsonWithCookies(200, { user: user && user.is_active ? userJson(user) : null }, cookie ? [cookie] : []);
}

const WRONG_CREDENTIALS = 'Please enter a correct username and password, or a valid API token. Both are case-sensitive.';
const INACTIVE = 'This account is inactive.';
const FORGED = 'This login form expired or was sent from another site. Please try again.';

function login(req: ApiRequest, services: Services): ApiResponse {
  const fields = formFields(req);
  const next = queryGet(fields, 'next') ?? queryGet(parseQuery(req.rawQuery), 'next');
  const username = queryGet(fields, 'username') ?? '';
  const json = wantsJson(req);
  const again = (status: number, error: string) =>
    json
      ? jsonWithCookies(status === 403 ? 403 : 400, status === 403 ? { detail: error } : { non_field_errors: [error] }, [])
      : showForm(req, services, status, { ...(next ? { next } : {}), username, error });
  if (!sameOriginPost(req, fields)) return again(403, FORGED);
  const user = credentialsUser(services, fields);
  if (!user) return again(200, WRONG_CREDENTIALS);
  if (!user.is_active) return again(200, INACTIVE);
  const previous = parseCookies(req.headers.cookie).get(SESSION_COOKIE);
  if (previous) services.users.closeSession(previous);
  const session = services.users.openSession(user.pk);
  const secure = req.scheme === 'https';
  const cookies = [setCookie(SESSION_COOKIE, session.key, { httpOnly: true, secure }), setCookie(CSRF_COOKIE, session.csrf, { httpOnly: false, secure })];
  if (json) return jsonWithCookies(200, { user: userJson(user) }, cookies);
  return redirect(safeNextPath(next) ?? DEFAULT_NEXT, cookies);
}

/**
 * Logging out changes state, so it is a POST (as Django 5's LogoutView) and, with a session, a
 * POST of this site: the form token (or the X-CSRFToken header) must equal the csrftoken cookie.
 * Otherwise another site could end the user's session with a link or an image.
 */
function logout(req: ApiRequest, services: Services): ApiResponse {
  const key = parseCookies(req.headers.cookie).get(SESSION_COOKIE);
  const fields = formFields(req);
  if (key && services.users.session(key)) {
    const header = req.headers['x-csrftoken'];
    const cookie = parseCookies(req.headers.cookie).get(CSRF_COOKIE);
    const viaHeader = header !== undefined && cookie !== undefined && sameSecret(header, cookie);
    if (!viaHeader && !sameOriginPost(req, fields)) return jsonResponse(403, { detail: MESSAGES.csrfMissing });
    services.users.closeSession(key);
  }
  const next = queryGet(fields, 'next') ?? queryGet(parseQuery(req.rawQuery), 'next');
  const secure = req.scheme === 'https';
  const cookies = [clearCookie(SESSION_COOKIE, { httpOnly: true, secure }), clearCookie(CSRF_COOKIE, { httpOnly: false, secure })];
  if (wantsJson(req)) return { status: 204, headers: { ...SECURITY_HEADERS, 'Cache-Control': 'no-store', ...setCookieHeaders(cookies) }, body: null };
  return redirect(safeNextPath(next) ?? LOGIN_PATH, cookies);
}

function atPath(req: ApiRequest, path: string): boolean {
  return req.path === path || req.path === path.slice(0, -1);
}

function withoutBody(response: ApiResponse): ApiResponse {
  return { ...response, body: null };
}

function methodNotAllowed(method: string, allow: string): ApiResponse {
  return jsonResponse(405, { detail: message.methodNotAllowed(method) }, { Allow: allow });
}

export function loginPages(services: Services): PageRoute[] {
  return [
    (req) => {
      if (!atPath(req, LOGIN_PATH)) return undefined;
      if (req.method === 'POST') return login(req, services);
      if (req.method !== 'GET' && req.method !== 'HEAD') return methodNotAllowed(req.method, 'GET, POST, HEAD');
      const next = queryGet(parseQuery(req.rawQuery), 'next');
      const page = showForm(req, services, 200, next ? { next } : {});
      return req.method === 'HEAD' ? withoutBody(page) : page;
    },
    (req) => {
      if (!atPath(req, SESSION_PATH)) return undefined;
      if (req.method !== 'GET' && req.method !== 'HEAD') return methodNotAllowed(req.method, 'GET, HEAD');
      const answer = sessionAnswer(req, services);
      return req.method === 'HEAD' ? withoutBody(answer) : answer;
    },
    (req) => {
      if (!atPath(req, LOGOUT_PATH)) return undefined;
      if (req.method !== 'POST') return methodNotAllowed(req.method, 'POST');
      return logout(req, services);
    },
  ];
}
