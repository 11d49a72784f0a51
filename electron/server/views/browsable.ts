/**
 * The browsable API page (api.md §1): what a browser sees instead of JSON. It shows the request,
 * the response (status line, the headers DRF shows, the JSON pretty-printed with clickable
 * links), the allowed methods, pagination links, a Filters dropdown built from the resource's
 * list parameters, and forms for the writes this user may make. Writes are sent by a small
 * inline script (allowed by a per-response CSP nonce) as JSON with the session's CSRF token.
 * Every value that reaches the page is HTML-escaped; the page loads nothing from elsewhere.
 */
import crypto from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import { renderJson } from '../../../shared/api/json';
import { parsePage, parsePageSize } from '../../../shared/api/listParams';
import { encodeQuery, queryGet, quotePlus, removeParam, replaceParam, type QueryPairs } from '../../../shared/api/queryString';
import type { Field, JsonObject, JsonValue, Resource } from '../../../shared/resources';
import { escapePath } from '../handlers/pagination';
import type { ApiRequest } from '../http/types';
import { CSRF_COOKIE, parseCookies, SESSION_COOKIE } from '../routing/auth';
import type { HtmlPage, HtmlRenderer, RouteMatch } from '../routing/router';
import { isManager, type UserRecord } from '../store/users';
import { actionForm } from '../routing/metadata';

export interface BrowsablePage extends HtmlPage {
  /**
   * The CSP nonce of this response (see `browsableHeaders`). Without one the page makes its own,
   * which only works while no CSP header is sent.
   */
  readonly nonce?: string;
}

// ---------------------------------------------------------------------------------------------
// HTML building blocks, shared with the login page.

const HTML_ESCAPES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]!);
}

/** A fresh CSP nonce (128 random bits). */
export function newNonce(): string {
  return crypto.randomBytes(16).toString('base64');
}

/**
 * The policy of every HTML page: nothing may load or run except this page's own inline style
 * and script (by nonce); fetches and form submissions stay on this origin; no framing.
 */
