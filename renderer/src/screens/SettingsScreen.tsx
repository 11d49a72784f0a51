/**
 * Settings (app.md §4): the account and its Edit Token page (api.md §6: the Token field shows
 * the current token, Regenerate makes a new one and the old one stops working at once), and the
 * workspaces of this data folder (create, switch, rename, delete, export and import a bundle; a
 * bound one is asked how it sends its changes), the home networks, and the central servers.
 */
import { useEffect, useRef, useState } from 'react';
import { NEW_WORKSPACE_MODE_DEFAULT, type PushMode } from '../../../shared/sync/review';
import { PushModeChoice } from './SyncPushMode';
import type { WorkspaceRow } from '../../../shared/app/routes';
import { user as userResource, type JsonObject } from '../../../shared/resources';
import { listPath } from '../../../shared/resources/derived';
import { importedAccountsText } from '../../../shared/app/importedAccounts';
import { bridge } from '../api/bridge';
import { ApiFailure, api, appCall } from '../api/client';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { copyText } from '../components/clipboard';
import { boundedText } from '../components/bounded';
import { useQuery } from '../data/useQuery';
import { HomeNets } from './SettingsHomeNets';
import { useObject } from '../hooks';
import { DateTime } from '../components/DateTime';
import { useSession } from '../stores/session';
import { useStatus } from '../stores/status';
import { useRemotes } from '../stores/sync';
import { Remotes } from './SettingsRemotes';
import './settings.css';

function messageOf(error: unknown): string {
  if (error instanceof ApiFailure) {
    const fields = error.fieldErrors();
    const name = fields.name;
    if (Array.isArray(name)) return name.join(' ');
    return error.message;
  }
  return error instanceof Error ? error.message : String(error);
}

/** Sign out of a browser session; the desktop app has no session to end (its window is signed in). */
function SignOut({ username }: { username: string }) {
  const signOut = useSession((s) => s.signOut);
  const desktop = bridge.kind === 'electron';
  return (
    <div className="sign-out">
      <h3>Session</h3>
      <div className="actions">
        <button type="button" disabled={desktop} aria-describedby="sign-out-help" onClick={() => void signOut()}>
          Sign out
        </button>
        <span id="sign-out-help" className="muted">
          {desktop ? 'The desktop app is signed in by its own local key: close the window to leave.' : `Ends the session of ${username} in this browser.`}
        </span>
      </div>
    </div>
  );
}

function Account() {
  const app = useStatus((s) => s.app);
  const user = useObject(app ? `${listPath(userResource)}${app.user.pk}/` : undefined);
  const token = useObject(app ? `${listPath(userResource)}${app.user.pk}/token/` : undefined);
  const [shown, setShown] = useState<string | undefined>();
  const [visible, setVisible] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const [notice, setNotice] = useState<string | undefined>();
  useEffect(() => {
    if (token.data) setShown(String(token.data.token ?? ''));
  }, [token.data]);
  if (!app) return <p className="loading" role="status">Loading…</p>;
  return (
    <section aria-labelledby="account-title" className="settings-card">
      <h2 id="account-title">Account</h2>
      {user.data && (
        <dl className="facts">
          <dt>User</dt>
          <dd>{boundedText(String(user.data.username))}</dd>
          <dt>Role</dt>
          <dd>{String(user.data.role)}</dd>
          <dt>Joined</dt>
          <dd>
            <DateTime value={typeof user.data.date_joined === 'string' ? user.data.date_joined : undefined} />
          </dd>
        </dl>
      )}
      <h3 id="token-title">Edit Token</h3>
      <p className="muted">
        Scripts and the central server's clients authenticate with <code>Authorization: Token …</code>. Regenerating makes a new token;
        the old one stops working at once.
      </p>
      <div className="field">
        <label htmlFor="token-field">Token</label>
        <div className="token-row">
          <input id="token-field" readOnly value={shown ?? ''} type={visible ? 'text' : 'password'} placeholder={shown === '' ? '(none generated yet)' : ''} />
          <button type="button" onClick={() => setVisible((v) => !v)} aria-pressed={visible}>
            {visible ? 'Hide' : 'Show'}
          </button>
          <button
            type="button"
            disabled={!shown}
            title={shown ? 'Copy the token to the clipboard' : 'There is no token to copy yet'}
            onClick={() => {
              setNotice(undefined);
              void copyText(shown ?? '').then(
                () => setNotice('Token copied to the clipboard.'),
                () => setNotice(undefined),
              );
            }}
          >
            Copy
          </button>
        </div>
      </div>
      {token.error && <p className="notice error" role="alert">{token.error.message}</p>}
      {notice && <p className="notice ok" role="status">{notice}</p>}
      <div className="actions">
        <button type="button" className="danger" onClick={() => setConfirming(true)} aria-describedby="regenerate-help">
          Regenerate…
        </button>
        <span id="regenerate-help" className="muted">
          The current token stops working at once.
        </span>
      </div>
      <SignOut username={app.user.username} />
      {confirming && (
        <ConfirmDialog
          title="Regenerate the token?"
          message="The current token stops working at once: every script and client that uses it is refused until it is given the new one. This cannot be undone."
          confirmLabel="Regenerate token"
          onClose={() => setConfirming(false)}
          onConfirm={async (comment) => {
            const answer = await api.post(`${listPath(userResource)}${app.user.pk}/token/`, comment ? { comment } : {});
            setShown(String(answer.token));
            setVisible(true);
            setNotice('A new token was generated; the previous one no longer works.');
          }}
        />
      )}
    </section>
  );
}

