/**
 * Settings → Remotes, one remote (issue 25 §4): its address, token and certificate check edited
 * — the origin rule said before saving (a new scheme, host or port drops the token unless a new
 * one is given) — and its connection tested step by step (reachable, TLS, token, API), each
 * with its message and the time it took.
 */
import { useState, type FormEvent } from 'react';
import type { RemoteInfo } from '../../../shared/app/routes';
import { sameOrigin } from '../../../shared/app/remoteOrigin';
import { REMOTE_TEST_LABELS, type RemoteTestOutcome, type RemoteTestResult } from '../../../shared/app/remoteTest';
import { ApiFailure, appCall } from '../api/client';
import { boundedText } from '../components/bounded';
import { sentence, type RemoteFormField } from './syncFormat';

type Certificate = 'verify' | 'pin' | 'insecure';
type FieldErrors = Partial<Record<RemoteFormField | 'general', string>>;

/** The origin rule, before saving: what happens to the kept token. */
export function tokenFate(remote: Pick<RemoteInfo, 'url' | 'hasToken'>, url: string, newToken: string): string | undefined {
  if (newToken.trim() !== '' || !remote.hasToken || url.trim() === '' || sameOrigin(remote.url, url.trim())) return undefined;
  return 'The token will be dropped: the origin changes — give a new token.';
}

function errorsOf(failure: unknown): FieldErrors {
  if (!(failure instanceof ApiFailure)) return { general: failure instanceof Error ? failure.message : String(failure) };
  const fields = failure.fieldErrors();
  const out: FieldErrors = {};
  for (const key of ['url', 'token', 'pin', 'insecure'] as const) {
    const value = fields[key];
    if (value !== undefined && value !== null) out[key === 'insecure' ? 'pin' : key] = Array.isArray(value) ? value.map(String).join(' ') : String(value);
  }
  return Object.keys(out).length > 0 ? out : { general: sentence(failure.message) };
}

