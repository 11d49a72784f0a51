/**
 * The processes a benchmark starts and the load it puts on them: a server child (pinned to the
 * second core when taskset is there, the benchmark itself to the first), autocannon runs after a
 * warm-up, and a process's memory from /proc.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import autocannon from 'autocannon';

export const log = (line: string) => process.stderr.write(`${line}\n`);

export interface Child {
  readonly url: string;
  readonly process: ChildProcess;
  readonly startedMs: number;
  stop(): Promise<void>;
}

/**
 * The load generator and the server under test each get a core of their own (when taskset is
 * there): the figures then move far less from run to run on a 2-core machine.
 */
export const PINNED = process.platform === 'linux' && spawnSync('taskset', ['-p', '-c', '0', String(process.pid)]).status === 0;

/** A server process, once it prints `listening on URL`. */
export function startChild(command: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<Child> {
  const started = performance.now();
  const child = PINNED
    ? spawn('taskset', ['-c', '1', command, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env })
    : spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], env });
  let output = '';
  child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (c: Buffer) => {
      output += c.toString();
      const match = /^listening on (\S+)$/m.exec(output);
      if (match) {
        resolve({
          url: match[1]!,
          process: child,
          startedMs: started,
          stop: () =>
            new Promise((done) => {
              if (child.exitCode !== null) return done();
              child.once('exit', () => done());
              child.kill('SIGTERM');
            }),
        });
      }
    });
    child.on('exit', (code) => reject(new Error(`${command} exited with ${code}:\n${output}`)));
  });
}

export interface Load {
  readonly name: string;
  readonly rps: number;
  readonly p50: number;
  readonly p99: number;
  readonly requests: number;
  readonly non2xx: number;
}

/** `seconds` of load after a 1 s warm-up, 16 connections unless given. */
export async function load(name: string, options: autocannon.Options, seconds: number): Promise<Load> {
  // A short run first, so that neither side is measured while its JIT warms up.
  await autocannon({ connections: 16, duration: 1, ...options });
  const result = await autocannon({ connections: 16, duration: seconds, ...options });
  const figures = {
    name,
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    requests: result.requests.total,
    non2xx: result.non2xx + result.errors + result.timeouts,
  };
  log(`  ${name}: ${figures.rps.toFixed(0)} req/s, p50 ${figures.p50} ms, p99 ${figures.p99} ms (${figures.requests} requests, ${figures.non2xx} failed)`);
  return figures;
}

export function memoryOf(pid: number): { rssMb: number; peakMb: number } {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0);
  return { rssMb: kb('VmRSS') / 1024, peakMb: kb('VmHWM') / 1024 };
}
