/** app.md §6: each security measure of the desktop app, checked on the object it configures. */
import { EventEmitter } from 'node:events';
import type { App, Session, WebContents } from 'electron';
import { describe, expect, test } from 'vitest';
import { isAppUrl } from '../../electron/main/appOrigin';
import {
  allowedRequestUrl,
  denyPermissions,
  guardAllWebContents,
  guardWebContents,
  isTrustedSender,
  mainWindowOptions,
  restrictRequests,
} from '../../electron/main/security';
import { FakeWebContents, navigation } from './fakes';

const asContents = (fake: FakeWebContents) => fake as unknown as WebContents;

describe('window web preferences', () => {
  const options = mainWindowOptions({ preload: '/app/dist/electron/preload.cjs', bounds: { width: 1000, height: 700 }, devTools: false });
  const prefs = options.webPreferences!;

  test('the page is isolated from the preload, sandboxed, and has no Node', () => {
    expect(prefs.contextIsolation).toBe(true);
    expect(prefs.sandbox).toBe(true);
    expect(prefs.nodeIntegration).toBe(false);
    expect(prefs.nodeIntegrationInWorker).toBe(false);
    expect(prefs.nodeIntegrationInSubFrames).toBe(false);
  });

  test('web security stays on, and there is no webview tag and no insecure content', () => {
    expect(prefs.webSecurity).toBe(true);
    expect(prefs.webviewTag).toBe(false);
    expect(prefs.allowRunningInsecureContent).toBe(false);
    expect(prefs.experimentalFeatures).toBe(false);
  });

  test('the preload is the bundled bridge, and developer tools follow the build', () => {
    expect(prefs.preload).toBe('/app/dist/electron/preload.cjs');
    expect(prefs.devTools).toBe(false);
    expect(mainWindowOptions({ preload: 'p', bounds: { width: 1000, height: 700 }, devTools: true }).webPreferences!.devTools).toBe(true);
  });

  test('the saved bounds size the window', () => {
    const placed = mainWindowOptions({ preload: 'p', bounds: { x: 10, y: 20, width: 1100, height: 720 }, devTools: false });
    expect([placed.x, placed.y, placed.width, placed.height]).toEqual([10, 20, 1100, 720]);
  });
});

describe('navigation', () => {
  const guarded = () => {
    const contents = new FakeWebContents();
    guardWebContents(asContents(contents));
    return contents;
  };

  test.each(['will-navigate', 'will-frame-navigate', 'will-redirect'])('%s to another site is stopped', (event) => {
    const contents = guarded();
    for (const url of ['https://example.com/', 'http://127.0.0.1:8000/rest/', 'file:///etc/passwd', 'app://evil/index.html', 'app://outpost:81/', 'javascript:alert(1)']) {
      const attempt = navigation(url);
      contents.emit(event, attempt);
      expect(attempt.defaultPrevented, url).toBe(true);
    }
  });

  test.each(['will-navigate', 'will-redirect'])('%s within the app goes ahead', (event) => {
    const contents = guarded();
    const attempt = navigation('app://outpost/index.html#/probes?search=lyon');
    contents.emit(event, attempt);
    expect(attempt.defaultPrevented).toBe(false);
  });

  test('no webview may be attached', () => {
    const contents = guarded();
    const attempt = navigation('https://example.com/');
    contents.emit('will-attach-webview', attempt, {}, { src: 'https://example.com/' });
    expect(attempt.defaultPrevented).toBe(true);
  });

  test('no new window opens, whatever the URL', () => {
    const contents = guarded();
    for (const url of ['https://example.com/', 'app://outpost/index.html', 'about:blank']) {
      expect(contents.windowOpenHandler!({ url })).toEqual({ action: 'deny' });
    }
  });

  test('every web contents created later is guarded too', () => {
    const app = new EventEmitter();
    guardAllWebContents(app as unknown as Pick<App, 'on'>);
    const later = new FakeWebContents();
    app.emit('web-contents-created', {}, later);
    const attempt = navigation('https://example.com/');
    later.emit('will-navigate', attempt);
    expect(attempt.defaultPrevented).toBe(true);
    expect(later.windowOpenHandler!({ url: 'https://example.com/' })).toEqual({ action: 'deny' });
  });
});