export function contentSecurityPolicy(nonce: string): string {
  return [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    `style-src 'nonce-${nonce}'`,
    "connect-src 'self'",
    "form-action 'self'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** Headers an HTML page response must carry, for the nonce the page was rendered with. */
export function browsableHeaders(nonce: string): Record<string, string> {
  return { 'Content-Security-Policy': contentSecurityPolicy(nonce) };
}

const STYLE = `
*{box-sizing:border-box}
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;color:#1d2330;background:#f3f4f7}
a{color:#1f5fbf}
.bar{display:flex;justify-content:space-between;align-items:center;background:#1d2a3a;color:#fff;padding:.6rem 1.5rem}
.bar a{color:#fff;text-decoration:none}.bar .brand{font-weight:600}.bar .who a{margin-left:.8rem;text-decoration:underline}form.logout{display:inline}button.link{margin-left:.8rem;background:none;border:0;padding:0;color:inherit;font:inherit;text-decoration:underline;cursor:pointer}
main{max-width:76rem;margin:0 auto;padding:1rem 1.5rem 3rem}
.crumbs ol{list-style:none;padding:0;margin:.2rem 0 1rem;display:flex;flex-wrap:wrap}
.crumbs li+li::before{content:"/";padding:0 .5rem;color:#8a93a3}
.crumbs li:last-child{color:#56607a}
.toolbar{display:flex;flex-wrap:wrap;gap:.6rem;align-items:center;float:right}
h1{margin:.2rem 0 .4rem;font-size:1.7rem}
h2{font-size:1.15rem;margin:0 0 .6rem}
.description{color:#3b4356;max-width:52rem}
.methods code{background:#e3e7ee;border-radius:3px;padding:0 .3rem;margin-right:.2rem}
pre{background:#fff;border:1px solid #d6dae2;border-radius:4px;padding:.8rem 1rem;overflow:auto;white-space:pre-wrap;word-break:break-word;margin:.5rem 0}
pre.request{background:#f8f9fb}
button,.button{font:inherit;border:1px solid #b8c0cc;background:#fff;border-radius:4px;padding:.3rem .8rem;cursor:pointer;color:#1d2330;text-decoration:none;display:inline-block}
button.primary{background:#1f5fbf;border-color:#1f5fbf;color:#fff}
button.danger{background:#b3261e;border-color:#b3261e;color:#fff}
details.filters{position:relative}
details.filters>summary{list-style:none}
details.filters>summary::-webkit-details-marker{display:none}
details.filters .panel{position:absolute;right:0;z-index:2;background:#fff;border:1px solid #b8c0cc;border-radius:4px;padding:1rem;width:22rem;box-shadow:0 4px 14px rgba(0,0,0,.15)}
.panel h3{font-size:.95rem;margin:.6rem 0 .3rem}
label{display:block;margin:.35rem 0}
label>span{display:block;font-size:.85rem;color:#56607a}
input,select,textarea{font:inherit;width:100%;padding:.3rem .4rem;border:1px solid #b8c0cc;border-radius:3px;background:#fff}
textarea{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:13px}
.pager{display:flex;gap:.8rem;align-items:center;margin:.5rem 0}
.pager .disabled{color:#9aa3b2}
section.form{background:#fff;border:1px solid #d6dae2;border-radius:4px;padding:1rem;margin:1rem 0}
section.form .actions{display:flex;gap:.5rem;margin-top:.6rem}
.answer{border-left:4px solid #1f5fbf;padding-left:.8rem;margin:1rem 0}
.error{color:#b3261e;font-weight:600}
.login{max-width:26rem;margin:2rem auto;background:#fff;border:1px solid #d6dae2;border-radius:4px;padding:1.5rem}
.login .or{text-align:center;color:#56607a;margin:.8rem 0 .2rem}
`;

export interface HtmlDocument {
  readonly title: string;
  readonly nonce: string;
  /** Already-escaped HTML of the top bar's right side. */
  readonly who: string;
  /** Already-escaped HTML of the page body. */
  readonly main: string;
  readonly script?: string;
}

export function htmlDocument(doc: HtmlDocument): string {
  const nonce = escapeHtml(doc.nonce);
  return `<!DOCTYPE html>
<html lang="en"><head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<title>${escapeHtml(doc.title)} – Outpost REST API</title>
<style nonce="${nonce}">${STYLE}</style>
</head><body>
<header class="bar"><a class="brand" href="/rest/">Outpost REST API</a><span class="who">${doc.who}</span></header>
<main>
${doc.main}
</main>
${doc.script === undefined ? '' : `<script nonce="${nonce}">${doc.script}</script>\n`}</body></html>`;
}

// ---------------------------------------------------------------------------------------------
// Pieces of the browsable page; each takes the page description and returns escaped HTML.

/** The route's own path with the given query, relative to this origin. */
function pathWith(route: RouteMatch, pairs: QueryPairs): string {
  const query = encodeQuery(pairs);
  return `${canonicalPath(route)}${query ? `?${query}` : ''}`;
}

function fullPath(req: ApiRequest): string {
  return `${escapePath(req.path)}${req.rawQuery ? `?${req.rawQuery}` : ''}`;
}

function link(href: string, text: string, rel?: string): string {
  return `<a href="${escapeHtml(href)}"${rel ? ` rel="${rel}"` : ''}>${escapeHtml(text)}</a>`;
}

/** The logout button: a POST form carrying the form token (logging out changes state). */
export function logoutForm(formToken: string): string {
  return `<form method="post" action="/api-auth/logout/" class="logout"><input type="hidden" name="csrfmiddlewaretoken" value="${escapeHtml(formToken)}"><button type="submit" class="link">Log out</button></form>`;
}

/** Did this request come with a live browser session (so that logging out means something)? */
function hasSession(page: BrowsablePage): boolean {
  const key = parseCookies(page.req.headers.cookie).get(SESSION_COOKIE);
  return key !== undefined && page.services.users.session(key) !== undefined;
}

function whoBox(page: BrowsablePage): string {
  if (!page.user) return link(`/api-auth/login/?next=${quotePlus(fullPath(page.req))}`, 'Log in');
  const name = `<span class="user">${escapeHtml(page.user.username)}</span>`;
  const csrf = parseCookies(page.req.headers.cookie).get(CSRF_COOKIE);
  return hasSession(page) && csrf ? `${name}${logoutForm(csrf)}` : name;
}

interface Crumb {
  readonly label: string;
  readonly href: string;
}

export function breadcrumbs(route: RouteMatch): Crumb[] {
  const crumbs: Crumb[] = [{ label: 'Api Root', href: '/rest/' }];
  const resource = route.endpoint?.resource;
  if (!resource) return crumbs;
  const list = `/rest/${resource.path}/`;
  crumbs.push({ label: `${resource.title} List`, href: list });
  const detail = `${list}${escapePath(route.id)}/`;
  if (route.id !== '') crumbs.push({ label: `${resource.title} Instance`, href: detail });
  if (route.action) crumbs.push({ label: route.viewName, href: `${route.id === '' ? list : detail}${escapePath(route.action.name)}/` });
  return crumbs;
}

/**
 * The route's path with its trailing slash and without a format suffix (`source.api`): the URL
 * the page's own requests go to, so that their Accept header decides the format.
 */
export function canonicalPath(route: RouteMatch): string {
  return breadcrumbs(route).at(-1)!.href;
}

function crumbsNav(route: RouteMatch): string {
  const crumbs = breadcrumbs(route);
  const items = crumbs.map((crumb, i) =>
    i === crumbs.length - 1 ? `<li aria-current="page">${escapeHtml(crumb.label)}</li>` : `<li>${link(crumb.href, crumb.label)}</li>`,
  );
  return `<nav class="crumbs" aria-label="Breadcrumbs"><ol>${items.join('')}</ol></nav>`;
}

function descriptionOf(route: RouteMatch): string {
  return route.endpoint?.resource.description ?? 'The API root: one link per endpoint family.';
}

/** The JSON pretty-printed (indent 4) and escaped, its http(s) URLs made clickable as DRF does. */
export function jsonHtml(body: JsonValue): string {
  const text = renderJson(body, 4);
  // A JSON string that is exactly a URL: quotes and backslashes cannot occur inside the match,
  // so an escaped quote within a longer string never starts or ends one.
  const url = /"(https?:\/\/[^"\\\s<>]+)"/g;
  let out = '';
  let last = 0;
  for (const match of text.matchAll(url)) {
    out += escapeHtml(text.slice(last, match.index));
    out += `"${link(match[1]!, match[1]!, 'nofollow noreferrer')}"`;
    last = match.index + match[0].length;
  }
  return out + escapeHtml(text.slice(last));
}

