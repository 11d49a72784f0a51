/**
 * The screens, chosen by the route (the URL's hash), once the session is known: the sign-in
 * screen when signed out, a not-found screen for a route the app does not know (router.ts,
 * `ROUTES`).
 */
import { useEffect, type JSX } from 'react';
import { AppShell, SCREENS, type ScreenPath } from './components/AppShell';
import { matchRoute, useRoute } from './router';
import { HistoryScreen } from './screens/HistoryScreen';
import { HostsScreen } from './screens/HostsScreen';
import { NotFoundScreen } from './screens/NotFoundScreen';
import { SignInScreen } from './screens/SignInScreen';
import { ProbesScreen } from './screens/ProbesScreen';
import { SettingsScreen } from './screens/SettingsScreen';
import { SyncScreen } from './screens/SyncScreen';
import { TemplatesScreen } from './screens/TemplatesScreen';
import { useSession } from './stores/session';
import { followAppStatus, followServerStatus } from './stores/status';

const VIEWS: Record<ScreenPath, () => JSX.Element> = {
  probes: ProbesScreen,
  templates: TemplatesScreen,
  hosts: HostsScreen,
  history: HistoryScreen,
  sync: SyncScreen,
  settings: SettingsScreen,
};

function isScreen(path: string | undefined): path is ScreenPath {
  return SCREENS.some((s) => s.path === path);
}

// Asked as the page loads, not after the first render: the first list waits for its answer.
void useSession.getState().check();

export function App() {
  const session = useSession((s) => s.state);
  useEffect(() => {
    if (session === 'signed-out') document.title = 'Sign in — Outpost';
  }, [session]);
  if (session === 'checking') {
    return (
      <p className="loading" role="status">
        Opening Outpost…
      </p>
    );
  }
  return session === 'signed-in' ? <SignedIn /> : <SignInScreen />;
}

function SignedIn() {
  const route = useRoute();
  useEffect(() => {
    // The status bar reads the app status on its own (its sync indicator must follow syncs).
    const stopStatus = followAppStatus();
    const stopServer = followServerStatus();
    return () => {
      stopStatus();
      stopServer();
    };
  }, []);
  const first = route.segments[0];
  const known = first === undefined || matchRoute(route.segments) !== undefined;
  const current: ScreenPath | undefined = first === undefined ? 'probes' : isScreen(first) ? first : undefined;
  const View = current ? VIEWS[current] : undefined;
  useEffect(() => {
    document.title = `${current ? (SCREENS.find((s) => s.path === current)?.title ?? 'Outpost') : 'Page not found'} — Outpost`;
  }, [current]);
  return (
    <AppShell current={current}>
      {View && known ? <View /> : <NotFoundScreen path={`/${route.segments.join('/')}`} />}
    </AppShell>
  );
}
