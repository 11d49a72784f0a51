import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The CLI tests run the bundled `outpost`; bundle it once before any test file runs. */
export default function setup(): void {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
  execFileSync(process.execPath, [path.join(root, 'build/bundle.mjs'), '--quiet'], { cwd: root, stdio: 'inherit' });
}