/** The response as DRF shows it: status line, headers sorted by name (Content-Type as JSON's). */
export function responseHead(status: number, headers: Readonly<Record<string, string>>, hasBody: boolean): string[] {
  const shown: Record<string, string> = { ...headers };
  if (hasBody) shown['Content-Type'] = 'application/json';
  const lines = Object.keys(shown)
    .sort()
    .map((name) => `<b>${escapeHtml(name)}:</b> ${escapeHtml(shown[name]!)}`);
  return [`<b>HTTP ${status} ${escapeHtml(STATUS_CODES[status] ?? '')}</b>`, ...lines];
}

function responseBlock(page: BrowsablePage): string {
  const head = responseHead(page.status, page.headers, page.body !== null).join('\n');
  const body = page.body === null ? '' : `\n\n${jsonHtml(page.body)}`;
  return `<section class="response-info" aria-label="Response"><pre class="response">${head}${body}</pre></section>`;
}

function methodsLine(allowed: readonly string[]): string {
  return `<p class="methods">Allowed methods: ${allowed.map((m) => `<code>${escapeHtml(m)}</code>`).join('')}</p>`;
}

interface Envelope {
  readonly count: number;
  readonly next: string | null;
  readonly previous: string | null;
}

function envelopeOf(body: JsonValue | null): Envelope | undefined {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return undefined;
  const { count, next, previous, results } = body;
  if (typeof count !== 'number' || !Array.isArray(results)) return undefined;
  const url = (v: JsonValue | undefined) => (typeof v === 'string' ? v : null);
  return { count, next: url(next), previous: url(previous) };
}

