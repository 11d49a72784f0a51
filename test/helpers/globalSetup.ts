import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildRenderer } from '../../build/renderer.mjs';

/**
 * Built once before any test file runs: the bundled `outpost` CLI (the CLI tests run it) and the
 * renderer (the browser tests load it). The renderer is built aside and swapped in, so that a
 * test run already serving it never sees a half-written folder.
 */
export default async function setup(): Promise<void> {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
  execFileSync(process.execPath, [path.join(root, 'build/bundle.mjs'), '--quiet'], { cwd: root, stdio: 'inherit' });
  // For a run of tests that do not open the UI (set by hand while the renderer is being edited).
  if (process.env.OUTPOST_TEST_SKIP_RENDERER === '1') return;
  await buildRenderer(root, path.join(root, 'dist', 'renderer'));
}
