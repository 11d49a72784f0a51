/**
 * Before a template in use is saved: which probes and templates take another effective value,
 * field by field (templatePreviewModel.ts), with Save and Cancel. A native <dialog>: modal, focus
 * kept inside, Escape cancels; nothing is written until Save.
 */
import { useEffect, useRef } from 'react';
import type { TemplatePreview } from '../../../shared/app/templatePreview';
import { BoundedText } from '../components/BoundedText';
import { previewFields, previewTitle } from './templatePreviewModel';

interface Props {
  readonly preview: TemplatePreview;
  readonly labelOf: (field: string) => string;
  /** true: save; false: cancelled (Cancel, Escape). Called once. */
  readonly onDecide: (save: boolean) => void;
}

export function TemplatePreviewDialog({ preview, labelOf, onDecide }: Props) {
  const dialog = useRef<HTMLDialogElement>(null);
  const decided = useRef(false);
  useEffect(() => {
    const element = dialog.current;
    if (element && !element.open) element.showModal();
  }, []);
  const decide = (save: boolean) => {
    if (decided.current) return;
    decided.current = true;
    onDecide(save);
  };
  return (
    <dialog ref={dialog} className="dialog template-preview" aria-labelledby="preview-title" onClose={() => decide(false)}>
      <h2 id="preview-title">{previewTitle(preview)}</h2>
      {previewFields(preview, labelOf).map((field) => (
        <section key={field.field} aria-label={field.sentence}>
          <p>{field.sentence}:</p>
          <ul className="preview-lines">
            {field.lines.map((line, i) => (
              <li key={i}>
                <BoundedText value={line.name} label="the name" />: <BoundedText value={line.before} label={`${line.name}'s value now`} /> →{' '}
                <BoundedText value={line.after} label={`${line.name}'s value after`} />
              </li>
            ))}
            {field.more && <li className="muted">{field.more}</li>}
          </ul>
        </section>
      ))}
      <div className="actions">
        <button type="button" className="primary" autoFocus onClick={() => decide(true)}>
          Save
        </button>
        <button type="button" onClick={() => dialog.current?.close()}>
          Cancel
        </button>
      </div>
    </dialog>
  );
}
