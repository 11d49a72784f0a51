/** The app's routes (the URL's hash), as router.ts follows them; pure, so that tests read them too. */

/**
 * Every route the app shows, as path patterns (a segment starting with `:` is a parameter). The
 * app shows "Page not found" for any other path (App.tsx), and test/e2e/accessibility.test.ts
 * visits each one: a new screen or sub-route is added here, and that test then asks for it.
 */
export const ROUTES = [
  '/probes',
  '/probes/new/:family',
  '/probes/:family/:pk',
  '/templates',
  '/templates/new',
  '/templates/:pk',
  '/hosts',
  '/hosts/:ip',
  '/history',
  '/history/central',
  '/history/central/:pk',
  '/history/:pk',
  '/sync',
  '/sync/conflicts',
  '/sync/conflicts/:seq',
  '/sync/review',
  '/sync/connect',
  '/settings',
] as const;

export type RoutePattern = (typeof ROUTES)[number];

/** The pattern the segments of a path match (a literal segment wins over a parameter), if any. */
export function matchRoute(segments: readonly string[]): RoutePattern | undefined {
  let best: { pattern: RoutePattern; literals: number } | undefined;
  for (const pattern of ROUTES) {
    const parts = pattern.split('/').slice(1);
    if (parts.length !== segments.length) continue;
    if (!parts.every((part, i) => part.startsWith(':') || part === segments[i])) continue;
    const literals = parts.filter((part) => !part.startsWith(':')).length;
    if (!best || literals > best.literals) best = { pattern, literals };
  }
  return best?.pattern;
}
