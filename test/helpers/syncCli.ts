/**
 * The bundled `outpost` CLI (dist/node/outpost.cjs, built by globalSetup) run as a user runs it:
 * a child process, so that a crash point's SIGKILL takes the whole process down as a power cut
 * would. Also: every object of an endpoint, read page by page through an API client.
 */
import { spawn } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Client } from './http';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const CLI = path.join(ROOT, 'dist/node/outpost.cjs');

export interface CliResult {
  readonly status: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** `outpost ARGS` started: its pid, its output so far, and its result once it ends. */
export interface RunningCli {
  readonly pid: number;
  readonly output: () => string;
  readonly result: Promise<CliResult>;
  /** Resolves when the output (stdout and stderr) matches `pattern`; rejects if the process ends first. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpExecArray>;
  kill(signal: NodeJS.Signals): void;
}

/** Start `outpost ARGS` and let it run (a server, a sync to be raced by another). */
export function startOutpost(args: readonly string[], env: Readonly<Record<string, string>> = {}, timeoutMs = 60_000): RunningCli {
  const base = { ...process.env };
  delete base.OUTPOST_SYNC_CRASH;
  const child = spawn(process.execPath, [CLI, ...args], { env: { ...base, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  let ended = false;
  const watchers = new Set<() => void>();
  const seen = () => {
    for (const watcher of watchers) watcher();
  };
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    seen();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    seen();
  });
  const result = new Promise<CliResult>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`outpost ${args.join(' ')} did not finish in ${timeoutMs} ms:\n${stdout}\n${stderr}`));
    }, timeoutMs);
    child.on('error', reject);
    child.on('close', (status, signal) => {
      clearTimeout(timer);
      ended = true;
      seen();
      resolve({ status, signal, stdout, stderr });
    });
  });
  return {
    pid: child.pid!,
    output: () => stdout + stderr,
    result,
    kill: (signal) => void child.kill(signal),
    waitFor: (pattern, waitMs = 30_000) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const match = pattern.exec(stdout + stderr);
          if (!match && !ended) return;
          watchers.delete(check);
          clearTimeout(timer);
          if (match) resolve(match);
          else reject(new Error(`outpost ${args.join(' ')} ended before printing ${pattern}:\n${stdout}\n${stderr}`));
        };
        const timer = setTimeout(() => {
          watchers.delete(check);
          reject(new Error(`outpost ${args.join(' ')} did not print ${pattern} in ${waitMs} ms:\n${stdout}\n${stderr}`));
        }, waitMs);
        watchers.add(check);
        check();
      }),
  };
}

/** Run `outpost ARGS` (async: the test process keeps serving while it runs). */
export function outpost(args: readonly string[], env: Readonly<Record<string, string>> = {}, timeoutMs = 60_000): Promise<CliResult> {
  return startOutpost(args, env, timeoutMs).result;
}

/** A TCP port that nothing listens on (it was free a moment ago). */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Every object of a list endpoint (`/rest/.../`), all pages, in pk order. */
export async function listAll(api: Client, path: string, query = ''): Promise<Record<string, unknown>[]> {
  const out: Record<string, unknown>[] = [];
  for (let page = 1; ; page++) {
    const reply = await api.get(`${path}?ordering=pk&page_size=500&page=${page}${query ? `&${query}` : ''}`);
    if (reply.status !== 200) throw new Error(`GET ${path} page ${page}: ${reply.status} ${reply.text}`);
    const body = reply.json() as { results: Record<string, unknown>[]; next: string | null };
    out.push(...body.results);
    if (!body.next) return out;
  }
}

/**
 * What a workspace and its central server must agree on for a mirrored object: everything but
 * each server's own timestamps, with interfaces and protocols in pk order.
 */
export function comparable(object: Record<string, unknown>): Record<string, unknown> {
  const { created: _created, updated: _updated, ...rest } = object;
  const items = (value: unknown) => (Array.isArray(value) ? [...(value as { pk: number }[])].sort((a, b) => a.pk - b.pk) : value);
  return { ...rest, ...('interfaces' in rest ? { interfaces: items(rest.interfaces) } : {}), ...('protocols' in rest ? { protocols: items(rest.protocols) } : {}) };
}
