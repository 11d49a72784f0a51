/**
 * The layout tells the architecture: shared/ runs in the renderer as well as in Node, and the
 * server, CLI and workspaces run under plain Node. These rules keep it so.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
    const relative = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sources(relative));
    else if (/\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts')) out.push(relative);
  }
  return out;
}

function importsOf(file: string): string[] {
  const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
  return [...text.matchAll(/(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+'([^']+)'/g), ...text.matchAll(/import\(\s*'([^']+)'\s*\)/g)].map((m) => m[1]!);
}

describe('layering', () => {
  test('shared/ imports only shared/ (no Node, DOM, Electron or packages)', () => {
    for (const file of sources('shared')) {
      for (const target of importsOf(file)) {
        expect(target.startsWith('.'), `${file} imports ${target}`).toBe(true);
        const resolved = path.resolve(path.dirname(path.join(ROOT, file)), target);
        expect(resolved.startsWith(path.join(ROOT, 'shared')), `${file} imports ${target}`).toBe(true);
      }
    }
  });

  test('the embedded server, the CLI, the workspaces and the sync engine never import electron', () => {
    for (const dir of ['electron/server', 'electron/cli', 'electron/workspaces', 'electron/remote']) {
      for (const file of sources(dir)) {
        for (const target of importsOf(file)) expect(target, `${file} imports ${target}`).not.toMatch(/^electron(\/|$)/);
      }
    }
  });
});
