/**
 * api.md §8: `GET /rules/hunt?session=temporary&page=HOSTS_LIST&ip=<ip>`, the web link real
 * clients open for an address, answered with a page showing that host's identity. It shows data
 * only to a signed-in caller (session cookie or token); anyone else is asked to sign in.
 */
import { ApiError } from '../../../shared/api/errors';
import { parseIp } from '../../../shared/api/address';
import { parseQuery, queryGet } from '../../../shared/api/queryString';
import type { JsonObject, JsonValue } from '../../../shared/resources';
import { withoutBody, type ApiRequest, type ApiResponse, type PageRoute } from '../http/types';
import { authenticate } from '../routing/auth';
import { SECURITY_HEADERS } from '../http/responses';
import type { Services } from '../store/services';
import { escapeHtml } from './browsable';

export const HUNT_PATH = '/rules/hunt';
const LOGIN_PATH = '/api-auth/login/';

/** Nothing may load from anywhere: the page is self-contained, with inline styles only. */
const CONTENT_SECURITY_POLICY = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const STYLE = `
body { font: 14px/1.45 system-ui, sans-serif; margin: 2em auto; max-width: 72em; padding: 0 1em; color: #1d2430; }
h1 { font-size: 1.5em; } h2 { font-size: 1.1em; margin-top: 1.8em; border-bottom: 1px solid #d5dae1; }
table { border-collapse: collapse; width: 100%; } th, td { text-align: left; padding: .25em .6em; border-bottom: 1px solid #eef0f3; vertical-align: top; }
th { font-weight: 600; color: #4a5566; } .none { color: #7b8595; } code { font-size: .95em; }
dl { display: grid; grid-template-columns: max-content auto; gap: .2em 1.2em; } dt { font-weight: 600; color: #4a5566; } dd { margin: 0; }`;

function page(status: number, title: string, body: string): ApiResponse {
  const html = `<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="referrer" content="same-origin">
<title>${escapeHtml(title)}</title><style>${STYLE}</style></head>
<body>
${body}
</body>
</html>
`;
  return {
    status,
    headers: {
      'Content-Type': 'text/html; charset=utf-8',
      ...SECURITY_HEADERS,
      'Content-Security-Policy': CONTENT_SECURITY_POLICY,
      'Cache-Control': 'no-store',
      Vary: 'Cookie, Authorization',
    },
    body: html,
  };
}

/** A JSON value as text for a table cell: lists joined, objects as compact JSON. */
function cellText(value: JsonValue | undefined): string {
  if (value === undefined || value === null) return '';
  if (Array.isArray(value)) return value.map(cellText).filter((t) => t !== '').join(', ');
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

function cell(value: JsonValue | undefined): string {
  return `<td>${escapeHtml(cellText(value))}</td>`;
}

function asObject(value: JsonValue | undefined): JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? value : {};
}

function itemsOf(hostId: JsonObject, list: string): JsonObject[] {
  const items = hostId[list];
  return Array.isArray(items) ? items.map(asObject) : [];
}

/** A section listing one of the host's lists as a table of the given columns. */
function section(title: string, items: readonly JsonObject[], columns: readonly (readonly [heading: string, value: (item: JsonObject) => JsonValue | undefined])[]): string {
  const head = `<h2>${escapeHtml(title)} <span class="none">(${items.length})</span></h2>`;
  if (items.length === 0) return `${head}\n<p class="none">None seen.</p>`;
  const header = columns.map(([heading]) => `<th>${escapeHtml(heading)}</th>`).join('');
  const rows = items.map((item) => `<tr>${columns.map(([, value]) => cell(value(item))).join('')}</tr>`).join('\n');
  return `${head}\n<table><thead><tr>${header}</tr></thead>\n<tbody>\n${rows}\n</tbody></table>`;
}

const key = (name: string) => (item: JsonObject) => item[name];
const SEEN = [
  ['First seen', key('first_seen')],
  ['Last seen', key('last_seen')],
] as const;

/** One row per service value: protocol, port, application protocol and what the server showed. */
function servicesSection(hostId: JsonObject): string {
  const rows: JsonObject[] = [];
  for (const service of itemsOf(hostId, 'services')) {
    const values = Array.isArray(service.values) ? service.values.map(asObject) : [];
    for (const value of values.length > 0 ? values : [{}]) rows.push({ ...value, proto: service.proto ?? null, port: service.port ?? null });
  }
  const details = (value: JsonObject): JsonValue => {
    const parts: string[] = [];
    const http = asObject(value.http);
    const tls = asObject(value.tls);
    const ssh = asObject(asObject(value.ssh).server);
    if (http.server !== undefined) parts.push(`server: ${cellText(http.server)}`);
    if (tls.subject !== undefined) parts.push(`subject: ${cellText(tls.subject)}`);
    if (tls.issuerdn !== undefined) parts.push(`issuer: ${cellText(tls.issuerdn)}`);
    if (tls.fingerprint !== undefined) parts.push(`fingerprint: ${cellText(tls.fingerprint)}`);
    if (ssh.software_version !== undefined) parts.push(`ssh: ${cellText(ssh.software_version)}`);
    return parts.join('; ');
  };
  return section('Services', rows, [['Protocol', key('proto')], ['Port', key('port')], ['Application', key('app_proto')], ['Details', details], ...SEEN]);
}

