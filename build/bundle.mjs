// Bundles the plain-Node entry points with esbuild: the `outpost` CLI (dist/node/outpost.cjs) and,
// beside it, the programs of its worker threads: the body worker's, for large imports
// (dist/node/bodyWorker.cjs), the EVE import's (dist/node/eveWorker.cjs) and the workspace
// bundles' import and export (dist/node/bundleWorker.cjs), all read by
// electron/server/http/workerSource.ts. better-sqlite3 stays external (native addon); everything
// else is bundled. `--renderer` also builds the web UI when it is missing or stale (`npm run serve`).
import { build } from 'esbuild';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { ensureRenderer } from './renderer.mjs';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const quiet = process.argv.includes('--quiet');
const started = Date.now();

/**
 * Only the files whose bytes changed are written, each to a temporary name then renamed: a CLI
 * started meanwhile (a test, a second terminal) never reads a half-written bundle.
 */
function writeChanged(outputFiles) {
  for (const file of outputFiles) {
    try {
      if (fs.readFileSync(file.path).equals(file.contents)) continue;
    } catch {
      // not there yet
    }
    fs.mkdirSync(path.dirname(file.path), { recursive: true });
    const temporary = `${file.path}.${process.pid}.tmp`;
    fs.writeFileSync(temporary, file.contents);
    fs.renameSync(temporary, file.path);
  }
}

const node = await build({
  write: false,
  entryPoints: { outpost: path.join(root, 'electron/cli/entry.ts'), bodyWorker: path.join(root, 'electron/server/http/bodyWorkerEntry.ts'), eveWorker: path.join(root, 'electron/workspaces/eveWorkerEntry.ts'), bundleWorker: path.join(root, 'electron/workspaces/bundleWorkerEntry.ts') },
  outdir: path.join(root, 'dist/node'),
  outExtension: { '.js': '.cjs' },
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  sourcemap: 'linked',
  external: ['better-sqlite3', 'electron', 'playwright-core'],
  logLevel: quiet ? 'warning' : 'info',
});
writeChanged(node.outputFiles);
if (process.argv.includes('--bench')) {
  await build({
    entryPoints: {
      'api.bench': path.join(root, 'bench/api.bench.ts'),
      bareServer: path.join(root, 'bench/bareServer.ts'),
      profile: path.join(root, 'bench/profile.ts'),
      'ui.bench': path.join(root, 'bench/ui.bench.ts'),
      'sync.bench': path.join(root, 'bench/sync.bench.ts'),
      'hostile.bench': path.join(root, 'bench/hostile.bench.ts'),
      'eve.bench': path.join(root, 'bench/eve.bench.ts'),
      'hosts.bench': path.join(root, 'bench/hosts.bench.ts'),
      'bundle.bench': path.join(root, 'bench/bundle.bench.ts'),
      hostileServer: path.join(root, 'bench/hostileServer.ts'),
      // The servers these benchmarks start parse large imports in it.
      bodyWorker: path.join(root, 'electron/server/http/bodyWorkerEntry.ts'), eveWorker: path.join(root, 'electron/workspaces/eveWorkerEntry.ts'),
      bundleWorker: path.join(root, 'electron/workspaces/bundleWorkerEntry.ts'),
    },
    outdir: path.join(root, 'dist/bench'),
    outExtension: { '.js': '.cjs' },
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: ['better-sqlite3', 'autocannon', 'playwright-core'],
    logLevel: quiet ? 'warning' : 'info',
  });
}
if (!quiet) console.log(`bundled in ${Date.now() - started} ms`);
if (process.argv.includes('--renderer')) await ensureRenderer(root);
