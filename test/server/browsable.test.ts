/**
 * The browsable API (api.md §1 "browsable API"; the seed's "browsable web interface ... Filters
 * dropdown"): what a browser gets instead of JSON.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Client, Reply } from '../helpers/http';
import { addUser, startServer, type TestServer } from '../helpers/server';

let server: TestServer;
let reader: Client;
beforeAll(async () => {
  server = await startServer();
  reader = addUser(server, 'reader', 'Read-only', 'e'.repeat(40));
});
afterAll(() => server.close());

/** What Chromium and Firefox send for a page. */
const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

function browse(path: string, client: Client = server.api): Promise<Reply> {
  return client.get(path, { headers: { Accept: BROWSER_ACCEPT } });
}

function decodeEntities(html: string): string {
  return html
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');
}

/** The text of the first element with this class, tags stripped, entities decoded. */
function textOf(html: string, tag: string, cls: string): string {
  const match = new RegExp(`<${tag} class="${cls}"[^>]*>([\\s\\S]*?)</${tag}>`).exec(html);
  if (!match) throw new Error(`no <${tag} class="${cls}"> in the page`);
  return decodeEntities(match[1]!.replace(/<[^>]*>/g, ''));
}

const responseText = (html: string) => textOf(html, 'pre', 'response');

/** The Filters dropdown's HTML ('' when there is none). */
function filtersOf(html: string): string {
  return /<details class="filters"[\s\S]*?<\/details>/.exec(html)?.[0] ?? '';
}

interface WriteForm {
  readonly methods: string[];
  readonly url: string;
  readonly content?: unknown;
  readonly hasComment: boolean;
}

function writeForms(html: string): WriteForm[] {
  return [...html.matchAll(/<form class="write" data-url="([^"]*)"[^>]*>([\s\S]*?)<\/form>/g)].map((m) => {
    const inner = m[2]!;
    const textarea = /<textarea name="content"[^>]*>([\s\S]*?)<\/textarea>/.exec(inner);
    return {
      url: decodeEntities(m[1]!),
      methods: [...inner.matchAll(/<button type="submit"[^>]* value="([A-Z]+)"/g)].map((b) => b[1]!),
      ...(textarea ? { content: JSON.parse(decodeEntities(textarea[1]!)) } : {}),
      hasComment: inner.includes('name="comment"'),
    };
  });
}

/** `<option>`s of the select named `name` in `html`: [value, selected]. */
function selectOptions(html: string, name: string): [string, boolean][] {
  const select = new RegExp(`<select name="${name}">([\\s\\S]*?)</select>`).exec(html);
  if (!select) throw new Error(`no select ${name}`);
  return [...select[1]!.matchAll(/<option value="([^"]*)"( selected)?>/g)].map((o) => [decodeEntities(o[1]!), o[2] !== undefined]);
}

function inputValue(html: string, name: string): string | undefined {
  const input = new RegExp(`<input[^>]* name="${name}"[^>]*>`).exec(html)?.[0];
  if (!input) return undefined;
  return decodeEntities(/ value="([^"]*)"/.exec(input)?.[1] ?? '');
}

async function createSource(name: string, extra: Record<string, unknown> = {}): Promise<{ pk: number }> {
  const reply = await server.api.post('/rest/rules/source/', { name, ...extra });
  expect(reply.status).toBe(201);
  return reply.json();
}

