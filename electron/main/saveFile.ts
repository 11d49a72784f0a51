/**
 * "Save to a file" for the renderer (an exported workspace, for one): the user picks the place
 * in the system's dialog; the renderer only suggests a name, reduced to a bare file name.
 */
import path from 'node:path';
import type { BaseWindow, Dialog, SaveDialogOptions, SaveDialogReturnValue } from 'electron';
import { safeFileName } from '../../shared/app/bridge';

export interface SaveFileDeps {
  readonly showSaveDialog: (options: SaveDialogOptions) => Promise<Pick<SaveDialogReturnValue, 'canceled' | 'filePath'>>;
  readonly writeFile: (file: string, content: string, options: { mode: number }) => Promise<void>;
  /** Where the dialog starts (the Downloads folder). */
  readonly folder: string;
}

/** Bound to a window, Electron's dialog is modal to it. */
export function dialogFor(dialog: Pick<Dialog, 'showSaveDialog'>, window: BaseWindow | undefined): SaveFileDeps['showSaveDialog'] {
  return (options) => (window ? dialog.showSaveDialog(window, options) : dialog.showSaveDialog(options));
}

export async function saveFile(deps: SaveFileDeps, suggestedName: string, content: string): Promise<boolean> {
  const name = safeFileName(suggestedName);
  const extension = path.extname(name).slice(1);
  const choice = await deps.showSaveDialog({
    title: 'Save',
    defaultPath: path.join(deps.folder, name),
    filters: extension ? [{ name: `${extension.toUpperCase()} file`, extensions: [extension] }, { name: 'All files', extensions: ['*'] }] : [],
    properties: ['createDirectory', 'showOverwriteConfirmation'],
  });
  if (choice.canceled || !choice.filePath) return false;
  // Exports hold a workspace's data: readable by the user only, like the data folder's files.
  await deps.writeFile(choice.filePath, content, { mode: 0o600 });
  return true;
}
