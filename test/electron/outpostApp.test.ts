/**
 * The app's start-up with fake Electron modules: what happens before ready, the one instance,
 * the hardened session, the window, the server process (run for real in this process behind a
 * fake utility process), the protocol forwarding to it, status pushes and quitting.
 */
import { EventEmitter } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { BrowserWindowConstructorOptions, MenuItemConstructorOptions } from 'electron';
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { IPC } from '../../shared/app/bridge';
import { menuRoles } from '../../electron/main/menu';
import { runOutpost, userDataDir, type ElectronModules, type OutpostWindow, type RunningApp, type RuntimeInfo } from '../../electron/main/outpostApp';
import type { ServerChild } from '../../electron/main/serverSupervisor';
import { parseServerProcessArgs, runServerProcess } from '../../electron/serverProcess';
import { defaultDataDir, writeSettings } from '../../electron/workspaces/dataFolder';
import { FakeChild, FakeWebContents } from './fakes';

class FakeWindow extends EventEmitter {
  readonly webContents = new FakeWebContents();
  readonly loaded: string[] = [];
  shown = false;
  focused = false;
  restored = false;
  minimized = false;
  maximized = false;
  destroyed = false;

  constructor(readonly options: BrowserWindowConstructorOptions) {
    super();
  }
  show = () => void (this.shown = true);
  focus = () => void (this.focused = true);
  restore = () => void ((this.restored = true), (this.minimized = false));
  isMinimized = () => this.minimized;
  maximize = () => void (this.maximized = true);
  isMaximized = () => this.maximized;
  isFullScreen = () => false;
  isDestroyed = () => this.destroyed;
  getNormalBounds = () => ({ x: this.options.x ?? 0, y: this.options.y ?? 0, width: this.options.width!, height: this.options.height! });
  loadURL = async (url: string) => void this.loaded.push(url);
}

/**
 * A utility process running the real server process in this one, over a fake port pair. As
 * Electron's parentPort does, messages sent before the child listens are queued for it.
 */
class InProcessServer extends EventEmitter implements ServerChild {
  private toServer: ((event: { data: unknown }) => void) | undefined;
  private readonly queued: unknown[] = [];

  constructor(args: string[]) {
    super();
    // In this process, Node's own build of better-sqlite3 is the one that loads.
    const { nativeBinding: _electronBuild, ...options } = parseServerProcessArgs(args);
    // A process starts after fork() returns, once its parent listens.
    setImmediate(() => {
      void runServerProcess({
        ...options,
        port: {
          on: (_event, listener) => {
            const previous = this.toServer;
            this.toServer = (event) => (previous?.(event), listener(event));
            for (const data of this.queued.splice(0)) listener({ data });
          },
          postMessage: (message) => this.emit('message', message),
        },
        exit: (code) => this.emit('exit', code),
        log: () => {},
      });
    });
  }
  postMessage(message: unknown): void {
    if (this.toServer) this.toServer({ data: message });
    else this.queued.push(message);
  }
  kill(): boolean {
    this.emit('exit', -1);
    return true;
  }
}

interface Harness {
  readonly electron: ElectronModules;
  readonly log: string[];
  readonly windows: FakeWindow[];
  readonly forks: { modulePath: string; args: string[] }[];
  readonly ipc: Map<string, (event: unknown, ...args: unknown[]) => unknown>;
  readonly app: EventEmitter & { paths: Map<string, string> };
  protocolHandler?: (request: Request) => Promise<Response> | Response;
  permissionRequest?: (contents: unknown, permission: string, callback: (granted: boolean) => void) => void;
  menu?: MenuItemConstructorOptions[];
  readonly errors: string[];
  readonly opened: string[];
  ready(): void;
}

let root: string;
let projectDir: string;
let appData: string;
let running: RunningApp | undefined;

beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'outpost-app-'));
  projectDir = path.join(root, 'project');
  appData = path.join(root, 'config');
  fs.mkdirSync(path.join(projectDir, 'dist', 'renderer'), { recursive: true });
  fs.writeFileSync(path.join(projectDir, 'dist', 'renderer', 'index.html'), '<!doctype html><title>Outpost</title>');
});

afterEach(async () => {
  await running?.supervisor.stop();
  running = undefined;
  fs.rmSync(root, { recursive: true, force: true });
});

/** safeStorage stand-in: reversible, and visibly not the plain text. */
const fakeSafeStorage = (available: boolean) => ({
  isEncryptionAvailable: () => available,
  encryptString: (text: string) => Buffer.from(`sealed:${Buffer.from(text).toString('base64')}`),
  decryptString: (data: Buffer) => Buffer.from(data.toString().replace(/^sealed:/, ''), 'base64').toString(),
});

