/**
 * Edits are never lost silently: every form reports whether it holds unsaved changes, and every
 * way out of it — a route change (row click, sidebar link, back button: router.ts asks
 * `leaveThen`), a screen's own Reload, Esc, and a reload of the page (`beforeunload`) — goes
 * through here. With changes waiting, the move is held and the UnsavedChangesDialog asks to
 * stay or discard; without, it happens at once.
 */
import { useEffect, useId } from 'react';
import { createStore, useStore } from 'zustand';

/** A form with unsaved changes, as the dialog names it. */
export interface DirtyForm {
  readonly title: string;
  /** The labels of the changed fields. */
  readonly fields: readonly string[];
}

/** A move held until the user decides. */
export interface PendingLeave {
  readonly forms: readonly DirtyForm[];
  /** What "Discard" does: the move itself. */
  readonly proceed: () => void;
}

interface State {
  readonly forms: ReadonlyMap<string, DirtyForm>;
  readonly pending: PendingLeave | undefined;
}

export const unsavedChanges = createStore<State>(() => ({ forms: new Map(), pending: undefined }));

export function hasUnsavedChanges(): boolean {
  return unsavedChanges.getState().forms.size > 0;
}

/** Run `proceed` now if no form holds changes, else hold it for the dialog. Returns whether it ran. */
export function leaveThen(proceed: () => void): boolean {
  const { forms } = unsavedChanges.getState();
  if (forms.size === 0) {
    proceed();
    return true;
  }
  unsavedChanges.setState({ pending: { forms: [...forms.values()], proceed } });
  return false;
}

/** The dialog's answers. */
export function stay(): void {
  unsavedChanges.setState({ pending: undefined });
}

export function discardAndLeave(): void {
  const pending = unsavedChanges.getState().pending;
  unsavedChanges.setState({ pending: undefined });
  pending?.proceed();
}

export function usePendingLeave(): PendingLeave | undefined {
  return useStore(unsavedChanges, (s) => s.pending);
}

function setForm(id: string, form: DirtyForm | undefined): void {
  const forms = new Map(unsavedChanges.getState().forms);
  if (form) forms.set(id, form);
  else forms.delete(id);
  unsavedChanges.setState({ forms });
}

/** A form reports its unsaved changes (none: an empty list) for as long as it is shown. */
export function useUnsavedChanges(title: string, changedFields: readonly string[]): void {
  const id = useId();
  const key = changedFields.join('\u0000');
  useEffect(() => {
    setForm(id, key === '' ? undefined : { title, fields: key.split('\u0000') });
  }, [id, title, key]);
  useEffect(() => () => setForm(id, undefined), [id]);
}

/** The page is left on purpose with nothing to save into (another workspace was opened elsewhere). */
export function forgetUnsavedChanges(): void {
  unsavedChanges.setState({ forms: new Map(), pending: undefined });
}

/** A reload or closing of the page with changes waiting asks the browser's own question. */
export function onBeforeUnload(event: BeforeUnloadEvent): void {
  if (!hasUnsavedChanges()) return;
  event.preventDefault();
  // Older Chromium (and Electron) still need returnValue set.
  event.returnValue = '';
}
