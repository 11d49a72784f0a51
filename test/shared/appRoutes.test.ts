/** The `/app/` route table (shared/app/routes.ts): paths built and matched from one declaration. */
import { describe, expect, test } from 'vitest';
import { APP_ROUTES, appPath, appRoleFor, matchAppRoute, type AppRouteName } from '../../shared/app/routes';

describe('the /app/ route table', () => {
  test('a path is built with its parameters encoded, and matched back to its route and parameters', () => {
    expect(appPath('status')).toBe('/app/status');
    expect(appPath('openWorkspace', { name: 'lab A/1' })).toBe('/app/workspaces/lab%20A%2F1/open');
    expect(appPath('resolveEntry', { seq: 12 })).toBe('/app/sync/entries/12/resolve');
    expect(matchAppRoute('POST', ['workspaces', 'lab', 'open'])).toEqual({ name: 'openWorkspace', params: { name: 'lab' } });
    expect(matchAppRoute('DELETE', ['sync', 'entries', '7'])).toEqual({ name: 'discardEntry', params: { seq: '7' } });
  });

  test('every route matches itself, and only itself', () => {
    for (const [name, route] of Object.entries(APP_ROUTES) as [AppRouteName, (typeof APP_ROUTES)[AppRouteName]][]) {
      const segments = route.path.map((s) => (s.startsWith(':') ? 'x' : s));
      expect(matchAppRoute(route.method, segments)?.name, name).toBe(name);
    }
  });

  test('a literal segment wins over a parameter; HEAD is GET; other methods and paths match nothing', () => {
    expect(matchAppRoute('POST', ['workspaces', 'import'])?.name).toBe('importWorkspace');
    expect(matchAppRoute('HEAD', ['status'])?.name).toBe('status');
    expect(matchAppRoute('PUT', ['status'])).toBeUndefined();
    expect(matchAppRoute('GET', ['workspaces', 'lab'])).toBeUndefined();
    expect(matchAppRoute('GET', ['nothing'])).toBeUndefined();
  });

  test('read-only users may read the status, a host link, the home networks, the site survey with its exports and report, and the local history only; anything else, listed or not, is for managers', () => {
    const anyone = (Object.keys(APP_ROUTES) as AppRouteName[]).filter((name) => APP_ROUTES[name].role === 'any');
    expect(anyone).toEqual([
      'status', 'centralLink', 'homeNets', 'hostList', 'hostFacets', 'hostFields', 'hostValues', 'hostsVersion', 'visits', 'hostChanges',
      'exportHostsCsv', 'exportHostsJson', 'exportHostsJsonPart', 'hostReport', 'hostReportPdf', 'history', 'historyChanges',
    ]);
    expect(appRoleFor('GET', ['status'])).toBe('any');
    expect(appRoleFor('POST', ['status'])).toBe('manager');
    expect(appRoleFor('GET', ['unknown'])).toBe('manager');
  });
});
