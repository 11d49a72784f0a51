/** `outpost export FILE` and `outpost import FILE` (app.md §5): the Settings buttons on the command line. */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, test } from 'vitest';
import { WorkspaceHost } from '../../electron/workspaces/host';
import { enlarged } from '../helpers/largeBundle';
import { SAMPLES_DIR } from '../helpers/workplace';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const CLI = path.join(ROOT, 'dist/node/outpost.cjs');

const folders: string[] = [];
function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'outpost-bundle-'));
  folders.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of folders.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function run(dir: string, args: string[]) {
  return spawnSync(process.execPath, [CLI, ...args, '--data', dir], { encoding: 'utf8', timeout: 30_000 });
}

const hosts = [{ ip: '10.9.8.7', hits: 3, host_id: { first_seen: '2026-11-01T08:00:00.000000+00:00', last_seen: '2026-11-02T08:00:00.000000+00:00', hostname: [{ host: 'db.example', first_seen: '2026-11-01T08:00:00.000000+00:00', last_seen: '2026-11-02T08:00:00.000000+00:00' }] } }];

describe('export and import of a workspace', () => {
  test('a workspace exported to a file comes back whole under the name it had, or another', () => {
    const dir = tempDir();
    const input = path.join(dir, 'hosts.json');
    fs.writeFileSync(input, JSON.stringify(hosts));
    // --workspace names an existing workspace (issue 23 §2): lyon is made first.
    expect(run(dir, ['workspace', 'create', 'lyon']).status).toBe(0);
    expect(run(dir, ['import-hosts', input, '--workspace', 'lyon']).status).toBe(0);
    const bundle = path.join(dir, 'lyon.outpost.json');
    const exported = run(dir, ['export', bundle, '--workspace', 'lyon']);
    expect(exported.status, exported.stderr).toBe(0);
    expect(exported.stdout).toContain(`workspace "lyon" exported to ${bundle}`);
    expect(fs.statSync(bundle).mode & 0o777).toBe(0o600);

    const other = tempDir();
    const imported = run(other, ['import', bundle]);
    expect(imported.status, imported.stderr).toBe(0);
    expect(imported.stdout).toContain('workspace "lyon" imported');
    const db = new Database(path.join(other, 'workspaces', 'lyon.sqlite3'), { readonly: true });
    expect(db.prepare('SELECT ip FROM host_id').pluck().all()).toEqual(['10.9.8.7']);
    db.close();
    expect(run(other, ['import', bundle, '--workspace', 'copy']).status).toBe(0);
  });

  test('a workspace that imported an EVE log exports a bundle that imports back (the EVE import’s own tables and their pk sequences stay out)', () => {
    const dir = tempDir();
    const eve = run(dir, ['import-eve', path.join(SAMPLES_DIR, 'eve', 'Tr0llope-suricata_report_generator-eve.json')]);
    expect(eve.status, eve.stderr).toBe(0);
    const bundle = path.join(dir, 'site.outpost.json');
    expect(run(dir, ['export', bundle]).status).toBe(0);
    const imported = run(dir, ['import', bundle, '--workspace', 'copy']);
    expect(imported.status, imported.stderr).toBe(0);
    const count = (name: string) => {
      const db = new Database(path.join(dir, 'workspaces', `${name}.sqlite3`), { readonly: true });
      try {
        return db.prepare('SELECT count(*) FROM host_id').pluck().get();
      } finally {
        db.close();
      }
    };
    expect(count('copy')).toBe(count('default'));
    expect(count('copy')).toBeGreaterThan(0);
  });

  test('import makes its workspace where no default is chosen, and in a data folder that is new, without making a default', () => {
    const dir = tempDir();
    expect(run(dir, ['workspace', 'create', 'lyon']).status).toBe(0);
    const bundle = path.join(dir, 'lyon.outpost.json');
    expect(run(dir, ['export', bundle, '--workspace', 'lyon']).status).toBe(0);
    // No default: outpost.json names none and there is no workspace called "default".
    expect(run(dir, ['workspace', 'delete', 'default']).status).toBe(0);
    fs.writeFileSync(path.join(dir, 'outpost.json'), '{}');
    const imported = run(dir, ['import', bundle, '--workspace', 'paris']);
    expect(imported.status, imported.stderr).toBe(0);
    expect(imported.stdout).toContain('workspace "paris" imported from');
    expect(fs.readdirSync(path.join(dir, 'workspaces')).filter((f) => f.endsWith('.sqlite3')).sort()).toEqual(['lyon.sqlite3', 'paris.sqlite3']);

    const fresh = path.join(tempDir(), 'new-folder');
    const first = run(fresh, ['import', bundle, '--workspace', 'nice']);
    expect(first.status, first.stderr).toBe(0);
    expect(fs.readdirSync(path.join(fresh, 'workspaces')).filter((f) => f.endsWith('.sqlite3'))).toEqual(['nice.sqlite3']);
  });

  test('bad input: an existing file, a taken name, a file that is not a bundle → a message and exit 1, nothing written', () => {
    const dir = tempDir();
    const bundle = path.join(dir, 'b.json');
    expect(run(dir, ['export', bundle]).status).toBe(0);
    const again = run(dir, ['export', bundle]);
    expect(again.status).toBe(1);
    expect(again.stderr).toMatch(/exists already; give --force/);
    expect(run(dir, ['export', bundle, '--force']).status).toBe(0);

    const taken = run(dir, ['import', bundle, '--workspace', 'default']);
    expect(taken.status).toBe(1);
    expect(taken.stderr).toMatch(/a workspace named "default" exists already/);

    const junk = path.join(dir, 'junk.json');
    fs.writeFileSync(junk, '{"format": "something else"}');
    const refused = run(dir, ['import', junk, '--workspace', 'x']);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toMatch(/^outpost: /);
    expect(fs.existsSync(path.join(dir, 'workspaces', 'x.sqlite3'))).toBe(false);

    fs.writeFileSync(junk, '{not json');
    expect(run(dir, ['import', junk]).stderr).toMatch(/is not valid JSON/);
  });
});

