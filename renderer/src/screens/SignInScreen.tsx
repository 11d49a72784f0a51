/**
 * The app's own sign-in screen (in a browser on `outpost serve`; the desktop app is signed in by
 * its protocol): a username and password, or an API token (the admin that `outpost serve`
 * creates has a token and no password). The browsable API keeps its login page for `/rest/`.
 */
import { useState, type FormEvent } from 'react';
import { useSession } from '../stores/session';
import './signIn.css';

export function SignInScreen() {
  const signIn = useSession((s) => s.signIn);
  const problem = useSession((s) => s.problem);
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [token, setToken] = useState('');
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (token.trim() === '' && (username.trim() === '' || password === '')) {
      setError('Give your username and password, or an API token.');
      return;
    }
    setBusy(true);
    setError(await signIn({ username, password, token }));
    setBusy(false);
  };
  return (
    <main className="sign-in" id="main">
      <form className="sign-in-card" aria-labelledby="sign-in-title" onSubmit={(e) => void submit(e)} noValidate>
        <div className="brand" aria-hidden="true">
          Outpost
        </div>
        <h1 id="sign-in-title">Sign in</h1>
        {problem && !error && (
          <p className="notice warn" role="status">
            {problem}
          </p>
        )}
        {error && (
          <p className="notice error" role="alert" id="sign-in-error">
            {error}
          </p>
        )}
        <div className="field">
          <label htmlFor="sign-in-username">Username</label>
          <input id="sign-in-username" autoComplete="username" value={username} onChange={(e) => setUsername(e.target.value)} />
        </div>
        <div className="field">
          <label htmlFor="sign-in-password">Password</label>
          <input id="sign-in-password" type="password" autoComplete="current-password" value={password} onChange={(e) => setPassword(e.target.value)} />
        </div>
        <p className="or">or</p>
        <div className="field">
          <label htmlFor="sign-in-token">API token</label>
          <input
            id="sign-in-token"
            type="password"
            autoComplete="off"
            spellCheck={false}
            value={token}
            onChange={(e) => setToken(e.target.value)}
            aria-describedby="sign-in-token-help"
          />
          <p id="sign-in-token-help" className="muted field-help">
            The token <code>outpost serve</code> printed, or the one shown in Settings → Edit Token.
          </p>
        </div>
        <div className="actions">
          <button type="submit" className="primary" disabled={busy}>
            {busy ? 'Signing in…' : 'Sign in'}
          </button>
        </div>
      </form>
    </main>
  );
}
