/**
 * The app's own endpoints under `/app/` (app.md §1): what the renderer needs besides the API —
 * status and workspaces — identical in the desktop app and in a browser on `outpost serve`.
 * Same authentication as the API (the local token, or a browser session). The routes and who may
 * call them are one table, shared/app/routes.ts; answers use the API's error shapes.
 */
import { ApiError } from '../../shared/api/errors';
import { MESSAGES, message } from '../../shared/api/messages';
import { parseQuery, queryGet } from '../../shared/api/queryString';
import { requireObject } from '../../shared/api/validate';
import type { JsonObject, JsonValue } from '../../shared/resources';
import { pushModeOf } from '../../shared/sync/review';
import { StorageError } from '../server/store/storageErrors';
import { BundleError, BundleSyntaxError } from '../workspaces/bundle';
import { WorkspaceError, type WorkspaceHost } from '../workspaces/host';
import { BODY_NOT_READ, BODY_WITHHELD, jsonCharset, parseBody } from '../server/http/body';
import type { ApiRequest, ApiResponse } from '../server/http/types';
import { authenticate, CSRF_COOKIE, parseCookies, SESSION_COOKIE } from '../server/routing/auth';
import { jsonResponse, SECURITY_HEADERS } from '../server/http/responses';
import { isManager, type UserRecord } from '../server/store/users';
import { setCookie, setCookieHeaders } from '../server/views/login';
import { appRoleFor, matchAppRoute, type AppStatus, type WorkspaceList } from '../../shared/app/routes';
import { JsonBytes, StreamedBytes, ok, type AppCall, type AppHandlers, type Answer } from './appCall';
import { exportHandlers } from './exportRoutes';
import { historyHandlers } from './historyRoutes';
import { hostHandlers } from './hostRoutes';
import { surveyHandlers } from './surveyRoutes';
import { visitHandlers } from './visitRoutes';
import { reviewHandlers } from './reviewRoutes';
import { connectHandlers } from './connectRoutes';
import { templatePreviewHandlers } from './templatePreviewRoute';
import { centralLink, syncHandlers, syncSummary } from './syncRoutes';

export interface AppInfo {
  readonly version: string;
}

function nameIn(body: JsonObject): string {
  const name = body.name;
  if (typeof name !== 'string' || name.trim() === '') throw ApiError.validation({ name: [name === undefined ? MESSAGES.required : MESSAGES.blank] });
  return name.trim();
}

/** Chunks as the adapter takes a streamed body. */
async function* streamOf(chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array>): AsyncIterable<Uint8Array> {
  yield* chunks;
}

/** An answer, or an error of the kinds the app's routes throw, in the API's shapes. */
function responseOf(answer: Answer): ApiResponse {
  if (answer.body instanceof StreamedBytes) {
    const { mediaType, chunks } = answer.body;
    const type = mediaType.startsWith('text/') ? `${mediaType}; charset=utf-8` : mediaType;
    return { status: answer.status, body: null, stream: streamOf(chunks), headers: { 'Content-Type': type, ...SECURITY_HEADERS, 'Cache-Control': 'no-store', ...(answer.headers ?? {}) } };
  }
  if (answer.body instanceof JsonBytes) {
    const { bytes } = answer.body;
    const body = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    return { status: answer.status, body, bodyLength: body.length, headers: { 'Content-Type': 'application/json', ...SECURITY_HEADERS, 'Cache-Control': 'no-store', ...(answer.headers ?? {}) } };
  }
  // Every answer type of shared/app/routes.ts is JSON data (objects, arrays, strings, numbers, booleans, null).
  const response = jsonResponse(answer.status, answer.body as JsonValue, {}, undefined);
  return { ...response, headers: { ...response.headers, 'Cache-Control': 'no-store', ...(answer.headers ?? {}) } };
}

function errorResponse(error: unknown): ApiResponse {
  if (error instanceof ApiError) return jsonResponse(error.status, error.body, { 'Cache-Control': 'no-store' });
  if (error instanceof WorkspaceError) return jsonResponse(error.status, { detail: error.message }, { 'Cache-Control': 'no-store' });
  if (error instanceof BundleSyntaxError) return jsonResponse(400, { detail: message.jsonParseError(error.reason) }, { 'Cache-Control': 'no-store' });
  if (error instanceof BundleError) return jsonResponse(400, { detail: error.message }, { 'Cache-Control': 'no-store' });
  // A full disk is a 507 as for an EVE upload; a read-only disk or a damaged file, a conflict with the state of the disk. Each names its file.
  if (error instanceof StorageError) return jsonResponse(error.fault === 'full' ? 507 : 409, { detail: error.message }, { 'Cache-Control': 'no-store' });
  throw error;
}

