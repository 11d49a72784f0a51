/**
 * The desktop app put together (app.md §1, §6): one instance, the app:// scheme, the hardened
 * session and web contents, the server process under its supervisor, the bridge's IPC, and one
 * window that remembers its place. Electron's modules come in as a parameter (main.ts passes the
 * real ones), so the whole start-up runs under test with fakes.
 */
import fs from 'node:fs';
import path from 'node:path';
import type {
  App,
  BaseWindow,
  BrowserWindow,
  BrowserWindowConstructorOptions,
  Dialog,
  IpcMain,
  Menu,
  MenuItemConstructorOptions,
  Protocol,
  Screen,
  Session,
  Shell,
  WebContents,
} from 'electron';
import { IPC, type ServerStatus } from '../../shared/app/bridge';
import { prepareDataDir } from '../workspaces/dataFolder';
import { APP_INDEX_URL } from './appOrigin';
import { handleAppProtocol, registerAppScheme } from './appProtocol';
import { registerBridgeIpc } from './bridgeIpc';
import { openOnCentral } from './centralLink';
import { applicationMenu } from './menu';
import { appPaths } from './paths';
import { dialogFor, saveFile } from './saveFile';
import { EveUploader, openDialogFor } from './eveUpload';
import { denyPermissions, guardAllWebContents, mainWindowOptions, restrictRequests } from './security';
import { askServer } from './serverClient';
import { SecretVault, type SafeStorageLike } from './secretVault';
import { ServerSupervisor, type ForkServer, type SupervisorOptions } from './serverSupervisor';
import { askBeforeDiscarding, discardQuestion } from './unsavedChanges';
import { mayQuit } from './quitQuestion';
import { loadWindowState, saveWindowState, trackWindowState } from './windowState';

export type OutpostWindow = Pick<
  BrowserWindow,
  'on' | 'once' | 'show' | 'focus' | 'restore' | 'isMinimized' | 'maximize' | 'isDestroyed' | 'loadURL' | 'getNormalBounds' | 'isMaximized' | 'isFullScreen'
> & { readonly webContents: Pick<WebContents, 'send' | 'isDestroyed' | 'on'> };

/** The parts of Electron the app uses. */
export interface ElectronModules {
  readonly app: Pick<
    App,
    'requestSingleInstanceLock' | 'quit' | 'on' | 'whenReady' | 'getPath' | 'setPath' | 'setName' | 'getAppPath' | 'isPackaged' | 'enableSandbox' | 'getVersion' | 'setAboutPanelOptions'
  >;
  readonly createWindow: (options: BrowserWindowConstructorOptions) => OutpostWindow;
  readonly windowOf: (contents: WebContents) => BaseWindow | undefined;
  readonly protocol: Pick<Protocol, 'registerSchemesAsPrivileged' | 'handle'>;
  readonly ipcMain: Pick<IpcMain, 'handle'>;
  readonly session: { readonly defaultSession: Pick<Session, 'setPermissionRequestHandler' | 'setPermissionCheckHandler' | 'webRequest'> };
  readonly shell: Pick<Shell, 'openExternal'>;
  readonly dialog: Pick<Dialog, 'showSaveDialog' | 'showOpenDialog' | 'showErrorBox' | 'showMessageBoxSync'>;
  readonly menu: { buildFromTemplate(template: MenuItemConstructorOptions[]): Menu; setApplicationMenu(menu: Menu | null): void };
  readonly fork: ForkServer;
  readonly screen: Pick<Screen, 'getAllDisplays'>;
  /** Encrypts remote tokens at rest (usable once the app is ready). */
  readonly safeStorage: SafeStorageLike;
}

export interface RuntimeInfo {
  readonly env: NodeJS.ProcessEnv;
  readonly platform: NodeJS.Platform;
  readonly arch: string;
  readonly electronVersion: string;
  readonly resourcesPath: string;
  /** Supervisor timings (tests shorten them). */
  readonly supervisor?: Partial<Omit<SupervisorOptions, 'fork' | 'modulePath' | 'args'>>;
}

export const PRODUCT_NAME = 'Outpost';

/**
 * The data folder: the one the CLI uses by default (electron/workspaces/dataFolder.ts
 * defaultDataDir: `<appData>/Outpost`, or OUTPOST_DATA), so `outpost serve` and the app share
 * their workspaces. Electron's own files (caches, storage) go there too, as userData.
 */
export function userDataDir(appData: string, env: NodeJS.ProcessEnv): string {
  return env.OUTPOST_DATA || path.join(appData, PRODUCT_NAME);
}

export interface RunningApp {
  readonly supervisor: ServerSupervisor;
  readonly dataDir: string;
  window(): OutpostWindow | undefined;
}