function pager(page: BrowsablePage): string {
  const envelope = envelopeOf(page.body);
  if (!envelope) return '';
  const size = parsePageSize(queryGet(page.query, 'page_size'));
  const pages = Math.max(1, Math.ceil(envelope.count / size));
  if (pages === 1) return '';
  const requested = parsePage(queryGet(page.query, 'page'));
  const current = requested === 'last' ? pages : requested === 'invalid' ? 1 : requested;
  const pageLink = (n: number) => pathWith(page.route, n === 1 ? removeParam(page.query, 'page') : replaceParam(page.query, 'page', String(n)));
  const or = (href: string | null, text: string, rel?: string) =>
    href === null ? `<span class="disabled">${escapeHtml(text)}</span>` : link(href, text, rel);
  const parts = [
    or(current > 1 ? pageLink(1) : null, '« First'),
    or(envelope.previous, '‹ Previous', 'prev'),
    `<span>Page ${current} of ${pages} · ${envelope.count} result${envelope.count === 1 ? '' : 's'}</span>`,
    or(envelope.next, 'Next ›', 'next'),
    or(current < pages ? pageLink(pages) : null, 'Last »'),
  ];
  return `<nav class="pager" aria-label="Pages">${parts.join('')}</nav>`;
}

function formatLinks(page: BrowsablePage): string {
  const as = (format: string) => link(pathWith(page.route, replaceParam(page.query, 'format', format)), format);
  return `<span class="formats">GET as ${as('json')} · ${as('api')}</span>`;
}

// ---------------------------------------------------------------------------------------------
// The Filters dropdown: django-filter's form for the resource, plus ordering and search.

function option(value: string, text: string, selected: boolean): string {
  return `<option value="${escapeHtml(value)}"${selected ? ' selected' : ''}>${escapeHtml(text)}</option>`;
}

function labelled(text: string, control: string): string {
  return `<label><span>${escapeHtml(text)}</span>${control}</label>`;
}

/** The boolean filter's current state as django-filter reads it (anything else: unknown). */
function booleanState(raw: string | undefined): '' | 'true' | 'false' {
  const lower = (raw ?? '').toLowerCase();
  if (lower === 'true' || lower === '1') return 'true';
  if (lower === 'false' || lower === '0') return 'false';
  return '';
}

export function filterControl(name: string, field: Field | undefined, current: string | undefined): string {
  const attr = escapeHtml(name);
  if (field?.kind === 'choice') {
    const options = [option('', '---------', !current), ...field.choices.map((c) => option(c, c, c === current))];
    if (current && !field.choices.includes(current)) options.push(option(current, current, true));
    return `<select name="${attr}">${options.join('')}</select>`;
  }
  if (field?.kind === 'boolean') {
    const state = booleanState(current);
    return `<select name="${attr}">${option('', 'Unknown', state === '')}${option('true', 'Yes', state === 'true')}${option('false', 'No', state === 'false')}</select>`;
  }
  const value = escapeHtml(current ?? '');
  if (field?.kind === 'integer' || field?.kind === 'ref') return `<input name="${attr}" inputmode="numeric" value="${value}">`;
  if (field?.kind === 'datetime') return `<input name="${attr}" placeholder="2026-01-31T12:00:00Z" value="${value}">`;
  return `<input name="${attr}" value="${value}">`;
}

