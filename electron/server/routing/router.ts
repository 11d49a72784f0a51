/**
 * The transport-agnostic router: request in, response out. For an API path it runs DRF's
 * order of checks — content negotiation, authentication, permission, method — then the
 * endpoint's handler, and renders the result as JSON or as the browsable HTML page.
 */
import { ApiError } from '../../../shared/api/errors';
import { bodyValue } from '../http/jsonBody';
import { jsonResponse, originOf, SECURITY_HEADERS } from '../http/responses';
import { MESSAGES, message } from '../../../shared/api/messages';
import { parseQuery, queryGet, type QueryPairs } from '../../../shared/api/queryString';
import type { JsonValue } from '../../../shared/resources';
import { parseBody } from '../http/body';
import { withoutBody, type ApiRequest, type ApiResponse, type Result } from '../http/types';
import type { Services } from '../store/services';
import { isManager, type UserRecord } from '../store/users';
import { actionForm, metadata } from './metadata';
import { authenticate, isSafeMethod, type Authenticated } from './auth';
import { DETAIL_METHODS, LIST_METHODS, type Action, type Endpoint, type Handler, type RequestContext } from './endpoint';
import { negotiate, type Negotiated } from './negotiation';


const METHOD_ORDER = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'];
const KNOWN_METHODS = new Set([...METHOD_ORDER, 'TRACE']);

/** What a matched path designates: the API root, a list or detail route, or an action on one. */
export interface RouteMatch {
  readonly kind: 'root' | 'list' | 'detail' | 'action';
  readonly endpoint?: Endpoint;
  readonly id: string;
  readonly action?: Action;
  /** Method → handler present on this route. */
  readonly handlers: Readonly<Record<string, Handler>>;
  /** OPTIONS `name`. */
  readonly viewName: string;
  /** A format suffix in the path (`source.json`, `source/1.api/`), which wins over `?format=`. */
  readonly format?: string;
}

function handlersOf(endpoint: Endpoint, table: Readonly<Record<string, keyof Endpoint>>): Record<string, Handler> {
  const out: Record<string, Handler> = {};
  for (const [method, name] of Object.entries(table)) {
    const handler = endpoint[name];
    if (typeof handler === 'function') out[method] = handler;
  }
  return out;
}

const lookups = new WeakMap<Endpoint, RegExp>();

/** The endpoint's detail lookup as an anchored pattern, compiled once. */
function lookupPattern(endpoint: Endpoint): RegExp {
  let pattern = lookups.get(endpoint);
  if (!pattern) {
    pattern = new RegExp(`^(?:${endpoint.lookup ?? '[^/.]+'})$`);
    lookups.set(endpoint, pattern);
  }
  return pattern;
}

