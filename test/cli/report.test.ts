/**
 * `outpost report` as a user runs it (the bundled CLI): the PDF printed by the system's Chromium,
 * its text read back by pdftotext (Debian's poppler-utils); without a Chromium, exit 1 saying to
 * use the HTML. And `outpost hosts export` (its run function; the `hosts` group registers it):
 * a CSV file, and JSON parts that `outpost import-hosts` takes into another workspace.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { hostsExportCommand, writeJsonParts } from '../../electron/cli/hostExport';
import type { Line, Output } from '../../electron/cli/output';
import { openWorkspace } from '../../electron/workspaces/openWorkspace';
import { outpost } from '../helpers/syncCli';

const at = (day: string) => ({ first_seen: `${day}T08:00:00.000000+00:00`, last_seen: `${day}T18:00:00.000000+00:00` });

const ENTRIES = [
  { ip: '10.1.0.1', hits: 2, host_id: { ...at('2024-05-01'), roles: [{ name: 'domain controller', ...at('2024-05-01') }], hostname: [{ host: 'dc1.lyon.corp', ...at('2024-05-01') }], username: [{ user: 'jessie.andrews', ...at('2024-05-01') }] } },
  ...Array.from({ length: 12 }, (_, i) => ({ ip: `10.1.1.${i + 1}`, hits: i, host_id: { ...at('2024-05-02'), hostname: [{ host: `ws${i}.lyon.corp`, ...at('2024-05-02') }] } })),
];

let dir: string;
let data: string;

function captured(): { out: Output; lines: string[] } {
  const lines: string[] = [];
  const push = (text: Line) => lines.push(text.text);
  return { lines, out: { line: push, stderr: push, json: (v) => lines.push(JSON.stringify(v)), log: (t) => lines.push(t), progress: undefined } };
}

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'outpost-report-cli-'));
  data = path.join(dir, 'data');
  const file = path.join(dir, 'hosts.json');
  fs.writeFileSync(file, JSON.stringify(ENTRIES));
  const made = await outpost(['import-hosts', file, '--data', data]);
  if (made.status !== 0) throw new Error(made.stderr);
}, 60_000);

afterAll(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('outpost report', () => {
  test('--out site.pdf: a PDF whose text says the workspace, the counts, the roles and the hosts', async () => {
    const pdf = path.join(dir, 'site.pdf');
    const result = await outpost(['report', '--out', pdf, '--data', data]);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout).toBe(`site report of workspace "default" written to ${pdf}\n`);
    const text = execFileSync('pdftotext', ['-layout', pdf, '-'], { encoding: 'utf8' });
    expect(text).toContain('Site report: default');
    // 13 hosts imported above, one of them a domain controller at 10.1.0.1; none in a home network (none set).
    expect(text).toMatch(/Hosts reported\s+13 \(every host of the workspace\)/);
    expect(text).toMatch(/domain controller\s+1\s+10\.1\.0\.1/);
    expect(text).toContain('UTC');
    expect(text).not.toContain('jessie.andrews');
  }, 90_000);

  test('--users adds the users; --out site.html writes the self-contained file', async () => {
    const html = path.join(dir, 'site.html');
    expect((await outpost(['report', '--users', '--out', html, '--data', data])).status).toBe(0);
    const text = fs.readFileSync(html, 'utf8');
    expect(text).toContain('jessie.andrews');
    expect(text).not.toMatch(/<script|src=|href=/i);
  }, 60_000);

  test('without a Chromium: exit 1, saying to write the HTML', async () => {
    const result = await outpost(['report', '--out', path.join(dir, 'none.pdf'), '--data', data], { CHROMIUM_PATH: path.join(dir, 'no-chromium') });
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/no PDF made: No Chromium found .*print it to PDF from a browser.*--out site\.html/);
    expect(fs.existsSync(path.join(dir, 'none.pdf'))).toBe(false);
  }, 60_000);
});

describe('outpost hosts export', () => {
  test('--format csv --columns --q: the matching hosts, in the columns asked', async () => {
    const file = path.join(dir, 'dc.csv');
    const { out, lines } = captured();
    expect(await hostsExportCommand(['--format', 'csv', '--columns', 'roles,hostnames', '--q', 'host_id.roles.name:"domain controller"', '--out', file, '--data', data], out)).toBe(0);
    expect(lines[0]).toMatch(/^1 hosts of workspace "default" written to /);
    expect(parse(fs.readFileSync(file, 'utf8'), { bom: true })).toEqual([['Address', 'Roles', 'Host names'], ['10.1.0.1', 'domain controller', 'dc1.lyon.corp']]);
  });

  test('--visit --visit-change new: the hosts that import brought, as the list shows them; a bad one is a usage error', async () => {
    // A workspace of its own: the first file, then a second with one host already known (updated) and one new.
    const at2 = ['--workspace', 'visits', '--data', data];
    expect((await outpost(['workspace', 'create', 'visits', '--data', data])).status).toBe(0);
    const first = path.join(dir, 'first.json');
    fs.writeFileSync(first, JSON.stringify(ENTRIES));
    const second = path.join(dir, 'second.json');
    fs.writeFileSync(second, JSON.stringify([{ ...ENTRIES[1], hits: 50 }, { ip: '10.1.2.1', hits: 1, host_id: { ...at('2024-05-03'), hostname: [{ host: 'new.lyon.corp', ...at('2024-05-03') }] } }]));
    for (const file of [first, second]) expect((await outpost(['import-hosts', file, ...at2])).status).toBe(0);
    const imports = JSON.parse((await outpost(['hosts', 'imports', '--json', ...at2])).stdout) as { pk: number }[];
    const last = String(imports[0]!.pk);
    for (const [change, expected] of [['new', [['10.1.2.1']]], ['changed', [['10.1.1.1'], ['10.1.2.1']]]] as const) {
      const file = path.join(dir, `visit-${change}.csv`);
      const { out } = captured();
      expect(await hostsExportCommand(['--columns', 'ip', '--ordering', 'ip', '--visit', last, '--visit-change', change, '--out', file, ...at2], out)).toBe(0);
      expect((parse(fs.readFileSync(file, 'utf8'), { bom: true }) as string[][]).slice(1)).toEqual(expected);
    }
    const bad = await outpost(['hosts', 'export', '--visit-change', 'gone', '--out', path.join(dir, 'x.csv'), '--data', data]);
    expect(bad.status).not.toBe(0);
    expect(bad.stderr).toContain('--visit-change: give "new" or "changed".');
  });

  test('--format json: parts that outpost import-hosts takes into another workspace, as the same identities', async () => {
    const parts = path.join(dir, 'parts');
    const { out } = captured();
    expect(await hostsExportCommand(['--format', 'json', '--out', parts, '--data', data], out)).toBe(0);
    expect(fs.readdirSync(parts)).toEqual(['hosts-0001.json']);
    // A small limit splits the same hosts into several files, each within it.
    const small = path.join(dir, 'small');
    fs.mkdirSync(small);
    const workspace = openWorkspace({ file: path.join(data, 'workspaces', 'default.sqlite3'), instance: { name: 'outpost', version: 'test', address: '127.0.0.1' } });
    let written;
    try {
      written = writeJsonParts(workspace.services, {}, small, 1200);
    } finally {
      workspace.close();
    }
    expect(written.hosts).toBe(ENTRIES.length);
    expect(written.files.length).toBeGreaterThan(2);
    for (const file of written.files) expect(fs.statSync(file).size).toBeLessThanOrEqual(1200);
    expect((await outpost(['workspace', 'create', 'copy', '--data', data])).status).toBe(0);
    for (const file of written.files) expect((await outpost(['import-hosts', file, '--workspace', 'copy', '--data', data])).status).toBe(0);
    const read = async (name: string) => {
      const { out: o, lines } = captured();
      const file = path.join(dir, `${name}.csv`);
      await hostsExportCommand(['--out', file, '--ordering', 'ip', '--workspace', name, '--data', data, '--columns', 'roles,users,hostnames,first_seen,last_seen,hits'], o);
      expect(lines).toHaveLength(1);
      return fs.readFileSync(file, 'utf8');
    };
    expect(await read('copy')).toBe(await read('default'));
  }, 90_000);

  test('an unknown column, or parts already in the folder, are refused', async () => {
    const { out } = captured();
    await expect(hostsExportCommand(['--columns', 'ip,colour', '--out', path.join(dir, 'x.csv'), '--data', data], out)).rejects.toThrow(/unknown column "colour"/);
    await expect(hostsExportCommand(['--format', 'json', '--out', path.join(dir, 'parts'), '--data', data], out)).rejects.toThrow(/holds parts of an export already/);
  });
});
