/**
 * A full disk and a read-only one, for real (issue 23 §3): the data folder on a tmpfs of its own,
 * filled to the last byte or remounted read-only. Every command says which file and what to do;
 * `serve` starts and serves reads on a full disk (nothing is written at start unless something
 * changed); export and the lists work on a read-only data folder; no temporary file survives a
 * failed write. Skipped where this machine may not mount (helpers/tmpfs.ts).
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, test } from 'vitest';
import { StorageError } from '../../electron/server/store/storageErrors';
import { writeSettings } from '../../electron/workspaces/dataFolder';
import { WorkspaceHost } from '../../electron/workspaces/host';
import pkg from '../../package.json';
import { request } from '../helpers/http';
import { ADMIN_TOKEN, startAppServer } from '../helpers/server';
import { CLI } from '../helpers/syncCli';
import { tempWorkspaces } from '../helpers/tempWorkspaces';
import { tmpfsAvailable, tmpfsDisk } from '../helpers/tmpfs';
import { SAMPLES_DIR } from '../helpers/workplace';

const { tempDir, cleanups } = tempWorkspaces('outpost-disk-');

function outpost(data: string, ...args: string[]) {
  return spawnSync(process.execPath, [CLI, ...args, '--data', data], { encoding: 'utf8', timeout: 60_000 });
}

const hostsOf = (count: number, from = 0) =>
  JSON.stringify(
    Array.from({ length: count }, (_, i) => ({
      ip: `10.${((i + from) >> 16) & 255}.${((i + from) >> 8) & 255}.${(i + from) & 255}`,
      hits: 1,
      host_id: { first_seen: '2026-11-01T08:00:00.000000+00:00', last_seen: '2026-11-02T08:00:00.000000+00:00', hostname: [{ host: `h${i + from}.example.com`, first_seen: '2026-11-01T08:00:00.000000+00:00', last_seen: '2026-11-02T08:00:00.000000+00:00' }] },
    })),
  );

/** A data folder on a disk of its own, with its `default` workspace holding three hosts. */
function siteOnDisk(megabytes: number) {
  const disk = tmpfsDisk(megabytes);
  const data = path.join(disk.dir, 'data');
  const input = path.join(tempDir(), 'hosts.json');
  fs.writeFileSync(input, hostsOf(3));
  const made = outpost(data, 'import-hosts', input);
  expect(made.status, made.stderr).toBe(0);
  return { disk, data, file: path.join(data, 'workspaces', 'default.sqlite3') };
}

const hostCount = (file: string) => {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare('SELECT count(*) FROM host_id').pluck().get();
  } finally {
    db.close();
  }
};

/** Every file under a folder, with its size. */
function listing(dir: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const entry of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) out[path.relative(dir, path.join(entry.parentPath, entry.name))] = fs.statSync(path.join(entry.parentPath, entry.name)).size;
  }
  return out;
}

