/** A page with unsaved edits that refuses to unload: the main process asks (electron/main/unsavedChanges.ts). */
import type { Dialog, MessageBoxSyncOptions } from 'electron';
import { describe, expect, test } from 'vitest';
import { DISCARD_QUESTION, askBeforeDiscarding, discardQuestion } from '../../electron/main/unsavedChanges';
import { FakeWebContents, navigation } from './fakes';

function refusedUnload(answer: boolean): boolean {
  const contents = new FakeWebContents();
  askBeforeDiscarding(contents as unknown as Parameters<typeof askBeforeDiscarding>[0], () => answer);
  const event = navigation('app://outpost/index.html');
  contents.emit('will-prevent-unload', event);
  return event.defaultPrevented;
}

describe('closing or reloading with unsaved edits', () => {
  test('discarding lets the window close or reload', () => {
    expect(refusedUnload(true)).toBe(true);
  });

  test('staying keeps the page and its edits', () => {
    expect(refusedUnload(false)).toBe(false);
  });

  test('the question defaults to staying, also on Escape', () => {
    const asked: MessageBoxSyncOptions[] = [];
    const dialog = (answer: number): Pick<Dialog, 'showMessageBoxSync'> => ({
      showMessageBoxSync: ((options: MessageBoxSyncOptions) => (asked.push(options), answer)) as Dialog['showMessageBoxSync'],
    });
    expect(discardQuestion(dialog(1))()).toBe(true);
    expect(discardQuestion(dialog(0))()).toBe(false);
    expect(asked[0]).toBe(DISCARD_QUESTION);
    expect(DISCARD_QUESTION.buttons![DISCARD_QUESTION.defaultId!]).toBe('Stay and keep editing');
    expect(DISCARD_QUESTION.cancelId).toBe(DISCARD_QUESTION.defaultId);
  });
});
