/**
 * The form of a file import: the file to send, any other fields (`children`), and the actions
 * (start it once a file is chosen; cancel it while it runs).
 */
import type { ReactNode } from 'react';

export interface ImportFormProps {
  readonly id: string;
  readonly label: string;
  /** The file types offered (every file when absent: a rotated log is named `eve.json.1`). */
  readonly accept?: string;
  readonly action: string;
  readonly ready: boolean;
  readonly busy: boolean;
  readonly onFile: (file: File | undefined) => void;
  readonly onStart: () => void;
  readonly onCancel: () => void;
  readonly children?: ReactNode;
}

export function ImportForm({ id, label, accept, action, ready, busy, onFile, onStart, onCancel, children }: ImportFormProps) {
  return (
    <form
      className="import-form"
      onSubmit={(event) => {
        event.preventDefault();
        onStart();
      }}
    >
      <label htmlFor={id}>{label}</label>
      <input id={id} type="file" accept={accept} disabled={busy} onChange={(event) => onFile(event.target.files?.[0])} />
      {children}
      <div className="actions">
        <button type="submit" className="primary" disabled={!ready || busy}>
          {action}
        </button>
        {busy && (
          <button type="button" onClick={onCancel}>
            Cancel import
          </button>
        )}
      </div>
    </form>
  );
}
