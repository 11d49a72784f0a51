/** The window remembers its place in the data folder's settings; the menu follows the build. */
import { EventEmitter } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { BrowserWindow, Rectangle } from 'electron';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { applicationMenu, menuRoles } from '../../electron/main/menu';
import {
  DEFAULT_WINDOW_STATE,
  loadWindowState,
  placeWindow,
  saveWindowState,
  trackWindowState,
  windowStateFrom,
  type WindowState,
} from '../../electron/main/windowState';
import { readSettings, writeSettings } from '../../electron/workspaces/dataFolder';
import { ManualClock } from './fakes';

const SCREEN: Rectangle = { x: 0, y: 0, width: 1920, height: 1080 };
const SECOND: Rectangle = { x: 1920, y: 0, width: 1280, height: 1024 };

describe('the saved window state', () => {
  test('is read back when sound', () => {
    expect(windowStateFrom({ window: { x: 10, y: 20, width: 1000, height: 700, maximized: true } })).toEqual({ x: 10, y: 20, width: 1000, height: 700, maximized: true });
    expect(windowStateFrom({ window: { width: 1000, height: 700 } })).toEqual({ width: 1000, height: 700, maximized: false });
  });

  test.each([
    [{}],
    [{ window: 'big' }],
    [{ window: { width: '1000', height: 700 } }],
    [{ window: { width: 100, height: 700 } }],
    [{ window: { width: 1000, height: 1e9 } }],
    [{ window: { width: 1000.5, height: 700 } }],
  ])('is ignored when it is not: %j', (settings) => {
    expect(windowStateFrom(settings)).toBeUndefined();
  });
});

describe('placing the window', () => {
  test('where it was, when that place is on a screen', () => {
    const saved: WindowState = { x: 2000, y: 100, width: 1000, height: 700, maximized: false };
    expect(placeWindow(saved, [SCREEN, SECOND])).toEqual(saved);
  });

  test('centred (no position) when its screen is gone', () => {
    expect(placeWindow({ x: 2000, y: 100, width: 1000, height: 700, maximized: true }, [SCREEN])).toEqual({ width: 1000, height: 700, maximized: true });
    expect(placeWindow({ x: 100, y: -500, width: 1000, height: 700, maximized: false }, [SCREEN])).toEqual({ width: 1000, height: 700, maximized: false });
  });

  test('no larger than the largest screen, no smaller than the minimum', () => {
    expect(placeWindow({ width: 4000, height: 3000, maximized: false }, [SCREEN, SECOND])).toEqual({ width: 1920, height: 1080, maximized: false });
    expect(placeWindow({ width: 1280, height: 800, maximized: false }, [{ x: 0, y: 0, width: 640, height: 480 }])).toEqual({ width: 800, height: 500, maximized: false });
  });

  test('the default size the first time', () => {
    expect(placeWindow(undefined, [SCREEN])).toEqual(DEFAULT_WINDOW_STATE);
  });
});

describe('in the data folder', () => {
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'outpost-window-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  test('saving keeps the other settings (the server writes them too)', () => {
    writeSettings(dir, { lastWorkspace: 'lyon', localToken: 'a'.repeat(40) });
    saveWindowState(dir, { x: 5, y: 6, width: 1100, height: 750, maximized: false });
    expect(readSettings(dir)).toEqual({ lastWorkspace: 'lyon', localToken: 'a'.repeat(40), window: { x: 5, y: 6, width: 1100, height: 750, maximized: false } });
    expect(loadWindowState(dir, [SCREEN])).toEqual({ x: 5, y: 6, width: 1100, height: 750, maximized: false });
  });

  test('broken settings open the default window', () => {
    fs.writeFileSync(path.join(dir, 'outpost.json'), '{not json');
    expect(loadWindowState(dir, [SCREEN])).toEqual(DEFAULT_WINDOW_STATE);
  });

  test('a window saves its place once moves settle, and at once when closed', () => {
    const window = Object.assign(new EventEmitter(), {
      bounds: { x: 0, y: 0, width: 1280, height: 800 },
      maximized: false,
      getNormalBounds() {
        return this.bounds;
      },
      isMaximized() {
        return this.maximized;
      },
      isFullScreen: () => false,
    });
    const clock = new ManualClock();
    trackWindowState(window as unknown as Pick<BrowserWindow, 'on' | 'getNormalBounds' | 'isMaximized' | 'isFullScreen'>, (state) => saveWindowState(dir, state), clock, 1_000);
    window.bounds = { x: 50, y: 60, width: 1000, height: 700 };
    window.emit('move');
    clock.advance(500);
    window.emit('resize');
    clock.advance(999);
    expect(readSettings(dir).window).toBeUndefined();
    clock.advance(1);
    expect(readSettings(dir).window).toEqual({ x: 50, y: 60, width: 1000, height: 700, maximized: false });
    window.maximized = true;
    window.emit('maximize');
    window.emit('close');
    expect(readSettings(dir).window).toEqual({ x: 50, y: 60, width: 1000, height: 700, maximized: true });
    expect(clock.pending()).toBe(0);
  });
});

describe('the application menu', () => {
  test('has the usual menus by role', () => {
    const roles = menuRoles(applicationMenu({ platform: 'linux', packaged: true }));
    for (const role of ['fileMenu', 'editMenu', 'windowMenu', 'help', 'about', 'togglefullscreen', 'zoomIn']) expect(roles).toContain(role);
    expect(roles).not.toContain('appMenu');
    expect(menuRoles(applicationMenu({ platform: 'darwin', packaged: true }))[0]).toBe('appMenu');
  });

  test('a packaged build has no developer tools and no reload', () => {
    const roles = menuRoles(applicationMenu({ platform: 'win32', packaged: true }));
    expect(roles).not.toContain('toggleDevTools');
    expect(roles).not.toContain('reload');
    expect(roles).not.toContain('forceReload');
  });

  test('a development build has them', () => {
    const roles = menuRoles(applicationMenu({ platform: 'linux', packaged: false }));
    expect(roles).toContain('toggleDevTools');
    expect(roles).toContain('reload');
  });
});