describe('the app origin', () => {
  test('only app://outpost is the app', () => {
    expect(isAppUrl('app://outpost/index.html')).toBe(true);
    expect(isAppUrl('app://outpost/')).toBe(true);
    for (const url of ['app://outpost.evil/', 'app://evil/', 'app://user@outpost/', 'app://outpost:8080/', 'https://outpost/', 'outpost', '']) {
      expect(isAppUrl(url), url).toBe(false);
    }
  });
});

describe('permissions', () => {
  test('every permission request is refused and every check answers no', () => {
    let request: ((contents: unknown, permission: string, callback: (granted: boolean) => void) => void) | undefined;
    let check: ((contents: unknown, permission: string) => boolean) | undefined;
    const session = {
      setPermissionRequestHandler: (handler: typeof request) => (request = handler),
      setPermissionCheckHandler: (handler: typeof check) => (check = handler),
    };
    denyPermissions(session as unknown as Pick<Session, 'setPermissionRequestHandler' | 'setPermissionCheckHandler'>);
    for (const permission of ['media', 'notifications', 'geolocation', 'clipboard-read', 'openExternal', 'fullscreen']) {
      const answers: boolean[] = [];
      request!({}, permission, (granted) => answers.push(granted));
      expect(answers, permission).toEqual([false]);
      expect(check!({}, permission), permission).toBe(false);
    }
  });
});

describe('requests leaving the app', () => {
  test('the page reaches its own origin and inline data only', () => {
    expect(allowedRequestUrl('app://outpost/rest/appliances/', false)).toBe(true);
    expect(allowedRequestUrl('data:image/png;base64,AAAA', false)).toBe(true);
    expect(allowedRequestUrl('blob:app://outpost/5a1c', false)).toBe(true);
    for (const url of ['http://127.0.0.1:41000/rest/', 'https://central.example/rest/', 'ws://127.0.0.1/', 'file:///etc/passwd', 'app://evil/']) {
      expect(allowedRequestUrl(url, false), url).toBe(false);
    }
  });

  test('developer tools load their own pages in development builds only', () => {
    expect(allowedRequestUrl('devtools://devtools/bundled/inspector.html', true)).toBe(true);
    expect(allowedRequestUrl('devtools://devtools/bundled/inspector.html', false)).toBe(false);
  });

  test('the session cancels what is not allowed', () => {
    let listener: ((details: { url: string }, callback: (response: { cancel: boolean }) => void) => void) | undefined;
    let filter: unknown;
    const session = { webRequest: { onBeforeRequest: (f: unknown, l: typeof listener) => ((filter = f), (listener = l)) } };
    restrictRequests(session as unknown as Pick<Session, 'webRequest'>, false);
    expect(filter).toEqual({ urls: ['<all_urls>'] });
    const decide = (url: string) => {
      let answer: { cancel: boolean } | undefined;
      listener!({ url }, (response) => (answer = response));
      return answer;
    };
    expect(decide('https://example.com/')).toEqual({ cancel: true });
    expect(decide('app://outpost/index.html')).toEqual({ cancel: false });
  });
});

describe('IPC senders', () => {
  test("only the app's own top-level page is trusted", () => {
    expect(isTrustedSender({ url: 'app://outpost/index.html#/hosts', parent: null })).toBe(true);
    expect(isTrustedSender({ url: 'app://outpost/index.html', parent: {} as never })).toBe(false);
    expect(isTrustedSender({ url: 'https://example.com/', parent: null })).toBe(false);
    expect(isTrustedSender({ url: 'app://evil/index.html', parent: null })).toBe(false);
    expect(isTrustedSender(null)).toBe(false);
  });
});
