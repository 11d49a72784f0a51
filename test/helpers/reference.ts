/**
 * The reference central server (../shared/reference-server, Django REST Framework) started on a
 * free port in a temporary folder: the remote in sync tests and the oracle in differential tests.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from './http';
import { REFERENCE_SERVER_DIR } from './workplace';

export const REFERENCE_DIR = REFERENCE_SERVER_DIR;

export interface ReferenceServer {
  readonly url: string;
  readonly token: string;
  readonly dataDir: string;
  readonly api: Client;
  readonly process: ChildProcess;
  stop(): Promise<void>;
}

export interface ReferenceOptions {
  readonly token?: string;
  readonly seed?: string;
  readonly dataDir?: string;
  readonly port?: number;
  readonly maxPageSize?: number;
}

export async function startReference(options: ReferenceOptions = {}): Promise<ReferenceServer> {
  const dataDir = options.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'outpost-ref-'));
  const token = options.token ?? 'b1b1b1b1b1b1b1b1b1b1b1b1b1b1b1b1b1b1b1b1';
  const args = [path.join(REFERENCE_DIR, 'run'), '--port', String(options.port ?? 0), '--data', dataDir, '--token', token];
  if (options.seed) args.push('--seed', options.seed);
  if (options.maxPageSize) args.push('--max-page-size', String(options.maxPageSize));
  const child = spawn('/usr/bin/python3', args, {
    env: { ...process.env, REFSERVER_LOG: 'WARNING', PYTHONDONTWRITEBYTECODE: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  let errors = '';
  child.stderr!.on('data', (chunk: Buffer) => (errors += chunk.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`reference server did not start:\n${output}\n${errors}`)), 30_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /^listening on (\S+)$/m.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`reference server exited (${code}):\n${output}\n${errors}`));
    });
  });
  return {
    url,
    token,
    dataDir,
    api: new Client(url, token),
    process: child,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => {
          if (!options.dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
          resolve();
        });
        child.kill('SIGTERM');
      }),
  };
}
