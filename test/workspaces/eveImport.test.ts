/**
 * `outpost import-eve` (issue 10): real EVE samples imported into a real workspace database,
 * read back through the API; incremental and idempotent; bad input refused whole; and the
 * command itself, run as a user runs it.
 */
import { spawn, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import Database from 'better-sqlite3';
import { describe, expect, test } from 'vitest';
import { EveImportError, fileSources, importEve as importSources, MAX_LINE_BYTES, NOT_AN_EVE_NAME, type EveImportOptions, type EveProgress } from '../../electron/workspaces/eveImport';
import { openWorkspace, type OpenedWorkspace } from '../../electron/workspaces/openWorkspace';
import type { ApiRequest } from '../../electron/server/http/types';
import { SAMPLES_DIR } from '../helpers/workplace';
import { tempWorkspaces } from '../helpers/tempWorkspaces';

const ROOT = path.resolve(__dirname, '../..');
const SAMPLES = path.join(SAMPLES_DIR, 'eve');
const ALAAJILI = path.join(SAMPLES, 'alaajili-EVE-Json-Parser-eve.json');
const TROLLOPE = path.join(SAMPLES, 'Tr0llope-suricata_report_generator-eve.json');
const CLI = path.join(ROOT, 'dist/node/outpost.cjs');

/** The import of paths, as the command gives them. */
async function importEve(services: OpenedWorkspace['services'], options: Omit<EveImportOptions, 'sources' | 'ignored'> & { paths: string[] }) {
  const { paths, ...rest } = options;
  const { sources, ignored } = fileSources(paths);
  return importSources(services, { ...rest, sources, ignored });
}

const { cleanups, tempDir, workspace } = tempWorkspaces('outpost-eve-');

/** Every served host, as the API would serve it. */
function hosts(opened: OpenedWorkspace): { ip: string; hits: number; data: unknown }[] {
  return (opened.services.store.db.prepare('SELECT ip, hits, data FROM host_id ORDER BY ip').all() as { ip: string; hits: number; data: string }[]).map((r) => ({
    ip: r.ip,
    hits: r.hits,
    data: JSON.parse(r.data),
  }));
}

/** An answer of the API, its JSON read as the tests read JSON (test/helpers/http.ts does the same). */
async function get(opened: OpenedWorkspace, pathname: string): Promise<{ status: number; body: any }> {
  const [pathOnly, query = ''] = pathname.split('?') as [string, string?];
  const request: ApiRequest = { method: 'GET', path: pathOnly, rawQuery: query, headers: { authorization: `Token ${opened.adminToken}`, host: 'localhost' }, body: Buffer.alloc(0), scheme: 'http', remoteAddress: '127.0.0.1' };
  const answer = await opened.api(request);
  return { status: answer.status, body: answer.body === null ? null : JSON.parse(String(answer.body)) };
}

const lines = (file: string) => fs.readFileSync(file, 'utf8').split(/(?<=\n)/);

/** The staging tables in a workspace (each import has its own while it runs). */
function stagingTables(opened: OpenedWorkspace): string[] {
  return opened.services.store.db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'eve_staged_%' ORDER BY name").pluck().all() as string[];
}

/** Values an import has staged so far (0 when none runs). */
function stagedValues(opened: OpenedWorkspace): number {
  const db = opened.services.store.db;
  return stagingTables(opened)
    .filter((name) => name.startsWith('eve_staged_value_'))
    .reduce((sum, name) => sum + (db.prepare(`SELECT count(*) FROM ${name}`).pluck().get() as number), 0);
}

describe('a real log into a workspace', () => {
  test('the summary counts what was read, and the API serves each address with its evidence', async () => {
    const opened = workspace();
    const summary = await importEve(opened.services, { paths: [ALAAJILI] });
    expect(summary.linesRead).toBe(4192);
    expect(summary.eventsUsed + summary.eventsOther).toBe(4192);
    expect(summary.hostsCreated).toBeGreaterThan(10);
    expect(summary.hostsUpdated).toBe(0);
    const host = await get(opened, '/rest/appliances/host_id/172.17.0.153');
    expect(host.status).toBe(200);
    expect(host.body.hits).toBe(653);
    expect(host.body.host_id.username.map((u: { user: string }) => u.user)).toEqual(['jessie.andrews']);
    expect(host.body.host_id['tls.ja3_count']).toBe(6);
    const list = await get(opened, '/rest/appliances/host_id/?search=172.17.0.7');
    expect(list.body.results[0].host_id.roles.map((r: { name: string }) => r.name)).toEqual(expect.arrayContaining(['dhcp', 'domain controller']));
  });

  test('importing the same file again changes nothing (no doubled hits, no history entry)', async () => {
    const opened = workspace();
    await importEve(opened.services, { paths: [ALAAJILI] });
    const before = hosts(opened);
    const history = (await get(opened, '/rest/rules/history/')).body.count;
    const again = await importEve(opened.services, { paths: [ALAAJILI] });
    expect(again.files).toEqual([{ path: ALAAJILI, fromLine: 4193, lines: 0, alreadyImported: 4192 }]);
    expect(again.linesRead).toBe(0);
    expect(hosts(opened)).toEqual(before);
    expect((await get(opened, '/rest/rules/history/')).body.count).toBe(history);
  });

  test('a file that grew: only the new lines are read, and the hosts equal those of the whole file', async () => {
    const all = lines(TROLLOPE);
    const dir = tempDir();
    const growing = path.join(dir, 'eve.json');
    const whole = workspace();
    await importEve(whole.services, { paths: [TROLLOPE] });
    for (const cut of [1, 700, all.length - 1]) {
      const opened = workspace();
      fs.writeFileSync(growing, all.slice(0, cut).join(''));
      await importEve(opened.services, { paths: [growing] });
      fs.appendFileSync(growing, all.slice(cut).join(''));
      const second = await importEve(opened.services, { paths: [growing] });
      expect(second.files[0]).toEqual({ path: growing, fromLine: cut + 1, lines: all.length - cut, alreadyImported: cut });
      expect(hosts(opened)).toEqual(hosts(whole));
    }
  });

  test('--follow finds a file it read on its last tick again by its last 4 KiB alone while it is the same file (device and inode); any other by every window', async () => {
    const all = lines(TROLLOPE);
    const imported = async (followed: boolean) => {
      const file = path.join(tempDir(), 'eve.json');
      fs.writeFileSync(file, all.join(''));
      const opened = workspace();
      await importEve(opened.services, { paths: [file] });
      // The same file, rewritten in place, with another byte where a window lies (the second: 64 KiB in); its last 4 KiB the same.
      const fd = fs.openSync(file, 'r+');
      fs.writeSync(fd, Buffer.from('x'), 0, 1, 64 * 1024 + 10);
      fs.closeSync(fd);
      const stat = fs.statSync(file);
      const { sources } = fileSources([file]);
      const summary = await importSources(opened.services, { sources: sources.map((source) => (followed ? { ...source, followed: { dev: stat.dev, ino: stat.ino } } : source)) });
      return summary.files[0];
    };
    // A tick of --follow: its file, found by its tail.
    expect(await imported(true)).toMatchObject({ lines: 0, alreadyImported: all.length });
    // Any other import: every window checked, the changed one seen, the file read again.
    expect(await imported(false)).toMatchObject({ fromLine: 1, lines: all.length, alreadyImported: 0 });
  });

  test('evidence staged in many small batches gives the hosts, counts and history of one batch', async () => {
    const whole = workspace();
    const once = await importEve(whole.services, { paths: [ALAAJILI] });
    // Gzip is read line by line (a plain file a segment at a time): batches end at any line.
    const gzip = path.join(tempDir(), 'eve.json.gz');
    fs.writeFileSync(gzip, zlib.gzipSync(fs.readFileSync(ALAAJILI)));
    const opened = workspace();
    const staged = await importEve(opened.services, { paths: [gzip], batchEntries: 40 });
    expect(hosts(opened)).toEqual(hosts(whole));
    expect({ ...staged, files: [] }).toEqual({ ...once, files: [] });
    expect(stagingTables(opened)).toEqual([]);
    // The log but its first line, in small batches, into a workspace that has its hosts: none
    // created, and only those whose identity changes updated: its values are known already, and
    // only the hits of the addresses in its alerts grow (worked out from the lines themselves).
    const restLines = lines(ALAAJILI).slice(1);
    const rest = path.join(tempDir(), 'eve.json');
    fs.writeFileSync(rest, restLines.join(''));
    fs.writeFileSync(`${rest}.gz`, zlib.gzipSync(fs.readFileSync(rest)));
    const alerted = new Set(restLines.map((line) => JSON.parse(line) as { event_type: string; src_ip: string; dest_ip: string }).filter((e) => e.event_type === 'alert').flatMap((e) => [e.src_ip, e.dest_ip]));
    const more = await importEve(opened.services, { paths: [`${rest}.gz`], batchEntries: 40 });
    expect(more.hostsCreated).toBe(0);
    expect(more.hostsUpdated).toBe(alerted.size);
  });

  test('a first import\'s staging becomes the evidence tables as migration 003 made them, and later imports merge into them', async () => {
    const db = (opened: OpenedWorkspace) => opened.services.store.db;
    /** host_evidence and host_local as SQLite describes them: columns, key, WITHOUT ROWID, definition. */
    const shape = (opened: OpenedWorkspace) =>
      ['host_evidence', 'host_local'].map((table) => ({
        columns: db(opened).prepare('SELECT name, type, "notnull", dflt_value, pk FROM pragma_table_xinfo(?)').all(table),
        withoutRowid: db(opened).prepare('SELECT wr FROM pragma_table_list(?)').pluck().get(table),
        sql: (db(opened).prepare('SELECT sql FROM sqlite_master WHERE name = ?').pluck().get(table) as string).replace(/"/g, '').replace(/\s+/g, ' '),
        indexes: db(opened).prepare('SELECT name FROM pragma_index_list(?)').pluck().all(table),
      }));
    // The evidence but the import that brought each piece (the imports differ from one workspace to the other).
    const evidence = (opened: OpenedWorkspace) => ({
      values: db(opened).prepare('SELECT ip, list, key, item, first_seen, last_seen FROM host_evidence ORDER BY ip, list, key').all(),
      hosts: db(opened).prepare('SELECT ip, hits, first_seen, last_seen FROM host_local ORDER BY ip').all(),
    });
    const gzip = path.join(tempDir(), 'eve.json.gz');
    fs.writeFileSync(gzip, zlib.gzipSync(fs.readFileSync(ALAAJILI)));
    // The same two imports, the first staged in small batches or held whole.
    const staged = workspace();
    const migrated = shape(staged);
    await importEve(staged.services, { paths: [gzip], batchEntries: 40 });
    expect(shape(staged)).toEqual(migrated);
    expect(stagingTables(staged)).toEqual([]);
    const held = workspace();
    await importEve(held.services, { paths: [ALAAJILI] });
    expect(evidence(staged)).toEqual(evidence(held));
    // The tables renamed are the workspace's own from now on: it reopens, and the next import
    // merges into them (hits added up) as one import of both logs into an empty workspace does.
    const file = staged.services.store.db.name;
    staged.close();
    const reopened = openWorkspace({ file, instance: { name: 'outpost', version: 'test', address: '127.0.0.1' } });
    cleanups.push(() => reopened.close());
    expect(shape(reopened)).toEqual(migrated);
    await importEve(reopened.services, { paths: [TROLLOPE], batchEntries: 40 });
    const both = workspace();
    await importEve(both.services, { paths: [ALAAJILI, TROLLOPE] });
    expect(evidence(reopened)).toEqual(evidence(both));
    expect(hosts(reopened)).toEqual(hosts(both));
  });

  test('segments parsed and identities made on the helper thread give what this thread alone gives, over evidence known before and new home networks', async () => {
    const gzip = path.join(tempDir(), 'eve.json.gz');
    fs.writeFileSync(gzip, zlib.gzipSync(fs.readFileSync(ALAAJILI)));
    const half = path.join(tempDir(), 'half.json');
    fs.writeFileSync(half, lines(TROLLOPE).slice(0, 900).join(''));
    const run = async (options: Partial<EveImportOptions>) => {
      const opened = workspace();
      await importEve(opened.services, { paths: [half], ...options });
      const first = await importEve(opened.services, { paths: [gzip], batchEntries: 40, ...options });
      const second = await importEve(opened.services, { paths: [TROLLOPE], batchEntries: 40, homeNets: '172.16.0.0/12', ...options });
      return { first: { ...first, files: [] }, second: { ...second, files: [] }, hosts: hosts(opened) };
    };
    // Segments of 16 KiB: the helper parses many of them; it makes the identities from the first address.
    const there = await run({ segmentBytes: 16 * 1024, helperFrom: 1 });
    const here = await run({ here: true, helper: false });
    expect(there).toEqual(here);
  });

  test('an import beside another (the command while the app imports): neither loses what the other staged', async () => {
    const data = tempDir();
    const gzip = path.join(data, 'alaajili.json.gz');
    fs.writeFileSync(gzip, zlib.gzipSync(fs.readFileSync(ALAAJILI)));
    const opened = workspace(path.join(data, 'workspaces', 'default.sqlite3'));
    let stagedBeforeB = 0;
    let command: ReturnType<typeof spawnSync> | undefined;
    // The first import runs on this thread; once it has staged, the command imports another log
    // whole (this thread waits for it) before the first reads on.
    await importSources(opened.services, {
      batchEntries: 40,
      segmentBytes: 16 * 1024,
      here: true,
      sources: [{ name: gzip, key: gzip, file: gzip }],
      onProgress: () => {
        if (command || stagedValues(opened) === 0) return;
        stagedBeforeB = stagedValues(opened);
        command = spawnSync(process.execPath, [CLI, 'import-eve', TROLLOPE, '--data', data], { encoding: 'utf8', timeout: 60_000 });
      },
    });
    expect(stagedBeforeB).toBeGreaterThan(0);
    expect(command?.status, String(command?.stderr)).toBe(0);
    const apart = workspace();
    await importEve(apart.services, { paths: [TROLLOPE] });
    await importEve(apart.services, { paths: [ALAAJILI] });
    expect(hosts(opened)).toEqual(hosts(apart));
    expect(stagingTables(opened)).toEqual([]);
  });

  test('the staging of an import that is over (its process ended, or a day without staging) is dropped by the next; a running one is kept', async () => {
    const opened = workspace();
    const db = opened.services.store.db;
    const ended = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    const deadPid = Number(ended.stdout);
    const now = opened.services.store.now();
    const day = 24 * 3600 * 1_000_000;
    const stage = (owner: string, touched: number) => {
      const pk = Number(db.prepare('INSERT INTO eve_import (started, owner, touched) VALUES (?, ?, ?)').run(touched, owner, touched).lastInsertRowid);
      db.exec(`CREATE TABLE eve_staged_value_${pk} (ip TEXT); CREATE TABLE eve_staged_host_${pk} (ip TEXT)`);
      return pk;
    };
    const dead = stage(`${os.hostname()}:${deadPid}`, now);
    const before = stage('', 0);
    const running = stage(`${os.hostname()}:${process.pid}`, now);
    const elsewhere = stage('another-laptop:4242', now - 1_000_000);
    const forgotten = stage('another-laptop:4243', now - day - 1_000_000);
    await importEve(opened.services, { paths: [TROLLOPE] });
    const left = [...new Set(stagingTables(opened).map((name) => Number(/_(\d+)$/.exec(name)![1])))].sort((a, b) => a - b);
    expect(left).toEqual([running, elsewhere]);
    expect(db.prepare('SELECT pk FROM eve_import WHERE finished IS NULL ORDER BY pk').pluck().all()).toEqual([running, elsewhere]);
    expect([dead, before, forgotten].some((pk) => left.includes(pk))).toBe(false);
  });

  test('a log another running import claims is waited for, then only what that one did not read is read; the claim of an import that is over is not waited for', async () => {
    const opened = workspace();
    const db = opened.services.store.db;
    const head = crypto.createHash('sha256').update(lines(TROLLOPE)[0]!).digest('hex');
    const claim = (owner: string) => Number(db.prepare('INSERT INTO eve_import (started, owner, touched, heads) VALUES (?, ?, ?, ?)').run(opened.services.store.now(), owner, opened.services.store.now(), JSON.stringify([head])).lastInsertRowid);
    // Claimed by a process that has ended: not waited for.
    const ended = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    claim(`${os.hostname()}:${Number(ended.stdout)}`);
    expect((await importEve(opened.services, { paths: [TROLLOPE] })).linesRead).toBe(1814);
    // Claimed by a running one (this process): waited for, saying so, until it has ended.
    const other = workspace();
    const otherDb = other.services.store.db;
    const pk = Number(otherDb.prepare('INSERT INTO eve_import (started, owner, touched, heads) VALUES (?, ?, ?, ?)').run(1, `${os.hostname()}:${process.pid}`, other.services.store.now(), JSON.stringify([head])).lastInsertRowid);
    const waits: string[] = [];
    const importing = importEve(other.services, { paths: [TROLLOPE], onProgress: (progress) => progress.waitingFor && waits.push(progress.waitingFor) });
    await expect.poll(() => waits.length, { timeout: 10_000 }).toBeGreaterThan(0);
    expect(waits[0]).toContain('another import of the same log');
    otherDb.prepare('UPDATE eve_import SET finished = 1 WHERE pk = ?').run(pk);
    expect((await importing).linesRead).toBe(1814);
  });

  test('an upload of a log read before, grown since: the lines read before are found by position and not read again, their alerts not counted again', async () => {
    const all = lines(TROLLOPE);
    const cut = 1200;
    const file = path.join(tempDir(), 'eve.json');
    fs.writeFileSync(file, all.slice(0, cut).join(''));
    const opened = workspace();
    await importEve(opened.services, { paths: [file] });
    const grown = Buffer.from(all.join(''));
    async function* upload() {
      for (let at = 0; at < grown.length; at += 50_000) yield grown.subarray(at, at + 50_000);
    }
    const summary = await importSources(opened.services, { sources: [{ name: 'eve.json', key: 'upload:eve.json', size: grown.length }], streams: new Map([[0, upload()]]), segmentBytes: 64 * 1024 });
    expect(summary.files).toEqual([{ path: 'eve.json', fromLine: cut + 1, lines: all.length - cut, alreadyImported: cut }]);
    const whole = workspace();
    await importEve(whole.services, { paths: [TROLLOPE] });
    expect(hosts(opened)).toEqual(hosts(whole));
  });

  test('a log split at a line boundary into two files gives the hosts of the whole', async () => {
    const all = lines(TROLLOPE);
    const dir = tempDir();
    const whole = workspace();
    await importEve(whole.services, { paths: [TROLLOPE] });
    const cut = 911;
    fs.writeFileSync(path.join(dir, 'part-a.json'), all.slice(0, cut).join(''));
    fs.writeFileSync(path.join(dir, 'part-b.json'), all.slice(cut).join(''));
    const opened = workspace();
    await importEve(opened.services, { paths: [path.join(dir, 'part-a.json')] });
    await importEve(opened.services, { paths: [path.join(dir, 'part-b.json')] });
    expect(hosts(opened)).toEqual(hosts(whole));
  });

  test('gzip files and a folder of rotated files, read oldest first; the gzipped copy of a file read before is not read again', async () => {
    const all = lines(TROLLOPE);
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, 'eve.json.2.gz'), zlib.gzipSync(all.slice(0, 600).join('')));
    fs.writeFileSync(path.join(dir, 'eve.json.1'), all.slice(600, 1200).join(''));
    fs.writeFileSync(path.join(dir, 'eve.json'), all.slice(1200).join(''));
    fs.writeFileSync(path.join(dir, 'notes.txt'), 'not a log');
    const whole = workspace();
    await importEve(whole.services, { paths: [TROLLOPE] });
    const opened = workspace();
    const summary = await importEve(opened.services, { paths: [dir] });
    expect(summary.files.map((f) => path.basename(f.path))).toEqual(['eve.json.2.gz', 'eve.json.1', 'eve.json']);
    expect(summary.ignored).toEqual([{ path: path.join(dir, 'notes.txt'), reason: NOT_AN_EVE_NAME }]);
    expect(hosts(opened)).toEqual(hosts(whole));
    // Rotation: eve.json becomes eve.json.1.gz; nothing is read twice.
    fs.writeFileSync(path.join(dir, 'eve.json.3.gz'), fs.readFileSync(path.join(dir, 'eve.json.2.gz')));
    fs.rmSync(path.join(dir, 'eve.json.2.gz'));
    const again = await importEve(opened.services, { paths: [dir] });
    expect(again.linesRead).toBe(0);
    expect(hosts(opened)).toEqual(hosts(whole));
  });

  test('a gzip file is read on from the furthest point a former import of its first line reached with the same content; when the furthest known is another log\'s, it is read again up to the one that holds', async () => {
    const all = lines(TROLLOPE);
    const dir = tempDir();
    const write = (name: string, content: string[]) => {
      fs.writeFileSync(path.join(dir, name), content.join(''));
      return path.join(dir, name);
    };
    // Three logs with the same first line: the whole sample; one that leaves it after line 900
    // (1,100 lines, shorter); and that one grown past the length of the first, other lines again.
    const whole = write('whole.json', all);
    const branch = all.slice(0, 900).concat(all.slice(1300, 1500));
    const shorter = write('branch.json', branch);
    const grown = branch.concat(all.slice(1500), all.slice(1, 800));
    const grownGzip = path.join(dir, 'branch.json.1.gz');
    fs.writeFileSync(grownGzip, zlib.gzipSync(grown.join('')));
    const opened = workspace();
    await importEve(opened.services, { paths: [whole] });
    await importEve(opened.services, { paths: [shorter] });
    const summary = await importEve(opened.services, { paths: [grownGzip] });
    expect(summary.files).toEqual([{ path: grownGzip, fromLine: branch.length + 1, lines: grown.length - branch.length, alreadyImported: branch.length }]);
    // The same three as plain files, found by position: the same hosts, no alert counted twice.
    const plain = workspace();
    await importEve(plain.services, { paths: [whole] });
    await importEve(plain.services, { paths: [shorter] });
    await importEve(plain.services, { paths: [write('grown.json', grown)] });
    expect(hosts(opened)).toEqual(hosts(plain));
    // Its gzipped copy again: the furthest point holds, nothing is read twice.
    const copy = path.join(dir, 'branch.json.2.gz');
    fs.copyFileSync(grownGzip, copy);
    expect((await importEve(opened.services, { paths: [copy] })).files).toEqual([{ path: copy, fromLine: grown.length + 1, lines: 0, alreadyImported: grown.length }]);
    expect(hosts(opened)).toEqual(hosts(plain));
  });

  test('an upload is received into a file beside the database, removed once imported, refused or cut short; one larger than the free space is refused before it is received; the files of an ended process are removed', async () => {
    const opened = workspace();
    const folder = path.dirname(opened.services.store.db.name);
    const spooled = () => fs.readdirSync(folder).filter((name) => name.startsWith('.eve-upload-'));
    const bytes = fs.readFileSync(TROLLOPE);
    const received: number[] = [];
    async function* upload(upTo = bytes.length, fail = false) {
      for (let at = 0; at < upTo; at += 50_000) {
        yield bytes.subarray(at, Math.min(upTo, at + 50_000));
      }
      if (fail) throw new Error('the connection was reset');
    }
    const ended = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    const leftover = path.join(folder, `.eve-upload-${ended.stdout}-0123abcd.part`);
    fs.writeFileSync(leftover, 'left by a process killed mid-import');
    const progress: boolean[] = [];
    const onProgress = (p: EveProgress) => {
      progress.push(p.receiving === true);
      if (!p.receiving) received.push(spooled().length);
    };
    const done = await importSources(opened.services, { sources: [{ name: 'eve.json', key: 'upload:eve.json', size: bytes.length }], streams: new Map([[0, upload()]]), here: true, onProgress });
    expect(done.linesRead).toBe(1814);
    // While it was read, one file: this upload's (the leftover was removed first).
    expect(new Set(received)).toEqual(new Set([1]));
    expect(fs.existsSync(leftover)).toBe(false);
    expect(spooled()).toEqual([]);
    expect(progress.at(-1)).toBe(false);
    const cut = importSources(opened.services, { sources: [{ name: 'eve.json', key: 'upload:eve.json', size: bytes.length }], streams: new Map([[0, upload(100_000, true)]]) });
    await expect(cut).rejects.toThrow(new EveImportError('the upload of eve.json stopped before its end; nothing was imported'));
    const short = importSources(opened.services, { sources: [{ name: 'eve.json', key: 'upload:eve.json', size: bytes.length }], streams: new Map([[0, upload(100_000)]]) });
    await expect(short).rejects.toThrow(`the upload of eve.json stopped before its end (100000 of ${bytes.length} bytes); nothing was imported`);
    const huge = importSources(opened.services, { sources: [{ name: 'huge.json', key: 'upload:huge.json', size: 2 ** 62 }], streams: new Map([[0, upload()]]) });
    await expect(huge).rejects.toThrow(/^huge\.json is \d+ MB and the disk holding .* has [\d.]+ MB free: nothing was imported/);
    expect(spooled()).toEqual([]);
  });

  test('the home networks set with the import decide in_home_net and net_info, and changing them recomputes them', async () => {
    const opened = workspace();
    await importEve(opened.services, { paths: [ALAAJILI], homeNets: '172.17.0.0/16' });
    const host = (await get(opened, '/rest/appliances/host_id/172.17.0.153')).body.host_id;
    expect(host.net_info.map((n: { agg: string }) => n.agg)).toEqual(['172.17.0.0/16']);
    await importEve(opened.services, { paths: [ALAAJILI], homeNets: '10.0.0.0/8' });
    const after = (await get(opened, '/rest/appliances/host_id/172.17.0.153')).body.host_id;
    expect(after.in_home_net).toBe(false);
    expect(after.net_info.map((n: { agg: string }) => n.agg)).toEqual(['internet']);
    await expect(importEve(opened.services, { paths: [ALAAJILI], homeNets: '10.0.0.0/8,corp' })).rejects.toThrow('--home-net: "corp" is not a network in CIDR form');
    await expect(importEve(opened.services, { paths: [ALAAJILI], homeNets: '172.17.0.153/16' })).rejects.toThrow('--home-net: "172.17.0.153/16" has bits set past its prefix: did you mean 172.17.0.0/16?');
  });

  test('an imported host file and the local evidence are read together; hits are the larger of the two counts', async () => {
    const opened = workspace();
    const central = {
      ip: '172.17.0.153',
      hits: 1000,
      host_id: { first_seen: '2022-01-01T00:00:00.000000+00:00', last_seen: '2022-01-02T00:00:00.000000+00:00', username: [{ user: 'central.user', first_seen: '2022-01-01T00:00:00.000000+00:00', last_seen: '2022-01-02T00:00:00.000000+00:00' }] },
    };
    opened.services.store.write(() => opened.services.hosts.save({ ip: central.ip, hits: central.hits, hostId: central.host_id, firstSeen: Date.UTC(2022, 0, 1) * 1000, lastSeen: Date.UTC(2022, 0, 2) * 1000 }));
    await importEve(opened.services, { paths: [ALAAJILI] });
    const host = (await get(opened, '/rest/appliances/host_id/172.17.0.153')).body;
    expect(host.hits).toBe(1000);
    expect(host.host_id.first_seen).toBe('2022-01-01T00:00:00.000000+00:00');
    expect(host.host_id.username.map((u: { user: string }) => u.user).sort()).toEqual(['central.user', 'jessie.andrews']);
  });
});