function harness(options: { lock?: boolean; serverInProcess?: boolean; packaged?: boolean; encryption?: boolean } = {}): Harness {
  const log: string[] = [];
  let ready!: () => void;
  const whenReady = new Promise<void>((resolve) => (ready = resolve));
  const app = Object.assign(new EventEmitter(), {
    paths: new Map<string, string>([
      ['appData', appData],
      ['downloads', path.join(root, 'downloads')],
    ]),
    isPackaged: options.packaged ?? false,
    requestSingleInstanceLock: () => (log.push('lock'), options.lock ?? true),
    quit: () => void log.push('quit'),
    whenReady: () => whenReady,
    getPath: (name: string) => app.paths.get(name)!,
    setPath: (name: string, value: string) => void (log.push(`setPath ${name}`), app.paths.set(name, value)),
    setName: (name: string) => void log.push(`setName ${name}`),
    getAppPath: () => projectDir,
    enableSandbox: () => void log.push('enableSandbox'),
    getVersion: () => '0.1.0',
    setAboutPanelOptions: () => {},
  });
  const h: Harness = {
    log,
    windows: [],
    forks: [],
    ipc: new Map(),
    app,
    errors: [],
    opened: [],
    ready,
    electron: undefined as unknown as ElectronModules,
  };
  const electron = {
    app,
    createWindow: (windowOptions: BrowserWindowConstructorOptions) => {
      const window = new FakeWindow(windowOptions);
      h.windows.push(window);
      return window as unknown as OutpostWindow;
    },
    windowOf: () => undefined,
    protocol: {
      registerSchemesAsPrivileged: () => void log.push('registerSchemesAsPrivileged'),
      handle: (scheme: string, handler: (request: Request) => Promise<Response>) => void (log.push(`handle ${scheme}`), (h.protocolHandler = handler)),
    },
    ipcMain: { handle: (channel: string, handler: (event: unknown, ...args: unknown[]) => unknown) => void h.ipc.set(channel, handler) },
    session: {
      defaultSession: {
        setPermissionRequestHandler: (handler: Harness['permissionRequest']) => void (h.permissionRequest = handler),
        setPermissionCheckHandler: () => {},
        webRequest: { onBeforeRequest: () => void log.push('onBeforeRequest') },
      },
    },
    shell: { openExternal: async (url: string) => void h.opened.push(url) },
    dialog: {
      showSaveDialog: async () => ({ canceled: true, filePath: '' }),
      showOpenDialog: async () => ({ canceled: true, filePaths: [] }),
      showErrorBox: (title: string, content: string) => void h.errors.push(`${title}: ${content}`),
    },
    menu: {
      buildFromTemplate: (template: MenuItemConstructorOptions[]) => template,
      setApplicationMenu: (menu: MenuItemConstructorOptions[]) => void (h.menu = menu),
    },
    fork: (modulePath: string, args: string[]) => {
      h.forks.push({ modulePath, args });
      if (options.serverInProcess) return new InProcessServer(args);
      return new FakeChild(modulePath, args);
    },
    screen: { getAllDisplays: () => [{ workArea: { x: 0, y: 0, width: 1920, height: 1080 } }] },
    safeStorage: fakeSafeStorage(options.encryption ?? true),
  };
  (h as { electron: unknown }).electron = electron;
  return h;
}

const RUNTIME: RuntimeInfo = { env: {}, platform: 'linux', arch: 'x64', electronVersion: '45.4.1', resourcesPath: '/opt/Outpost/resources', supervisor: { readyTimeoutMs: 20_000 } };

async function started(h: Harness, runtime = RUNTIME): Promise<RunningApp> {
  const run = runOutpost(h.electron, runtime);
  h.ready();
  const app = await run;
  if (!app) throw new Error('the app did not start');
  running = app;
  return app;
}

async function untilRunning(app: RunningApp): Promise<void> {
  const endpoint = await app.supervisor.whenRunning(10_000);
  if (!endpoint) throw new Error(`the server is not running: ${JSON.stringify(app.supervisor.status())}`);
}