describe.skipIf(!tmpfsAvailable)('a full disk', () => {
  test('a settings write fails naming outpost.json and what to free; the settings stay as they were, no temporary file is left', () => {
    const disk = tmpfsDisk(1);
    writeSettings(disk.dir, { lastWorkspace: 'default' });
    disk.fill();
    let thrown: unknown;
    try {
      writeSettings(disk.dir, { lastWorkspace: 'default', localToken: 'a'.repeat(40) });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(StorageError);
    expect((thrown as Error).message).toBe(
      `the disk holding ${path.join(disk.dir, 'outpost.json')} is full (ENOSPC): free space on it (delete or move files under ${disk.dir} or elsewhere on that disk), then try again`,
    );
    expect(fs.readdirSync(disk.dir).sort()).toEqual(['filler', 'outpost.json']);
    expect(JSON.parse(fs.readFileSync(path.join(disk.dir, 'outpost.json'), 'utf8'))).toEqual({ lastWorkspace: 'default' });
  });

  test('an import says which file is full and what to free; what the workspace held is intact', () => {
    const { disk, data, file } = siteOnDisk(60);
    disk.fill();
    const input = path.join(tempDir(), 'many.json');
    fs.writeFileSync(input, hostsOf(20_000, 100));
    const result = outpost(data, 'import-hosts', input);
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(new RegExp(`^outpost: the disk holding ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is full \\(SQLITE_(FULL|IOERR_SHMSIZE)`));
    expect(result.stderr).toContain('free space on it');
    fs.rmSync(path.join(disk.dir, 'filler'));
    expect(hostCount(file)).toBe(3);
  });

  test('serve starts on a full disk and serves reads, writing nothing at start', async () => {
    const { disk, data, file } = siteOnDisk(60);
    // What a first start writes (the local token, the admin's token, the last workspace) written as a first serve would.
    await new WorkspaceHost({ dataDir: data, instance: { name: 'outpost', version: pkg.version, address: '127.0.0.1' }, adminToken: ADMIN_TOKEN }).close();
    // Another process has the workspace open, as the app does when its upload filled the disk.
    const holder = new Database(file);
    holder.pragma('journal_mode = WAL');
    holder.prepare('SELECT count(*) FROM host_id').get();
    cleanups.push(() => {
      holder.close();
    });
    disk.fill();
    const before = listing(data);
    const child = spawn(process.execPath, [CLI, 'serve', '--data', data, '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
    const stopped = new Promise<number | null>((resolve) => child.once('exit', resolve));
    cleanups.push(async () => {
      if (child.exitCode === null) child.kill('SIGKILL');
      await stopped;
    });
    let output = '';
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        const found = /^listening on (\S+)/m.exec(output);
        if (found) resolve(found[1]!);
      });
      child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.once('exit', (code) => reject(new Error(`serve exited with ${code}:\n${output}`)));
    });
    const read = await request(url, 'GET', '/rest/appliances/host_id/', { token: ADMIN_TOKEN });
    expect(read.status, read.text).toBe(200);
    expect(read.json().count).toBe(3);
    expect((await request(url, 'GET', '/app/status', { token: ADMIN_TOKEN })).json()).toMatchObject({ workspace: 'default' });
    child.kill('SIGTERM');
    expect(await stopped).toBe(0);
    const after = listing(data);
    expect(Object.keys(after).filter((name) => name.endsWith('.tmp'))).toEqual([]);
    expect(after['outpost.json']).toBe(before['outpost.json']);
  });

  test('export to another disk works on a completely full one, where no -shm can be made; nothing is left behind', () => {
    const { disk, data } = siteOnDisk(30);
    const workspaces = path.join(data, 'workspaces');
    expect(fs.readdirSync(workspaces)).toEqual(['default.sqlite3']);
    disk.fill();
    const bundle = path.join(tempDir(), 'rescue.outpost.json');
    const exported = outpost(data, 'export', bundle);
    expect(exported.status, exported.stderr).toBe(0);
    expect(JSON.parse(fs.readFileSync(bundle, 'utf8')).tables.host_id).toHaveLength(3);
    expect(fs.readdirSync(workspaces)).toEqual(['default.sqlite3']);
  });

  test('an API write on a full disk answers 507 naming the database and what to free; the write is undone whole, reads go on', async () => {
    const disk = tmpfsDisk(60);
    const data = path.join(disk.dir, 'data');
    const app = await startAppServer({ dir: data });
    cleanups.push(() => app.close());
    const file = path.join(data, 'workspaces', 'default.sqlite3');
    disk.fill();
    // 20,000 hosts: more than the pages the database and its WAL already hold.
    const hosts = JSON.parse(hostsOf(20_000)) as unknown[];
    const wrote = await request(app.url, 'POST', '/rest/appliances/host_id/import/', { token: ADMIN_TOKEN, json: hosts });
    expect(wrote.status, wrote.text).toBe(507);
    expect(wrote.json().detail).toContain(`the disk holding ${file} is full`);
    expect(wrote.json().detail).toContain('free space on it');
    const read = await request(app.url, 'GET', '/rest/appliances/host_id/', { token: ADMIN_TOKEN });
    expect(read.status, read.text).toBe(200);
    expect(read.json().count).toBe(0);
  });

  test('an EVE upload larger than the free space is refused before a byte is written (507, naming the disk)', async () => {
    const disk = tmpfsDisk(60);
    const app = await startAppServer({ dir: path.join(disk.dir, 'data') });
    cleanups.push(() => app.close());
    disk.fill();
    const bytes = fs.readFileSync(path.join(SAMPLES_DIR, 'eve', 'Tr0llope-suricata_report_generator-eve.json'));
    const reply = await new Promise<{ status: number; body: { detail?: string } }>((resolve, reject) => {
      const req = http.request(new URL('/app/hosts/import-eve?name=eve.json', app.url), {
        method: 'POST',
        headers: { Authorization: `Token ${ADMIN_TOKEN}`, 'Content-Type': 'application/octet-stream', 'Content-Length': bytes.length },
      });
      req.on('response', (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
      });
      req.on('error', reject);
      req.end(bytes);
    });
    expect(reply.status).toBe(507);
    expect(reply.body.detail).toContain(`the disk holding ${path.join(disk.dir, 'data', 'workspaces')} has 0.0 MB free`);
    expect(fs.readdirSync(path.join(disk.dir, 'data', 'workspaces')).filter((f) => f.endsWith('.part'))).toEqual([]);
  });
});

describe.skipIf(!tmpfsAvailable)('a read-only data folder', () => {
  test('export (to another disk), workspace list and remote list work; a write names the file and says the disk is read-only', () => {
    const { disk, data, file } = siteOnDisk(20);
    disk.readOnly();
    const bundle = path.join(tempDir(), 'site.outpost.json');
    const exported = outpost(data, 'export', bundle);
    expect(exported.status, exported.stderr).toBe(0);
    expect(JSON.parse(fs.readFileSync(bundle, 'utf8')).tables.host_id).toHaveLength(3);
    const listed = outpost(data, 'workspace', 'list');
    expect(listed.status, listed.stderr).toBe(0);
    expect(listed.stdout).toBe('* default\tstandalone\n');
    expect(outpost(data, 'remote', 'list').status).toBe(0);

    const input = path.join(tempDir(), 'more.json');
    fs.writeFileSync(input, hostsOf(1, 50));
    for (const args of [['import-hosts', input], ['serve', '--port', '0']]) {
      const refused = outpost(data, ...args);
      expect(refused.status, args[0]).toBe(1);
      expect(refused.stderr).toContain(`outpost: ${file} cannot be written: its disk is read-only`);
    }
    disk.writable();
    expect(hostCount(file)).toBe(3);
  });
});