describe('bad input: a clear message, nothing imported, the workspace intact', () => {
  async function refused(content: Buffer | string, message: RegExp, name = 'eve.json'): Promise<void> {
    const opened = workspace();
    const file = path.join(tempDir(), name);
    fs.writeFileSync(file, content);
    await expect(importEve(opened.services, { paths: [file] })).rejects.toThrow(message);
    expect(hosts(opened)).toEqual([]);
    expect(stagingTables(opened)).toEqual([]);
  }

  test('an empty file, a binary file, JSON that is no event', async () => {
    await refused('', /is empty: no EVE event in it/);
    await refused(Buffer.from([0, 1, 2, 3, 10, 255, 254, 10]), /has no EVE event in it \(2 lines/);
    await refused('{"a": 1}\n[1, 2]\n', /has no EVE event in it/);
  });

  test('a gzip file cut in the middle', async () => {
    const gz = zlib.gzipSync(fs.readFileSync(TROLLOPE));
    await refused(gz.subarray(0, Math.floor(gz.length / 2)), /damaged or truncated gzip file/, 'eve.json.gz');
  });

  test('a path that cannot be read', async () => {
    const opened = workspace();
    await expect(importEve(opened.services, { paths: ['/nonexistent/eve.json'] })).rejects.toThrow(new EveImportError('cannot read /nonexistent/eve.json: no such file or folder'));
  });

  test('bad lines among good ones are skipped and counted with their line numbers; a line too long is read past', async () => {
    const opened = workspace();
    const file = path.join(tempDir(), 'eve.json');
    const good = lines(TROLLOPE).slice(0, 50).join('');
    fs.writeFileSync(file, `${good}garbage\n${'x'.repeat(MAX_LINE_BYTES + 10)}\n{"event_type":"dns"}\n${good}`);
    const summary = await importEve(opened.services, { paths: [file] });
    expect(summary.skipped['not JSON']).toEqual({ count: 1, first: [`${file}:51`] });
    expect(summary.skipped['line too long']).toEqual({ count: 1, first: [`${file}:52`] });
    expect(summary.skipped['not an EVE event']).toEqual({ count: 1, first: [`${file}:53`] });
    expect(summary.linesRead).toBe(103);
  });

  test('a cancelled import leaves nothing', async () => {
    const opened = workspace();
    const stop = new AbortController();
    const running = importEve(opened.services, { paths: [ALAAJILI], signal: stop.signal, onProgress: () => stop.abort() });
    stop.abort();
    await expect(running).rejects.toThrow('the import was cancelled; nothing was imported');
    expect(hosts(opened)).toEqual([]);
  });
});

describe('the command', () => {
  function run(args: string[]): { status: number | null; stdout: string; stderr: string } {
    const result = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', timeout: 60_000 });
    return { status: result.status, stdout: result.stdout, stderr: result.stderr };
  }

  test('imports, prints its summary and exits 0; a second run reads nothing new', () => {
    const data = tempDir();
    const first = run(['import-eve', TROLLOPE, '--data', data]);
    expect(first.stderr).toBe('');
    expect(first.status).toBe(0);
    expect(first.stdout).toContain(`${TROLLOPE}: 1814 lines from line 1`);
    expect(first.stdout).toMatch(/hosts created: \d+, updated: 0/);
    const second = run(['import-eve', TROLLOPE, '--data', data]);
    expect(second.status).toBe(0);
    expect(second.stdout).toContain(`${TROLLOPE}: nothing new since the last import`);
  });

  test('its output piped to a reader that has gone (`| head -3`): the import stands and the command exits 0', async () => {
    const data = tempDir();
    const child = spawn(process.execPath, [CLI, 'import-eve', TROLLOPE, '--data', data], { stdio: ['ignore', 'pipe', 'pipe'] });
    // The reader leaves before the summary is written.
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(run(['import-eve', TROLLOPE, '--data', data]).stdout).toContain('nothing new since the last import');
  });

  test('a path that cannot be read, a file with no event, no path at all: one clear line and exit 1', () => {
    const data = tempDir();
    const missing = run(['import-eve', path.join(data, 'nope.json'), '--data', data]);
    expect(missing.status).toBe(1);
    expect(missing.stderr).toBe(`outpost: cannot read ${path.join(data, 'nope.json')}: no such file or folder\n`);
    const empty = path.join(data, 'empty.json');
    fs.writeFileSync(empty, '');
    expect(run(['import-eve', empty, '--data', data]).stderr).toBe(`outpost: ${empty} is empty: no EVE event in it; nothing was imported\n`);
    const none = run(['import-eve', '--data', data]);
    expect(none.status).toBe(1);
    expect(none.stderr).toContain('give at least one EVE file or folder');
  });

  test('--follow reads what a growing log gains every few seconds, until Ctrl-C (exit 0)', async () => {
    const data = tempDir();
    const log = path.join(tempDir(), 'eve.json');
    const all = lines(TROLLOPE);
    const cut = all.findIndex((line) => line.includes('"67.205.184.237"'));
    fs.writeFileSync(log, all.slice(0, cut).join(''));
    const child = spawn(process.execPath, [CLI, 'import-eve', log, '--follow', '--data', data], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    try {
      await expect.poll(() => stdout, { timeout: 20_000 }).toContain('hosts created');
      const known = (ip: string) => {
        const db = new Database(path.join(data, 'workspaces', 'default.sqlite3'), { readonly: true });
        try {
          return db.prepare('SELECT 1 FROM host_id WHERE ip = ?').get(ip) !== undefined;
        } finally {
          db.close();
        }
      };
      expect(known('67.205.184.237')).toBe(false);
      fs.appendFileSync(log, all.slice(cut).join(''));
      await expect.poll(() => known('67.205.184.237'), { timeout: 20_000, interval: 500 }).toBe(true);
    } finally {
      child.kill('SIGINT');
    }
    expect(await exited).toBe(0);
  });
});
