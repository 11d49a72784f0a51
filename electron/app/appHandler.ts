/**
 * Everything one Outpost server answers, in order: the app's own endpoints (`/app/`), the API of
 * the current workspace (`/rest/`, `/api-auth/`, `/rules/hunt`), and the renderer's files at `/`.
 * `outpost serve` and the desktop app's server process both listen with this handler.
 */
import { MESSAGES } from '../../shared/api/messages';
import { WORKSPACE_HEADER } from '../../shared/app/workspaceHeader';
import { parseQuery, queryGet } from '../../shared/api/queryString';
import type { WorkspaceHost } from '../workspaces/host';
import type { ApiHandler } from '../server/http/nodeAdapter';
import type { ApiRequest, ApiResponse } from '../server/http/types';
import { isSafeMethod } from '../server/routing/auth';
import { jsonResponse, SECURITY_HEADERS } from '../server/http/responses';
import { proxy, PROXY_PREFIX } from '../remote/proxy';
import { RemoteSession } from '../remote/session';
import { appRoutes, type AppInfo } from './appRoutes';
import { withBodyPolicy } from './bodyPolicy';
import { staticFiles } from './staticFiles';

export interface AppHandlerOptions extends AppInfo {
  readonly host: WorkspaceHost;
  /** The renderer's build folder; without it only the API and /app/ are served. */
  readonly rendererDir?: string;
}


/** Paths of the data folder, not of one workspace: switching, creating, renaming, central servers. */
const FOLDER_WIDE = /^\/app\/(?:workspaces|remotes)(?:\/|$)/;

/**
 * A write made for another workspace than the open one (a tab left open while another switched):
 * refused with a 409 that names the open workspace, so that the page reloads instead of saving
 * into it. Requests without the header (API clients, the CLI) are not concerned.
 */
function staleWorkspaceWrite(req: ApiRequest, open: string): ApiResponse | undefined {
  const header = req.headers[WORKSPACE_HEADER.toLowerCase()];
  if (header === undefined || isSafeMethod(req.method) || FOLDER_WIDE.test(req.path)) return undefined;
  let meant: string;
  try {
    meant = decodeURIComponent(header);
  } catch {
    meant = header;
  }
  if (meant === open) return undefined;
  return jsonResponse(409, {
    detail: `This page was opened for workspace "${meant}", but the open workspace is now "${open}": nothing was saved. Reload to continue.`,
    code: 'workspace_changed',
    workspace: open,
  });
}

export function createAppHandler({ host, rendererDir, ...info }: AppHandlerOptions): ApiHandler {
  const app = appRoutes(host, info);
  const files = rendererDir ? staticFiles(rendererDir) : undefined;
  // Bodies are admitted from the request's head first (limits, credentials): app/bodyPolicy.ts.
  return withBodyPolicy(host, (req) => {
    const stale = staleWorkspaceWrite(req, host.name);
    if (stale) return stale;
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
