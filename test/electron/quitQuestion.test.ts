/** Quitting with changes awaiting review asks first (electron/main/quitQuestion.ts). */
import type { Dialog, MessageBoxSyncOptions } from 'electron';
import { describe, expect, test } from 'vitest';
import { awaitingReviewIn, mayQuit, quitQuestion } from '../../electron/main/quitQuestion';

function dialog(answer: number, asked: MessageBoxSyncOptions[]): Pick<Dialog, 'showMessageBoxSync'> {
  return { showMessageBoxSync: ((options: MessageBoxSyncOptions) => (asked.push(options), answer)) as Dialog['showMessageBoxSync'] };
}

const status = (awaitingReview: unknown) => ({ workspace: 'site', mode: 'bound', sync: { pushMode: 'review', awaitingReview } });

describe('quitting with changes awaiting review', () => {
  test('the question says how many changes wait, and that they were not sent', () => {
    expect(quitQuestion(3)!.message).toBe('3 changes have not been sent to the central server: they wait for your review. Quit anyway?');
    expect(quitQuestion(1)!.message).toBe('1 change has not been sent to the central server: they wait for your review. Quit anyway?');
    expect(quitQuestion(0)).toBeNull();
  });

  test('staying is the default, also on Escape', () => {
    const question = quitQuestion(2)!;
    expect(question.buttons![question.defaultId!]).toBe('Stay and review');
    expect(question.cancelId).toBe(question.defaultId);
  });

  test('with changes awaiting review it asks: quit anyway quits, stay does not', async () => {
    const asked: MessageBoxSyncOptions[] = [];
    expect(await mayQuit(async () => status(2), dialog(1, asked))).toBe(true);
    expect(await mayQuit(async () => status(2), dialog(0, asked))).toBe(false);
    expect(asked).toHaveLength(2);
  });

  test('nothing awaiting, a standalone workspace or no answer from the server: it quits without asking', async () => {
    const asked: MessageBoxSyncOptions[] = [];
    for (const answer of [status(0), { mode: 'standalone', sync: null }, undefined, 'not json', status('3'), status(-1), status(1.5)]) {
      expect(await mayQuit(async () => answer, dialog(0, asked))).toBe(true);
    }
    expect(asked).toEqual([]);
    expect(awaitingReviewIn(status(7))).toBe(7);
  });
});