export function orderingChoices(resource: Resource): { value: string; text: string }[] {
  return resource.ordering.flatMap((name) => {
    const label = resource.fields[name]?.label ?? name;
    return [
      { value: name, text: `${label} - ascending` },
      { value: `-${name}`, text: `${label} - descending` },
    ];
  });
}

/** Whether the query already narrows or orders the list (the dropdown then opens by itself). */
function filtering(resource: Resource, query: QueryPairs): boolean {
  return ['ordering', 'search', ...resource.filters].some((name) => (queryGet(query, name) ?? '') !== '');
}

export function filtersDropdown(resource: Resource, query: QueryPairs): string {
  const kept = ['format', 'page_size']
    .map((name) => [name, queryGet(query, name)] as const)
    .filter(([, value]) => value !== undefined && value !== '')
    .map(([name, value]) => `<input type="hidden" name="${name}" value="${escapeHtml(value!)}">`);
  const sections: string[] = [];
  if (resource.ordering.length > 0) {
    const current = queryGet(query, 'ordering') ?? '';
    const choices = orderingChoices(resource);
    const options = [option('', '(default)', current === ''), ...choices.map((c) => option(c.value, c.text, c.value === current))];
    if (current !== '' && !choices.some((c) => c.value === current)) options.push(option(current, current, true));
    sections.push(`<h3>Ordering</h3>${labelled('Order by', `<select name="ordering">${options.join('')}</select>`)}`);
  }
  if (resource.search.length > 0) {
    const control = `<input type="search" name="search" value="${escapeHtml(queryGet(query, 'search') ?? '')}">`;
    sections.push(`<h3>Search</h3>${labelled(`Search in ${resource.search.join(', ')}`, control)}`);
  }
  if (resource.filters.length > 0) {
    const controls = resource.filters.map((name) => {
      const field = resource.fields[name];
      return labelled(field?.label ?? name, filterControl(name, field, queryGet(query, name)));
    });
    sections.push(`<h3>Field filters</h3>${controls.join('')}`);
  }
  if (sections.length === 0) return '';
  const clearPairs = query.filter(([k]) => k === 'format' || k === 'page_size');
  return `<details class="filters"${filtering(resource, query) ? ' open' : ''}><summary class="button">Filters</summary>
<div class="panel"><form method="get" id="filters-form">${kept.join('')}
${sections.join('\n')}
<div class="actions"><button type="submit" class="primary">Apply</button> <a class="button" href="?${escapeHtml(encodeQuery(clearPairs))}">Clear</a></div>
</form></div></details>`;
}

// ---------------------------------------------------------------------------------------------
// Write forms: raw JSON content plus a separate comment box.

/** The same rule as the router's permission check: managers write; others only their own self-service actions. */
export function mayWrite(route: RouteMatch, user: UserRecord | undefined, method: string): boolean {
  if (!user || !route.handlers[method]) return false;
  return isManager(user) || (route.action?.selfService === true && route.id === String(user.pk));
}

function isObject(value: JsonValue | null): value is JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function writable(name: string, field: Field | undefined): field is Field {
  return field !== undefined && !field.readOnly && name !== 'comment';
}

/** What an empty form shows for a field that has no default. */
function blankValue(field: Field): JsonValue {
  switch (field.kind) {
    case 'string':
    case 'choice':
      return '';
    case 'boolean':
      return false;
    case 'refList':
    case 'items':
    case 'choiceList':
      return [];
    default:
      return null;
  }
}

/** POST prefill: every writable field with its declared default. */
export function creationTemplate(fields: Readonly<Record<string, Field>>): JsonObject {
  const out: JsonObject = {};
  for (const [name, field] of Object.entries(fields)) {
    if (writable(name, field)) out[name] = field.default !== undefined ? field.default : blankValue(field);
  }
  return out;
}

/** PUT/PATCH prefill: the current object minus read-only fields. */
export function editTemplate(resource: Resource, current: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const [name, value] of Object.entries(current)) {
    if (writable(name, resource.fields[name])) out[name] = value;
  }
  return out;
}

