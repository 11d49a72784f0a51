/**
 * The app's own endpoints under `/app/` (app.md §1): what the renderer needs besides the API —
 * status and workspaces — identical in the desktop app and in a browser on `outpost serve`.
 * Same authentication as the API (the local token, or a browser session); who may call what is
 * in appPermissions.ts. Answers use the API's error shapes.
 */
import { ApiError } from '../../../shared/api/errors';
import { MESSAGES } from '../../../shared/api/messages';
import { parseQuery, queryGet } from '../../../shared/api/queryString';
import { requireObject } from '../../../shared/api/validate';
import type { JsonObject, JsonValue } from '../../../shared/resources';
import { BundleError, bundleJson } from '../../workspaces/bundle';
import { WorkspaceError, type WorkspaceHost } from '../../workspaces/host';
import { parseBody } from '../http/body';
import type { ApiRequest, ApiResponse } from '../http/types';
import { authenticate, CSRF_COOKIE, parseCookies, SESSION_COOKIE } from '../routing/auth';
import { jsonResponse } from '../routing/router';
import { isManager, type UserRecord } from '../store/users';
import { setCookie, setCookieHeaders } from '../views/login';
import { appRoleFor } from './appPermissions';
import { centralLink, syncRoutes, syncSummary } from './syncRoutes';

export interface AppInfo {
  readonly version: string;
}

interface Call {
  readonly req: ApiRequest;
  readonly user: UserRecord;
  readonly segments: readonly string[];
  body(): JsonObject;
}

type Answer = { status: number; body: JsonValue | null; headers?: Record<string, string | readonly string[]> };

const ok = (body: JsonValue): Answer => ({ status: 200, body });

function nameIn(body: JsonObject): string {
  const name = body.name;
  if (typeof name !== 'string' || name.trim() === '') throw ApiError.validation({ name: [name === undefined ? MESSAGES.required : MESSAGES.blank] });
  return name.trim();
}

export function appRoutes(host: WorkspaceHost, info: AppInfo): (req: ApiRequest) => ApiResponse | undefined {
  const status = (user: UserRecord): JsonObject => ({
    version: info.version,
    workspace: host.name,
    mode: host.session() === undefined ? 'standalone' : 'bound',
    sync: syncSummary(host),
    user: { pk: user.pk, username: user.username, role: user.role },
  });

  /** After a switch, a browser session moves to the new workspace (sessions live in its database). */
  const carrySession = (call: Call): Record<string, readonly string[]> => {
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

  const dispatch = (method: string, call: Call): Answer => {
    const [first, second, third] = call.segments;
    if (first === 'status' && call.segments.length === 1 && method === 'GET') return ok(status(call.user));
    if (first === 'central-link' && call.segments.length === 1 && method === 'GET') {
      // The central server's host view of an address; a standalone workspace has no central server.
      return ok(centralLink(host, queryGet(parseQuery(call.req.rawQuery), 'ip')));
    }
    const query = parseQuery(call.req.rawQuery);
    const synced = syncRoutes(host, { method, segments: call.segments, user: call.user, body: call.body, query: (name) => queryGet(query, name) });
    if (synced) return synced;
    if (first !== 'workspaces') throw ApiError.detail(404, MESSAGES.notFound);
    if (call.segments.length === 1) {
      if (method === 'GET') return ok({ current: host.name, workspaces: host.list().map((w) => ({ ...w, remote: w.remote ?? null })) });
      if (method === 'POST') {
        const body = call.body();
        const name = nameIn(body);
        const remote = body.remote;
        if (remote !== undefined && remote !== null && typeof remote !== 'string') throw ApiError.validation({ remote: [MESSAGES.notAString] });
        host.create(name, typeof remote === 'string' && remote !== '' ? { remote } : {});
        return { status: 201, body: { name, remote: typeof remote === 'string' && remote !== '' ? remote : null } };
      }
    }
    if (second === 'import' && call.segments.length === 2 && method === 'POST') {
      const name = queryGet(parseQuery(call.req.rawQuery), 'name');
      if (!name) throw ApiError.validation({ name: [MESSAGES.required] });
      host.importBundle(name, parseBody(call.req.headers['content-type'], call.req.body));
      return { status: 201, body: { name } };
    }
    if (second !== undefined && call.segments.length === 2) {
      if (method === 'PATCH') {
        host.rename(second, nameIn(call.body()));
        return ok({ current: host.name, workspaces: host.list().map((w) => ({ ...w })) });
      }
      if (method === 'DELETE') {
        host.delete(second);
        return { status: 204, body: null };
      }
    }
    if (second !== undefined && third === 'open' && call.segments.length === 3 && method === 'POST') {
      host.switchTo(second);
      return { status: 200, body: status(call.user), headers: carrySession(call) };
    }
    if (second !== undefined && third === 'export' && call.segments.length === 3 && method === 'GET') {
      const bundle = host.exportBundle(second);
      return {
        status: 200,
        body: bundleJson(bundle),
        headers: { 'Content-Disposition': `attachment; filename="${second}.outpost.json"` },
      };
    }
    throw ApiError.detail(404, MESSAGES.notFound);
  };

  return (req) => {
    if (req.path !== '/app' && !req.path.startsWith('/app/')) return undefined;
    const segments = req.path.split('/').slice(2).filter((s) => s !== '');
    try {
      const auth = authenticate(req, host.current().services.users);
      if (!auth) throw ApiError.detail(403, MESSAGES.notAuthenticated);
      if (appRoleFor(req.method, segments) === 'manager' && !isManager(auth.user)) throw ApiError.detail(403, MESSAGES.permissionDenied);
      const answer = dispatch(req.method === 'HEAD' ? 'GET' : req.method, {
        req,
        user: auth.user,
        segments,
        body: () => requireObject(parseBody(req.headers['content-type'], req.body)),
      });
      const response = jsonResponse(answer.status, answer.body, {}, undefined);
      return { ...response, headers: { ...response.headers, 'Cache-Control': 'no-store', ...(answer.headers ?? {}) } };
    } catch (error) {
      if (error instanceof ApiError) return jsonResponse(error.status, error.body, { 'Cache-Control': 'no-store' });
      if (error instanceof WorkspaceError) return jsonResponse(error.status, { detail: error.message }, { 'Cache-Control': 'no-store' });
      if (error instanceof BundleError) return jsonResponse(400, { detail: error.message }, { 'Cache-Control': 'no-store' });
      throw error;
    }
  };
}