describe('negotiation', () => {
  test("a browser's Accept gets the page: request, status line, the headers DRF shows, the JSON indented by 4", async () => {
    await createSource('negotiated');
    const json = (await server.api.get('/rest/rules/source/')).json();
    const page = await browse('/rest/rules/source/');
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers.allow).toBe('GET, POST, HEAD, OPTIONS');
    expect(page.headers.vary).toBe('Accept');
    expect(page.text.startsWith('<!DOCTYPE html>')).toBe(true);
    expect(responseText(page.text)).toBe(
      ['HTTP 200 OK', 'Allow: GET, POST, HEAD, OPTIONS', 'Content-Type: application/json', 'Vary: Accept', '', JSON.stringify(json, null, 4)].join('\n'),
    );
    expect(textOf(page.text, 'pre', 'request')).toBe('GET /rest/rules/source/');
  });

  test('the page names the view, describes the resource, shows breadcrumbs and the allowed methods', async () => {
    const { pk } = await createSource('described');
    const page = await browse(`/rest/rules/source/${pk}/?format=api`);
    expect(page.text).toContain('<h1>Source Instance</h1>');
    expect(page.text).toContain('Sources of detection rules (a URL to fetch, or local rules).');
    expect(textOf(page.text, 'nav', 'crumbs')).toBe('Api RootSource ListSource Instance');
    expect(page.text).toContain('<a href="/rest/rules/source/">Source List</a>');
    expect(textOf(page.text, 'p', 'methods')).toBe('Allowed methods: GETPUTPATCHDELETEHEADOPTIONS');
    expect(textOf(page.text, 'pre', 'request')).toBe(`GET /rest/rules/source/${pk}/?format=api`);
  });

  test('?format=api gives the page to a client that accepts anything; ?format=json forces JSON for a browser', async () => {
    const api = await server.api.get('/rest/rules/source/?format=api', { headers: { Accept: '*/*' } });
    expect(api.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(responseText(api.text)).toContain('HTTP 200 OK');
    const json = await browse('/rest/rules/source/?format=json');
    expect(json.headers['content-type']).toBe('application/json');
    expect(json.json()).toHaveProperty('results');
    const plain = await server.api.get('/rest/rules/source/');
    expect(plain.headers['content-type']).toBe('application/json');
  });

  test('Accept: application/json; indent=4 pretty-prints the JSON', async () => {
    await createSource('indented');
    const reply = await server.api.get('/rest/rules/source/', { headers: { Accept: 'application/json; indent=4' } });
    expect(reply.headers['content-type']).toBe('application/json');
    expect(reply.text).toBe(JSON.stringify(reply.json(), null, 4));
    expect(reply.text).toContain('\n    "count": ');
  });

  test('absolute URLs in the JSON are clickable', async () => {
    const page = await browse('/rest/');
    const url = `${server.url}/rest/rules/source/`;
    expect(page.text).toContain(`"<a href="${url}" rel="nofollow noreferrer">${url}</a>"`);
    expect(page.text).toContain('<h1>Api Root</h1>');
  });
});

