/**
 * The question asked when a way out of a changed form is taken (stores/unsavedChanges.ts):
 * stay (the default, also Escape) or discard the changes and go on.
 */
import { useEffect, useRef } from 'react';
import { discardAndLeave, stay, usePendingLeave } from '../stores/unsavedChanges';
import { boundedText } from './bounded';

function fieldList(fields: readonly string[]): string {
  return fields.length <= 6 ? fields.join(', ') : `${fields.slice(0, 5).join(', ')} and ${fields.length - 5} more`;
}

export function UnsavedChangesDialog() {
  const pending = usePendingLeave();
  const dialog = useRef<HTMLDialogElement>(null);
  const stayButton = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    const element = dialog.current;
    if (!element) return;
    if (pending && !element.open) {
      element.showModal();
      stayButton.current?.focus();
    }
    if (!pending && element.open) element.close();
  }, [pending]);
  return (
    <dialog
      ref={dialog}
      className="dialog unsaved-dialog"
      aria-labelledby="unsaved-title"
      aria-describedby="unsaved-text"
      onCancel={(event) => {
        event.preventDefault();
        stay();
      }}
    >
      {pending && (
        <>
          <h2 id="unsaved-title">Leave without saving?</h2>
          <div id="unsaved-text">
            {pending.forms.map((form) => (
              <p key={form.title}>
                Your changes to {boundedText(form.title)} are not saved: {fieldList(form.fields)}.
              </p>
            ))}
          </div>
          <div className="actions">
            <button ref={stayButton} type="button" className="primary" onClick={stay}>
              Stay and keep editing
            </button>
            <button type="button" className="danger" onClick={discardAndLeave}>
              Discard changes
            </button>
          </div>
        </>
      )}
    </dialog>
  );
}
