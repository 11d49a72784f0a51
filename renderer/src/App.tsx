/** The screens, chosen by the route (the URL's hash). */
import { useEffect, type JSX } from 'react';
import { AppShell, SCREENS, type ScreenPath } from './components/AppShell';
import { useRoute } from './router';
import { HistoryScreen } from './screens/HistoryScreen';
import { HostsScreen } from './screens/HostsScreen';
import { ProbesScreen } from './screens/ProbesScreen';
import { SettingsScreen } from './screens/SettingsScreen';
import { SyncScreen } from './screens/SyncScreen';
import { TemplatesScreen } from './screens/TemplatesScreen';
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

export function App() {
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
  const current: ScreenPath = isScreen(first) ? first : 'probes';
  const View = VIEWS[current];
  useEffect(() => {
    document.title = `${SCREENS.find((s) => s.path === current)?.title ?? 'Outpost'} — Outpost`;
  }, [current]);
  return (
    <AppShell current={current}>
      <View />
    </AppShell>
  );
}
