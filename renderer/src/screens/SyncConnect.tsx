/**
 * Connect a standalone workspace to a central server (issue 25 §1, `#/sync/connect`): choose a
 * remote, read the plan (nothing sent, nothing changed), decide each collision, choose how
 * changes are sent, then Connect with the plan's central hash. A central server that changed
 * since the plan (409) has the plan read again; Cancel changes nothing. The words are
 * connectModel.ts's.
 */
import { useState } from 'react';
import { DEFAULT_COLLISION_DECISION, itemKey, type ConnectDecision, type ConnectItem, type ConnectPlan } from '../../../shared/sync/connect';
import { NEW_WORKSPACE_MODE_DEFAULT, type PushMode } from '../../../shared/sync/review';
import { ApiFailure, appCall } from '../api/client';
import { BoundedText } from '../components/BoundedText';
import { boundedText } from '../components/bounded';
import { useQuery } from '../data/useQuery';
import { href, navigate } from '../router';
import { useStatus } from '../stores/status';
import { connectRequest, countLines, decisionErrors, decisionText, groupsOf, initialDecisions, type Decisions } from './connectModel';
import { PushModeChoice } from './SyncPushMode';
import { fieldLabel, resourceText, valueLines } from './syncFormat';

function ItemName({ item }: { item: ConnectItem }) {
  return (
    <>
      <span className="muted kind">{resourceText(item.resource)}</span> {boundedText(item.name)}
    </>
  );
}