function commentBox(): string {
  return labelled('Comment (stored with the history entry of this change)', '<input name="comment" autocomplete="off">');
}

function contentBox(content: JsonObject): string {
  const text = renderJson(content, 4);
  const rows = Math.min(30, Math.max(4, text.split('\n').length + 1));
  return `<label><span>Content (application/json)</span><textarea name="content" rows="${rows}" spellcheck="false">${escapeHtml(text)}</textarea></label>`;
}

function writeForm(opts: { title: string; url: string; after?: string; content?: JsonObject; buttons: readonly string[]; danger?: boolean }): string {
  const buttons = opts.buttons
    .map((method) => `<button type="submit" class="${opts.danger ? 'danger' : 'primary'}" value="${method}">${method}</button>`)
    .join(' ');
  const after = opts.after === undefined ? '' : ` data-after="${escapeHtml(opts.after)}"`;
  return `<section class="form"><h2>${escapeHtml(opts.title)}</h2>
<form class="write" data-url="${escapeHtml(opts.url)}"${after}>
${opts.content === undefined ? '' : contentBox(opts.content)}
${commentBox()}
<div class="actions">${buttons}</div>
</form></section>`;
}

export function writeForms(page: BrowsablePage): string {
  const { route, user } = page;
  const resource = route.endpoint?.resource;
  if (!resource) return '';
  const url = canonicalPath(route);
  const forms: string[] = [];
  if (route.kind === 'list' && mayWrite(route, user, 'POST')) {
    forms.push(writeForm({ title: `New ${resource.title}`, url, content: creationTemplate(resource.fields), buttons: ['POST'] }));
  }
  if (route.kind === 'action' && mayWrite(route, user, 'POST')) {
    // An action with a form of its own shows it; the others take no fields but the comment.
    const form = actionForm(route.action);
    forms.push(writeForm({ title: route.viewName, url, content: form ? creationTemplate(form) : {}, buttons: ['POST'] }));
  }
  if (route.kind === 'detail' && page.status === 200 && isObject(page.body)) {
    const edits = ['PUT', 'PATCH'].filter((m) => mayWrite(route, user, m));
    if (edits.length > 0) {
      forms.push(writeForm({ title: `Change this ${resource.title}`, url, content: editTemplate(resource, page.body), buttons: edits }));
    }
    if (mayWrite(route, user, 'DELETE')) {
      forms.push(writeForm({ title: `Delete this ${resource.title}`, url, after: `/rest/${resource.path}/`, buttons: ['DELETE'], danger: true }));
    }
  }
  return forms.join('\n');
}

// ---------------------------------------------------------------------------------------------
// The page script: JSON writes with the CSRF header, OPTIONS, tidy filter submissions.

