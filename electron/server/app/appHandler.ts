/**
 * Everything one Outpost server answers, in order: the app's own endpoints (`/app/`), the API of
 * the current workspace (`/rest/`, `/api-auth/`, `/rules/hunt`), and the renderer's files at `/`.
 * `outpost serve` and the desktop app's server process both listen with this handler.
 */
import { MESSAGES } from '../../../shared/api/messages';
import { parseQuery, queryGet } from '../../../shared/api/queryString';
import type { WorkspaceHost } from '../../workspaces/host';
import type { ApiHandler } from '../http/nodeAdapter';
import { jsonResponse, SECURITY_HEADERS } from '../routing/router';
import { proxy, PROXY_PREFIX } from '../../remote/proxy';
import { RemoteSession } from '../../remote/session';
import { appRoutes, type AppInfo } from './appRoutes';
import { withBodyPolicy } from './bodyPolicy';
import { staticFiles } from './staticFiles';

export interface AppHandlerOptions extends AppInfo {
  readonly host: WorkspaceHost;
  /** The renderer's build folder; without it only the API and /app/ are served. */
  readonly rendererDir?: string;
}

export function createAppHandler({ host, rendererDir, ...info }: AppHandlerOptions): ApiHandler {
  const app = appRoutes(host, info);
  const files = rendererDir ? staticFiles(rendererDir) : undefined;
  // Bodies are admitted from the request's head first (limits, credentials): app/bodyPolicy.ts.
  return withBodyPolicy(host, (req) => {
    const own = app(req);
    if (own) return own;
    if (req.path === PROXY_PREFIX || req.path.startsWith(`${PROXY_PREFIX}/`)) {
      const session = host.session();
      return proxy(req, { services: host.current().services, session: session instanceof RemoteSession ? session : undefined });
    }
    // With the app at hand, the web link opens the app's own host view.
    if (files && req.path.replace(/\/$/, '') === '/rules/hunt' && (req.method === 'GET' || req.method === 'HEAD')) {
      const ip = queryGet(parseQuery(req.rawQuery), 'ip') ?? '';
      return { status: 302, headers: { Location: `/#/hosts/${encodeURIComponent(ip)}`, ...SECURITY_HEADERS }, body: null };
    }
    if (files && !req.path.startsWith('/rest') && !req.path.startsWith('/api-auth')) {
      const file = files(req);
      if (file) return file;
      if (req.path !== '/rules/hunt' && req.path !== '/rules/hunt/') return jsonResponse(404, { detail: MESSAGES.notFound });
    }
    return host.current().api(req);
  });
}
