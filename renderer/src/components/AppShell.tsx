/**
 * The frame of every screen: navigation, the screen, and a status bar that always shows the
 * workspace, the user and whether the local server is running.
 */
import { useEffect, type ReactNode } from 'react';
import { takeWorkspaceNotice } from '../api/client';
import { href, setLeaveGuard } from '../router';
import { useStatus } from '../stores/status';
import { hasUnsavedChanges, leaveThen, onBeforeUnload } from '../stores/unsavedChanges';
import { boundedText } from './bounded';
import { syncShown } from '../stores/syncModel';
import { SyncIndicator } from './SyncIndicator';
import { UnsavedChangesDialog } from './UnsavedChangesDialog';

export const SCREENS = [
  { path: 'probes', title: 'Probes' },
  { path: 'templates', title: 'Templates' },
  { path: 'hosts', title: 'Hosts' },
  { path: 'history', title: 'History' },
  { path: 'sync', title: 'Sync' },
  { path: 'settings', title: 'Settings' },
] as const;

export type ScreenPath = (typeof SCREENS)[number]['path'];

function StatusBar() {
  const app = useStatus((s) => s.app);
  const server = useStatus((s) => s.server);
  const error = useStatus((s) => s.error);
  const serverText: Record<typeof server.state, string> = {
    starting: 'starting…',
    running: 'running',
    restarting: 'restarting…',
    failed: 'not running',
  };
  const workspace = app ? `${boundedText(app.workspace)} (${app.mode === 'bound' ? 'bound to a central server' : 'standalone'})` : '…';
  const serverMessage = server.message ? boundedText(server.message) : undefined;
  const serverLine = `Local server: ${serverText[server.state]}${serverMessage ? ` — ${serverMessage}` : ''}`;
  const sync = syncShown(server.state, error, app?.sync ?? null);
  return (
    <footer className="statusbar" role="contentinfo" aria-label="Status">
      <span title={`Workspace: ${workspace}`}>
        Workspace: <strong data-testid="status-workspace">{app ? boundedText(app.workspace) : '…'}</strong>
        {app && <span className="mode"> ({app.mode === 'bound' ? 'bound' : 'standalone'})</span>}
      </span>
      <span title={serverLine}>
        Local server: <strong className={`server-${server.state}`}>{serverText[server.state]}</strong>
        {serverMessage ? ` — ${serverMessage}` : ''}
      </span>
      {sync === 'shown' && app?.sync && <SyncIndicator sync={app.sync} />}
      {sync === 'unknown' && (
        <span className="sync-unknown" title="The central server's state is read through the local server, which does not answer now.">
          Central server: <strong>unknown</strong>
        </span>
      )}
      {app && (
        <span className="signed-in" title={`Signed in as ${boundedText(app.user.username)} (${app.user.role})`}>
          Signed in as {boundedText(app.user.username)}
        </span>
      )}
      {error && (
        <span className="error" role="alert" title={boundedText(error)}>
          {boundedText(error)}
        </span>
      )}
      {app && <span className="version" title={`Outpost ${app.version}`}>Outpost {app.version}</span>}
    </footer>
  );
}

/** Said once after the page was reloaded because another window switched the workspace. */
const workspaceNotice = takeWorkspaceNotice();

/** Every way out of a changed form asks first: routes through the router, a reload through the browser. */
function useLeaveGuard(): void {
  useEffect(() => {
    setLeaveGuard({ blocks: hasUnsavedChanges, ask: (proceed) => void leaveThen(proceed) });
    window.addEventListener('beforeunload', onBeforeUnload);
    return () => {
      setLeaveGuard(undefined);
      window.removeEventListener('beforeunload', onBeforeUnload);
    };
  }, []);
}

export function AppShell({ current, children }: { current: ScreenPath | undefined; children: ReactNode }) {
  useLeaveGuard();
  return (
    <div className="shell">
      <a className="skip" href="#main">
        Skip to content
      </a>
      <nav className="nav" aria-label="Screens">
        <div className="brand">Outpost</div>
        <ul>
          {SCREENS.map((screen) => (
            <li key={screen.path}>
              <a href={href(`/${screen.path}`)} aria-current={current === screen.path ? 'page' : undefined}>
                {screen.title}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <main id="main" className="main" tabIndex={-1}>
        {workspaceNotice && (
          <p className="notice info" role="status">
            {workspaceNotice}
          </p>
        )}
        {children}
      </main>
      <StatusBar />
      <UnsavedChangesDialog />
    </div>
  );
}
