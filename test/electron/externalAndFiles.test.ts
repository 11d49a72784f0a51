/**
 * What leaves the app through the main process: the system browser (only the central server's
 * hunt page, built here from a validated address) and files the user saves.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { SaveDialogOptions } from 'electron';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { huntUrl, openOnCentral, remoteBaseFromLink, validIp, validRemoteBase } from '../../electron/main/centralLink';
import { saveFile } from '../../electron/main/saveFile';
import { askServer } from '../../electron/main/serverClient';
import { ADMIN_TOKEN, startAppServer, type TestAppServer } from '../helpers/server';

describe('the hunt page URL', () => {
  test('is <remote base>/rules/hunt with the session, page and address', () => {
    expect(huntUrl('https://central.example', '10.0.0.1')).toBe('https://central.example/rules/hunt?session=temporary&page=HOSTS_LIST&ip=10.0.0.1');
    expect(huntUrl('https://central.example/scirius/', '10.0.0.1')).toBe(
      'https://central.example/scirius/rules/hunt?session=temporary&page=HOSTS_LIST&ip=10.0.0.1',
    );
  });

  test('carries the address in its canonical form', () => {
    expect(huntUrl('https://central.example', '2001:DB8:0:0::1')).toBe('https://central.example/rules/hunt?session=temporary&page=HOSTS_LIST&ip=2001%3Adb8%3A%3A1');
    expect(validIp('2001:DB8:0:0::1')).toBe('2001:db8::1');
  });

  test.each(['10.0.0.256', '10.0.0', 'example.com', '10.0.0.1&page=X', '10.0.0.1/../x', 'fe80::1%eth0', '', ' 10.0.0.1'])('is not built for %j', (ip) => {
    expect(huntUrl('https://central.example', ip)).toBeUndefined();
  });

  test.each(['http://central.example', 'https://user:pw@central.example', 'https://central.example/?x=1', 'https://central.example/#x', 'javascript:alert(1)', 'file:///etc', 'central.example'])(
    'is not built on the base %j',
    (base) => {
      expect(validRemoteBase(base)).toBeUndefined();
      expect(huntUrl(base, '10.0.0.1')).toBeUndefined();
    },
  );
});

describe('the remote base from the server', () => {
  test("is taken from the server's central link, and only its base", () => {
    expect(remoteBaseFromLink({ url: 'https://central.example/rules/hunt?session=temporary&page=HOSTS_LIST&ip=10.0.0.1' })).toBe('https://central.example');
    expect(remoteBaseFromLink({ url: 'https://central.example/sub/rules/hunt/?ip=1.2.3.4&page=OTHER' })).toBe('https://central.example/sub');
  });

  test.each([{ url: null }, {}, null, 'https://central.example/rules/hunt', { url: 'http://central.example/rules/hunt' }, { url: 'https://central.example/admin' }, { url: 'not a url' }])(
    'there is none in %j',
    (answer) => {
      expect(remoteBaseFromLink(answer)).toBeUndefined();
    },
  );
});

describe('opening on the central server', () => {
  test('opens the rebuilt hunt page in the system browser', async () => {
    const opened: string[] = [];
    const asked: string[] = [];
    const result = await openOnCentral(
      {
        // Whatever the server adds to its link, only the base is used.
        centralLink: async (ip) => (asked.push(ip), { url: 'https://central.example/rules/hunt?session=temporary&page=EVIL&ip=6.6.6.6' }),
        openExternal: async (url) => void opened.push(url),
      },
      '10.0.0.1',
    );
    expect(result).toBe(true);
    expect(asked).toEqual(['10.0.0.1']);
    expect(opened).toEqual(['https://central.example/rules/hunt?session=temporary&page=HOSTS_LIST&ip=10.0.0.1']);
  });

  test('a non-address is neither looked up nor opened', async () => {
    const touched: string[] = [];
    const deps = { centralLink: async (ip: string) => (touched.push(ip), { url: 'https://c.example/rules/hunt' }), openExternal: async (url: string) => void touched.push(url) };
    expect(await openOnCentral(deps, 'https://evil.example')).toBe(false);
    expect(touched).toEqual([]);
  });

  describe('in a standalone workspace', () => {
    let server: TestAppServer;
    beforeAll(async () => (server = await startAppServer()));
    afterAll(() => server.close());

    test('there is no central server: nothing opens', async () => {
      const opened: string[] = [];
      const endpoint = { port: Number(new URL(server.url).port), token: ADMIN_TOKEN };
      const result = await openOnCentral(
        { centralLink: (ip) => askServer(endpoint, `/app/central-link?ip=${ip}`), openExternal: async (url) => void opened.push(url) },
        '10.0.0.1',
      );
      expect(result).toBe(false);
      expect(opened).toEqual([]);
    });

    test('the main process asks its server with the local token, and gets nothing without it', async () => {
      const port = Number(new URL(server.url).port);
      expect(await askServer({ port, token: ADMIN_TOKEN }, '/app/status')).toMatchObject({ workspace: 'default' });
      expect(await askServer({ port, token: 'f'.repeat(40) }, '/app/status')).toBeUndefined();
      expect(await askServer(undefined, '/app/status')).toBeUndefined();
      expect(await askServer({ port: 1, token: ADMIN_TOKEN }, '/app/status')).toBeUndefined();
    });
  });
});

describe('saving a file', () => {
  let dir: string;
  beforeAll(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'outpost-save-'))));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  function dialogChoosing(file: string | undefined) {
    const shown: SaveDialogOptions[] = [];
    return {
      shown,
      deps: {
        folder: '/home/me/Downloads',
        showSaveDialog: async (options: SaveDialogOptions) => (shown.push(options), file ? { canceled: false, filePath: file } : { canceled: true, filePath: '' }),
        writeFile: (target: string, content: string, options: { mode: number }) => fs.promises.writeFile(target, content, options),
      },
    };
  }

  test('the dialog suggests a bare, safe name in the Downloads folder', async () => {
    const { deps, shown } = dialogChoosing(undefined);
    await saveFile(deps, '../../etc/cron.d/evil:name?.json', '{}');
    expect(shown[0]!.defaultPath).toBe(path.join('/home/me/Downloads', '_.._etc_cron.d_evil_name_.json'));
    expect(path.dirname(shown[0]!.defaultPath!)).toBe('/home/me/Downloads');
    expect(shown[0]!.filters?.[0]).toEqual({ name: 'JSON file', extensions: ['json'] });
  });

  test('writes the content where the user chose, readable by the user only', async () => {
    const target = path.join(dir, 'lyon.outpost.json');
    const { deps } = dialogChoosing(target);
    expect(await saveFile(deps, 'lyon.outpost.json', '{"name":"lyon"}')).toBe(true);
    expect(fs.readFileSync(target, 'utf8')).toBe('{"name":"lyon"}');
    if (process.platform !== 'win32') expect(fs.statSync(target).mode & 0o777).toBe(0o600);
  });

  test('cancelling writes nothing and answers false', async () => {
    let writes = 0;
    const { deps } = dialogChoosing(undefined);
    expect(await saveFile({ ...deps, writeFile: async () => void writes++ }, 'a.json', '{}')).toBe(false);
    expect(writes).toBe(0);
  });
});
