// Bundles the plain-Node entry points with esbuild: the `outpost` CLI (dist/node/outpost.cjs) and,
// beside it, the body worker's program it starts for large imports (dist/node/bodyWorker.cjs,
// electron/server/http/workerSource.ts). better-sqlite3 stays external (native addon); everything
// else is bundled.
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const quiet = process.argv.includes('--quiet');
const started = Date.now();

await build({
  entryPoints: { outpost: path.join(root, 'electron/cli/entry.ts'), bodyWorker: path.join(root, 'electron/server/http/bodyWorkerEntry.ts'), eveWorker: path.join(root, 'electron/workspaces/eveWorkerEntry.ts') },
  outdir: path.join(root, 'dist/node'),
  outExtension: { '.js': '.cjs' },
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  sourcemap: 'linked',
  external: ['better-sqlite3', 'electron'],
  logLevel: quiet ? 'warning' : 'info',
});
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
      hostileServer: path.join(root, 'bench/hostileServer.ts'),
      // The servers these benchmarks start parse large imports in it.
      bodyWorker: path.join(root, 'electron/server/http/bodyWorkerEntry.ts'), eveWorker: path.join(root, 'electron/workspaces/eveWorkerEntry.ts'),
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