/** Run the app; undefined when another instance is running already (this one quits). */
export async function runOutpost(electron: ElectronModules, runtime: RuntimeInfo): Promise<RunningApp | undefined> {
  const { app } = electron;
  // Before ready: the scheme's privileges, the sandbox for every renderer, the app's name and folder.
  registerAppScheme(electron.protocol);
  app.enableSandbox();
  app.setName(PRODUCT_NAME);
  const dataDir = userDataDir(app.getPath('appData'), runtime.env);
  app.setPath('userData', dataDir);
  if (!app.requestSingleInstanceLock()) {
    app.quit();
    return undefined;
  }
  guardAllWebContents(app);

  let window: OutpostWindow | undefined;
  app.on('second-instance', () => {
    if (!window || window.isDestroyed()) return;
    if (window.isMinimized()) window.restore();
    window.focus();
  });

  await app.whenReady();
  try {
    prepareDataDir(dataDir);
  } catch (error) {
    electron.dialog.showErrorBox('Outpost cannot start', (error as Error).message);
    app.quit();
    return undefined;
  }
  const packaged = app.isPackaged;
  const paths = appPaths({
    appPath: app.getAppPath(),
    packaged,
    resourcesPath: runtime.resourcesPath,
    electronVersion: runtime.electronVersion,
    platform: runtime.platform,
    arch: runtime.arch,
  });
  app.setAboutPanelOptions({ applicationName: PRODUCT_NAME, applicationVersion: app.getVersion() });

  const session = electron.session.defaultSession;
  denyPermissions(session);
  restrictRequests(session, !packaged);
  electron.menu.setApplicationMenu(electron.menu.buildFromTemplate(applicationMenu({ platform: runtime.platform, packaged })));

  // Remote tokens: encrypted by the OS through safeStorage; where it cannot (Linux without a
  // keyring), the server keeps them in 0600 files as the CLI does.
  const vault = electron.safeStorage.isEncryptionAvailable() ? new SecretVault(dataDir, electron.safeStorage, (line) => process.stderr.write(`${line}\n`)) : undefined;
  const supervisor = new ServerSupervisor({
    ...runtime.supervisor,
    fork: electron.fork,
    modulePath: paths.serverModule,
    args: ['--data', dataDir, '--renderer', paths.rendererDir, '--native-binding', paths.nativeBinding, '--secrets', vault ? 'relay' : 'file'],
    ...(vault
      ? {
          secrets: () => vault.loadAll(),
          onSecret: (name: string, secret: string | null) => (secret === null ? vault.remove(name) : vault.store(name, secret)),
        }
      : {}),
  });
  supervisor.start();
  handleAppProtocol(electron.protocol, { rendererDir: paths.rendererDir, endpoint: () => supervisor.whenRunning(15_000) });
  const eveUploader = new EveUploader();
  registerBridgeIpc(electron.ipcMain, {
    serverStatus: () => supervisor.status(),
    openOnCentral: (ip) =>
      openOnCentral(
        {
          centralLink: (address) => askServer(supervisor.endpoint(), `/app/central-link?ip=${encodeURIComponent(address)}`),
          openExternal: (url) => electron.shell.openExternal(url),
        },
        ip,
      ),
    saveFile: (sender, name, content) =>
      saveFile(
        { showSaveDialog: dialogFor(electron.dialog, electron.windowOf(sender)), writeFile: (file, text, options) => fs.promises.writeFile(file, text, options), folder: app.getPath('downloads') },
        name,
        content,
      ),
    importEveLog: (sender) =>
      eveUploader.importLog({ showOpenDialog: openDialogFor(electron.dialog, electron.windowOf(sender)), endpoint: () => supervisor.whenRunning(15_000) }),
    cancelEveImport: () => eveUploader.cancel(),
  });

  const openWindow = (): OutpostWindow => {
    const state = loadWindowState(dataDir, electron.screen.getAllDisplays().map((display) => display.workArea));
    const { maximized, ...bounds } = state;
    const created = electron.createWindow(mainWindowOptions({ preload: paths.preload, bounds, devTools: !packaged, ...(fs.existsSync(paths.icon) ? { icon: paths.icon } : {}) }));
    if (maximized) created.maximize();
    trackWindowState(created, (next) => saveWindowState(dataDir, next));
    askBeforeDiscarding(created.webContents, discardQuestion(electron.dialog));
    const push = (status: ServerStatus) => {
      if (!created.isDestroyed() && !created.webContents.isDestroyed()) created.webContents.send(IPC.serverStatusChanged, status);
    };
    const unsubscribe = supervisor.onStatus(push);
    created.once('ready-to-show', () => created.show());
    created.on('closed', () => {
      unsubscribe();
      if (window === created) window = undefined;
    });
    void created.loadURL(APP_INDEX_URL);
    return created;
  };
  window = openWindow();

  app.on('activate', () => {
    if (!window) window = openWindow();
  });
  app.on('window-all-closed', () => {
    if (runtime.platform !== 'darwin') app.quit();
  });
  // Quitting asks first when changes await review (quitQuestion.ts), then waits for the server to
  // close its databases (WAL checkpoint), then quits for real.
  let stopped = false;
  let stopping = false;
  app.on('before-quit', (event) => {
    if (stopped) return;
    event.preventDefault();
    if (stopping) return;
    stopping = true;
    void mayQuit(() => askServer(supervisor.endpoint(), '/app/status'), electron.dialog).then((quit) => {
      if (!quit) {
        stopping = false;
        // The last window may be gone already (closing it quits on Windows and Linux): the engineer stays to review.
        if (!window) window = openWindow();
        return;
      }
      void supervisor.stop().then(() => {
        stopped = true;
        app.quit();
      });
    });
  });

  return { supervisor, dataDir, window: () => window };
}
