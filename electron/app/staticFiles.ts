/**
 * The renderer's build served at `/` by `outpost serve` (app.md §1: the same UI in a browser):
 * files only from the build folder (a resolved path must stay inside it), a strict CSP, and
 * long caching for the hashed assets.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { ApiRequest, ApiResponse } from '../server/http/types';
import { SECURITY_HEADERS } from '../server/http/responses';

/** The page may load and reach only its own origin; nothing inline, no frames, no plugins. */
export const APP_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; connect-src 'self'; " +
  "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.map': 'application/json',
};

/** The file a URL path names inside `root`, or undefined when it would leave it. */
export function resolveInside(root: string, urlPath: string): string | undefined {
  const relative = urlPath === '/' ? 'index.html' : urlPath.replace(/^\/+/, '');
  if (relative.includes('\0')) return undefined;
  const file = path.resolve(root, relative);
  const base = path.resolve(root);
  return file === base || file.startsWith(base + path.sep) ? file : undefined;
}

export function staticFiles(root: string): (req: ApiRequest) => ApiResponse | undefined {
  return (req) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return undefined;
    const file = resolveInside(root, req.path);
    if (!file || !fs.existsSync(file) || !fs.statSync(file).isFile()) return undefined;
    const type = TYPES[path.extname(file)] ?? 'application/octet-stream';
    const body = fs.readFileSync(file);
    const hashed = req.path.startsWith('/assets/');
    return {
      status: 200,
      headers: {
        'Content-Type': type,
        ...SECURITY_HEADERS,
        'Content-Security-Policy': APP_CSP,
        'Cache-Control': hashed ? 'public, max-age=31536000, immutable' : 'no-cache',
      },
      body: req.method === 'HEAD' ? null : body,
      bodyLength: body.length,
    };
  };
}