function prettyName(name: string): string {
  const words = name.replace(/_/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

function actionRoute(endpoint: Endpoint, action: Action, id: string): RouteMatch {
  const handlers: Record<string, Handler> = {};
  for (const method of action.methods) handlers[method] = action.handler;
  return { kind: 'action', endpoint, id, action, handlers, viewName: prettyName(action.name) };
}

/** DRF's format suffix patterns: `.<format>` right after a route's last segment, before its slash. */
const FORMAT_SUFFIX = /^(\/rest\/|.*[^/])\.([a-z0-9]+)\/?$/;

/**
 * Match `/rest/...` (trailing slash optional) against the endpoints, as DRF's router orders
 * routes; then, as DRF's DefaultRouter adds after each route, the same with a format suffix.
 */
export function matchApiPath(path: string, endpoints: readonly Endpoint[], rootHandler: Handler): RouteMatch | undefined {
  const plain = matchRoute(path, endpoints, rootHandler);
  if (plain) return plain;
  const suffixed = FORMAT_SUFFIX.exec(path);
  if (!suffixed) return undefined;
  const route = matchRoute(suffixed[1]!, endpoints, rootHandler);
  // The root's suffixed form is `/rest/.json` only.
  if (!route || (route.kind === 'root' && suffixed[1] !== '/rest/')) return undefined;
  return { ...route, format: suffixed[2]! };
}

/** The format suffix of a path that has one (`/rest/.json` → `json`). */
export function formatSuffixOf(path: string): string | undefined {
  return FORMAT_SUFFIX.exec(path)?.[2];
}

function matchRoute(path: string, endpoints: readonly Endpoint[], rootHandler: Handler): RouteMatch | undefined {
  if (!path.startsWith('/rest/') && path !== '/rest') return undefined;
  const rest = path.slice('/rest/'.length).replace(/\/$/, '');
  if (rest === '') return { kind: 'root', id: '', handlers: { GET: rootHandler }, viewName: 'Api Root' };
  const segments = rest.split('/');
  for (const endpoint of endpoints) {
    const prefix = endpoint.resource.path.split('/');
    if (segments.length < prefix.length || prefix.some((p, i) => segments[i] !== p)) continue;
    const tail = segments.slice(prefix.length);
    const title = endpoint.resource.title;
    if (tail.length === 0) {
      return { kind: 'list', endpoint, id: '', handlers: handlersOf(endpoint, LIST_METHODS), viewName: `${title} List` };
    }
    const lookup = lookupPattern(endpoint);
    if (tail.length === 1) {
      const listAction = endpoint.actions?.find((a) => !a.detail && a.name === tail[0]);
      if (listAction) return actionRoute(endpoint, listAction, '');
      if (lookup.test(tail[0]!)) {
        return { kind: 'detail', endpoint, id: tail[0]!, handlers: handlersOf(endpoint, DETAIL_METHODS), viewName: `${title} Instance` };
      }
    }
    if (tail.length === 2 && lookup.test(tail[0]!)) {
      const detailAction = endpoint.actions?.find((a) => a.detail && a.name === tail[1]);
      if (detailAction) return actionRoute(endpoint, detailAction, tail[0]!);
    }
    return undefined;
  }
  return undefined;
}

export function allowedMethods(route: RouteMatch): string[] {
  const present = new Set(Object.keys(route.handlers));
  if (present.has('GET')) present.add('HEAD');
  present.add('OPTIONS');
  return METHOD_ORDER.filter((m) => present.has(m));
}

/** What the router hands the HTML renderer (the browsable API, views/browsable.ts) for a browser's request. */
export interface HtmlPage {
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

/** The page's HTML and the headers it needs (its Content-Security-Policy). */
export type HtmlRenderer = (page: HtmlPage) => { readonly html: string; readonly headers: Readonly<Record<string, string>> };

export interface RouterDependencies {
  readonly services: Services;
  readonly endpoints: readonly Endpoint[];
  readonly root: Handler;
  readonly html: HtmlRenderer;
}

function permit(route: RouteMatch, method: string, auth: Authenticated | undefined): UserRecord {
  if (!auth) throw ApiError.detail(403, MESSAGES.notAuthenticated);
  const { user } = auth;
  if (isSafeMethod(method) || isManager(user)) return user;
  if (route.action?.selfService && route.id === String(user.pk)) return user;
  throw ApiError.detail(403, MESSAGES.permissionDenied);
}

export function createRouter({ services, endpoints, root, html }: RouterDependencies): (req: ApiRequest) => ApiResponse | undefined {
  return (req) => {
    const route = matchApiPath(req.path, endpoints, root);
    if (!route) return undefined;
    // Caches of rendered objects, counts and tokens hold only while nothing was committed.
    services.store.checkFreshness();
    const allowed = allowedMethods(route);
    const viewHeaders = { Allow: allowed.join(', '), Vary: 'Accept' };
    const query = parseQuery(req.rawQuery);
    let negotiated: Negotiated = { renderer: 'json' };
    let user: UserRecord | undefined;
    let result: Result;
    try {
      negotiated = negotiate(req.headers.accept, route.format ?? queryGet(query, 'format'));
      const auth = authenticate(req, services.users);
      user = permit(route, req.method, auth);
      let parsed: { value: JsonValue } | undefined;
      const ctx: RequestContext = {
        req,
        query,
        user,
        services,
        origin: originOf(req),
        body: () => (parsed ??= { value: parseBody(req.headers['content-type'], req.body) }).value,
      };
      result = dispatch(route, req.method, ctx);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      result = { status: error.status, body: error.body, headers: error.headers };
    }
    const headers = { ...viewHeaders, ...(result.headers ?? {}) };
    const response =
      negotiated.renderer === 'html'
        ? htmlResponse(
            result.status,
            headers,
            html({ req, query, route, allowed, status: result.status, body: result.body === null ? null : bodyValue(result.body), headers, user, services }),
          )
        : jsonResponse(result.status, result.body, headers, negotiated.indent);
    return req.method === 'HEAD' ? withoutBody(response) : response;
  };
}

/** The browsable page, with the headers its renderer asks for (the nonce of its inline script and style). */
function htmlResponse(status: number, headers: Record<string, string>, page: ReturnType<HtmlRenderer>): ApiResponse {
  return {
    status,
    headers: { 'Content-Type': 'text/html; charset=utf-8', ...SECURITY_HEADERS, ...page.headers, ...headers },
    body: page.html,
  };
}


function dispatch(route: RouteMatch, method: string, ctx: RequestContext): Result {
  if (method === 'OPTIONS') return { status: 200, body: options(route, ctx) };
  const handler = route.handlers[method === 'HEAD' ? 'GET' : method];
  if (!handler || !KNOWN_METHODS.has(method)) throw ApiError.detail(405, message.methodNotAllowed(method));
  return handler(ctx, route.id);
}

function options(route: RouteMatch, ctx: RequestContext): JsonValue {
  const resource = route.endpoint?.resource;
  const base = { name: route.viewName, description: route.kind === 'root' ? 'The API root: one link per endpoint family.' : (resource?.description ?? '') };
  if (!resource || !isManager(ctx.user)) return metadata(base);
  if (route.kind === 'list' && route.handlers.POST) return metadata({ ...base, action: 'POST', resource });
  // DRF describes a POST action with the serializer it uses (the endpoint's, unless the action has its own).
  if (route.kind === 'action' && route.handlers.POST) return metadata({ ...base, action: 'POST', resource, fields: actionForm(route.action) });
  if (route.kind === 'detail' && route.handlers.PUT && route.handlers.GET) {
    try {
      route.handlers.GET(ctx, route.id);
      return metadata({ ...base, action: 'PUT', resource });
    } catch (error) {
      if (error instanceof ApiError) return metadata(base);
      throw error;
    }
  }
  return metadata(base);
}
