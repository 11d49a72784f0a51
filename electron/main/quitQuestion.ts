/**
 * Quitting with changes that wait for review (issue 25 §2): an engineer must not leave the site
 * believing they were sent. Before the app quits, the main process reads the status over its
 * server client; when changes await review it asks, and quits only if told to. The decision is
 * pure (tested under plain Node); the Electron glue is the dialog and `before-quit`.
 */
import type { Dialog, MessageBoxSyncOptions } from 'electron';

/** Changes awaiting review in an `/app/status` answer; 0 when it is missing or not that shape (a question is never invented). */
export function awaitingReviewIn(status: unknown): number {
  if (typeof status !== 'object' || status === null) return 0;
  const sync = (status as { sync?: unknown }).sync;
  if (typeof sync !== 'object' || sync === null) return 0;
  const count = (sync as { awaitingReview?: unknown }).awaitingReview;
  return typeof count === 'number' && Number.isSafeInteger(count) && count > 0 ? count : 0;
}

/** The question, or null when nothing awaits review. Staying is the default, also on Escape. */
export function quitQuestion(awaiting: number): MessageBoxSyncOptions | null {
  if (awaiting <= 0) return null;
  const changes = awaiting === 1 ? '1 change has' : `${awaiting} changes have`;
  return {
    type: 'warning',
    title: 'Changes not sent',
    message: `${changes} not been sent to the central server: they wait for your review. Quit anyway?`,
    detail: 'They are kept in this workspace and can be reviewed and sent next time (Sync → Review).',
    buttons: ['Stay and review', 'Quit anyway'],
    defaultId: 0,
    cancelId: 0,
    noLink: true,
  };
}

/** True when the app may quit: nothing awaits review, or the engineer chose to quit anyway. */
export async function mayQuit(readStatus: () => Promise<unknown>, dialog: Pick<Dialog, 'showMessageBoxSync'>): Promise<boolean> {
  const question = quitQuestion(awaitingReviewIn(await readStatus()));
  return question === null || dialog.showMessageBoxSync(question) === 1;
}
