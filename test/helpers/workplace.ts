/**
 * The workplace's shared material (the reference server, real clients' samples): $OUTPOST_SHARED,
 * else `shared/` next to this checkout (the workplace layout), else /work/shared.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export function sharedDir(): string {
  const candidates = [
    process.env.OUTPOST_SHARED,
    path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../shared'),
    '/work/shared',
  ].filter((c): c is string => Boolean(c));
  const found = candidates.find((dir) => fs.existsSync(path.join(dir, 'reference-server', 'run')));
  if (!found) throw new Error(`the workplace's shared folder (reference server, samples) is needed; looked in: ${candidates.join(', ')}`);
  return found;
}

export const SAMPLES_DIR = path.join(sharedDir(), 'samples');
export const REFERENCE_SERVER_DIR = path.join(sharedDir(), 'reference-server');