export const PAGE_SCRIPT = `
'use strict';
(function () {
  var KEPT_ANSWER = 'outpost.browsable.answer';
  var answer = document.getElementById('answer');
  function show(text) {
    answer.hidden = false;
    answer.querySelector('pre').textContent = text;
    answer.scrollIntoView({ block: 'nearest' });
  }
  var kept = sessionStorage.getItem(KEPT_ANSWER);
  if (kept !== null) {
    sessionStorage.removeItem(KEPT_ANSWER);
    show(kept);
  }
  function csrfToken() {
    var cookies = document.cookie.split(';');
    for (var i = 0; i < cookies.length; i++) {
      var cookie = cookies[i].trim();
      if (cookie.indexOf('csrftoken=') === 0) return decodeURIComponent(cookie.slice('csrftoken='.length));
    }
    return '';
  }
  async function send(method, url, body) {
    var headers = { Accept: 'application/json; indent=4' };
    var token = csrfToken();
    if (token) headers['X-CSRFToken'] = token;
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    var reply = await fetch(url, { method: method, headers: headers, body: body, credentials: 'same-origin' });
    var text = 'HTTP ' + reply.status + ' ' + reply.statusText;
    ['Allow', 'Content-Type', 'Vary'].forEach(function (name) {
      var value = reply.headers.get(name);
      if (value) text += '\\n' + name + ': ' + value;
    });
    var content = await reply.text();
    return { ok: reply.ok, text: content ? text + '\\n\\n' + content : text };
  }
  function bodyOf(form) {
    var content = form.elements.namedItem('content');
    var raw = content ? content.value : '';
    var comment = form.elements.namedItem('comment').value;
    if (comment === '') return raw.trim() === '' ? undefined : raw;
    var data = {};
    if (raw.trim() !== '') {
      try {
        data = JSON.parse(raw);
      } catch (error) {
        throw new Error('The content is not valid JSON, so the comment cannot be added to it: ' + error.message);
      }
    }
    if (data === null || typeof data !== 'object' || Array.isArray(data)) throw new Error('A comment can only be added to a JSON object.');
    data.comment = comment;
    return JSON.stringify(data);
  }
  document.querySelectorAll('form.write').forEach(function (form) {
    form.addEventListener('submit', async function (event) {
      event.preventDefault();
      var button = event.submitter;
      var method = button.value;
      if (method === 'DELETE' && !window.confirm('Delete this object?')) return;
      var body;
      try {
        body = bodyOf(form);
      } catch (error) {
        show(error.message);
        return;
      }
      button.disabled = true;
      try {
        var result = await send(method, form.dataset.url, body);
        if (!result.ok) return show(result.text);
        sessionStorage.setItem(KEPT_ANSWER, result.text);
        if (form.dataset.after) location.assign(form.dataset.after);
        else location.reload();
      } catch (error) {
        show('The request failed: ' + error.message);
      } finally {
        button.disabled = false;
      }
    });
  });
  var options = document.getElementById('options');
  if (options) {
    options.addEventListener('click', async function () {
      try {
        show((await send('OPTIONS', options.dataset.url)).text);
      } catch (error) {
        show('The request failed: ' + error.message);
      }
    });
  }
  var filters = document.getElementById('filters-form');
  if (filters) {
    filters.addEventListener('submit', function () {
      Array.prototype.forEach.call(filters.elements, function (element) {
        if (element.name && element.value === '') element.disabled = true;
      });
    });
    window.addEventListener('pageshow', function () {
      Array.prototype.forEach.call(filters.elements, function (element) {
        element.disabled = false;
      });
    });
  }
})();
`;

export function renderBrowsable(page: BrowsablePage): string {
  const { route, req } = page;
  const resource = route.endpoint?.resource;
  const toolbar = [
    `<button type="button" id="options" data-url="${escapeHtml(canonicalPath(route))}">OPTIONS</button>`,
    formatLinks(page),
    resource && route.kind === 'list' ? filtersDropdown(resource, page.query) : '',
  ].join('\n');
  const main = `${crumbsNav(route)}
<div class="toolbar">${toolbar}</div>
<h1>${escapeHtml(route.viewName)}</h1>
<div class="description"><p>${escapeHtml(descriptionOf(route))}</p></div>
${methodsLine(page.allowed)}
<section class="request-info" aria-label="Request"><pre class="request"><b>${escapeHtml(req.method)}</b> ${escapeHtml(fullPath(req))}</pre></section>
${responseBlock(page)}
${pager(page)}
<section id="answer" class="answer" hidden><h2>Answer</h2><pre></pre></section>
${writeForms(page)}`;
  return htmlDocument({ title: route.viewName, nonce: page.nonce ?? newNonce(), who: whoBox(page), main, script: PAGE_SCRIPT });
}

/** The router's HTML renderer: the page with a fresh nonce and the policy that allows only it. */
export const browsableRenderer: HtmlRenderer = (page) => {
  const nonce = newNonce();
  return { html: renderBrowsable({ ...page, nonce }), headers: browsableHeaders(nonce) };
};
