/**
 * The browsable API page (api.md §1): the response pretty-printed with its status and headers,
 * the allowed methods, forms for the writes the endpoint allows, pagination links and a
 * Filters dropdown built from the resource's list parameters.
 */
import { renderJson } from '../../../shared/api/json';
import { queryGet, type QueryPairs } from '../../../shared/api/queryString';
import type { JsonValue } from '../../../shared/resources';
import type { ApiRequest } from '../http/types';
import type { RouteMatch } from '../routing/router';
import type { Services } from '../services';
import type { UserRecord } from '../store/users';

export interface BrowsablePage {
  readonly req: ApiRequest;
  readonly query: QueryPairs;
  readonly route: RouteMatch;
  readonly allowed: readonly string[];
  readonly status: number;
  readonly body: JsonValue | null;
  readonly headers: Readonly<Record<string, string>>;
  readonly user: UserRecord | undefined;
  readonly services: Services;
}

const STATUS_TEXT: Readonly<Record<number, string>> = {
  200: 'OK',
  201: 'Created',
  204: 'No Content',
  400: 'Bad Request',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  406: 'Not Acceptable',
  415: 'Unsupported Media Type',
};

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

function filtersForm(page: BrowsablePage): string {
  const resource = page.route.endpoint?.resource;
  if (!resource || page.route.kind !== 'list') return '';
  const value = (name: string) => escapeHtml(queryGet(page.query, name) ?? '');
  const ordering = resource.ordering
    .flatMap((f) => [f, `-${f}`])
    .map((term) => `<option value="${escapeHtml(term)}"${queryGet(page.query, 'ordering') === term ? ' selected' : ''}>${escapeHtml(term)}</option>`)
    .join('');
  const filters = resource.filters
    .map((name) => `<label>${escapeHtml(name)} <input name="${escapeHtml(name)}" value="${value(name)}"></label>`)
    .join('\n');
  const search = resource.search.length > 0 ? `<label>Search <input type="search" name="search" value="${value('search')}"></label>` : '';
  return `<details class="filters"><summary>Filters</summary>
<form method="get">
<input type="hidden" name="format" value="api">
<label>Ordering <select name="ordering"><option value="">(default)</option>${ordering}</select></label>
${search}
${filters}
<button type="submit">Apply</button>
</form></details>`;
}

export function renderBrowsable(page: BrowsablePage): string {
  const resource = page.route.endpoint?.resource;
  const title = page.route.viewName;
  const statusLine = `HTTP ${page.status} ${STATUS_TEXT[page.status] ?? ''}`;
  const headerLines = Object.entries(page.headers)
    .map(([k, v]) => `<b>${escapeHtml(k)}:</b> ${escapeHtml(v)}`)
    .join('\n');
  const json = page.body === null ? '' : escapeHtml(renderJson(page.body, 4));
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)} – Outpost API</title>
<style>body{font-family:system-ui,sans-serif;margin:1.5rem;max-width:72rem}pre{background:#f5f5f5;padding:1rem;overflow:auto}.filters{margin:1rem 0}label{display:block;margin:.3rem 0}</style>
</head><body>
<nav><a href="/rest/">Api Root</a>${page.user ? ` · ${escapeHtml(page.user.username)}` : ''}</nav>
<h1>${escapeHtml(title)}</h1>
${resource ? `<p>${escapeHtml(resource.description)}</p>` : ''}
<p>Allowed methods: ${escapeHtml(page.allowed.join(', '))}</p>
${filtersForm(page)}
<pre class="response"><b>${escapeHtml(statusLine)}</b>
${headerLines}

${json}</pre>
</body></html>`;
}
