/**
 * The Hosts screen's address box (checked before any request) and its link to the central
 * server's view of an address.
 */
import { useEffect, useState } from 'react';
import { bridge } from '../api/bridge';
import { useStatus } from '../stores/status';
import { checkAddress } from './hostsFormat';

/** The address box: checked here, so that a typing mistake explains itself before any request. */
export function LookupForm({ current, onLookup }: { current: string | undefined; onLookup: (ip: string) => void }) {
  const [draft, setDraft] = useState(current ?? '');
  const [error, setError] = useState<string | undefined>();
  useEffect(() => {
    setDraft(current ?? '');
    setError(undefined);
  }, [current]);
  return (
    <form
      className="lookup"
      role="search"
      aria-label="Look up an address"
      onSubmit={(event) => {
        event.preventDefault();
        const checked = checkAddress(draft);
        if ('error' in checked) setError(checked.error);
        else {
          setError(undefined);
          onLookup(checked.ip);
        }
      }}
    >
      <label htmlFor="lookup-ip">IP address</label>
      <input
        id="lookup-ip"
        value={draft}
        placeholder="10.0.0.5 or 2001:db8::1"
        autoComplete="off"
        spellCheck={false}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? 'lookup-error' : undefined}
        onChange={(event) => {
          setDraft(event.target.value);
          setError(undefined);
        }}
      />
      <button type="submit" className="primary">
        Look up
      </button>
      {error && (
        <p id="lookup-error" className="field-error" role="alert">
          {error}
        </p>
      )}
    </form>
  );
}

/** The central server's host view, in the system browser; a standalone workspace has none. */
export function OpenOnCentral({ ip }: { ip: string }) {
  const mode = useStatus((s) => s.app?.mode);
  const [problem, setProblem] = useState<string | undefined>();
  const bound = mode === 'bound';
  const hint =
    mode === undefined
      ? 'Reading the workspace…'
      : bound
        ? 'Opens the central server’s host view of this address in your browser.'
        : 'This workspace is standalone: there is no central server to open this address on.';
  return (
    <div className="central">
      <button
        type="button"
        disabled={!bound}
        aria-describedby="central-hint"
        onClick={() => {
          setProblem(undefined);
          bridge
            .openOnCentral(ip)
            .then((opened) => {
              if (!opened) setProblem('The central server’s address is not known for this workspace.');
            })
            .catch((error: unknown) => setProblem(error instanceof Error ? error.message : String(error)));
        }}
      >
        Open on central server
      </button>
      <span id="central-hint" className="muted">
        {hint}
      </span>
      {problem && (
        <p className="notice error" role="alert">
          {problem}
        </p>
      )}
    </div>
  );
}

