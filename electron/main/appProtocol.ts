/**
 * The `app://outpost` protocol (app.md §1): the renderer's build from its folder, and the API
 * paths forwarded to the server process on 127.0.0.1 with the local token added — so the
 * renderer never holds the token, and its origin is never a wildcard CORS origin on the server.
 * Every answer carries the app's Content-Security-Policy.
 */
import type { CustomScheme, Protocol } from 'electron';
import { APP_CSP, staticFiles } from '../app/staticFiles';
import type { ApiResponse } from '../server/http/types';
import { APP_HOST, APP_ORIGIN, APP_SCHEME } from './appOrigin';
import type { ServerEndpoint } from './serverMessages';

/**
 * Privileges of the scheme, registered before the app is ready: standard (an origin, relative
 * URLs, storage), secure (a secure context, like https), fetch and streamed bodies. Not
 * corsEnabled and not bypassCSP: no other origin may read it, and the CSP applies.
 */
export const APP_SCHEME_PRIVILEGES: CustomScheme = {
  scheme: APP_SCHEME,
  privileges: { standard: true, secure: true, supportFetchAPI: true, stream: true, codeCache: true },
};

export function registerAppScheme(protocol: Pick<Protocol, 'registerSchemesAsPrivileged'>): void {
  protocol.registerSchemesAsPrivileged([APP_SCHEME_PRIVILEGES]);
}

/** Path prefixes the server answers; everything else is a file of the renderer's build. */
export const FORWARDED_PREFIXES = ['/rest', '/app', '/remote', '/api-auth', '/rules'] as const;

export function isForwardedPath(pathname: string): boolean {
  return FORWARDED_PREFIXES.some((prefix) => pathname === prefix || pathname.startsWith(`${prefix}/`));
}

/** Request headers not passed on: hop-by-hop, and credentials other than the local token. */
const DROPPED_REQUEST_HEADERS = new Set([
  'host',
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authorization',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'content-length',
  'authorization',
  'cookie',
  'origin',
  'referer',
]);

/** Response headers not passed back: hop-by-hop, the decoded body's old framing, cookies. */
const DROPPED_RESPONSE_HEADERS = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-encoding', 'content-length', 'set-cookie']);

const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

export type Fetch = (input: string, init: RequestInit) => Promise<Response>;

export interface AppProtocolOptions {
  /** The renderer's build (dist/renderer). */
  readonly rendererDir: string;
  /** The server's port and token once it runs (waiting a little while it starts); undefined when down. */
  readonly endpoint: () => ServerEndpoint | undefined | Promise<ServerEndpoint | undefined>;
  readonly fetch?: Fetch;
}

function jsonAnswer(status: number, detail: string): Response {
  return withCsp(new Response(JSON.stringify({ detail }), { status, headers: { 'Content-Type': 'application/json' } }));
}

/** Every app:// answer carries the CSP, whatever produced it. */
function withCsp(response: Response): Response {
  response.headers.set('Content-Security-Policy', APP_CSP);
  return response;
}

function fromApiResponse(answer: ApiResponse): Response {
  const headers = new Headers();
  for (const [name, value] of Object.entries(answer.headers)) {
    if (typeof value === 'string') headers.set(name, value);
    else for (const item of value) headers.append(name, item);
  }
  const body = answer.body === null ? null : typeof answer.body === 'string' ? answer.body : new Uint8Array(answer.body);
  return withCsp(new Response(body, { status: answer.status, headers }));
}

/** The same request as the server should see it: its own headers, with the token, no others' credentials. */
export function forwardedHeaders(incoming: Headers, token: string): Headers {
  const headers = new Headers();
  incoming.forEach((value, name) => {
    if (!DROPPED_REQUEST_HEADERS.has(name.toLowerCase())) headers.set(name, value);
  });
  headers.set('Authorization', `Token ${token}`);
  return headers;
}

/** A Location pointing at the server itself is rewritten to the app's origin. */
function appLocation(location: string, upstream: string): string {
  if (!location.startsWith(upstream)) return location;
  const rest = location.slice(upstream.length);
  return `${APP_ORIGIN}${rest.startsWith('/') ? rest : `/${rest}`}`;
}

/** Refuse a request made by another origin (its Origin header, or the browser's Sec-Fetch-Site says so). */
function fromOtherOrigin(request: Request): boolean {
  const origin = request.headers.get('origin');
  if (origin !== null && origin !== APP_ORIGIN) return true;
  const site = request.headers.get('sec-fetch-site');
  return site !== null && site !== 'same-origin' && site !== 'none';
}

async function forward(request: Request, url: URL, options: AppProtocolOptions): Promise<Response> {
  if (fromOtherOrigin(request)) return jsonAnswer(403, 'Only the Outpost app may use its server.');
  const endpoint = await options.endpoint();
  if (!endpoint) return jsonAnswer(503, 'The local server is not running; it may be restarting.');
  const upstream = `http://127.0.0.1:${endpoint.port}`;
  const method = request.method.toUpperCase();
  const hasBody = method !== 'GET' && method !== 'HEAD' && request.body !== null;
  let answer: Response;
  try {
    answer = await (options.fetch ?? fetch)(`${upstream}${url.pathname}${url.search}`, {
      method,
      headers: forwardedHeaders(request.headers, endpoint.token),
      redirect: 'manual',
      ...(hasBody ? { body: request.body, duplex: 'half' } : {}),
    });
  } catch {
    return jsonAnswer(503, 'The local server did not answer; it may be restarting.');
  }
  const headers = new Headers();
  answer.headers.forEach((value, name) => {
    if (DROPPED_RESPONSE_HEADERS.has(name)) return;
    headers.set(name, name === 'location' ? appLocation(value, upstream) : value);
  });
  const body = NULL_BODY_STATUSES.has(answer.status) || method === 'HEAD' ? null : answer.body;
  return withCsp(new Response(body, { status: answer.status, statusText: answer.statusText, headers }));
}

/** The handler of `protocol.handle('app', …)`. */
export function createAppProtocolHandler(options: AppProtocolOptions): (request: Request) => Promise<Response> {
  const files = staticFiles(options.rendererDir);
  return async (request) => {
    let url: URL;
    try {
      url = new URL(request.url);
    } catch {
      return jsonAnswer(400, 'Bad request.');
    }
    // Another host under app:// is another origin: never served, never forwarded.
    if (url.protocol !== `${APP_SCHEME}:` || url.hostname !== APP_HOST || url.port !== '' || url.username !== '' || url.password !== '') {
      return jsonAnswer(404, 'Not found.');
    }
    if (isForwardedPath(url.pathname)) return forward(request, url, options);
    let path: string;
    try {
      path = decodeURIComponent(url.pathname);
    } catch {
      return jsonAnswer(400, 'Bad request.');
    }
    const method = request.method.toUpperCase();
    if (method !== 'GET' && method !== 'HEAD') return jsonAnswer(405, `Method "${method}" not allowed.`);
    const file = files({ method, path, rawQuery: url.search.slice(1), headers: {}, body: Buffer.alloc(0), remoteAddress: '', scheme: 'https' });
    return file ? fromApiResponse(file) : jsonAnswer(404, 'Not found.');
  };
}

export function handleAppProtocol(protocol: Pick<Protocol, 'handle'>, options: AppProtocolOptions): void {
  protocol.handle(APP_SCHEME, createAppProtocolHandler(options));
}
