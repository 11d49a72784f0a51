/**
 * Settings → Remotes (app.md §2, §4): the central servers this data folder knows (URL, how the
 * certificate is checked, whether a token is kept), added with a token that is written and never
 * read back, a token replaced, a remote edited or its connection tested (SettingsRemoteEdit.tsx),
 * a remote removed. Refusals are shown next to the field they are about.
 */
import { useEffect, useState, type FormEvent } from 'react';
import type { JsonValue } from '../../../shared/resources';
import { ApiFailure, appCall } from '../api/client';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { boundedText } from '../components/bounded';
import { useStatus } from '../stores/status';
import { useRemotes } from '../stores/sync';
import { ConnectionTest, EditRemote, runTest, type TestState } from './SettingsRemoteEdit';
import { sentence, tlsText, type RemoteFormField } from './syncFormat';

type FieldErrors = Partial<Record<RemoteFormField | 'general', string>>;

function joined(value: JsonValue | undefined): string | undefined {
  if (value === undefined || value === null) return undefined;
  return Array.isArray(value) ? value.map(String).join(' ') : String(value);
}

/** A refusal of the remotes endpoint, by field of the form. */
function errorsOf(failure: unknown): FieldErrors {
  if (!(failure instanceof ApiFailure)) return { general: failure instanceof Error ? failure.message : String(failure) };
  const fields = failure.fieldErrors();
  const out: FieldErrors = {};
  for (const key of ['name', 'url', 'token', 'pin'] as const) {
    const text = joined(fields[key]);
    if (text) out[key] = text;
  }
  const insecure = joined(fields.insecure);
  if (insecure) out.pin = insecure;
  if (Object.keys(out).length > 0) return out;
  return { general: sentence(failure.message) };
}

function FieldError({ id, text }: { id: string; text: string | undefined }) {
  if (!text) return null;
  return (
    <p id={id} className="field-error">
      {text}
    </p>
  );
}

function AddRemote({ onAdded }: { onAdded: (message: string) => void }) {
  const [name, setName] = useState('');
  const [url, setUrl] = useState('');
  const [token, setToken] = useState('');
  const [insecure, setInsecure] = useState(false);
  const [pin, setPin] = useState('');
  const [errors, setErrors] = useState<FieldErrors>({});
  const [busy, setBusy] = useState(false);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setErrors({});
    try {
      const answer = await appCall('addRemote', { body: { name: name.trim(), url: url.trim(), token: token.trim(), insecure, ...(pin.trim() ? { pin: pin.trim() } : {}) } });
      const warning = typeof answer.warning === 'string' ? ` Note: ${sentence(answer.warning)}` : '';
      onAdded(`Remote “${name.trim()}” added.${warning}`);
      setName('');
      setUrl('');
      setToken('');
      setInsecure(false);
      setPin('');
    } catch (failure) {
      setErrors(errorsOf(failure));
    } finally {
      setBusy(false);
    }
  };
  const invalid = (field: RemoteFormField) => (errors[field] ? { 'aria-invalid': true, 'aria-describedby': `remote-${field}-error` } : {});
  return (
    <form className="remote-form" aria-labelledby="add-remote-title" onSubmit={(e) => void submit(e)}>
      <h3 id="add-remote-title">Add a remote</h3>
      <div className="field">
        <label htmlFor="remote-name">Remote name</label>
        <input id="remote-name" type="text" value={name} onChange={(e) => setName(e.target.value)} placeholder="central" autoComplete="off" {...invalid('name')} />
        <FieldError id="remote-name-error" text={errors.name} />
      </div>
      <div className="field">
        <label htmlFor="remote-url">URL</label>
        <input id="remote-url" type="text" value={url} onChange={(e) => setUrl(e.target.value)} placeholder="https://central.example.com" autoComplete="off" spellCheck={false} {...invalid('url')} />
        <FieldError id="remote-url-error" text={errors.url} />
      </div>
      <div className="field">
        <label htmlFor="remote-token">Remote token</label>
        <input id="remote-token" type="password" value={token} onChange={(e) => setToken(e.target.value)} autoComplete="off" {...invalid('token')} />
        <FieldError id="remote-token-error" text={errors.token} />
      </div>
      <div className="field">
        <label htmlFor="remote-insecure">Don't verify the certificate</label>
        <input id="remote-insecure" type="checkbox" checked={insecure} onChange={(e) => setInsecure(e.target.checked)} aria-describedby="remote-insecure-help" />
        <p id="remote-insecure-help" className="muted field-help">
          Only for a test server with a self-signed certificate: anyone on the network path could read the token.
        </p>
      </div>
      <div className="field">
        <label htmlFor="remote-pin">Pinned certificate SHA-256</label>
        <input id="remote-pin" type="text" value={pin} onChange={(e) => setPin(e.target.value)} placeholder="(optional) 64 hex digits, colons allowed" autoComplete="off" spellCheck={false} {...invalid('pin')} />
        <FieldError id="remote-pin-error" text={errors.pin} />
      </div>
      {errors.general && (
        <p className="notice error" role="alert">
          {errors.general}
        </p>
      )}
      <div className="actions">
        <button type="submit" className="primary" disabled={busy}>
          Add remote
        </button>
      </div>
    </form>
  );
}

