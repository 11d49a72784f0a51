/**
 * Where the app's pieces are, in development (`npm start`: the project folder) and packaged
 * (the app.asar, with the native module next to it as a resource).
 */
import path from 'node:path';

export interface AppLocation {
  /** `app.getAppPath()`: the project folder, or `…/resources/app.asar` when packaged. */
  readonly appPath: string;
  readonly packaged: boolean;
  /** `process.resourcesPath` (packaged builds keep the native module there). */
  readonly resourcesPath: string;
  readonly electronVersion: string;
  readonly platform: NodeJS.Platform;
  readonly arch: string;
}

export interface AppPaths {
  readonly preload: string;
  readonly serverModule: string;
  readonly rendererDir: string;
  /** better-sqlite3 compiled for this Electron. */
  readonly nativeBinding: string;
  readonly icon: string;
}

/**
 * The folder `npm start` and `npm run dist` build better-sqlite3 into, one per Electron version
 * and platform (build/native.mjs names it the same way; a test checks they agree).
 */
export function nativeBuildFolder(projectDir: string, electronVersion: string, platform: string, arch: string): string {
  return path.join(projectDir, 'build', 'native', `electron-${electronVersion}-${platform}-${arch}`);
}

export const NATIVE_FILE = 'better_sqlite3.node';

export function appPaths(location: AppLocation): AppPaths {
  const built = path.join(location.appPath, 'dist', 'electron');
  return {
    preload: path.join(built, 'preload.cjs'),
    serverModule: path.join(built, 'server.cjs'),
    rendererDir: path.join(location.appPath, 'dist', 'renderer'),
    nativeBinding: location.packaged
      ? path.join(location.resourcesPath, 'native', NATIVE_FILE)
      : path.join(nativeBuildFolder(location.appPath, location.electronVersion, location.platform, location.arch), NATIVE_FILE),
    icon: location.packaged ? path.join(location.resourcesPath, 'icon.png') : path.join(location.appPath, 'build', 'icon.png'),
  };
}
