/**
 * How a bound workspace sends its changes (shared/sync/review.ts): after review (nothing leaves
 * until the engineer sends it from the Review) or automatically. The radio group is shared by the
 * Sync screen, the connect plan and the new-workspace form.
 */
import { useState } from 'react';
import type { PushMode } from '../../../shared/sync/review';
import { appCall } from '../api/client';
import { useStatus } from '../stores/status';
import { useSync } from '../stores/sync';

export const PUSH_MODE_TEXT: Readonly<Record<PushMode, { readonly label: string; readonly means: string }>> = {
  review: {
    label: 'After review',
    means: 'Nothing is sent on its own: Sync now opens the Review, where you see what each change does on the central server and send it. Pulls stay automatic.',
  },
  automatic: {
    label: 'Automatically',
    means: 'Each change is sent a few seconds after it is made, without a review.',
  },
};

export function PushModeChoice({ value, onChange, name, disabled = false }: { value: PushMode; onChange: (mode: PushMode) => void; name: string; disabled?: boolean }) {
  return (
    <fieldset className="push-mode">
      <legend>Send changes to the central server</legend>
      {(['review', 'automatic'] as const).map((mode) => (
        <label key={mode} className="radio">
          <input type="radio" name={name} value={mode} checked={value === mode} disabled={disabled} onChange={() => onChange(mode)} aria-describedby={`${name}-${mode}`} />{' '}
          {PUSH_MODE_TEXT[mode].label}
          {mode === 'review' ? ' (recommended)' : ''}
          <span className="muted push-mode-means" id={`${name}-${mode}`}>
            {' '}
            — {PUSH_MODE_TEXT[mode].means}
          </span>
        </label>
      ))}
    </fieldset>
  );
}

/** The Sync screen's card: the workspace's mode, changed at once (PUT /app/sync/push-mode). */
export function PushModeCard({ mode }: { mode: PushMode }) {
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<string | undefined>();
  // The choice shows at once while it is saved; a refusal puts the saved mode back.
  const [choosing, setChoosing] = useState<PushMode | undefined>();
  const change = async (next: PushMode) => {
    setBusy(true);
    setChoosing(next);
    setFailure(undefined);
    try {
      await appCall('setPushMode', { body: { mode: next } });
      await useSync.getState().load();
      void useStatus.getState().refresh();
    } catch (error) {
      setFailure(error instanceof Error ? error.message : String(error));
    } finally {
      setBusy(false);
      setChoosing(undefined);
    }
  };
  return (
    <section className="sync-card" aria-labelledby="push-mode-title">
      <h2 id="push-mode-title">Sending</h2>
      <PushModeChoice value={choosing ?? mode} onChange={(next) => void change(next)} name="push-mode" disabled={busy} />
      {failure && (
        <p className="notice error" role="alert">
          The mode was not changed: {failure}
        </p>
      )}
    </section>
  );
}