describe('the Filters dropdown', () => {
  test('rules/source lists its ordering choices both ways, a search box and one input per filter field', async () => {
    const filters = filtersOf((await browse('/rest/rules/source/')).text);
    expect(filters).toContain('<summary class="button">Filters</summary>');
    expect(selectOptions(filters, 'ordering').map(([v]) => v)).toEqual([
      '',
      'name',
      '-name',
      'created_date',
      '-created_date',
      'updated_date',
      '-updated_date',
      'datatype',
      '-datatype',
    ]);
    expect(filters).toContain('<option value="-name">Name - descending</option>');
    expect(inputValue(filters, 'search')).toBe('');
    expect(inputValue(filters, 'name')).toBe('');
    expect(selectOptions(filters, 'method')).toEqual([
      ['', true],
      ['http', false],
      ['local', false],
    ]);
    expect(selectOptions(filters, 'datatype').map(([v]) => v)).toEqual(['', 'sigs', 'sig', 'other']);
    expect(filters).toContain('<form method="get" id="filters-form">');
  });

  test('it keeps the current values, and format=api only when the URL had it', async () => {
    const withFormat = filtersOf((await server.api.get('/rest/rules/source/?format=api&method=local&ordering=-name&search=et+open&name=x%22y&page=2')).text);
    expect(withFormat).toContain('<details class="filters" open>');
    expect(inputValue(withFormat, 'format')).toBe('api');
    expect(selectOptions(withFormat, 'method')).toEqual([
      ['', false],
      ['http', false],
      ['local', true],
    ]);
    expect(selectOptions(withFormat, 'ordering').filter(([, selected]) => selected)).toEqual([['-name', true]]);
    expect(inputValue(withFormat, 'search')).toBe('et open');
    expect(inputValue(withFormat, 'name')).toBe('x"y');
    expect(inputValue(withFormat, 'page')).toBeUndefined();

    const withoutFormat = filtersOf((await browse('/rest/rules/source/?ordering=name,-datatype')).text);
    expect(inputValue(withoutFormat, 'format')).toBeUndefined();
    expect(selectOptions(withoutFormat, 'ordering').filter(([, selected]) => selected)).toEqual([['name,-datatype', true]]);
  });

  test('choices and booleans get selects (accounts/sciriususer: role, is_active)', async () => {
    const filters = filtersOf((await browse('/rest/accounts/sciriususer/?role=Admin&is_active=False')).text);
    expect(selectOptions(filters, 'role')).toEqual([
      ['', false],
      ['Superuser', false],
      ['Admin', true],
      ['Read-only', false],
    ]);
    expect(selectOptions(filters, 'is_active')).toEqual([
      ['', false],
      ['true', false],
      ['false', true],
    ]);
    expect(inputValue(filters, 'username')).toBe('');
    expect(inputValue(filters, 'search')).toBe('');
    expect(selectOptions(filters, 'ordering').map(([v]) => v)).toEqual(['', 'pk', '-pk', 'username', '-username', 'date_joined', '-date_joined']);
  });

  test('a resource without search fields has no search box (rules/history); detail pages have no Filters', async () => {
    const history = filtersOf((await browse('/rest/rules/history/')).text);
    expect(history).toContain('Filters');
    expect(inputValue(history, 'search')).toBeUndefined();
    expect(inputValue(history, 'action_type')).toBe('');
    const { pk } = await createSource('no-filters-here');
    expect(filtersOf((await browse(`/rest/rules/source/${pk}/`)).text)).toBe('');
  });
});

describe('pagination links', () => {
  test('next and previous come from the JSON body; first and last pages are linked', async () => {
    for (const name of ['pager-a', 'pager-b', 'pager-c']) await createSource(name);
    const path = '/rest/rules/source/?format=api&page_size=1&page=2';
    const body = (await server.api.get('/rest/rules/source/?page_size=1&page=2')).json();
    const page = await server.api.get(path);
    const pager = /<nav class="pager"[\s\S]*?<\/nav>/.exec(page.text)![0];
    expect(pager).toContain(`<a href="${server.url}/rest/rules/source/?format=api&amp;page=3&amp;page_size=1" rel="next">Next ›</a>`);
    expect(pager).toContain(`<a href="${server.url}/rest/rules/source/?format=api&amp;page_size=1" rel="prev">‹ Previous</a>`);
    expect(pager).toContain(`Page 2 of ${body.count} · ${body.count} results`);
    expect(pager).toContain('<a href="/rest/rules/source/?format=api&amp;page_size=1">« First</a>');
    expect(pager).toContain(`<a href="/rest/rules/source/?format=api&amp;page=${body.count}&amp;page_size=1">Last »</a>`);
  });

  test('a list that fits on one page has no pagination links', async () => {
    await createSource('single-page');
    const page = await browse('/rest/rules/source/?name=single-page');
    expect(page.text).not.toContain('class="pager"');
  });
});

