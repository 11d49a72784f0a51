/**
 * First run (README, "Install and run"): `npm run serve` serves the web UI even when the renderer
 * was never built — it builds it when missing or older than its sources (build/renderer.mjs).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, test } from 'vitest';
import { rendererStale } from '../../build/renderer.mjs';
import { request } from '../helpers/http';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const TOKEN = '0123456789abcdef0123456789abcdef01234567';

const folders: string[] = [];
function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'outpost-first-run-'));
  folders.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of folders.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

describe('npm run serve on a checkout whose renderer was never built', () => {
  test('builds the web UI, then serves it at / next to the API', { timeout: 180_000 }, async () => {
    const dir = tempDir();
    // Where the build goes and where serve looks (dist/renderer is the running tests' own).
    const ui = path.join(dir, 'renderer');
    // Its own process group: npm, its shell and the server are stopped together.
    const child = spawn('npm', ['run', '-s', 'serve', '--', '--data', path.join(dir, 'data'), '--port', '0', '--admin-token', TOKEN], {
      cwd: ROOT,
      env: { ...process.env, OUTPOST_RENDERER_DIR: ui },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no "listening on" line:\n${output}`)), 170_000);
        child.stdout.on('data', () => {
          // The web UI line follows "listening on", and may come in a later chunk.
          const match = /^listening on (\S+)$/m.exec(output);
          if (match && /^web UI: /m.test(output.slice(match.index + match[0].length))) {
            clearTimeout(timer);
            resolve(match[1]!);
          }
        });
        child.once('exit', (code) => {
          clearTimeout(timer);
          reject(new Error(`npm run serve exited with ${code}:\n${output}`));
        });
      });
      expect(output).toMatch(/web UI: missing; building it/);
      expect(output).toContain(`web UI: ${url}/ (sign in with the token)`);
      expect(fs.existsSync(path.join(ui, 'index.html'))).toBe(true);
      const page = await request(url, 'GET', '/');
      expect(page.status).toBe(200);
      expect(page.headers['content-type']).toMatch(/^text\/html/);
      expect(page.text).toContain('<div id="root">');
      expect((await request(url, 'GET', '/rest/', { token: TOKEN })).status).toBe(200);
    } finally {
      process.kill(-child.pid!, 'SIGTERM');
      await exited;
    }
  });
});

describe('when the renderer is built again (rendererStale)', () => {
  function checkout(): { root: string; target: string; touch(file: string, secondsAgo: number): void } {
    const root = tempDir();
    const target = path.join(root, 'dist', 'renderer');
    const touch = (file: string, secondsAgo: number) => {
      const full = path.join(root, file);
      fs.mkdirSync(path.dirname(full), { recursive: true });
      if (!fs.existsSync(full)) fs.writeFileSync(full, '');
      const when = new Date(Date.now() - secondsAgo * 1000);
      fs.utimesSync(full, when, when);
    };
    touch('renderer/src/App.tsx', 300);
    touch('shared/api/validate.ts', 300);
    touch('package.json', 300);
    return { root, target, touch };
  }

  test('never built: missing', () => {
    const { root, target } = checkout();
    expect(rendererStale(root, target)).toBe('missing');
  });

  test('built after every source changed: fresh', () => {
    const { root, target, touch } = checkout();
    touch('dist/renderer/index.html', 60);
    expect(rendererStale(root, target)).toBeUndefined();
  });

  test.each([['renderer/src/screens/Probes.tsx'], ['shared/resources/probes.ts'], ['package-lock.json'], ['renderer/index.html']])(
    'a source changed after the build (%s): stale, naming it',
    (file) => {
      const { root, target, touch } = checkout();
      touch('dist/renderer/index.html', 60);
      touch(file, 10);
      expect(rendererStale(root, target)).toBe(`older than ${file}`);
    },
  );

  test('files outside the renderer and shared code do not count', () => {
    const { root, target, touch } = checkout();
    touch('dist/renderer/index.html', 60);
    touch('electron/server/api.ts', 10);
    touch('README.md', 10);
    expect(rendererStale(root, target)).toBeUndefined();
  });
});
