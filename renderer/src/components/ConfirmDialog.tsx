/**
 * A confirmation before a destructive write, with the optional comment every write may carry.
 * A native <dialog>: modal, focus kept inside, Escape cancels.
 */
import { useEffect, useRef, useState } from 'react';

interface Props {
  readonly title: string;
  readonly message: string;
  readonly confirmLabel: string;
  readonly onConfirm: (comment: string) => Promise<void>;
  readonly onClose: () => void;
  /** Ask for a comment for the history (writes of the API); off for the app's own actions. */
  readonly withComment?: boolean;
}

export function ConfirmDialog({ title, message, confirmLabel, onConfirm, onClose, withComment = true }: Props) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [comment, setComment] = useState('');
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    const element = dialog.current;
    if (element && !element.open) element.showModal();
  }, []);
  const confirm = async () => {
    setBusy(true);
    setError(undefined);
    try {
      await onConfirm(comment.trim());
      onClose();
    } catch (failure) {
      setError(failure instanceof Error ? failure.message : String(failure));
    } finally {
      setBusy(false);
    }
  };
  return (
    <dialog ref={dialog} className="dialog" aria-labelledby="dialog-title" onClose={onClose}>
      <h2 id="dialog-title">{title}</h2>
      <p>{message}</p>
      {withComment && (
        <>
          <label htmlFor="dialog-comment">Comment for the history (optional)</label>
          <textarea id="dialog-comment" rows={2} value={comment} onChange={(e) => setComment(e.target.value)} />
        </>
      )}
      {error && (
        <p className="notice error" role="alert">
          {error}
        </p>
      )}
      <div className="actions">
        <button type="button" className="danger" disabled={busy} onClick={() => void confirm()}>
          {busy ? 'Working…' : confirmLabel}
        </button>
        <button type="button" disabled={busy} onClick={() => dialog.current?.close()}>
          Cancel
        </button>
      </div>
    </dialog>
  );
}