export function EditRemote({ remote, onSaved, onCancel }: { remote: RemoteInfo; onSaved: (message: string) => void; onCancel: () => void }) {
  const [url, setUrl] = useState(remote.url);
  const [token, setToken] = useState('');
  const [certificate, setCertificate] = useState<Certificate>(remote.pin ? 'pin' : remote.insecure ? 'insecure' : 'verify');
  const [pin, setPin] = useState(remote.pin ?? '');
  const [errors, setErrors] = useState<FieldErrors>({});
  const [busy, setBusy] = useState(false);
  const fate = tokenFate(remote, url, token);
  const id = (field: string) => `edit-remote-${field}`;
  const invalid = (field: RemoteFormField) => (errors[field] ? { 'aria-invalid': true, 'aria-describedby': id(`${field}-error`) } : {});
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setErrors({});
    try {
      const answer = await appCall('changeRemote', {
        params: { name: remote.name },
        body: {
          url: url.trim(),
          insecure: certificate === 'insecure',
          pin: certificate === 'pin' ? pin.trim() : null,
          ...(token.trim() ? { token: token.trim() } : {}),
        },
      });
      const warning = answer && typeof answer.warning === 'string' ? ` ${sentence(answer.warning)}` : '';
      onSaved(`Remote “${remote.name}” changed.${warning}`);
    } catch (failure) {
      setErrors(errorsOf(failure));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form className="remote-form" aria-labelledby={id('title')} onSubmit={(e) => void submit(e)}>
      <h3 id={id('title')}>Edit remote {boundedText(remote.name)}</h3>
      <div className="field">
        <label htmlFor={id('url')}>URL</label>
        <input id={id('url')} type="text" value={url} onChange={(e) => setUrl(e.target.value)} autoComplete="off" spellCheck={false} {...invalid('url')} />
        {errors.url && <p id={id('url-error')} className="field-error">{errors.url}</p>}
      </div>
      <div className="field">
        <label htmlFor={id('token')}>New token</label>
        <input id={id('token')} type="password" value={token} onChange={(e) => setToken(e.target.value)} placeholder={remote.hasToken ? '(unchanged)' : '(none kept: give one)'} autoComplete="off" {...invalid('token')} />
        {errors.token && <p id={id('token-error')} className="field-error">{errors.token}</p>}
      </div>
      {fate && (
        <p className="notice warn" role="status">
          {fate}
        </p>
      )}
      <fieldset className="field">
        <legend>Certificate</legend>
        {(
          [
            ['verify', "Verify it (the system's authorities)"],
            ['pin', 'Accept only the pinned certificate'],
            ['insecure', "Don't verify it (a test server only)"],
          ] as const
        ).map(([value, label]) => (
          <label key={value}>
            <input type="radio" name={id('certificate')} value={value} checked={certificate === value} onChange={() => setCertificate(value)} /> {label}
          </label>
        ))}
      </fieldset>
      {certificate === 'pin' && (
        <div className="field">
          <label htmlFor={id('pin')}>Pinned certificate SHA-256</label>
          <input id={id('pin')} type="text" value={pin} onChange={(e) => setPin(e.target.value)} placeholder="64 hex digits, colons allowed" autoComplete="off" spellCheck={false} {...invalid('pin')} />
          {errors.pin && <p id={id('pin-error')} className="field-error">{errors.pin}</p>}
        </div>
      )}
      {certificate !== 'pin' && errors.pin && <p className="field-error">{errors.pin}</p>}
      {errors.general && (
        <p className="notice error" role="alert">
          {errors.general}
        </p>
      )}
      <div className="actions">
        <button type="submit" className="primary" disabled={busy}>
          Save remote
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}

const OUTCOME_WORDS: Readonly<Record<RemoteTestOutcome, string>> = { passed: 'passed', failed: 'failed', skipped: 'skipped', 'not-tried': 'not tried' };

/** A connection test under way, its steps once done, or why it could not run. */
export type TestState = { readonly running: true } | { readonly running: false; readonly result?: RemoteTestResult; readonly error?: string };

export function ConnectionTest({ name, state }: { name: string; state: TestState }) {
  return (
    <section className="remote-test" aria-label={`Connection test of ${boundedText(name)}`} aria-live="polite">
      <h3>Connection test of {boundedText(name)}</h3>
      {state.running ? (
        <p className="loading">Testing the connection…</p>
      ) : state.error ? (
        <p className="notice error" role="alert">
          {state.error}
        </p>
      ) : state.result ? (
        <>
          <p className={state.result.ok ? 'notice ok' : 'notice error'}>{state.result.ok ? 'The connection works.' : 'The connection does not work: see the failed step.'}</p>
          <table className="data" aria-label={`Steps of the connection test of ${boundedText(name)}`}>
            <thead>
              <tr>
                <th scope="col">Step</th>
                <th scope="col">Result</th>
                <th scope="col">Details</th>
                <th scope="col">Time</th>
              </tr>
            </thead>
            <tbody>
              {state.result.steps.map((step) => (
                <tr key={step.step} className={`step-${step.outcome}`}>
                  <th scope="row">{REMOTE_TEST_LABELS[step.step]}</th>
                  <td className={step.outcome === 'failed' ? 'field-error' : undefined}>{OUTCOME_WORDS[step.outcome]}</td>
                  <td>{boundedText(sentence(step.message))}</td>
                  <td>{step.ms === null ? '—' : `${step.ms} ms`}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      ) : null}
    </section>
  );
}

/** Run the test of a saved remote; the state to show as it goes. */
export async function runTest(name: string, show: (state: TestState) => void): Promise<void> {
  show({ running: true });
  try {
    show({ running: false, result: await appCall('testRemote', { params: { name }, body: {} }) });
  } catch (failure) {
    show({ running: false, error: failure instanceof ApiFailure ? sentence(failure.message) : String(failure) });
  }
}
