// The desktop app's build commands (npm scripts):
//   node build/electron.mjs bundle          dist/electron/{main,preload,server}.cjs
//   node build/electron.mjs native [--force] better-sqlite3 for Electron (build/native/…)
//   node build/electron.mjs start [-- args] bundle + renderer + native, then run Electron on the project
//   node build/electron.mjs dist [--linux|--win|--mac] [--dir]   the same, then electron-builder (release/)
// The first `start` and every `dist` need network (Electron's binary, its headers or a prebuilt
// better-sqlite3) and Node ≥ 22.12 (Electron's tooling). Failures print one clear message.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleElectron } from './electronBundle.mjs';
import { BuildError, ensureNativeBinding, requireNode } from './native.mjs';
import { buildRenderer } from './renderer.mjs';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const require = createRequire(import.meta.url);
const log = (line) => console.log(`[outpost] ${line}`);

function electronVersion() {
  return require('electron/package.json').version;
}

/** Everything the app needs on disk: its bundles, the renderer and the native module. */
async function prepare({ forceNative = false } = {}) {
  await bundleElectron({ root, quiet: true });
  log('bundled dist/electron');
  await buildRenderer(root, path.join(root, 'dist', 'renderer'));
  log('built dist/renderer');
  return ensureNativeBinding({ root, electronVersion: electronVersion(), force: forceNative, log });
}

/** The Electron executable, downloaded by electron's own installer on first use. */
function electronExecutable() {
  const pkg = path.join(root, 'node_modules', 'electron');
  const pathFile = path.join(pkg, 'path.txt');
  const installed =
    process.env.ELECTRON_OVERRIDE_DIST_PATH !== undefined ||
    (fs.existsSync(pathFile) && fs.existsSync(path.join(pkg, 'dist', fs.readFileSync(pathFile, 'utf8'))));
  if (!installed) {
    requireNode(22, 12, "Electron's installer");
    log(`downloading Electron ${electronVersion()} (first run only; needs network)…`);
    // The installer's stack trace says less than its first line; that line goes in the message.
    const install = spawnSync(process.execPath, [path.join(pkg, 'install.js')], { stdio: ['ignore', 'inherit', 'pipe'], encoding: 'utf8' });
    if (install.status !== 0) {
      const reason = (install.stderr ?? '').split('\n').find((line) => line.trim() !== '')?.trim() ?? `exit code ${install.status}`;
      throw new BuildError(
        `could not download Electron ${electronVersion()} (${reason}). The first \`npm start\` needs network access ` +
          '(github.com, or the mirror in ELECTRON_MIRROR; a proxy through HTTPS_PROXY with ELECTRON_GET_USE_PROXY=1).',
      );
    }
  }
  return require('electron');
}

async function start(args) {
  await prepare();
  const executable = electronExecutable();
  const env = { ...process.env };
  // Set in the environment, this would turn Electron into plain Node.
  delete env.ELECTRON_RUN_AS_NODE;
  log(`starting Electron ${electronVersion()}`);
  const child = spawn(executable, [root, ...args], { stdio: 'inherit', env, windowsHide: false });
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
  const code = await new Promise((resolve) => child.on('exit', (exitCode, signal) => resolve(exitCode ?? (signal ? 1 : 0))));
  process.exitCode = code;
}

/** Where Electron's releases come from (electron-builder downloads the target's Electron there). */
function downloadHost() {
  return process.env.ELECTRON_MIRROR || 'https://github.com/electron/electron/releases/';
}

async function checkNetwork() {
  const host = downloadHost();
  try {
    await fetch(host, { method: 'HEAD', redirect: 'manual', signal: AbortSignal.timeout(10_000) });
  } catch (error) {
    const reason = error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.message) : String(error);
    throw new BuildError(
      `\`npm run dist\` needs network access and ${host} cannot be reached (${reason}).\n` +
        `electron-builder downloads Electron ${electronVersion()} for each target platform, and better-sqlite3 is built ` +
        "for Electron from a prebuilt binary or Electron's headers. Connect, or set ELECTRON_MIRROR to a reachable mirror.",
    );
  }
}

async function dist(args) {
  requireNode(22, 12, 'Packaging (Electron\'s tooling)');
  await checkNetwork();
  await prepare();
  if (!fs.existsSync(path.join(root, 'build', 'icon.png'))) throw new BuildError('build/icon.png is missing: run `node build/icon.mjs`');
  const { build } = await import('electron-builder');
  const config = require('./electron-builder.config.cjs');
  const platforms = { linux: args.includes('--linux'), win: args.includes('--win'), mac: args.includes('--mac') };
  const chosen = Object.entries(platforms).filter(([, wanted]) => wanted);
  log(`packaging with electron-builder (${chosen.length ? chosen.map(([name]) => name).join(', ') : 'this platform'})…`);
  try {
    const artifacts = await build({
      config,
      publish: 'never',
      projectDir: root,
      ...(args.includes('--dir') ? { dir: true } : {}),
      ...Object.fromEntries(chosen.map(([name]) => [name, []])),
    });
    for (const artifact of artifacts) log(`built ${path.relative(root, artifact)}`);
  } catch (error) {
    throw new BuildError(`electron-builder failed: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
  }
}

const [command, ...rest] = process.argv.slice(2);
const commands = {
  bundle: async () => log(`bundled ${path.relative(root, await bundleElectron({ root }))}`),
  native: () => ensureNativeBinding({ root, electronVersion: electronVersion(), force: rest.includes('--force'), log }),
  start: () => start(rest[0] === '--' ? rest.slice(1) : rest),
  dist: () => dist(rest),
};

if (!Object.hasOwn(commands, command ?? '')) {
  console.error(`usage: node build/electron.mjs ${Object.keys(commands).join('|')}`);
  process.exit(2);
}
try {
  await commands[command]();
} catch (error) {
  if (!(error instanceof BuildError)) throw error;
  console.error(`[outpost] ${command}: ${error.message}`);
  process.exit(1);
}
