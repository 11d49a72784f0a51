/**
 * The remote of the sync benchmark: the reference DRF server (../shared/reference-server) on a
 * copy of a seeded data folder. Seeding 10,000 probes through DRF's serializers takes over a
 * minute, so the seeded folder is made once and kept in bench/.cache; each run works on a copy,
 * since the push benchmark changes the remote.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { referenceSeed } from './dataset';

export interface ReferenceProcess {
  readonly url: string;
  readonly dataDir: string;
  readonly process: ChildProcess;
  stop(): Promise<void>;
}

export interface ReferenceStart {
  /** The `run` script of the reference server. */
  readonly script: string;
  readonly dataDir: string;
  readonly token: string;
  readonly seed?: string;
  /** Pin the server to this core (taskset); unpinned when undefined. */
  readonly cpu?: number;
}

export function startReference(options: ReferenceStart): Promise<ReferenceProcess> {
  const args = [options.script, '--port', '0', '--data', options.dataDir, '--token', options.token];
  if (options.seed) args.push('--seed', options.seed);
  const env = { ...process.env, REFSERVER_LOG: 'WARNING', PYTHONDONTWRITEBYTECODE: '1' };
  const child =
    options.cpu === undefined
      ? spawn('/usr/bin/python3', args, { env, stdio: ['ignore', 'pipe', 'pipe'] })
      : spawn('taskset', ['-c', String(options.cpu), '/usr/bin/python3', ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /^listening on (\S+)$/m.exec(output);
      if (!match) return;
      resolve({
        url: match[1]!,
        dataDir: options.dataDir,
        process: child,
        stop: () =>
          new Promise<void>((done) => {
            if (child.exitCode !== null || child.signalCode !== null) return done();
            child.once('exit', () => done());
            child.kill('SIGTERM');
          }),
      });
    });
    child.on('exit', (code) => reject(new Error(`the reference server exited (${code}):\n${output}`)));
  });
}

export interface SyncSeedOptions {
  readonly probes: number;
  /** api.md §6 threats (the samples' array), mirrored by the pull like any endpoint. */
  readonly threats: readonly unknown[];
  readonly hosts: number;
  readonly engineProbes: number;
}

/**
 * The benchmark's remote: the probes and template tree of the API benchmark (4 interfaces and
 * 2 protocols inherited by every probe), plus what a real central server also holds: sources,
 * rulesets, engine probes, threats and host identities, so that the whole pull is realistic.
 */
export function syncSeed(options: SyncSeedOptions): Record<string, unknown> {
  const base = referenceSeed(options.probes) as Record<string, unknown>;
  const seen = '2026-10-01T08:00:00.000000+00:00';
  const last = '2026-11-20T17:30:00.000000+00:00';
  return {
    central: { name: 'central-bench', version: '39.0.1' },
    sources: [
      { name: 'ET Open', method: 'http', datatype: 'sigs', uri: 'https://rules.example.net/open/emerging.rules.tar.gz' },
      { name: 'ET Pro', method: 'http', datatype: 'sigs', uri: 'https://rules.example.net/pro/emerging.rules.tar.gz' },
      { name: 'Local rules', method: 'local', datatype: 'sig' },
    ],
    rulesets: [
      { name: 'Default', descr: 'every site', sources: ['ET Open', 'Local rules'] },
      { name: 'Datacenter', descr: 'datacenters', sources: ['ET Pro', 'Local rules'] },
    ],
    ...base,
    engine_probes: Array.from({ length: options.engineProbes }, (_, i) => ({
      name: `suri-${String(i).padStart(3, '0')}`,
      address: `172.20.${i >> 8}.${i & 255}`,
      location: `Datacenter ${i % 4}`,
      ruleset: i % 2 ? 'Datacenter' : 'Default',
      version: '7.0.3',
    })),
    threats: options.threats,
    host_ids: Array.from({ length: options.hosts }, (_, i) => ({
      ip: `10.200.${i >> 8}.${i & 255}`,
      hits: i * 7,
      host_id: {
        first_seen: seen,
        last_seen: last,
        hostname: [{ host: `host-${i}.corp.example.com`, first_seen: seen, last_seen: last }],
        services: [{ proto: 'tcp', port: 443, values: [{ app_proto: 'tls', first_seen: seen, last_seen: last }] }],
        username: i % 3 ? [] : [{ user: `user${i}`, first_seen: seen, last_seen: last }],
      },
    })),
  };
}

/**
 * A data folder of the reference server loaded with the seed, made once (the seed's size is in
 * its name) and kept; returns a fresh copy of it in a temporary folder.
 */
export async function seededCopy(cache: string, script: string, token: string, seed: SyncSeedOptions, log: (line: string) => void): Promise<string> {
  const key = `sync-reference-${seed.probes}`;
  const pristine = path.join(cache, key);
  const marker = path.join(cache, `${key}.complete`);
  if (!fs.existsSync(marker)) {
    fs.rmSync(pristine, { recursive: true, force: true });
    const seedFile = path.join(cache, `sync-seed-${seed.probes}.json`);
    fs.writeFileSync(seedFile, JSON.stringify(syncSeed(seed)));
    log(`seeding the reference server with ${seed.probes} probes (once; DRF takes a minute or two)`);
    const started = Date.now();
    const server = await startReference({ script, dataDir: pristine, token, seed: seedFile });
    await server.stop();
    fs.writeFileSync(marker, new Date().toISOString());
    log(`  seeded in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  }
  const copy = fs.mkdtempSync(path.join(os.tmpdir(), 'outpost-sync-bench-ref-'));
  fs.cpSync(pristine, copy, { recursive: true });
  return copy;
}
