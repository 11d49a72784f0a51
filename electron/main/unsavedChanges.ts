/**
 * A page with unsaved edits refuses to unload (`beforeunload`, renderer/src/stores/unsavedChanges.ts).
 * A browser then asks the user; Electron only cancels the unload, silently: the window would
 * neither close nor reload. So the main process asks, and lets the unload go on when the user
 * chooses to discard the edits.
 */
import type { Dialog, MessageBoxSyncOptions, WebContents } from 'electron';

export const DISCARD_QUESTION: MessageBoxSyncOptions = {
  type: 'question',
  title: 'Leave without saving?',
  message: 'Your changes are not saved.',
  detail: 'Closing or reloading Outpost now discards them.',
  buttons: ['Stay and keep editing', 'Discard changes'],
  defaultId: 0,
  cancelId: 0,
  noLink: true,
};

/** Asks the question; true when the user discards. */
export function discardQuestion(dialog: Pick<Dialog, 'showMessageBoxSync'>): () => boolean {
  return () => dialog.showMessageBoxSync(DISCARD_QUESTION) === 1;
}

/** When the page refuses to unload, `ask` decides: discard (the unload goes on) or stay. */
export function askBeforeDiscarding(contents: Pick<WebContents, 'on'>, ask: () => boolean): void {
  contents.on('will-prevent-unload', (event) => {
    // Electron's own wording: preventing the prevention lets the unload happen.
    if (ask()) event.preventDefault();
  });
}
