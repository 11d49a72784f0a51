/**
 * The Electron main process's entry (bundled as dist/electron/main.cjs). The one main-process
 * file that imports Electron: it hands Electron's modules to runOutpost, where the logic is.
 */
import { app, BrowserWindow, dialog, ipcMain, Menu, protocol, safeStorage, screen, session, shell, utilityProcess } from 'electron';
import { runOutpost } from './outpostApp';

runOutpost(
  {
    app,
    createWindow: (options) => new BrowserWindow(options),
    windowOf: (contents) => BrowserWindow.fromWebContents(contents) ?? undefined,
    protocol,
    ipcMain,
    session: {
      // The default session exists only once the app is ready; runOutpost uses it after that.
      get defaultSession() {
        return session.defaultSession;
      },
    },
    shell,
    dialog,
    menu: Menu,
    fork: (modulePath, args, options) => utilityProcess.fork(modulePath, args, { ...options, stdio: 'inherit' }),
    // Like the session, the screen module may be touched only once the app is ready.
    screen: { getAllDisplays: () => screen.getAllDisplays() },
    safeStorage,
  },
  {
    env: process.env,
    platform: process.platform,
    arch: process.arch,
    electronVersion: process.versions.electron ?? '',
    resourcesPath: process.resourcesPath,
  },
).catch((error: unknown) => {
  dialog.showErrorBox('Outpost could not start', error instanceof Error ? (error.stack ?? error.message) : String(error));
  app.exit(1);
});
