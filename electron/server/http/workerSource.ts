/**
 * The programs of worker threads, as text: the body worker's, the EVE import's and the workspace
 * bundles'. Bundled
 * (`outpost`, the app's server process), each is a .cjs file beside the running bundle, read and
 * started with `eval`: a worker cannot load a file from inside the app's asar archive, but
 * reading one works. Run from the TypeScript sources (the tests), it is bundled now, in memory,
 * by esbuild — a development dependency no bundle contains. Otherwise there is none, and the
 * work is done on the main thread.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

/** The workers' bundles, written by build/bundle.mjs and build/electronBundle.mjs beside the others, and their sources. */
export const WORKER_BUNDLE = 'bodyWorker.cjs';
const WORKER_SOURCE = 'bodyWorkerEntry.ts';
export const EVE_WORKER_BUNDLE = 'eveWorker.cjs';
const EVE_WORKER_SOURCE = path.join('..', '..', 'workspaces', 'eveWorkerEntry.ts');
export const BUNDLE_WORKER_BUNDLE = 'bundleWorker.cjs';
const BUNDLE_WORKER_SOURCE = path.join('..', '..', 'workspaces', 'bundleWorkerEntry.ts');

/** What this module needs of esbuild's API. */
interface Bundler {
  buildSync(options: Readonly<Record<string, unknown>>): { readonly outputFiles?: readonly { readonly text: string }[] };
}

const programs = new Map<string, string | null>();

function program(bundle: string, source: string): string | undefined {
  let code = programs.get(bundle);
  if (code === undefined) {
    code = bundled(bundle) ?? fromSources(source) ?? null;
    programs.set(bundle, code);
  }
  return code ?? undefined;
}

export function bodyWorkerCode(): string | undefined {
  return program(WORKER_BUNDLE, WORKER_SOURCE);
}

export function eveWorkerCode(): string | undefined {
  return program(EVE_WORKER_BUNDLE, EVE_WORKER_SOURCE);
}

export function bundleWorkerCode(): string | undefined {
  return program(BUNDLE_WORKER_BUNDLE, BUNDLE_WORKER_SOURCE);
}

function bundled(bundle: string): string | undefined {
  const file = path.join(__dirname, bundle);
  return fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : undefined;
}

function fromSources(source: string): string | undefined {
  if (!__filename.endsWith('.ts')) return undefined;
  // Not a plain `require('esbuild')`, which the bundler would follow into the bundles.
  const esbuild: Bundler = createRequire(__filename)('esbuild');
  const result = esbuild.buildSync({
    entryPoints: [path.join(__dirname, source)],
    bundle: true,
    write: false,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: ['better-sqlite3', 'electron'],
    logLevel: 'silent',
  });
  return result.outputFiles?.[0]?.text;
}
