/**
 * The window opens where the user left it: size, position and maximized state are kept in the
 * data folder's settings (`window`), and a position that no longer fits any screen (a monitor
 * unplugged) falls back to a centred window of the saved size.
 */
import type { BrowserWindow, Rectangle } from 'electron';
import { readSettings, updateSettings, type Settings } from '../workspaces/dataFolder';

export interface WindowState {
  readonly x?: number;
  readonly y?: number;
  readonly width: number;
  readonly height: number;
  readonly maximized: boolean;
}

export const DEFAULT_WINDOW_STATE: WindowState = { width: 1280, height: 800, maximized: false };
export const MIN_WIDTH = 800;
export const MIN_HEIGHT = 500;
/** How much of the title bar must be on a screen for the saved place to be used. */
const VISIBLE = 64;

const isInteger = (value: unknown): value is number => typeof value === 'number' && Number.isInteger(value) && Math.abs(value) < 100_000;

/** The saved state in the settings, if there is a sound one. */
export function windowStateFrom(settings: Settings): WindowState | undefined {
  const saved = settings.window;
  if (typeof saved !== 'object' || saved === null || Array.isArray(saved)) return undefined;
  const { x, y, width, height, maximized } = saved as Record<string, unknown>;
  if (!isInteger(width) || !isInteger(height) || width < MIN_WIDTH || height < MIN_HEIGHT) return undefined;
  const placed = isInteger(x) && isInteger(y) ? { x, y } : {};
  return { ...placed, width, height, maximized: maximized === true };
}

function overlap(a: Rectangle, b: Rectangle): { width: number; height: number } {
  return {
    width: Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x),
    height: Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y),
  };
}

/** Where to open the window given the screens' work areas now. */
export function placeWindow(saved: WindowState | undefined, workAreas: readonly Rectangle[]): WindowState {
  const state = saved ?? DEFAULT_WINDOW_STATE;
  const largest = workAreas.reduce<Rectangle | undefined>((best, area) => (!best || area.width * area.height > best.width * best.height ? area : best), undefined);
  const width = largest ? Math.max(MIN_WIDTH, Math.min(state.width, largest.width)) : state.width;
  const height = largest ? Math.max(MIN_HEIGHT, Math.min(state.height, largest.height)) : state.height;
  if (state.x !== undefined && state.y !== undefined) {
    const titleBar = { x: state.x, y: state.y, width, height: Math.min(height, VISIBLE) };
    const onScreen = workAreas.some((area) => {
      const shared = overlap(titleBar, area);
      return shared.width >= VISIBLE && shared.height > 0 && state.y! >= area.y;
    });
    if (onScreen) return { x: state.x, y: state.y, width, height, maximized: state.maximized };
  }
  return { width, height, maximized: state.maximized };
}

export function loadWindowState(dataDir: string, workAreas: readonly Rectangle[]): WindowState {
  let settings: Settings = {};
  try {
    settings = readSettings(dataDir);
  } catch {
    // Broken settings are the server's to report; the window just opens at the default place.
  }
  return placeWindow(windowStateFrom(settings), workAreas);
}

/** Merge into the settings as they are on disk now (the server process writes them too); unchanged, nothing is written. */
export function saveWindowState(dataDir: string, state: WindowState): void {
  updateSettings(dataDir, { window: { ...state } });
}

type TrackedWindow = Pick<BrowserWindow, 'on' | 'getNormalBounds' | 'isMaximized' | 'isFullScreen'>;

export function currentWindowState(window: TrackedWindow): WindowState {
  const bounds = window.getNormalBounds();
  return { x: bounds.x, y: bounds.y, width: bounds.width, height: bounds.height, maximized: window.isMaximized() || window.isFullScreen() };
}

export interface Timers {
  setTimeout(action: () => void, ms: number): unknown;
  clearTimeout(timer: unknown): void;
}

const realTimers: Timers = { setTimeout: (action, ms) => setTimeout(action, ms), clearTimeout: (timer) => clearTimeout(timer as NodeJS.Timeout) };

/** Save after moves and resizes settle, and at once when the window closes. */
export function trackWindowState(window: TrackedWindow, save: (state: WindowState) => void, timers: Timers = realTimers, settleMs = 1_000): void {
  let pending: unknown;
  const saveNow = () => {
    timers.clearTimeout(pending);
    pending = undefined;
    try {
      save(currentWindowState(window));
    } catch {
      // A window that cannot remember its place is no reason to fail.
    }
  };
  const later = () => {
    timers.clearTimeout(pending);
    pending = timers.setTimeout(saveNow, settleMs);
  };
  window.on('resize', later);
  window.on('move', later);
  window.on('maximize', later);
  window.on('unmaximize', later);
  window.on('close', saveNow);
}
