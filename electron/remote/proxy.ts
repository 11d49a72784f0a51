/**
 * The proxy (app.md §3.4): `/remote/rest/…` on the embedded server forwards to the central
 * server's `/rest/…` with the remote token, streams the answer back with the central server's
 * absolute URLs (`next`, `previous`, Location) turned into the proxy's, and refreshes the
 * mirror from GET answers of mirrored endpoints. Only a locally authenticated user may use it
 * (managers for changes): it lends the remote token, never shows it.
 */
import { StringDecoder } from 'node:string_decoder';
import type { Dispatcher } from 'undici';
import { ApiError } from '../../shared/api/errors';
import { MESSAGES } from '../../shared/api/messages';
import type { JsonObject, JsonValue } from '../../shared/resources';
import { canonical } from '../../shared/sync/merge';
import { rewriteUrl, UrlRewriter } from '../../shared/sync/urlRewrite';
import type { ApiRequest, ApiResponse, HeaderValue } from '../server/http/types';
import { authenticate, isSafeMethod } from '../server/routing/auth';
import { jsonResponse, originOf } from '../server/http/responses';
import type { Services } from '../server/store/services';
import { isManager } from '../server/store/users';
import { RemoteError } from './client';
import { Mirror } from './mirror';
import type { RemoteSession } from './session';
import { PULLED, pullPath, type PulledEndpoint } from './synced';

export const PROXY_PREFIX = '/remote';

/** Request headers passed on (credentials and hop-by-hop headers are not). */
const FORWARDED_REQUEST = ['accept', 'content-type', 'accept-language', 'if-none-match', 'if-modified-since'];
/** Response headers not passed back. */
const DROPPED_RESPONSE = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'set-cookie', 'content-encoding', 'www-authenticate']);
/** GET answers longer than this are streamed without refreshing the mirror. */
const MIRROR_LIMIT_CHARS = 64 * 1024 * 1024;

function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The mirrored endpoint a proxied path reads, and whether it is one object or a list page. */
export function mirroredTarget(remotePath: string): { endpoint: PulledEndpoint; detail: boolean } | undefined {
  for (const endpoint of PULLED) {
    const prefix = `/rest/${pullPath(endpoint)}/`;
    if (!remotePath.startsWith(prefix)) continue;
    const rest = remotePath.slice(prefix.length);
    if (rest === '') return { endpoint, detail: false };
    if (/^[^/]+\/?$/.test(rest)) return { endpoint, detail: true };
  }
  return undefined;
}

export interface ProxyTarget {
  /** The current workspace's services (its users authenticate the request). */
  readonly services: Services;
  /** Its link to the central server; undefined for a standalone workspace. */
  readonly session: RemoteSession | undefined;
}

/** Refresh the mirror from a proxied GET answer; best effort (the next pull is the authority). */
function refreshMirror(services: Services, endpoint: PulledEndpoint, detail: boolean, text: string): void {
  let body: JsonValue;
  try {
    body = JSON.parse(text) as JsonValue;
  } catch {
    return;
  }
  const objects = detail ? (isObject(body) ? [body] : []) : isObject(body) && Array.isArray(body.results) ? body.results.filter(isObject) : [];
  if (objects.length === 0) return;
  const mirror = new Mirror(services);
  try {
    services.store.write(() => {
      services.store.deferForeignKeys();
      for (const object of objects) {
        if (endpoint !== 'host_id' && typeof object.pk === 'number') {
          const base = mirror.base(endpoint, object.pk);
          if (base && canonical(base) === canonical(object)) continue;
        }
        mirror.put1(endpoint, object);
      }
    });
  } catch {
    // An object referring to something not mirrored yet: the next pull brings both.
  }
}

export async function proxy(req: ApiRequest, { services, session }: ProxyTarget): Promise<ApiResponse> {
  let auth;
  try {
    auth = authenticate(req, services.users);
    if (!auth) throw ApiError.detail(403, MESSAGES.notAuthenticated);
    if (!isSafeMethod(req.method) && !isManager(auth.user)) throw ApiError.detail(403, MESSAGES.permissionDenied);
  } catch (error) {
    if (error instanceof ApiError) return jsonResponse(error.status, error.body);
    throw error;
  }
  if (!session) return jsonResponse(404, { detail: 'This workspace is not bound to a central server: there is nothing to proxy to.' });
  const remotePath = req.path.slice(PROXY_PREFIX.length);
  const upstream = session.client.url(remotePath) + (req.rawQuery ? `?${req.rawQuery}` : '');
  const headers: Record<string, string> = {};
  for (const name of FORWARDED_REQUEST) {
    const value = req.headers[name];
    if (value !== undefined) headers[name] = value;
  }
  let answer: Dispatcher.ResponseData;
  try {
    answer = await session.client.stream(req.method, upstream, headers, req.method === 'GET' || req.method === 'HEAD' ? undefined : req.body);
  } catch (error) {
    const code = (error as { code?: string }).code;
    const reason = error instanceof RemoteError ? error.message : `the central server ${session.config.url} cannot be reached (${code ?? (error as Error).message})`;
    return jsonResponse(502, { detail: `Bad gateway: ${reason}.` });
  }
  const remoteApi = session.client.url('/rest/');
  const localApi = `${originOf(req)}${PROXY_PREFIX}/rest/`;
  const out: Record<string, HeaderValue> = {};
  for (const [name, value] of Object.entries(answer.headers)) {
    if (value === undefined || DROPPED_RESPONSE.has(name)) continue;
    const text = Array.isArray(value) ? value.join(', ') : value;
    out[name] = name === 'location' ? rewriteUrl(text, remoteApi, localApi) : text;
  }
  out['Cache-Control'] = 'no-store';
  if (req.method === 'HEAD' || answer.statusCode === 204 || answer.statusCode === 304) {
    await answer.body.dump();
    return { status: answer.statusCode, headers: out, body: null };
  }
  const contentType = String(answer.headers['content-type'] ?? '');
  const textual = /json|html|text/.test(contentType);
  const mirrored = req.method === 'GET' && answer.statusCode === 200 && /json/.test(contentType) ? mirroredTarget(remotePath) : undefined;
  async function* body(): AsyncGenerator<Uint8Array> {
    if (!textual) {
      for await (const chunk of answer.body) yield chunk as Uint8Array;
      return;
    }
    const decoder = new StringDecoder('utf8');
    const rewriter = new UrlRewriter(remoteApi, localApi);
    let kept: string[] | undefined = mirrored ? [] : undefined;
    let keptBytes = 0;
    const emit = (piece: string): Buffer | undefined => {
      if (kept) {
        kept.push(piece);
        keptBytes += piece.length;
        if (keptBytes > MIRROR_LIMIT_CHARS) kept = undefined;
      }
      const text = rewriter.push(piece);
      return text ? Buffer.from(text) : undefined;
    };
    for await (const chunk of answer.body) {
      const out = emit(decoder.write(chunk as Buffer));
      if (out) yield out;
    }
    const last = emit(decoder.end());
    if (last) yield last;
    const tail = rewriter.end();
    if (tail) yield Buffer.from(tail);
    if (mirrored && kept) refreshMirror(services, mirrored.endpoint, mirrored.detail, kept.join(''));
  }
  return { status: answer.statusCode, headers: out, body: null, stream: body() };
}
