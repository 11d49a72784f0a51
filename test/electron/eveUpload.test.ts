/**
 * "Import EVE log…" in the desktop app (issue 10): the main process asks for the file in the
 * system's dialog and streams it to a real server (the one the app's server process runs); a
 * cancelled dialog sends nothing; a cancelled upload leaves nothing.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { OpenDialogOptions } from 'electron';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { EveUploader, type EveUploadDeps } from '../../electron/main/eveUpload';
import { ADMIN_TOKEN, startAppServer, type TestAppServer } from '../helpers/server';
import { SAMPLES_DIR } from '../helpers/workplace';

const SAMPLE = path.join(SAMPLES_DIR, 'eve', 'Tr0llope-suricata_report_generator-eve.json');

let app: TestAppServer;
beforeAll(async () => {
  app = await startAppServer();
});
afterAll(() => app.close());

function deps(file: string | undefined, shown: OpenDialogOptions[] = []): EveUploadDeps {
  return {
    showOpenDialog: async (options) => (shown.push(options), file === undefined ? { canceled: true, filePaths: [] } : { canceled: false, filePaths: [file] }),
    endpoint: async () => ({ port: Number(new URL(app.url).port), token: ADMIN_TOKEN }),
  };
}

const hostCount = async () => (await app.api.get('/rest/appliances/host_id/')).json().count as number;

describe('the main process imports an EVE log chosen in the dialog', () => {
  test('a cancelled dialog sends nothing', async () => {
    const shown: OpenDialogOptions[] = [];
    expect(await new EveUploader().importLog(deps(undefined, shown))).toEqual({ outcome: 'cancelled' });
    expect(shown[0]).toMatchObject({ title: 'Import an EVE log', properties: ['openFile'] });
    expect(await hostCount()).toBe(0);
  });

  test('a cancelled upload leaves nothing', async () => {
    // A file large enough to be still on its way when cancelled.
    const big = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'outpost-eve-upload-')), 'eve.json');
    const sample = fs.readFileSync(SAMPLE);
    fs.writeFileSync(big, Buffer.concat(Array.from({ length: 60 }, () => sample)));
    const uploader = new EveUploader();
    const running = uploader.importLog(deps(big));
    // Cancelled once the server is importing it.
    await expect.poll(async () => (await app.api.get('/app/hosts/import-eve')).json().running, { interval: 5, timeout: 10_000 }).toBe(true);
    uploader.cancel();
    expect(await running).toEqual({ outcome: 'cancelled' });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await hostCount()).toBe(0);
    fs.rmSync(path.dirname(big), { recursive: true, force: true });
  });

  test('the chosen file is streamed to the server and imported; the summary comes back', async () => {
    const result = await new EveUploader().importLog(deps(SAMPLE));
    expect(result).toMatchObject({ outcome: 'done', summary: { linesRead: 1814, files: [{ path: path.basename(SAMPLE), fromLine: 1 }] } });
    expect(await hostCount()).toBeGreaterThan(0);
  });
});