describe('before the app is ready', () => {
  test('the scheme is privileged, every renderer sandboxed, and the data folder named, before the lock and ready', async () => {
    const h = harness();
    const run = runOutpost(h.electron, RUNTIME);
    await Promise.resolve();
    expect(h.log).toEqual(['registerSchemesAsPrivileged', 'enableSandbox', 'setName Outpost', 'setPath userData', 'lock']);
    expect(h.app.paths.get('userData')).toBe(path.join(appData, 'Outpost'));
    expect(h.windows).toHaveLength(0);
    h.ready();
    running = await run;
  });

  test('the data folder is the one the CLI uses by default', () => {
    expect(userDataDir('/home/me/.config', {})).toBe(defaultDataDir({ XDG_CONFIG_HOME: '/home/me/.config' }, 'linux'));
    expect(userDataDir('/Users/me/Library/Application Support', {})).toBe(path.join('/Users/me/Library/Application Support', 'Outpost'));
    expect(userDataDir('C:\\Users\\me\\AppData\\Roaming', {})).toBe(path.join('C:\\Users\\me\\AppData\\Roaming', 'Outpost'));
    expect(defaultDataDir({ APPDATA: 'C:\\Users\\me\\AppData\\Roaming' }, 'win32')).toBe(path.join('C:\\Users\\me\\AppData\\Roaming', 'Outpost'));
    expect(userDataDir('/x', { OUTPOST_DATA: '/srv/outpost' })).toBe(defaultDataDir({ OUTPOST_DATA: '/srv/outpost' }, 'linux'));
  });
});

describe('one instance', () => {
  test('a second instance quits at once: no window, no server', async () => {
    const h = harness({ lock: false });
    const run = runOutpost(h.electron, RUNTIME);
    h.ready();
    expect(await run).toBeUndefined();
    expect(h.log).toContain('quit');
    expect(h.windows).toHaveLength(0);
    expect(h.forks).toHaveLength(0);
  });

  test('the running instance brings its window forward when a second one starts', async () => {
    const h = harness();
    await started(h);
    const window = h.windows[0]!;
    window.minimized = true;
    h.app.emit('second-instance', {}, [], '/');
    expect(window.restored).toBe(true);
    expect(window.focused).toBe(true);
  });
});

describe('the window', () => {
  test('is secure, uses the bundled preload, loads app://outpost/index.html and shows when ready', async () => {
    const h = harness();
    await started(h);
    const window = h.windows[0]!;
    expect(window.options.webPreferences).toMatchObject({ contextIsolation: true, sandbox: true, nodeIntegration: false, webSecurity: true, webviewTag: false, devTools: true });
    expect(window.options.webPreferences!.preload).toBe(path.join(projectDir, 'dist', 'electron', 'preload.cjs'));
    expect(window.loaded).toEqual(['app://outpost/index.html']);
    expect(window.shown).toBe(false);
    window.emit('ready-to-show');
    expect(window.shown).toBe(true);
  });

  test('opens where it was left, maximized if it was', async () => {
    fs.mkdirSync(path.join(appData, 'Outpost'), { recursive: true });
    writeSettings(path.join(appData, 'Outpost'), { window: { x: 40, y: 30, width: 1100, height: 700, maximized: true } });
    const h = harness();
    await started(h);
    const window = h.windows[0]!;
    expect([window.options.x, window.options.y, window.options.width, window.options.height]).toEqual([40, 30, 1100, 700]);
    expect(window.maximized).toBe(true);
  });

  test('a packaged build has no developer tools, in the window or the menu', async () => {
    const h = harness({ packaged: true });
    await started(h);
    expect(h.windows[0]!.options.webPreferences!.devTools).toBe(false);
    expect(menuRoles(h.menu!)).not.toContain('toggleDevTools');
    expect(h.forks[0]!.args).toContain(path.join('/opt/Outpost/resources', 'native', 'better_sqlite3.node'));
  });

  test('the session refuses permissions and filters requests', async () => {
    const h = harness();
    await started(h);
    const answers: boolean[] = [];
    h.permissionRequest!({}, 'media', (granted) => answers.push(granted));
    expect(answers).toEqual([false]);
    expect(h.log).toContain('onBeforeRequest');
  });

  test('closing every window quits the app (except on macOS)', async () => {
    const h = harness();
    await started(h);
    h.app.emit('window-all-closed');
    expect(h.log.filter((l) => l === 'quit')).toHaveLength(1);
    const mac = harness();
    await running!.supervisor.stop();
    await started(mac, { ...RUNTIME, platform: 'darwin' });
    mac.app.emit('window-all-closed');
    expect(mac.log).not.toContain('quit');
  });

  test('an unusable data folder is reported and the app quits', async () => {
    fs.writeFileSync(path.join(root, 'not-a-folder'), '');
    const h = harness();
    const run = runOutpost(h.electron, { ...RUNTIME, env: { OUTPOST_DATA: path.join(root, 'not-a-folder') } });
    h.ready();
    expect(await run).toBeUndefined();
    expect(h.errors[0]).toMatch(/^Outpost cannot start: cannot use .*not-a-folder as the data folder/);
    expect(h.log).toContain('quit');
  });
});

