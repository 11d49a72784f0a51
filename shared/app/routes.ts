/**
 * The app's own endpoints under `/app/` (app.md §1), declared once: the server dispatches on this
 * table (electron/app/appRoutes.ts), checks its roles (electron/app/appPermissions.ts), and the
 * renderer's client builds its requests from it. A path segment starting with `:` is a parameter.
 */

export type AppMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** `any`: every authenticated user; `manager`: Superuser and Admin (docs/authorization.md). */
export type AppRole = 'any' | 'manager';

export interface AppRouteSpec {
  readonly method: AppMethod;
  readonly path: readonly string[];
  readonly role: AppRole;
}

export const APP_ROUTES = {
  status: { method: 'GET', path: ['status'], role: 'any' },
  centralLink: { method: 'GET', path: ['central-link'], role: 'any' },

  workspaces: { method: 'GET', path: ['workspaces'], role: 'manager' },
  createWorkspace: { method: 'POST', path: ['workspaces'], role: 'manager' },
  importWorkspace: { method: 'POST', path: ['workspaces', 'import'], role: 'manager' },
  renameWorkspace: { method: 'PATCH', path: ['workspaces', ':name'], role: 'manager' },
  deleteWorkspace: { method: 'DELETE', path: ['workspaces', ':name'], role: 'manager' },
  openWorkspace: { method: 'POST', path: ['workspaces', ':name', 'open'], role: 'manager' },
  exportWorkspace: { method: 'GET', path: ['workspaces', ':name', 'export'], role: 'manager' },

  remotes: { method: 'GET', path: ['remotes'], role: 'manager' },
  addRemote: { method: 'POST', path: ['remotes'], role: 'manager' },
  changeRemote: { method: 'PATCH', path: ['remotes', ':name'], role: 'manager' },
  removeRemote: { method: 'DELETE', path: ['remotes', ':name'], role: 'manager' },

  importEve: { method: 'POST', path: ['hosts', 'import-eve'], role: 'manager' },
  eveProgress: { method: 'GET', path: ['hosts', 'import-eve'], role: 'manager' },
  homeNets: { method: 'GET', path: ['settings', 'home-nets'], role: 'any' },
  setHomeNets: { method: 'PUT', path: ['settings', 'home-nets'], role: 'manager' },

  // The local history with a range of days and one object's entries, and each entry's field changes (shared/app/history.ts).
  history: { method: 'GET', path: ['history'], role: 'any' },
  historyChanges: { method: 'GET', path: ['history', ':pk', 'changes'], role: 'any' },

  sync: { method: 'GET', path: ['sync'], role: 'manager' },
  syncNow: { method: 'POST', path: ['sync'], role: 'manager' },
  conflicts: { method: 'GET', path: ['sync', 'conflicts'], role: 'manager' },
  remoteHistory: { method: 'GET', path: ['sync', 'remote-history'], role: 'manager' },
  discardEntry: { method: 'DELETE', path: ['sync', 'entries', ':seq'], role: 'manager' },
  retryEntry: { method: 'POST', path: ['sync', 'entries', ':seq', 'retry'], role: 'manager' },
  resolveEntry: { method: 'POST', path: ['sync', 'entries', ':seq', 'resolve'], role: 'manager' },
} as const satisfies Readonly<Record<string, AppRouteSpec>>;

export type AppRouteName = keyof typeof APP_ROUTES;

type ParamsOf<P extends readonly string[]> = P[number] extends infer S ? (S extends `:${infer N}` ? N : never) : never;

/** The parameters a route's path takes: `{ name: string }`, `{ seq: string }` or none. */
export type AppParams<N extends AppRouteName> = { readonly [K in ParamsOf<(typeof APP_ROUTES)[N]['path']>]: string | number };

/** Who may call anything not in the table (a 404 for managers, a 403 for the others). */
export const DEFAULT_APP_ROLE: AppRole = 'manager';

/** The path of a route, parameters filled in and encoded: `/app/workspaces/lab%20A/open`. */
export function appPath<N extends AppRouteName>(name: N, ...params: keyof AppParams<N> extends never ? [] : [AppParams<N>]): string {
  const values = (params[0] ?? {}) as Readonly<Record<string, string | number>>;
  const segments = APP_ROUTES[name].path.map((segment) => {
    if (!segment.startsWith(':')) return segment;
    const value = values[segment.slice(1)];
    if (value === undefined) throw new Error(`${name}: parameter ${segment} is missing`);
    return encodeURIComponent(String(value));
  });
  return `/app/${segments.join('/')}`;
}

export interface AppRouteMatch {
  readonly name: AppRouteName;
  readonly params: Readonly<Record<string, string>>;
}

/** The route a method and the (decoded) segments below `/app/` name; HEAD is GET. */
export function matchAppRoute(method: string, segments: readonly string[]): AppRouteMatch | undefined {
  const wanted = method === 'HEAD' ? 'GET' : method;
  let best: { match: AppRouteMatch; literals: number } | undefined;
  for (const [name, route] of Object.entries(APP_ROUTES) as [AppRouteName, AppRouteSpec][]) {
    if (route.method !== wanted || route.path.length !== segments.length) continue;
    const params: Record<string, string> = {};
    let literals = 0;
    const fits = route.path.every((segment, i) => {
      if (segment.startsWith(':')) {
        params[segment.slice(1)] = segments[i]!;
        return true;
      }
      literals++;
      return segment === segments[i];
    });
    // A literal segment wins over a parameter (`workspaces/import`, not a workspace named "import").
    if (fits && (!best || literals > best.literals)) best = { match: { name, params }, literals };
  }
  return best?.match;
}

/** The role a call needs: the route's, or the default for anything not in the table. */
export function appRoleFor(method: string, segments: readonly string[]): AppRole {
  const match = matchAppRoute(method, segments);
  return match ? APP_ROUTES[match.name].role : DEFAULT_APP_ROLE;
}