describe('write forms', () => {
  test('a manager gets a POST form on a list, prefilled with the writable fields and their defaults, and a comment box', async () => {
    const forms = writeForms((await browse('/rest/rules/source/')).text);
    expect(forms).toEqual([
      { url: '/rest/rules/source/', methods: ['POST'], content: { name: '', method: 'http', datatype: 'sigs', uri: '' }, hasComment: true },
    ]);
    const users = writeForms((await browse('/rest/accounts/sciriususer/')).text);
    expect(users[0]!.content).toEqual({
      username: '',
      password: '',
      first_name: '',
      last_name: '',
      email: '',
      is_active: true,
      is_staff: false,
      timezone: 'UTC',
      role: 'Read-only',
    });
  });

  test('forms, OPTIONS and format links use the route\'s own path, without a format suffix', async () => {
    for (const path of ['/rest/rules/source', '/rest/rules/source.api']) {
      const page = await browse(path);
      expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(writeForms(page.text).map((f) => f.url)).toEqual(['/rest/rules/source/']);
      expect(page.text).toContain('<button type="button" id="options" data-url="/rest/rules/source/">OPTIONS</button>');
      expect(page.text).toContain('<a href="/rest/rules/source/?format=json">json</a>');
    }
  });

  test('a Read-only user gets no form', async () => {
    const { pk } = await createSource('read-only view');
    expect(writeForms((await browse('/rest/rules/source/', reader)).text)).toEqual([]);
    expect(writeForms((await browse(`/rest/rules/source/${pk}/`, reader)).text)).toEqual([]);
  });

  test('a detail page has PUT/PATCH prefilled with the object minus read-only fields, and DELETE', async () => {
    const { pk } = await createSource('editable', { uri: 'https://example.com/r.tar.gz', datatype: 'sig' });
    const forms = writeForms((await browse(`/rest/rules/source/${pk}/`)).text);
    expect(forms).toEqual([
      {
        url: `/rest/rules/source/${pk}/`,
        methods: ['PUT', 'PATCH'],
        content: { name: 'editable', method: 'http', datatype: 'sig', uri: 'https://example.com/r.tar.gz' },
        hasComment: true,
      },
      { url: `/rest/rules/source/${pk}/`, methods: ['DELETE'], hasComment: true },
    ]);
    expect(/<form class="write"[^>]*data-after="([^"]*)"/.exec((await browse(`/rest/rules/source/${pk}/`)).text)?.[1]).toBe('/rest/rules/source/');
  });

  test('read-only endpoints have no forms (rules/history, rules/ruleset detail of a missing pk)', async () => {
    const history = await browse('/rest/rules/history/');
    expect(history.headers.allow).toBe('GET, HEAD, OPTIONS');
    expect(writeForms(history.text)).toEqual([]);
    expect(writeForms((await browse('/rest/rules/ruleset/999999/')).text)).toEqual([]);
    expect(writeForms((await browse('/rest/rules/ruleset/')).text).map((f) => f.methods)).toEqual([['POST']]);
  });

  test('network_interface detail offers DELETE but no PUT or PATCH', async () => {
    const template = await server.api.post('/rest/appliances/vendor_probe_template/', { name: 'with-eth0', interfaces: [{ name: 'eth0', active: true }] });
    expect(template.status).toBe(201);
    const iface = template.json().interfaces[0].pk;
    const forms = writeForms((await browse(`/rest/appliances/network_interface/${iface}/`)).text);
    expect(forms.map((f) => f.methods)).toEqual([['DELETE']]);
    expect(writeForms((await browse('/rest/appliances/network_interface/')).text)).toEqual([]);
  });

  test('self-service actions: a Read-only user may POST to their own token/, not to another user\'s', async () => {
    const me = (await reader.get('/rest/accounts/sciriususer/current_user/')).json();
    const own = writeForms((await browse(`/rest/accounts/sciriususer/${me.pk}/token/`, reader)).text);
    expect(own).toEqual([{ url: `/rest/accounts/sciriususer/${me.pk}/token/`, methods: ['POST'], content: {}, hasComment: true }]);
    const other = await browse('/rest/accounts/sciriususer/1/token/', reader);
    expect(other.status).toBe(403);
    expect(writeForms(other.text)).toEqual([]);
    expect(writeForms((await browse('/rest/accounts/sciriususer/1/token/')).text).map((f) => f.methods)).toEqual([['POST']]);
  });

  test('the page script sends JSON with the X-CSRFToken header from the csrftoken cookie, and adds the comment', async () => {
    const page = (await browse('/rest/rules/source/')).text;
    const script = /<script nonce="[^"]+">([\s\S]*?)<\/script>/.exec(page)![1]!;
    expect(script).toContain("headers['X-CSRFToken'] = token");
    expect(script).toContain("'csrftoken='");
    expect(script).toContain("credentials: 'same-origin'");
    expect(script).toContain('data.comment = comment');
  });
});