function ReplaceToken({ name, onDone, onCancel }: { name: string; onDone: () => void; onCancel: () => void }) {
  const [token, setToken] = useState('');
  const [error, setError] = useState<string | undefined>();
  const id = `token-of-${name}`;
  return (
    <form
      className="inline"
      onSubmit={(e) => {
        e.preventDefault();
        appCall('changeRemote', { params: { name }, body: { token: token.trim() } })
          .then(onDone)
          .catch((failure: unknown) => setError(errorsOf(failure).token ?? errorsOf(failure).general ?? String(failure)));
      }}
    >
      <label htmlFor={id}>New token for {boundedText(name)}</label>
      <input id={id} type="password" value={token} onChange={(e) => setToken(e.target.value)} autoComplete="off" autoFocus aria-invalid={error ? true : undefined} />
      <button type="submit">Save token</button>
      <button type="button" onClick={onCancel}>
        Cancel
      </button>
      {error && <span className="field-error">{error}</span>}
    </form>
  );
}

export function Remotes() {
  const remotes = useRemotes((s) => s.remotes);
  const loaded = useRemotes((s) => s.loaded);
  const loadError = useRemotes((s) => s.error);
  const load = useRemotes((s) => s.load);
  const [notice, setNotice] = useState<string | undefined>();
  const [replacing, setReplacing] = useState<string | undefined>();
  const [removing, setRemoving] = useState<string | undefined>();
  const [editing, setEditing] = useState<string | undefined>();
  const [test, setTest] = useState<{ name: string; state: TestState } | undefined>();
  useEffect(() => {
    void load();
  }, [load]);
  const changed = (message: string) => {
    // The notice follows the reloaded list, so it never sits beside a row it says is gone.
    void load().finally(() => setNotice(message));
    // The indicator: a replaced token may end a "Token refused".
    void useStatus.getState().refresh();
  };
  return (
    <section aria-labelledby="remotes-title" className="settings-card">
      <h2 id="remotes-title">Remotes</h2>
      <p className="muted">
        Central servers a workspace can be bound to. Their tokens are kept on this computer, encrypted where the system allows; they are never shown
        again.
      </p>
      {loadError && (
        <p className="notice error" role="alert">
          {loadError}
        </p>
      )}
      {notice && (
        <p className="notice ok" role="status">
          {notice}
        </p>
      )}
      {!loaded ? (
        <p className="loading">Loading…</p>
      ) : remotes.length === 0 ? (
        <p className="empty">No remote yet: every workspace is standalone. Add the central server below to bind a workspace to it.</p>
      ) : (
        <table className="data" aria-label="Remotes">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">URL</th>
              <th scope="col">Certificate</th>
              <th scope="col">Token</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {remotes.map((remote) => (
              <tr key={remote.name}>
                <th scope="row">{boundedText(remote.name)}</th>
                <td>
                  <code>{boundedText(remote.url)}</code>
                </td>
                <td title={remote.pin === null ? undefined : boundedText(remote.pin)}>{tlsText(remote)}</td>
                <td>{remote.hasToken ? 'set' : <span className="field-error">missing</span>}</td>
                <td className="actions">
                  {replacing === remote.name ? (
                    <ReplaceToken
                      name={remote.name}
                      onCancel={() => setReplacing(undefined)}
                      onDone={() => {
                        setReplacing(undefined);
                        changed(`The token of “${remote.name}” was replaced.`);
                      }}
                    />
                  ) : (
                    <>
                      <button type="button" onClick={() => setEditing(remote.name)} aria-label={`Edit remote ${boundedText(remote.name)}`}>
                        Edit
                      </button>
                      <button
                        type="button"
                        disabled={test?.name === remote.name && test.state.running}
                        onClick={() => void runTest(remote.name, (state) => setTest({ name: remote.name, state }))}
                        aria-label={`Test connection to ${boundedText(remote.name)}`}
                      >
                        Test connection
                      </button>
                      <button type="button" onClick={() => setReplacing(remote.name)} aria-label={`Replace the token of ${boundedText(remote.name)}`}>
                        Replace the token
                      </button>
                      <button type="button" className="danger" onClick={() => setRemoving(remote.name)} aria-label={`Remove remote ${boundedText(remote.name)}`}>
                        Remove
                      </button>
                    </>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {test && remotes.some((r) => r.name === test.name) && <ConnectionTest name={test.name} state={test.state} />}
      {editing !== undefined &&
        remotes
          .filter((r) => r.name === editing)
          .map((remote) => (
            <EditRemote
              key={remote.name}
              remote={remote}
              onCancel={() => setEditing(undefined)}
              onSaved={(message) => {
                setEditing(undefined);
                // An earlier test was of the old settings.
                setTest(undefined);
                changed(message);
              }}
            />
          ))}
      <AddRemote onAdded={changed} />
      {removing && (
        <ConfirmDialog
          title={`Remove remote “${boundedText(removing)}”?`}
          message="Its token is deleted from this computer. Workspaces bound to it keep their data but cannot sync until a remote of that name is added again."
          confirmLabel="Remove remote"
          withComment={false}
          onClose={() => setRemoving(undefined)}
          onConfirm={async () => {
            await appCall('removeRemote', { params: { name: removing } });
            changed(`Remote “${removing}” removed.`);
          }}
        />
      )}
    </section>
  );
}
