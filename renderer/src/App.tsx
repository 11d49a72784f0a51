/** The screens, chosen by the route (the URL's hash). */
import { useEffect, type JSX } from 'react';
import { AppShell, SCREENS, type ScreenPath } from './components/AppShell';
import { useRoute } from './router';
import { HistoryScreen } from './screens/HistoryScreen';
import { HostsScreen } from './screens/HostsScreen';
import { ProbesScreen } from './screens/ProbesScreen';
import { SettingsScreen } from './screens/SettingsScreen';
import { TemplatesScreen } from './screens/TemplatesScreen';
import { followServerStatus, useStatus } from './stores/status';

const VIEWS: Record<ScreenPath, () => JSX.Element> = {
  probes: ProbesScreen,
  templates: TemplatesScreen,
  hosts: HostsScreen,
  history: HistoryScreen,
  settings: SettingsScreen,
};

function isScreen(path: string | undefined): path is ScreenPath {
  return SCREENS.some((s) => s.path === path);
}

export function App() {
  const route = useRoute();
  useEffect(() => {
    void useStatus.getState().refresh();
    return followServerStatus();
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