describe('with the server process', () => {
  test('is started with the data folder, the renderer build and the Electron build of better-sqlite3', async () => {
    const h = harness();
    await started(h);
    expect(h.forks).toEqual([
      {
        modulePath: path.join(projectDir, 'dist', 'electron', 'server.cjs'),
        args: [
          '--data',
          path.join(appData, 'Outpost'),
          '--renderer',
          path.join(projectDir, 'dist', 'renderer'),
          '--native-binding',
          path.join(projectDir, 'build', 'native', 'electron-45.4.1-linux-x64', 'better_sqlite3.node'),
          '--secrets',
          'relay',
        ],
      },
    ]);
  });

  test('remote tokens are kept encrypted by safeStorage, never in plain text, and handed to the next server process', async () => {
    const h = harness({ serverInProcess: true });
    const app = await started(h);
    await untilRunning(app);
    const headers = { 'Content-Type': 'application/json' };
    const token = 'c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3';
    const added = await h.protocolHandler!(
      new Request('app://outpost/app/remotes', { method: 'POST', headers, body: JSON.stringify({ name: 'central', url: 'https://central.example.com', token }) }),
    );
    expect(added.status).toBe(201);
    const remotes = path.join(appData, 'Outpost', 'remotes');
    await vi.waitFor(() => expect(fs.existsSync(path.join(remotes, 'central.token.enc'))).toBe(true));
    const sealed = fs.readFileSync(path.join(remotes, 'central.token.enc'));
    expect(sealed.toString()).not.toContain(token);
    expect(fs.statSync(path.join(remotes, 'central.token.enc')).mode & 0o777).toBe(0o600);
    expect(fs.existsSync(path.join(remotes, 'central.token'))).toBe(false);
    const listed = await (await h.protocolHandler!(new Request('app://outpost/app/remotes'))).json();
    expect(listed).toEqual([{ name: 'central', url: 'https://central.example.com', insecure: false, pin: null, hasToken: true }]);
    expect(JSON.stringify(listed)).not.toContain(token);

    await app.supervisor.stop();
    running = undefined;
    const again = harness({ serverInProcess: true });
    const restarted = await started(again);
    await untilRunning(restarted);
    const relisted = (await (await again.protocolHandler!(new Request('app://outpost/app/remotes'))).json()) as { hasToken: boolean }[];
    expect(relisted[0]?.hasToken).toBe(true);
  });

  test('without an OS keyring the server keeps remote tokens in 0600 files, as the CLI does', async () => {
    const h = harness({ encryption: false });
    await started(h);
    expect(h.forks[0]!.args.slice(-2)).toEqual(['--secrets', 'file']);
  });

  test('app:// serves the renderer and forwards the API to it with the local token', async () => {
    const h = harness({ serverInProcess: true });
    const app = await started(h);
    await untilRunning(app);
    const page = await h.protocolHandler!(new Request('app://outpost/index.html'));
    expect(await page.text()).toContain('<title>Outpost</title>');
    const status = await h.protocolHandler!(new Request('app://outpost/app/status'));
    expect(status.status).toBe(200);
    expect(await status.json()).toMatchObject({ workspace: 'default', user: { username: 'admin' } });
  });

  test("the window is told of the server's state as it changes", async () => {
    const h = harness({ serverInProcess: true });
    const app = await started(h);
    await untilRunning(app);
    expect(h.windows[0]!.webContents.sentToPage).toEqual([[IPC.serverStatusChanged, { state: 'running', restarts: 0 }]]);
  });

  test('the bridge works through IPC from the app page: status, and no central server in a standalone workspace', async () => {
    const h = harness({ serverInProcess: true });
    const app = await started(h);
    await untilRunning(app);
    const frame = { senderFrame: { url: 'app://outpost/index.html', parent: null }, sender: {} };
    expect(await h.ipc.get(IPC.serverStatus)!(frame)).toEqual({ state: 'running', restarts: 0 });
    expect(await h.ipc.get(IPC.openOnCentral)!(frame, '10.0.0.1')).toBe(false);
    expect(h.opened).toEqual([]);
    expect(await h.ipc.get(IPC.saveFile)!(frame, 'a.json', '{}')).toBe(false);
  });

  test('quitting waits for the server to stop, then quits', async () => {
    const h = harness({ serverInProcess: true });
    const app = await started(h);
    await untilRunning(app);
    const event = { prevented: false, preventDefault: () => void (event.prevented = true) };
    h.app.emit('before-quit', event);
    expect(event.prevented).toBe(true);
    expect(h.log).not.toContain('quit');
    await app.supervisor.stop();
    // It first read the status (a standalone workspace: nothing awaits review, no question), then stopped the server.
    await expect.poll(() => h.log).toContain('quit');
    const again = { prevented: false, preventDefault: () => void (again.prevented = true) };
    h.app.emit('before-quit', again);
    expect(again.prevented).toBe(false);
  });
});