function hostView(ip: string, hits: number, hostId: JsonObject): string {
  const networks = itemsOf(hostId, 'net_info').map((n) => cellText(n.agg)).filter((t) => t !== '');
  const summary = `<dl>
<dt>Address</dt><dd><code>${escapeHtml(ip)}</code></dd>
<dt>Alert events</dt><dd>${escapeHtml(String(hits))}</dd>
<dt>First seen</dt><dd>${escapeHtml(cellText(hostId.first_seen))}</dd>
<dt>Last seen</dt><dd>${escapeHtml(cellText(hostId.last_seen))}</dd>
<dt>In home net</dt><dd>${hostId.in_home_net === true ? 'yes' : hostId.in_home_net === false ? 'no' : ''}</dd>
<dt>Network</dt><dd>${escapeHtml(networks.join(', '))}</dd>
</dl>`;
  return [
    `<h1>Host <code>${escapeHtml(ip)}</code></h1>`,
    summary,
    section('Hostnames', itemsOf(hostId, 'hostname'), [['Hostname', key('host')], ...SEEN]),
    servicesSection(hostId),
    section('Client services', itemsOf(hostId, 'client_service'), [['Protocol', key('name')], ...SEEN]),
    section('Users', itemsOf(hostId, 'username'), [['User', key('user')], ...SEEN]),
    section('Roles', itemsOf(hostId, 'roles'), [['Role', key('name')], ...SEEN]),
    section('HTTP user agents', itemsOf(hostId, 'http.user_agent'), [['User agent', key('agent')], ...SEEN]),
    section('TLS JA3 fingerprints', itemsOf(hostId, 'tls.ja3'), [['Hash', key('hash')], ['Agents', key('agent')], ...SEEN]),
    section('TLS JA4 fingerprints', itemsOf(hostId, 'tls.ja4'), [['Hash', key('hash')], ['Agents', key('agent')], ...SEEN]),
    section('SSH clients', itemsOf(hostId, 'ssh.client'), [['Software version', key('software_version')], ...SEEN]),
  ].join('\n');
}

/** This request's own URL (path and query), for the sign-in page to come back to. */
function selfUrl(req: ApiRequest): string {
  return req.rawQuery === '' ? req.path : `${req.path}?${req.rawQuery}`;
}

function signInPage(req: ApiRequest, reason: string | undefined): ApiResponse {
  const login = `${LOGIN_PATH}?next=${encodeURIComponent(selfUrl(req))}`;
  return page(
    200,
    'Sign in to see this host',
    `<h1>Sign in to see this host</h1>
${reason ? `<p>${escapeHtml(reason)}</p>\n` : ''}<p>Host identities are shown to signed-in users only. <a href="${escapeHtml(login)}">Sign in</a>, then this page opens again.</p>`,
  );
}


function answer(services: Services, req: ApiRequest): ApiResponse {
  let signedIn = false;
  let reason: string | undefined;
  try {
    signedIn = authenticate(req, services.users) !== undefined;
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    reason = error.message;
  }
  if (!signedIn) return signInPage(req, reason);
  const raw = queryGet(parseQuery(req.rawQuery), 'ip');
  if (raw === undefined || raw === '') {
    return page(400, 'No address given', '<h1>No address given</h1>\n<p>This link needs an <code>ip</code> parameter: the IPv4 or IPv6 address of the host to show.</p>');
  }
  const ip = parseIp(raw);
  if (!ip) {
    return page(400, 'Not an IP address', `<h1>Not an IP address</h1>\n<p><code>${escapeHtml(raw)}</code> is not an IPv4 or IPv6 address.</p>`);
  }
  const row = services.hosts.find(ip.text);
  if (!row) {
    return page(
      200,
      `Host ${ip.text}`,
      `<h1>Host <code>${escapeHtml(ip.text)}</code></h1>\n<p class="none">Nothing is known of this address yet: no host identity has been recorded for it.</p>`,
    );
  }
  return page(200, `Host ${ip.text}`, hostView(row.ip, row.hits, asObject(JSON.parse(row.data) as JsonValue)));
}

export function huntPage(services: Services): PageRoute {
  return (req) => {
    if (req.path !== HUNT_PATH && req.path !== `${HUNT_PATH}/`) return undefined;
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      const refused = page(405, 'Method not allowed', '<h1>Method not allowed</h1>\n<p>This page only answers GET.</p>');
      return { ...refused, headers: { ...refused.headers, Allow: 'GET, HEAD' } };
    }
    const response = answer(services, req);
    return req.method === 'HEAD' ? withoutBody(response) : response;
  };
}
