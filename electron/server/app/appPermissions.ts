/**
 * Who may call which `/app/` route (docs/authorization.md). Every caller must be authenticated;
 * a read-only user reads its own status and the central server's link for a host, nothing else:
 * the workspace list, remotes, the outbox, conflicts, the sync history and exports show what
 * other users did and where the data goes, and are the managers' (Superuser and Admin).
 */
export type AppRole = 'any' | 'manager';

export interface AppRouteRule {
  /** The path below `/app/`, segments joined by `/`, without a trailing slash. */
  readonly path: RegExp;
  readonly methods: readonly string[];
  readonly role: AppRole;
}

export const APP_ROUTE_RULES: readonly AppRouteRule[] = [
  { path: /^status$/, methods: ['GET', 'HEAD'], role: 'any' },
  { path: /^central-link$/, methods: ['GET', 'HEAD'], role: 'any' },
];

/** Every route not listed above, whatever its method. */
export const DEFAULT_APP_ROLE: AppRole = 'manager';

/** The role a call of `method` on `/app/<segments…>` needs. */
export function appRoleFor(method: string, segments: readonly string[]): AppRole {
  const path = segments.join('/');
  return APP_ROUTE_RULES.find((rule) => rule.path.test(path) && rule.methods.includes(method))?.role ?? DEFAULT_APP_ROLE;
}
