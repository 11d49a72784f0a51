/**
 * Packaging (docs/electron.md): electron-builder's configuration, what it really packs (run
 * offline on a stand-in Electron), the side build of better-sqlite3, the icon, and which files
 * may load Electron at run time.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { bundleElectron } from '../../build/electronBundle.mjs';
import { BuildError, ensureNativeBinding, nativeBuildFolder, prepareRebuildCopy, requireNode, type RebuildOptions } from '../../build/native.mjs';
import { appPaths, nativeBuildFolder as runtimeNativeFolder } from '../../electron/main/paths';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const require = createRequire(import.meta.url);
// The configuration is plain CommonJS for electron-builder; tests read it loosely.
const config = require('../../build/electron-builder.config.cjs');
const ELECTRON_VERSION: string = require('electron/package.json').version;

describe('electron-builder configuration', () => {
  test('names the app', () => {
    expect(config.appId).toBe('io.outpost.desktop');
    expect(config.productName).toBe('Outpost');
    expect(config.electronVersion).toBe(ELECTRON_VERSION);
  });

  test('never rebuilds native modules itself (build/native.mjs does, on a copy)', () => {
    expect(config.npmRebuild).toBe(false);
    expect(config.nodeGypRebuild).toBe(false);
    expect(config.buildDependenciesFromSource).toBe(false);
    expect(require('../../package.json').scripts.postinstall).toBeUndefined();
  });

  test('sets the fuses: no running as Node, no NODE_OPTIONS, no inspector, only the integrity-checked asar, encrypted cookies', () => {
    expect(config.electronFuses).toEqual({
      runAsNode: false,
      enableCookieEncryption: true,
      enableNodeOptionsEnvironmentVariable: false,
      enableNodeCliInspectArguments: false,
      enableEmbeddedAsarIntegrityValidation: true,
      onlyLoadAppFromAsar: true,
      grantFileProtocolExtraPrivileges: false,
    });
    expect(config.asar).toBe(true);
  });

  test('targets AppImage and deb, NSIS, and dmg', () => {
    expect(config.linux.target).toEqual(['AppImage', 'deb']);
    expect(config.win.target).toEqual(['nsis']);
    expect(config.mac.target).toEqual(['dmg']);
  });

  test("ships the Electron build of better-sqlite3 beside the asar, from the folder the app's dev runs use", () => {
    const native = config.extraResources.find((r: { to: string }) => r.to === 'native/better_sqlite3.node');
    expect(native.from).toBe(path.join(nativeBuildFolder(ROOT, ELECTRON_VERSION, process.platform, process.arch), 'better_sqlite3.node'));
    const packaged = appPaths({ appPath: '/opt/Outpost/resources/app.asar', packaged: true, resourcesPath: '/opt/Outpost/resources', electronVersion: ELECTRON_VERSION, platform: 'linux', arch: 'x64' });
    expect(packaged.nativeBinding).toBe(path.join('/opt/Outpost/resources', native.to));
  });

  test('build/native.mjs and the app agree on where the native build lives', () => {
    expect(nativeBuildFolder(ROOT, '45.4.1', 'linux', 'arm64')).toBe(runtimeNativeFolder(ROOT, '45.4.1', 'linux', 'arm64'));
    expect(runtimeNativeFolder('/p', '45.4.1', 'win32', 'x64')).toBe(path.join('/p', 'build', 'native', 'electron-45.4.1-win32-x64'));
  });
});

describe('what electron-builder packs', () => {
  let work: string;
  let output: string;

  beforeAll(async () => {
    await bundleElectron({ root: ROOT, quiet: true });
    if (!fs.existsSync(path.join(ROOT, 'dist', 'renderer', 'index.html'))) throw new Error('the renderer build is missing (the global setup builds it)');
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'outpost-pack-'));
    output = path.join(work, 'release');
    // A stand-in for Electron's download: electron-builder copies it as the app's executable.
    const electronDist = path.join(work, 'electron');
    fs.mkdirSync(electronDist);
    fs.writeFileSync(path.join(electronDist, 'electron'), '#!/bin/sh\n', { mode: 0o755 });
    fs.writeFileSync(path.join(electronDist, 'version'), `v${ELECTRON_VERSION}`);
    const native = path.join(work, 'better_sqlite3.node');
    fs.writeFileSync(native, 'native module');
    const { build } = await import('electron-builder');
    await build({
      projectDir: ROOT,
      publish: 'never',
      dir: true,
      linux: [],
      config: {
        ...config,
        electronDist,
        // The stand-in has no fuses to flip; the real run sets them (checked above).
        electronFuses: null,
        directories: { ...config.directories, output },
        extraResources: config.extraResources.map((r: { from: string; to: string }) => (r.to.startsWith('native/') ? { ...r, from: native } : r)),
      },
    });
  }, 120_000);

  afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

  test('the asar holds the bundles, the renderer, package.json and better-sqlite3 JavaScript only', async () => {
    if (process.platform !== 'linux') return;
    const { listPackage } = await import('@electron/asar');
    const files = listPackage(path.join(output, 'linux-unpacked', 'resources', 'app.asar'), { isPack: false }).map((f) => f.split(path.sep).join('/'));
    expect(files).toContain('/package.json');
    for (const file of ['/dist/electron/main.cjs', '/dist/electron/preload.cjs', '/dist/electron/server.cjs', '/dist/renderer/index.html', '/node_modules/better-sqlite3/lib/index.js']) {
      expect(files).toContain(file);
    }
    const modules = new Set(files.filter((f) => f.startsWith('/node_modules/')).map((f) => f.split('/')[2]));
    expect([...modules]).toEqual(['better-sqlite3']);
    expect(files.filter((f) => f.startsWith('/node_modules/better-sqlite3/') && !/^\/node_modules\/better-sqlite3(\/lib(\/.*)?|\/package\.json)$/.test(f))).toEqual([]);
    expect(files.filter((f) => f.endsWith('.map') || f.endsWith('.node') || f.startsWith('/electron/') || f.startsWith('/build/'))).toEqual([]);
  });

  test('the native module and the icon are resources beside the asar', () => {
    if (process.platform !== 'linux') return;
    const resources = path.join(output, 'linux-unpacked', 'resources');
    expect(fs.readFileSync(path.join(resources, 'native', 'better_sqlite3.node'), 'utf8')).toBe('native module');
    expect(fs.existsSync(path.join(resources, 'icon.png'))).toBe(true);
  });
});

describe('better-sqlite3 for Electron', () => {
  let work: string;
  beforeAll(() => (work = fs.mkdtempSync(path.join(os.tmpdir(), 'outpost-native-'))));
  afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

  /** A project with a better-sqlite3 that has sources and a Node build. */
  function project(): string {
    const dir = fs.mkdtempSync(path.join(work, 'project-'));
    const module = path.join(dir, 'node_modules', 'better-sqlite3');
    fs.mkdirSync(path.join(module, 'lib'), { recursive: true });
    fs.mkdirSync(path.join(module, 'src'), { recursive: true });
    fs.mkdirSync(path.join(module, 'build', 'Release'), { recursive: true });
    fs.writeFileSync(path.join(module, 'package.json'), JSON.stringify({ name: 'better-sqlite3', version: '12.11.1' }));
    fs.writeFileSync(path.join(module, 'lib', 'index.js'), 'module.exports = 1;');
    fs.writeFileSync(path.join(module, 'src', 'better_sqlite3.cpp'), '// sources');
    fs.writeFileSync(path.join(module, 'build', 'Release', 'better_sqlite3.node'), 'NODE BUILD');
    return dir;
  }

  test("the copy to rebuild has the package's sources but not its Node build", () => {
    const dir = project();
    const copy = prepareRebuildCopy(dir, path.join(dir, 'scratch'));
    expect(fs.existsSync(path.join(copy, 'src', 'better_sqlite3.cpp'))).toBe(true);
    expect(fs.existsSync(path.join(copy, 'lib', 'index.js'))).toBe(true);
    expect(fs.existsSync(path.join(copy, 'build'))).toBe(false);
    expect(JSON.parse(fs.readFileSync(path.join(dir, 'scratch', 'package.json'), 'utf8')).dependencies).toEqual({ 'better-sqlite3': '12.11.1' });
  });

  test("is built on the copy and kept in build/native; node_modules' own build is untouched", async () => {
    const dir = project();
    const rebuilds: RebuildOptions[] = [];
    const target = await ensureNativeBinding({
      root: dir,
      electronVersion: '45.4.1',
      platform: 'linux',
      arch: 'x64',
      log: () => {},
      rebuild: async (options) => {
        rebuilds.push(options);
        const release = path.join(options.buildPath, 'node_modules', 'better-sqlite3', 'build', 'Release');
        fs.mkdirSync(release, { recursive: true });
        fs.writeFileSync(path.join(release, 'better_sqlite3.node'), 'ELECTRON BUILD');
      },
    });
    expect(target).toBe(path.join(dir, 'build', 'native', 'electron-45.4.1-linux-x64', 'better_sqlite3.node'));
    expect(fs.readFileSync(target, 'utf8')).toBe('ELECTRON BUILD');
    expect(fs.readFileSync(path.join(dir, 'node_modules', 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node'), 'utf8')).toBe('NODE BUILD');
    expect(rebuilds).toHaveLength(1);
    expect(rebuilds[0]).toMatchObject({ electronVersion: '45.4.1', platform: 'linux', arch: 'x64', onlyModules: ['better-sqlite3'], force: true });
    expect(rebuilds[0]!.buildPath.startsWith(path.join(dir, 'build', 'native'))).toBe(true);
    // The scratch folder is gone; a second run finds the build and does nothing.
    expect(fs.readdirSync(path.join(dir, 'build', 'native'))).toEqual(['electron-45.4.1-linux-x64']);
    await ensureNativeBinding({ root: dir, electronVersion: '45.4.1', platform: 'linux', arch: 'x64', log: () => {}, rebuild: async () => void rebuilds.push({} as RebuildOptions) });
    expect(rebuilds).toHaveLength(1);
  });

  test('a failed build says it needs network, and leaves nothing behind', async () => {
    const dir = project();
    const failing = ensureNativeBinding({
      root: dir,
      electronVersion: '45.4.1',
      platform: 'linux',
      arch: 'x64',
      log: () => {},
      rebuild: async () => {
        throw new Error('getaddrinfo ENOTFOUND github.com\n    at stack');
      },
    });
    await expect(failing).rejects.toThrow(BuildError);
    await expect(failing).rejects.toThrow(/could not build better-sqlite3 for Electron 45.4.1: getaddrinfo ENOTFOUND github.com\nThis step needs network access/);
    expect(fs.readdirSync(path.join(dir, 'build', 'native'))).toEqual([]);
  });

  test("Electron's tooling asks for Node 22.12 or later, in words", () => {
    expect(() => requireNode(22, 12, 'Packaging', '20.19.0')).toThrow('Packaging needs Node 22.12 or later; this is Node 20.19.0.');
    expect(() => requireNode(22, 12, 'Packaging', '22.11.9')).toThrow(BuildError);
    expect(() => requireNode(22, 12, 'Packaging', '22.12.0')).not.toThrow();
    expect(() => requireNode(22, 12, 'Packaging', '24.1.0')).not.toThrow();
  });
});

describe('the icon', () => {
  test('build/icon.png is a 512×512 RGBA PNG, and build/icon.svg the same drawing', () => {
    const png = fs.readFileSync(path.join(ROOT, 'build', 'icon.png'));
    expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    expect(png.subarray(12, 16).toString('ascii')).toBe('IHDR');
    expect([png.readUInt32BE(16), png.readUInt32BE(20), png[24], png[25]]).toEqual([512, 512, 8, 6]);
    const svg = fs.readFileSync(path.join(ROOT, 'build', 'icon.svg'), 'utf8');
    expect(svg).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg" width="512" height="512"/);
  });
});

describe('where Electron is loaded', () => {
  function sources(dir: string): string[] {
    return fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
      const relative = path.join(dir, entry.name);
      return entry.isDirectory() ? sources(relative) : /\.ts$/.test(entry.name) ? [relative] : [];
    });
  }

  test('only main.ts and preload.ts import it at run time; the logic takes it as a parameter (types only)', () => {
    const runtimeImports = [...sources('electron/main'), ...sources('electron/preload'), 'electron/serverProcess.ts'].filter((file) =>
      /(?:^|\n)import\s+(?!type\b)[^;]*from\s+'electron'/.test(fs.readFileSync(path.join(ROOT, file), 'utf8')),
    );
    expect(runtimeImports.sort()).toEqual([path.join('electron', 'main', 'main.ts'), path.join('electron', 'preload', 'preload.ts')]);
  });
});
