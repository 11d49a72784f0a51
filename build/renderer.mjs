// The renderer's build (dist/renderer, served at / by `outpost serve`): made when it is missing or
// older than its sources, so that `npm install && npm run serve` serves the UI on the first run
// without `npm install` paying for a build that a test run or the app's packaging redo anyway.
import fs from 'node:fs';
import path from 'node:path';

/** What the renderer's bundle is made of: its own files, the shared code it imports, its dependencies. */
const SOURCES = ['renderer', 'shared', 'package.json', 'package-lock.json'];

/** Where the build goes and `outpost serve` looks for it (OUTPOST_RENDERER_DIR, else dist/renderer). */
export function rendererDir(root) {
  return process.env.OUTPOST_RENDERER_DIR ? path.resolve(process.env.OUTPOST_RENDERER_DIR) : path.join(root, 'dist', 'renderer');
}

function newestSource(root) {
  let newest = { file: '', mtimeMs: 0 };
  const consider = (file) => {
    const { mtimeMs } = fs.statSync(file);
    if (mtimeMs > newest.mtimeMs) newest = { file, mtimeMs };
  };
  for (const source of SOURCES) {
    const full = path.join(root, source);
    if (!fs.existsSync(full)) continue;
    if (!fs.statSync(full).isDirectory()) consider(full);
    else for (const entry of fs.readdirSync(full, { recursive: true, withFileTypes: true })) if (entry.isFile()) consider(path.join(entry.parentPath ?? entry.path, entry.name));
  }
  return newest;
}

/** Why the build at `target` must be made again ("missing", "older than renderer/src/App.tsx"), or undefined when it is fresh. */
export function rendererStale(root, target) {
  const index = path.join(target, 'index.html');
  if (!fs.existsSync(index)) return 'missing';
  const newest = newestSource(root);
  return newest.mtimeMs > fs.statSync(index).mtimeMs ? `older than ${path.relative(root, newest.file)}` : undefined;
}

/** Build the renderer aside and swap it in, so that a server already serving `target` never sees a half-written folder. */
export async function buildRenderer(root, target) {
  const { build } = await import('vite');
  const fresh = `${target}.${process.pid}`;
  await build({ configFile: path.join(root, 'renderer', 'vite.config.ts'), logLevel: 'warn', build: { outDir: fresh, emptyOutDir: true } });
  const old = `${target}.old.${process.pid}`;
  if (fs.existsSync(target)) fs.renameSync(target, old);
  fs.renameSync(fresh, target);
  fs.rmSync(old, { recursive: true, force: true });
}

/** Build the renderer when it is missing or stale; says so on stderr (the build takes half a minute). */
export async function ensureRenderer(root) {
  const target = rendererDir(root);
  const reason = rendererStale(root, target);
  if (reason === undefined) return;
  if (!fs.existsSync(path.join(root, 'node_modules', 'vite', 'package.json'))) {
    process.stderr.write(`web UI: ${reason}, and it cannot be built here (vite is not installed: npm install)\n`);
    return;
  }
  process.stderr.write(`web UI: ${reason}; building it (about half a minute)…\n`);
  const started = Date.now();
  await buildRenderer(root, target);
  process.stderr.write(`web UI: built in ${Math.round((Date.now() - started) / 1000)} s\n`);
}
