/**
 * "Import EVE log…" in the desktop app (docs/eve.md): the main process asks for the file in the
 * system's dialog and streams it from disk to the server process; the page never holds its bytes.
 * One import at a time; `cancel` stops the upload, and the server then keeps nothing of it.
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { BaseWindow, Dialog, OpenDialogOptions, OpenDialogReturnValue } from 'electron';
import { appPath } from '../../shared/app/routes';
import type { EveLogImport } from '../../shared/app/bridge';
import type { JsonValue } from '../../shared/resources';

export interface EveUploadDeps {
  readonly showOpenDialog: (options: OpenDialogOptions) => Promise<Pick<OpenDialogReturnValue, 'canceled' | 'filePaths'>>;
  /** The server process's port and local token, once it runs. */
  readonly endpoint: () => Promise<{ readonly port: number; readonly token: string } | undefined>;
}

/** Bound to a window, Electron's dialog is modal to it. */
export function openDialogFor(dialog: Pick<Dialog, 'showOpenDialog'>, window: BaseWindow | undefined): EveUploadDeps['showOpenDialog'] {
  return (options) => (window ? dialog.showOpenDialog(window, options) : dialog.showOpenDialog(options));
}

function answerOf(text: string): JsonValue {
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    return { detail: text.slice(0, 200) };
  }
}

export class EveUploader {
  private running: http.ClientRequest | undefined;
  private cancelled = false;

  /** Ask for a log, send it; what became of it. */
  async importLog(deps: EveUploadDeps): Promise<EveLogImport> {
    if (this.running) return { outcome: 'failed', message: 'An EVE import is under way; wait for it to end.' };
    this.cancelled = false;
    const filters = [{ name: 'Suricata EVE logs', extensions: ['json', 'gz', 'log'] }, { name: 'All files', extensions: ['*'] }];
    const choice = await deps.showOpenDialog({ title: 'Import an EVE log', filters, properties: ['openFile'] });
    const file = choice.filePaths[0];
    if (choice.canceled || file === undefined) return { outcome: 'cancelled' };
    const endpoint = await deps.endpoint();
    if (!endpoint) return { outcome: 'failed', message: 'The local server is not running; it may be restarting.' };
    let size: number;
    try {
      size = (await fs.promises.stat(file)).size;
    } catch (error) {
      return { outcome: 'failed', message: `Cannot read ${file}: ${(error as Error).message}` };
    }
    if (this.cancelled) return { outcome: 'cancelled' };
    return new Promise<EveLogImport>((resolve) => {
      const headers = { Authorization: `Token ${endpoint.token}`, 'Content-Type': 'application/octet-stream', 'Content-Length': size };
      const target = { host: '127.0.0.1', port: endpoint.port, method: 'POST', path: `${appPath('importEve')}?name=${encodeURIComponent(path.basename(file))}`, headers };
      const request = http.request(target, (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () => {
          const body = answerOf(text);
          const detail = typeof body === 'object' && body !== null && !Array.isArray(body) && typeof body.detail === 'string' ? body.detail : `The server answered ${response.statusCode}.`;
          resolve(response.statusCode === 200 ? { outcome: 'done', summary: body } : { outcome: 'failed', message: detail });
        });
      });
      this.running = request;
      request.on('close', () => (this.running = undefined));
      request.on('error', (error) => {
        this.running = undefined;
        resolve(this.cancelled ? { outcome: 'cancelled' } : { outcome: 'failed', message: `The upload stopped: ${error.message}` });
      });
      const source = fs.createReadStream(file, { highWaterMark: 256 * 1024 });
      source.on('error', (error) => request.destroy(error));
      source.pipe(request);
    });
  }

  /** Stop the upload under way (if any): nothing of it is imported. */
  cancel(): void {
    this.cancelled = true;
    this.running?.destroy(new Error('cancelled'));
  }
}
