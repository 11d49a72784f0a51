/**
 * The body worker's program, as text. Bundled (`outpost serve`, the app's server process), it is
 * bodyWorker.cjs beside the running bundle, read and started with `eval`: a worker cannot load a
 * file from inside the app's asar archive, but reading one works. Run from the TypeScript
 * sources (the tests), it is bundled now, in memory, by esbuild — a development dependency no
 * bundle contains. Otherwise there is none, and import bodies are prepared on the main thread.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

/** The worker's bundle, written by build/bundle.mjs and build/electronBundle.mjs beside the others. */
export const WORKER_BUNDLE = 'bodyWorker.cjs';
const WORKER_SOURCE = 'bodyWorkerEntry.ts';

/** What this module needs of esbuild's API. */
interface Bundler {
  buildSync(options: Readonly<Record<string, unknown>>): { readonly outputFiles?: readonly { readonly text: string }[] };
}

let code: string | null | undefined;

export function bodyWorkerCode(): string | undefined {
  if (code === undefined) code = bundled() ?? fromSources() ?? null;
  return code ?? undefined;
}

function bundled(): string | undefined {
  const file = path.join(__dirname, WORKER_BUNDLE);
  return fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : undefined;
}

function fromSources(): string | undefined {
  if (!__filename.endsWith('.ts')) return undefined;
  // Not a plain `require('esbuild')`, which the bundler would follow into the bundles.
  const esbuild: Bundler = createRequire(__filename)('esbuild');
  const result = esbuild.buildSync({
    entryPoints: [path.join(__dirname, WORKER_SOURCE)],
    bundle: true,
    write: false,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    logLevel: 'silent',
  });
  return result.outputFiles?.[0]?.text;
}
