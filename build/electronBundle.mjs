// Bundles the desktop app's three Electron entry points with esbuild into dist/electron/:
//   main.cjs    the main process (electron/main/main.ts)
//   preload.cjs the sandboxed preload (electron/preload/preload.ts): one file, requiring only electron
//   server.cjs  the server's utility process (electron/serverProcess.ts)
//   bodyWorker.cjs the program of the worker threads the server parses large imports in
//   eveWorker.cjs  the program of the EVE import's worker threads (segments of a log read, identities made)
//   bundleWorker.cjs the program of a workspace bundle's import or export thread
//               (electron/server/http/workerSource.ts reads them beside server.cjs)
// better-sqlite3 stays external (native addon, loaded with its Electron build); electron is
// provided by the runtime.
import fs from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';

/** Node inside Electron 45 (v22), and its Chromium for the preload. */
const NODE_TARGET = 'node22';
const CHROME_TARGET = 'chrome140';

export async function bundleElectron({ root, quiet = false }) {
  const common = {
    outdir: path.join(root, 'dist', 'electron'),
    outExtension: { '.js': '.cjs' },
    bundle: true,
    format: 'cjs',
    sourcemap: 'linked',
    logLevel: quiet ? 'warning' : 'info',
    // Written below, each file replaced whole: a running app or test never reads half a bundle.
    write: false,
  };
  const results = await Promise.all([
    build({
      ...common,
      entryPoints: {
        main: path.join(root, 'electron/main/main.ts'),
        server: path.join(root, 'electron/serverProcess.ts'),
        bodyWorker: path.join(root, 'electron/server/http/bodyWorkerEntry.ts'), eveWorker: path.join(root, 'electron/workspaces/eveWorkerEntry.ts'),
        bundleWorker: path.join(root, 'electron/workspaces/bundleWorkerEntry.ts'),
      },
      platform: 'node',
      target: NODE_TARGET,
      external: ['electron', 'better-sqlite3', 'playwright-core'],
    }),
    build({
      ...common,
      entryPoints: { preload: path.join(root, 'electron/preload/preload.ts') },
      // A sandboxed preload gets a small `require` (electron, events, timers, url): nothing else may remain.
      platform: 'browser',
      target: CHROME_TARGET,
      external: ['electron'],
    }),
  ]);
  for (const file of results.flatMap((result) => result.outputFiles)) {
    fs.mkdirSync(path.dirname(file.path), { recursive: true });
    const temporary = `${file.path}.${process.pid}.tmp`;
    fs.writeFileSync(temporary, file.contents);
    fs.renameSync(temporary, file.path);
  }
  return path.join(root, 'dist', 'electron');
}