describe('escaping and isolation', () => {
  test('a hostile source name and hostile query values appear escaped, never as markup', async () => {
    const hostile = '<script>alert(1)</script>';
    const { pk } = await createSource(hostile, { uri: 'https://x.example/"><img src=x onerror=alert(2)>' });
    const list = (await browse(`/rest/rules/source/?name=${encodeURIComponent(hostile)}&search=%22%3E%3Cb%3E`)).text;
    const detail = (await browse(`/rest/rules/source/${pk}/`)).text;
    for (const page of [list, detail]) {
      expect(page).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
      expect(page).not.toContain('<script>alert(1)');
      expect(page).not.toContain('<img src=x');
      expect(page.match(/<script\b/g)).toHaveLength(1);
    }
    expect(inputValue(filtersOf(list), 'name')).toBe(hostile);
    expect(inputValue(filtersOf(list), 'search')).toBe('"><b>');
    expect(writeForms(detail)[0]!.content).toMatchObject({ name: hostile });
  });

  test('the inline script and style carry the nonce that the Content-Security-Policy header names', async () => {
    const page = await browse('/rest/rules/source/');
    const nonces = [...page.text.matchAll(/<(?:script|style) nonce="([^"]+)">/g)].map((m) => m[1]);
    expect(nonces).toHaveLength(2);
    expect(nonces[0]).toBe(nonces[1]);
    const csp = page.headers['content-security-policy'];
    expect(csp).toBe(
      `default-src 'none'; script-src 'nonce-${nonces[0]}'; style-src 'nonce-${nonces[0]}'; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'`,
    );
    const again = await browse('/rest/rules/source/');
    expect(again.headers['content-security-policy']).not.toBe(csp);
  });

  test('the page loads nothing from elsewhere', async () => {
    const page = (await browse('/rest/rules/source/')).text;
    expect(page).not.toMatch(/<(?:link|img|iframe)\b/);
    expect(page).not.toMatch(/<[^>]*\s(?:src|srcset|action)=/);
  });
});

describe('error pages for browsers', () => {
  test('404 renders as the page with the status and the DRF body', async () => {
    const page = await browse('/rest/rules/source/999999/');
    expect(page.status).toBe(404);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(responseText(page.text)).toBe(
      ['HTTP 404 Not Found', 'Allow: GET, PUT, PATCH, DELETE, HEAD, OPTIONS', 'Content-Type: application/json', 'Vary: Accept', '', '{', '    "detail": "Not found."', '}'].join('\n'),
    );
  });

  test('403 for an anonymous browser renders as the page with a login link back to it', async () => {
    const page = await browse('/rest/rules/source/?search=a', server.api.as(null));
    expect(page.status).toBe(403);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(responseText(page.text)).toContain('HTTP 403 Forbidden');
    expect(responseText(page.text)).toContain('"detail": "Authentication credentials were not provided."');
    expect(page.text).toContain('<a href="/api-auth/login/?next=%2Frest%2Frules%2Fsource%2F%3Fsearch%3Da">Log in</a>');
    expect(writeForms(page.text)).toEqual([]);
  });

  test('405 renders as the page too', async () => {
    const page = await server.api.send('DELETE', '/rest/rules/history/', { headers: { Accept: BROWSER_ACCEPT } });
    expect(page.status).toBe(405);
    expect(responseText(page.text)).toContain('"detail": "Method \\"DELETE\\" not allowed."');
  });
});