const NO_WORKSPACES: readonly WorkspaceRow[] = [];

function Workspaces() {
  const list = useQuery('workspaces', (signal) => appCall('workspaces', { signal }));
  const rows = list.data?.workspaces ?? NO_WORKSPACES;
  // An action's failure, else the list's.
  const [actionError, setError] = useState<string | undefined>();
  const error = actionError ?? (list.error ? messageOf(list.error) : undefined);
  const [notice, setNotice] = useState<string | undefined>();
  const [newName, setNewName] = useState('');
  const [newRemote, setNewRemote] = useState('');
  const [newPushMode, setNewPushMode] = useState<PushMode>(NEW_WORKSPACE_MODE_DEFAULT);
  const remotes = useRemotes((s) => s.remotes);
  const [renaming, setRenaming] = useState<{ from: string; to: string } | undefined>();
  const [deleting, setDeleting] = useState<string | undefined>();
  const [importName, setImportName] = useState('');
  const file = useRef<HTMLInputElement>(null);

  /** True when it worked; a failure is shown and leaves the forms as typed. */
  const act = async (what: () => Promise<unknown>, done?: string | (() => string)): Promise<boolean> => {
    setError(undefined);
    setNotice(undefined);
    try {
      await what();
      if (done) setNotice(typeof done === 'function' ? done() : done);
      list.reload();
      return true;
    } catch (failure) {
      setError(messageOf(failure));
      return false;
    }
  };

  const open = (name: string) =>
    act(async () => {
      await appCall('openWorkspace', { params: { name }, body: {} });
      // Every screen's data belongs to the workspace: start the app afresh on the new one.
      window.location.hash = '#/probes';
      window.location.reload();
    });

  const exportOne = (name: string) =>
    act(async () => {
      const bundle = await appCall('exportWorkspace', { params: { name } });
      const saved = await bridge.saveFile(`${name}.outpost.json`, JSON.stringify(bundle, null, 1));
      if (!saved) throw new Error('Export cancelled.');
    }, `Workspace "${name}" exported.`);

  const importFile = () => {
    let imported = 'Workspace imported.';
    return act(async () => {
      const chosen = file.current?.files?.[0];
      if (!chosen) throw new Error('Choose a bundle file first.');
      const name = importName.trim() || chosen.name.replace(/\.outpost\.json$|\.json$/, '');
      let bundle: JsonObject;
      try {
        bundle = JSON.parse(await chosen.text()) as JsonObject;
      } catch {
        throw new Error(`${chosen.name} is not JSON.`);
      }
      const answer = await appCall('importWorkspace', { body: bundle, query: { name } });
      // What the bundle's accounts may do: none signs in before a manager here sets its password or token.
      imported = `Workspace "${name}" imported. ${importedAccountsText(answer.accounts)}`;
      setImportName('');
      if (file.current) file.current.value = '';
    }, () => imported);
  };

  return (
    <section aria-labelledby="workspaces-title" className="settings-card">
      <h2 id="workspaces-title">Workspaces</h2>
      <p className="muted">Each workspace is one database in this data folder; the app works on one at a time.</p>
      <p id="workspace-current-help" className="muted">
        The open workspace (marked “current”) cannot be opened again or deleted: open another one first.
      </p>
      {error && <p className="notice error" role="alert">{error}</p>}
      {notice && <p className="notice ok" role="status">{notice}</p>}
      <table className="data" aria-label="Workspaces">
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Central server</th>
            <th scope="col">Size</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row.name}>
              <th scope="row">
                {renaming?.from === row.name ? (
                  <form
                    className="inline"
                    onSubmit={(e) => {
                      e.preventDefault();
                      void act(() => appCall('renameWorkspace', { params: { name: row.name }, body: { name: renaming.to } }), 'Workspace renamed.').then((done) => {
                        if (!done) return;
                        setRenaming(undefined);
                        void useStatus.getState().refresh();
                      });
                    }}
                  >
                    <label className="visually-hidden" htmlFor={`rename-${row.name}`}>
                      New name for {row.name}
                    </label>
                    <input id={`rename-${row.name}`} value={renaming.to} onChange={(e) => setRenaming({ from: row.name, to: e.target.value })} autoFocus />
                    <button type="submit">Save name</button>
                    <button type="button" onClick={() => setRenaming(undefined)}>
                      Cancel
                    </button>
                  </form>
                ) : (
                  <>
                    {boundedText(row.name)} {row.current && <span className="badge">current</span>}
                  </>
                )}
              </th>
              <td>{row.remote ? <>bound to “{boundedText(row.remote)}”</> : <span className="muted">standalone</span>}</td>
              <td>{(row.sizeBytes / 1024).toFixed(0)} KiB</td>
              <td className="actions">
                <button
                  type="button"
                  disabled={row.current}
                  title={row.current ? 'This workspace is the one open now' : undefined}
                  aria-describedby={row.current ? 'workspace-current-help' : undefined}
                  onClick={() => void open(row.name)}
                  aria-label={`Open workspace ${row.name}`}
                >
                  Open
                </button>
                <button type="button" onClick={() => setRenaming({ from: row.name, to: row.name })} aria-label={`Rename workspace ${row.name}`}>
                  Rename
                </button>
                <button type="button" onClick={() => void exportOne(row.name)} aria-label={`Export workspace ${row.name}`}>
                  Export
                </button>
                <button
                  type="button"
                  className="danger"
                  disabled={row.current}
                  title={row.current ? 'The open workspace cannot be deleted: open another one first' : undefined}
                  aria-describedby={row.current ? 'workspace-current-help' : undefined}
                  onClick={() => setDeleting(row.name)}
                  aria-label={`Delete workspace ${row.name}`}
                >
                  Delete
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <form
        className="inline"
        aria-label="Create a workspace"
        onSubmit={(e) => {
          e.preventDefault();
          const bound = newRemote === '' ? '' : `, bound to the central server "${newRemote}"`;
          void act(() => appCall('createWorkspace', { body: { name: newName, ...(newRemote === '' ? {} : { remote: newRemote, pushMode: newPushMode }) } }), `Workspace "${newName.trim()}" created${bound}.`).then((done) => {
            if (!done) return;
            setNewName('');
            setNewRemote('');
            setNewPushMode(NEW_WORKSPACE_MODE_DEFAULT);
          });
        }}
      >
        <label htmlFor="new-workspace">New workspace</label>
        <input id="new-workspace" value={newName} onChange={(e) => setNewName(e.target.value)} placeholder="site-lyon" />
        <label htmlFor="new-workspace-remote">Central server</label>
        <select id="new-workspace-remote" value={newRemote} onChange={(e) => setNewRemote(e.target.value)}>
          <option value="">none (standalone)</option>
          {remotes.map((remote) => (
            <option key={remote.name} value={remote.name}>
              {boundedText(remote.name)} ({boundedText(remote.url)})
            </option>
          ))}
        </select>
        {/* A bound workspace is asked how it sends: after review unless the engineer says otherwise. */}
        {newRemote !== '' && <PushModeChoice value={newPushMode} onChange={setNewPushMode} name="new-workspace-push-mode" />}
        <button type="submit">Create workspace</button>
      </form>
      <form
        className="inline"
        aria-label="Import a workspace bundle"
        onSubmit={(e) => {
          e.preventDefault();
          void importFile();
        }}
      >
        <label htmlFor="import-file">Import a bundle</label>
        <input id="import-file" ref={file} type="file" accept=".json,application/json" />
        <label htmlFor="import-name">as</label>
        <input id="import-name" value={importName} onChange={(e) => setImportName(e.target.value)} placeholder="(name of the file)" />
        <button type="submit">Import workspace</button>
      </form>
      {deleting && (
        <ConfirmDialog
          title={`Delete workspace "${deleting}"?`}
          message="Its database is removed from this computer. Export it first to keep a copy."
          confirmLabel="Delete workspace"
          withComment={false}
          onClose={() => setDeleting(undefined)}
          onConfirm={async () => {
            await appCall('deleteWorkspace', { params: { name: deleting } });
            setNotice(`Workspace "${deleting}" deleted.`);
            list.reload();
          }}
        />
      )}
    </section>
  );
}

export function SettingsScreen() {
  return (
    <div className="screen settings">
      <h1>Settings</h1>
      <Account />
      <Workspaces />
      <HomeNets />
      <Remotes />
    </div>
  );
}
