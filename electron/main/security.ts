/**
 * The window's security (app.md §6), in one place: web preferences that keep Node and Electron
 * out of the page, no navigation away from the app, no new windows, no webviews, no permissions,
 * no requests leaving the app's origin. Each function takes the Electron object it configures, so
 * the tests check each measure on a fake.
 */
import type { App, BrowserWindowConstructorOptions, Event, Session, WebContents, WebFrameMain, WebPreferences } from 'electron';
import { isAppUrl } from './appOrigin';

/**
 * No Node in the page or its workers, the page's JavaScript isolated from the preload's, the
 * Chromium sandbox, same-origin policy on, no `<webview>`, no experimental web features.
 * (Electron's `remote` module no longer exists; nothing re-creates it.)
 */
export const SECURE_WEB_PREFERENCES = {
  contextIsolation: true,
  sandbox: true,
  nodeIntegration: false,
  nodeIntegrationInWorker: false,
  nodeIntegrationInSubFrames: false,
  webSecurity: true,
  allowRunningInsecureContent: false,
  webviewTag: false,
  experimentalFeatures: false,
  navigateOnDragDrop: false,
  safeDialogs: true,
} as const satisfies WebPreferences;

export interface WindowBounds {
  readonly x?: number;
  readonly y?: number;
  readonly width: number;
  readonly height: number;
}

export interface MainWindowOptions {
  readonly preload: string;
  readonly bounds: WindowBounds;
  /** Developer tools only in development builds. */
  readonly devTools: boolean;
  readonly icon?: string;
}

export function mainWindowOptions(options: MainWindowOptions): BrowserWindowConstructorOptions {
  return {
    ...options.bounds,
    minWidth: 800,
    minHeight: 500,
    title: 'Outpost',
    show: false,
    backgroundColor: '#ffffff',
    ...(options.icon ? { icon: options.icon } : {}),
    webPreferences: { ...SECURE_WEB_PREFERENCES, preload: options.preload, devTools: options.devTools },
  };
}

type Navigation = { readonly url: string; preventDefault(): void };

/** Navigation stays on the app's origin; anything else is stopped. */
export function blockForeignNavigation(event: Navigation): void {
  if (!isAppUrl(event.url)) event.preventDefault();
}

/**
 * Every web contents the app creates: navigation and redirects only within the app, no new
 * windows (external pages open only through the main process's own links), no webviews.
 */
export function guardWebContents(contents: Pick<WebContents, 'on' | 'setWindowOpenHandler'>): void {
  contents.on('will-navigate', (event) => blockForeignNavigation(event));
  contents.on('will-frame-navigate', (event) => blockForeignNavigation(event));
  contents.on('will-redirect', (event) => blockForeignNavigation(event));
  contents.on('will-attach-webview', (event: Event) => event.preventDefault());
  contents.setWindowOpenHandler(() => ({ action: 'deny' }));
}

/** Guard every web contents as soon as it exists, the main window's and any other. */
export function guardAllWebContents(app: Pick<App, 'on'>): void {
  app.on('web-contents-created', (_event, contents) => guardWebContents(contents));
}

/** The page asks for nothing: camera, notifications, geolocation, clipboard reads … all refused. */
export function denyPermissions(session: Pick<Session, 'setPermissionRequestHandler' | 'setPermissionCheckHandler'>): void {
  session.setPermissionRequestHandler((_contents, _permission, callback) => callback(false));
  session.setPermissionCheckHandler(() => false);
}

/**
 * Requests the page may make: its own origin (the protocol forwards the API), and inline data.
 * Any http(s), ws or file request from the page is cancelled (the CSP says the same; this holds
 * even if a page got around it). Developer tools load their own scheme.
 */
export function allowedRequestUrl(url: string, devTools: boolean): boolean {
  if (isAppUrl(url)) return true;
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url)?.[1]?.toLowerCase();
  if (scheme === 'data' || scheme === 'blob') return true;
  return devTools && (scheme === 'devtools' || scheme === 'chrome-extension');
}

export function restrictRequests(session: Pick<Session, 'webRequest'>, devTools: boolean): void {
  session.webRequest.onBeforeRequest({ urls: ['<all_urls>'] }, (details, callback) => callback({ cancel: !allowedRequestUrl(details.url, devTools) }));
}

/** An IPC call is answered only for the app's own top-level page. */
export function isTrustedSender(frame: Pick<WebFrameMain, 'url' | 'parent'> | null): boolean {
  return frame !== null && frame.parent === null && isAppUrl(frame.url);
}
