// electron-builder's configuration for the desktop app (`npm run dist`, see docs/electron.md).
// The app ships only what runs: the bundles (dist/electron), the renderer (dist/renderer),
// package.json, and better-sqlite3's JavaScript; its Electron build (made by build/native.mjs,
// never in postinstall) goes next to app.asar as a resource, loaded with `nativeBinding`.
const path = require('node:path');
const electronVersion = require('electron/package.json').version;

const root = path.dirname(__dirname);
const nativeFolder = path.join(__dirname, 'native', `electron-${electronVersion}-${process.platform}-${process.arch}`);

/** @type {import('app-builder-lib').Configuration} */
module.exports = {
  appId: 'io.outpost.desktop',
  productName: 'Outpost',
  copyright: 'Outpost',
  electronVersion,
  directories: { output: path.join(root, 'release'), buildResources: __dirname },
  files: [
    'package.json',
    'dist/electron/**/*',
    '!dist/electron/**/*.map',
    'dist/renderer/**/*',
    '!dist/renderer/**/*.map',
    // Everything else is bundled; of node_modules only better-sqlite3's JavaScript is loaded.
    '!node_modules/**/*',
    'node_modules/better-sqlite3/package.json',
    'node_modules/better-sqlite3/lib/**/*',
  ],
  extraResources: [
    { from: path.join(nativeFolder, 'better_sqlite3.node'), to: 'native/better_sqlite3.node' },
    { from: path.join(__dirname, 'icon.png'), to: 'icon.png' },
  ],
  asar: true,
  // better-sqlite3 is rebuilt for Electron by build/native.mjs, on a copy; never here.
  npmRebuild: false,
  nodeGypRebuild: false,
  buildDependenciesFromSource: false,
  icon: path.join(__dirname, 'icon.png'),
  electronFuses: {
    runAsNode: false,
    enableCookieEncryption: true,
    enableNodeOptionsEnvironmentVariable: false,
    enableNodeCliInspectArguments: false,
    enableEmbeddedAsarIntegrityValidation: true,
    onlyLoadAppFromAsar: true,
    grantFileProtocolExtraPrivileges: false,
  },
  linux: {
    target: ['AppImage', 'deb'],
    category: 'Network',
    maintainer: 'Outpost <outpost@localhost>',
    synopsis: 'Offline-first companion to the central server of network-security probes',
  },
  deb: { packageCategory: 'net' },
  win: { target: ['nsis'] },
  nsis: { oneClick: false, perMachine: false, allowToChangeInstallationDirectory: true },
  mac: { target: ['dmg'], category: 'public.app-category.utilities' },
};
