/**
 * The workspace's home networks (docs/eve.md): the CIDR list an EVE import decides `in_home_net`
 * and `net_info` by. Read by everyone, changed by managers; a bad item is named by the server.
 */
import { useEffect, useState } from 'react';
import { parseHomeNets } from '../../../shared/eve/identity';
import { ApiFailure, appCall } from '../api/client';
import { boundedText } from '../components/bounded';
import { useQuery } from '../data/useQuery';
import { useStatus } from '../stores/status';

export function HomeNets() {
  const app = useStatus((s) => s.app);
  const manager = app?.user.role === 'Superuser' || app?.user.role === 'Admin';
  const [text, setText] = useState('');
  const [saved, setSaved] = useState<string | undefined>();
  const [saveError, setError] = useState<string | undefined>();
  const [notice, setNotice] = useState<string | undefined>();
  const stored = useQuery('homeNets', (signal) => appCall('homeNets', { signal }));
  // The field starts from the stored list once it is read.
  useEffect(() => {
    if (!stored.data) return;
    const list = stored.data.homeNets.join(', ');
    setText(list);
    setSaved(list);
  }, [stored.data]);
  const error = saveError ?? stored.error?.message;

  // Only a CIDR list is accepted: said as it is typed, and the save waits for a valid list.
  const checked = parseHomeNets(text);
  const invalid = 'error' in checked ? `${checked.error.charAt(0).toUpperCase()}${checked.error.slice(1)}.` : undefined;
  const shownError = error ?? (text !== saved ? invalid : undefined);
  const saveBlocked = text === saved ? 'Nothing changed yet.' : invalid ? 'Correct the list first.' : undefined;

  const save = async () => {
    if (invalid) return;
    setError(undefined);
    setNotice(undefined);
    try {
      const answer = await appCall('setHomeNets', { body: { homeNets: text.split(/[,\s]+/).filter((s) => s !== '') } });
      const list = answer.homeNets.join(', ');
      setText(list);
      setSaved(list);
      setNotice('Home networks saved; the hosts of the EVE imports follow them.');
    } catch (failure) {
      const field = failure instanceof ApiFailure ? failure.fieldErrors().homeNets : undefined;
      setError(Array.isArray(field) ? field.map(String).join(' ') : failure instanceof Error ? failure.message : String(failure));
    }
  };

  return (
    <section aria-labelledby="home-nets-title" className="settings-card">
      <h2 id="home-nets-title">Home networks</h2>
      <p className="muted">The networks of the site, as CIDR (Suricata's HOME_NET). EVE imports mark the hosts inside them as in the home network.</p>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void save();
        }}
      >
        <label htmlFor="home-nets">Networks (CIDR)</label>
        <input
          id="home-nets"
          value={text}
          disabled={!manager}
          title={boundedText(text)}
          spellCheck={false}
          aria-invalid={shownError ? 'true' : undefined}
          aria-describedby={shownError ? 'home-nets-error' : !manager ? 'home-nets-readonly' : undefined}
          onChange={(event) => {
            setText(event.target.value);
            setError(undefined);
          }}
        />
        {shownError && (
          <p id="home-nets-error" className="field-error" role="alert">
            {shownError}
          </p>
        )}
        {manager ? (
          <div className="actions">
            <button type="submit" disabled={saveBlocked !== undefined} title={saveBlocked} aria-describedby={saveBlocked ? 'home-nets-save-help' : undefined}>
              Save home networks
            </button>
            {saveBlocked && (
              <span id="home-nets-save-help" className="muted">
                {saveBlocked}
              </span>
            )}
          </div>
        ) : (
          <p id="home-nets-readonly" className="muted">
            Only a Superuser or an Admin may change them.
          </p>
        )}
        {notice && <p role="status">{notice}</p>}
      </form>
    </section>
  );
}