describe('a bundle is a file from anywhere', () => {
  /** A bundle of a workspace with one more account, `bob` (Read-only), exported by the CLI. */
  function exported(dir: string): { file: string; bundle: { tables: Record<string, Record<string, unknown>[]> } } {
    const serve = path.join(dir, 'workspaces', 'default.sqlite3');
    expect(run(dir, ['export', path.join(dir, 'empty.json')]).status).toBe(0);
    const db = new Database(serve);
    db.prepare("INSERT INTO user (username, password, role, date_joined) VALUES ('bob', '', 'Read-only', 1)").run();
    db.close();
    const file = path.join(dir, 'site.outpost.json');
    expect(run(dir, ['export', file]).status).toBe(0);
    return { file, bundle: JSON.parse(fs.readFileSync(file, 'utf8')) };
  }

  test('its accounts are counted with what they may do, and a planted password hash is ignored', () => {
    const dir = tempDir();
    const { file, bundle } = exported(dir);
    const bob = bundle.tables.user!.find((u) => u.username === 'bob')!;
    bundle.tables.user!.push({ ...bob, pk: 50, username: 'mallory', role: 'Superuser', is_superuser: 1, password: 'scrypt$16384$8$1$c2FsdA==$aGFzaA==' });
    fs.writeFileSync(file, JSON.stringify(bundle));
    const imported = run(dir, ['import', file, '--workspace', 'planted']);
    expect(imported.status, imported.stderr).toBe(0);
    expect(imported.stdout).toBe(
      `workspace "planted" imported from ${file}\n` +
        '2 accounts came with it (1 Superuser, 1 Read-only): none can sign in until a manager of this Outpost sets its password or makes its token ' +
        '(a bundle’s password hashes and tokens are ignored); then 1 of them may manage this Outpost (its workspaces, accounts and central servers), the others only read.\n',
    );
    const db = new Database(path.join(dir, 'workspaces', 'planted.sqlite3'), { readonly: true });
    expect(db.prepare("SELECT password, is_superuser, role FROM user WHERE username = 'mallory'").get()).toEqual({ password: '', is_superuser: 0, role: 'Superuser' });
    db.close();
  });

  test('a crafted row refuses the whole bundle: the table, the row and the reason, exit 1, no file left behind', () => {
    const dir = tempDir();
    const { file, bundle } = exported(dir);
    bundle.tables.user!.find((u) => u.username === 'bob')!.role = 'God';
    fs.writeFileSync(file, JSON.stringify(bundle));
    const before = fs.readdirSync(path.join(dir, 'workspaces')).sort();
    const refused = run(dir, ['import', file, '--workspace', 'crafted']);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toBe('outpost: the bundle is refused, nothing was imported: table "user", row 2: role: "God" is not a valid choice.\n');
    expect(fs.readdirSync(path.join(dir, 'workspaces')).sort()).toEqual(before);
    expect(fs.readdirSync(dir).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });
});

describe('an import is whole or nothing, even killed', () => {
  test('kill -9 mid-import: no workspace is left, only its temporary database, which the next start removes', async () => {
    const dir = tempDir();
    const input = path.join(dir, 'hosts.json');
    fs.writeFileSync(input, JSON.stringify(hosts));
    expect(run(dir, ['import-hosts', input]).status).toBe(0);
    const small = path.join(dir, 'small.json');
    expect(run(dir, ['export', small]).status).toBe(0);
    const file = path.join(dir, 'large.json');
    fs.writeFileSync(file, JSON.stringify(enlarged(JSON.parse(fs.readFileSync(small, 'utf8')), { hosts: 30_000 })));
    const folder = path.join(dir, 'workspaces');
    const temporary = () => fs.readdirSync(folder).filter((name) => name.startsWith('.bundle-import-'));

    const child = spawn(process.execPath, [CLI, 'import', file, '--workspace', 'large', '--data', dir], { stdio: 'ignore' });
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.once('exit', (_code, signal) => resolve(signal)));
    // Killed as soon as its database is begun: the bundle was read and checked, and is being written.
    while (temporary().length === 0) {
      expect(child.exitCode, 'the import ended before it could be killed').toBeNull();
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');
    expect(fs.readdirSync(folder).filter((name) => name.startsWith('large'))).toEqual([]);
    expect(temporary()).not.toEqual([]);

    const host = new WorkspaceHost({ dataDir: dir, instance: { name: 'outpost', version: 'test', address: '127.0.0.1' } });
    try {
      expect(temporary()).toEqual([]);
      expect(host.list().map((w) => w.name)).toEqual(['default']);
    } finally {
      await host.close();
    }
  });
});