export function appRoutes(host: WorkspaceHost, info: AppInfo): (req: ApiRequest) => ApiResponse | Promise<ApiResponse> | undefined {
  const status = (user: UserRecord): AppStatus => ({
    version: info.version,
    workspace: host.name,
    mode: host.session() === undefined ? 'standalone' : 'bound',
    sync: syncSummary(host),
    user: { pk: user.pk, username: user.username, role: user.role },
  });

  /** After a switch, a browser session moves to the new workspace (sessions live in its database). */
  const carrySession = (call: AppCall): Record<string, readonly string[]> => {
    if (!parseCookies(call.req.headers.cookie).get(SESSION_COOKIE)) return {};
    const users = host.current().services.users;
    const user = users.byUsername(call.user.username);
    if (!user) return {};
    const session = users.openSession(user.pk);
    const secure = call.req.scheme === 'https';
    return setCookieHeaders([
      setCookie(SESSION_COOKIE, session.key, { httpOnly: true, secure }),
      setCookie(CSRF_COOKIE, session.csrf, { httpOnly: false, secure }),
    ]);
  };

  const workspaceList = (): WorkspaceList => ({ current: host.name, workspaces: host.list().map((w) => ({ ...w, remote: w.remote ?? null })) });

  /** One handler per route of the table (shared/app/routes.ts); the compiler checks none is missing. */
  const handlers: AppHandlers = {
    status: (call) => ok(status(call.user)),
    // The central server's host view of an address; a standalone workspace has no central server.
    centralLink: (call) => ok(centralLink(host, call.query('ip'))),
    workspaces: () => ok(workspaceList()),
    createWorkspace: (call) => {
      const body = call.body();
      const name = nameIn(body);
      const remote = body.remote;
      if (remote !== undefined && remote !== null && typeof remote !== 'string') throw ApiError.validation({ remote: [MESSAGES.notAString] });
      const pushMode = body.pushMode === undefined || body.pushMode === null ? undefined : pushModeOf(body.pushMode);
      if (pushMode === null) throw ApiError.validation({ pushMode: [`"${String(body.pushMode).slice(0, 40)}" is not a valid choice.`] });
      host.create(name, typeof remote === 'string' && remote !== '' ? { remote, ...(pushMode ? { pushMode } : {}) } : {});
      return { status: 201, body: { name, remote: typeof remote === 'string' && remote !== '' ? remote : null } };
    },
    importWorkspace: async (call) => {
      const name = call.query('name');
      if (!name) throw ApiError.validation({ name: [MESSAGES.required] });
      const { body, headers } = call.req;
      if (body === BODY_WITHHELD) throw ApiError.detail(400, BODY_NOT_READ);
      const charset = jsonCharset(headers['content-type']);
      // The bytes go to the bundle thread as they came, parsed there; an empty body is `{}`, as every route reads it.
      const { accounts } = await host.importBundle(body.length === 0 ? Buffer.from('{}') : body, { name, ...(charset === undefined ? {} : { charset }) });
      // The manager is told what the bundle's accounts may do (none signs in before a manager lets it).
      return { status: 201, body: { name, accounts: { count: accounts.count, roles: { ...accounts.roles } } } };
    },
    renameWorkspace: (call, { name }) => {
      host.rename(name!, nameIn(call.body()));
      return ok(workspaceList());
    },
    deleteWorkspace: (_call, { name }) => {
      host.delete(name!);
      return { status: 204, body: null };
    },
    openWorkspace: (call, { name }) => {
      host.switchTo(name!);
      return { status: 200, body: status(call.user), headers: carrySession(call) };
    },
    exportWorkspace: async (_call, { name }) => ({
      status: 200,
      body: new JsonBytes(await host.exportBundle(name!)),
      headers: { 'Content-Disposition': `attachment; filename="${name!}.outpost.json"` },
    }),
    ...syncHandlers(host),
    ...hostHandlers(host),
    ...historyHandlers(host),
    ...surveyHandlers(host),
    ...visitHandlers(host),
    ...exportHandlers(host, info.version),
    ...reviewHandlers(host),
    ...connectHandlers(host),
    ...templatePreviewHandlers(host),
  };

  return (req) => {
    if (req.path !== '/app' && !req.path.startsWith('/app/')) return undefined;
    const segments = req.path.split('/').slice(2).filter((s) => s !== '');
    try {
      const auth = authenticate(req, host.current().services.users);
      if (!auth) throw ApiError.detail(403, MESSAGES.notAuthenticated);
      if (appRoleFor(req.method, segments) === 'manager' && !isManager(auth.user)) throw ApiError.detail(403, MESSAGES.permissionDenied);
      const route = matchAppRoute(req.method, segments);
      if (!route) throw ApiError.detail(404, MESSAGES.notFound);
      const query = parseQuery(req.rawQuery);
      const call: AppCall = {
        req,
        user: auth.user,
        query: (name) => queryGet(query, name),
        body: () => requireObject(parseBody(req.headers['content-type'], req.body)),
      };
      const answer = handlers[route.name](call, route.params);
      return answer instanceof Promise ? answer.then(responseOf, errorResponse) : responseOf(answer);
    } catch (error) {
      return errorResponse(error);
    }
  };
}