function Collision({ item, decision, error, onDecide }: { item: ConnectItem; decision: ConnectDecision; error: string | undefined; onDecide: (d: ConnectDecision) => void }) {
  const key = itemKey(item);
  const id = `collision-${key.replace(/[^a-z0-9]/gi, '-')}`;
  const choice = decision.use === 'central' ? `central-${decision.mine}` : decision.use;
  const options: readonly { value: string; label: string; decision: ConnectDecision }[] = [
    { value: 'central-queue', label: 'Use the central object, queue my differing values for review', decision: { use: 'central', mine: 'queue' } },
    { value: 'central-drop', label: 'Use the central object, drop my differing values', decision: { use: 'central', mine: 'drop' } },
    { value: 'rename', label: 'Rename mine', decision: { use: 'rename', name: decision.use === 'rename' ? decision.name : `${item.name} (site)` } },
    { value: 'leave_out', label: 'Leave mine out', decision: { use: 'leave_out' } },
  ];
  return (
    <li className="connect-collision">
      <fieldset aria-describedby={`${id}-what`}>
        <legend>
          <ItemName item={item} />
        </legend>
        <table className="data">
          <caption className="visually-hidden">Differences of {boundedText(item.name)}</caption>
          <thead>
            <tr>
              <th scope="col">Field</th>
              <th scope="col">Mine</th>
              <th scope="col">Central</th>
            </tr>
          </thead>
          <tbody>
            {item.differences.map((d) => (
              <tr key={d.field}>
                <th scope="row">{fieldLabel(item.resource, d.field)}</th>
                <td>
                  <BoundedText value={valueLines(d.field, d.mine).join('\n')} label={`my ${d.field}`} />
                </td>
                <td>
                  <BoundedText value={valueLines(d.field, d.central).join('\n')} label={`the central ${d.field}`} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        {options.map((option) => (
          <label key={option.value} className="radio">
            <input type="radio" name={id} value={option.value} checked={choice === option.value} onChange={() => onDecide(option.decision)} /> {option.label}
          </label>
        ))}
        {decision.use === 'rename' && (
          <label className="connect-rename">
            New name for mine{' '}
            <input
              type="text"
              value={decision.name}
              maxLength={255}
              aria-invalid={error !== undefined}
              aria-describedby={error ? `${id}-error` : undefined}
              onChange={(e) => onDecide({ use: 'rename', name: e.target.value })}
            />
          </label>
        )}
        {error && (
          <p className="field-error" id={`${id}-error`}>
            {error}
          </p>
        )}
        <p className="muted" id={`${id}-what`}>
          {decisionText(decision)}
        </p>
      </fieldset>
    </li>
  );
}

function NameList({ items, empty }: { items: readonly ConnectItem[]; empty: string }) {
  if (items.length === 0) return <p className="muted">{empty}</p>;
  return (
    <ul className="connect-names">
      {items.map((item) => (
        <li key={itemKey(item)}>
          <ItemName item={item} />
        </li>
      ))}
    </ul>
  );
}

/** The objects to create, each of which may be left out (not sent; it leaves the workspace, the copy made before connecting keeps it). */
function CreateList({ items, decisions, onDecide }: { items: readonly ConnectItem[]; decisions: Decisions; onDecide: (key: string, leaveOut: boolean) => void }) {
  if (items.length === 0) return <p className="muted">Nothing: every object here has a namesake there.</p>;
  return (
    <ul className="connect-names">
      {items.map((item) => {
        const key = itemKey(item);
        return (
          <li key={key}>
            <ItemName item={item} />{' '}
            <label className="connect-leave-out">
              <input type="checkbox" checked={decisions[key]?.use === 'leave_out'} onChange={(e) => onDecide(key, e.target.checked)} /> Leave out
              <span className="visually-hidden"> {boundedText(item.name)}</span>
            </label>
          </li>
        );
      })}
    </ul>
  );
}

function PlanView({ plan, onConflict }: { plan: ConnectPlan; onConflict: (message: string) => void }) {
  const [decisions, setDecisions] = useState<Decisions>(() => initialDecisions(plan));
  const [pushMode, setPushMode] = useState<PushMode>(NEW_WORKSPACE_MODE_DEFAULT);
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<string | undefined>();
  const groups = groupsOf(plan);
  const errors = decisionErrors(plan, decisions);
  const blocked = plan.problems.length > 0 || Object.keys(errors).length > 0;
  const connect = async () => {
    setBusy(true);
    setFailure(undefined);
    try {
      await appCall('connectWorkspace', { params: { name: plan.workspace }, body: connectRequest(plan, decisions, pushMode) });
      await useStatus.getState().refresh();
      navigate(href('/sync'), { force: true });
    } catch (error) {
      if (error instanceof ApiFailure && error.status === 409) onConflict(error.message);
      else setFailure(error instanceof Error ? error.message : String(error));
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      {plan.problems.length > 0 && (
        <div className="notice error" role="alert">
          <p>This workspace cannot be connected:</p>
          <ul>
            {plan.problems.map((problem, i) => (
              <li key={i}>
                <BoundedText value={problem} label="the problem" />
              </li>
            ))}
          </ul>
        </div>
      )}
      <h3>Created on the central server ({groups.create.length})</h3>
      <CreateList
        items={groups.create}
        decisions={decisions}
        onDecide={(key, leaveOut) => {
          const next: Record<string, ConnectDecision> = { ...decisions };
          if (leaveOut) next[key] = { use: 'leave_out' };
          else delete next[key];
          setDecisions(next);
        }}
      />
      <h3>Already there, the same ({groups.same.length})</h3>
      <NameList items={groups.same} empty="None." />
      <h3>Same name, different values: decide ({groups.collision.length})</h3>
      {groups.collision.length === 0 ? (
        <p className="muted">None.</p>
      ) : (
        <ul className="connect-collisions">
          {groups.collision.map((item) => {
            const key = itemKey(item);
            return (
              <Collision key={key} item={item} decision={decisions[key] ?? DEFAULT_COLLISION_DECISION} error={errors[key]} onDecide={(d) => setDecisions({ ...decisions, [key]: d })} />
            );
          })}
        </ul>
      )}
      <h3>Also</h3>
      <ul>
        {countLines(plan).map((line) => (
          <li key={line}>{line}</li>
        ))}
      </ul>
      <PushModeChoice value={pushMode} onChange={setPushMode} name="connect-push-mode" />
      {failure && (
        <p className="notice error" role="alert">
          Connecting failed: {failure} The workspace is as it was.
        </p>
      )}
      <div className="actions">
        <button type="button" className="primary" disabled={busy || blocked} onClick={() => void connect()}>
          {busy ? 'Connecting…' : `Connect to “${boundedText(plan.remote.name)}”`}
        </button>
        <a className="button" href={href('/sync')}>
          Cancel
        </a>
      </div>
    </>
  );
}

function RemoteChoice({ onChoose }: { onChoose: (remote: string) => void }) {
  const remotes = useQuery('remotes', (signal) => appCall('remotes', { signal }));
  const [remote, setRemote] = useState('');
  if (remotes.error) {
    return (
      <p className="notice error" role="alert">
        The remotes could not be read: {remotes.error.message}
      </p>
    );
  }
  if (!remotes.data) return <p className="loading" role="status">Reading the remotes…</p>;
  if (remotes.data.length === 0) {
    return (
      <p>
        No central server is set up yet. Add one in <a href={href('/settings')}>Settings → Remotes</a> (its URL and a token), then come back here.
      </p>
    );
  }
  const chosen = remote || remotes.data[0]!.name;
  return (
    <form
      className="connect-remote"
      onSubmit={(e) => {
        e.preventDefault();
        onChoose(chosen);
      }}
    >
      <label htmlFor="connect-remote">Central server</label>{' '}
      <select id="connect-remote" value={chosen} onChange={(e) => setRemote(e.target.value)}>
        {remotes.data.map((r) => (
          <option key={r.name} value={r.name}>
            {boundedText(r.name)} ({boundedText(r.url, 80)})
          </option>
        ))}
      </select>{' '}
      <button type="submit" className="primary">
        Read the plan
      </button>{' '}
      <a href={href('/sync')}>Cancel</a>
    </form>
  );
}

export function SyncConnect() {
  const workspace = useStatus((s) => s.app?.workspace);
  const mode = useStatus((s) => s.app?.mode);
  const [remote, setRemote] = useState<string | undefined>();
  const [changed, setChanged] = useState<string | undefined>();
  const plan = useQuery(remote && workspace ? `connect:${workspace}:${remote}` : undefined, (signal) =>
    appCall('connectPlan', { params: { name: workspace! }, body: { remote: remote! }, signal }),
  );
  if (mode === 'bound') {
    return (
      <section className="sync-card">
        <h2>Connected</h2>
        <p>
          This workspace is bound to a central server. <a href={href('/sync')}>Back to Sync</a>
        </p>
      </section>
    );
  }
  return (
    <section className="sync-card connect" aria-labelledby="connect-title" aria-busy={plan.loading}>
      <h2 id="connect-title">Connect “{boundedText(workspace ?? '')}” to a central server</h2>
      <p className="muted">
        First a plan: the central server is read and each template, probe, ruleset and source here is matched by name. Nothing is sent and nothing
        changes here until you choose Connect.
      </p>
      {remote === undefined ? (
        <RemoteChoice onChoose={setRemote} />
      ) : (
        <p>
          Central server: <strong>{boundedText(remote)}</strong>{' '}
          <button type="button" className="link" onClick={() => setRemote(undefined)}>
            choose another
          </button>
        </p>
      )}
      {changed && (
        <p className="notice warn" role="status">
          The central server changed since the plan ({boundedText(changed)}): here is the plan again. Check it, then connect.
        </p>
      )}
      {plan.loading && (
        <p className="loading" role="status">
          Reading the central server for the plan…
        </p>
      )}
      {plan.error && !plan.loading && (
        <p className="notice error" role="alert">
          The plan could not be made: {plan.error.message} Check the remote in <a href={href('/settings')}>Settings → Remotes</a> (Test connection), then
          try again.
        </p>
      )}
      {plan.data && !plan.loading && (
        <PlanView
          key={plan.data.central + plan.data.made}
          plan={plan.data}
          onConflict={(message) => {
            setChanged(message);
            plan.reload();
          }}
        />
      )}
    </section>
  );
}
