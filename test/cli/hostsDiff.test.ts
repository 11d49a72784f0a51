/**
 * `outpost hosts imports` and `outpost hosts diff` (issue 24 §2), the bundled CLI run as a user
 * runs it: two imports of a log's halves, listed with who ran them (`cli:<user>`) and their files'
 * SHA-256; compared by number and by date, as text and as JSON; a point it cannot read is one
 * line naming the option, exit 1.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { outpost } from '../helpers/syncCli';

let root: string;
let at: (...args: string[]) => string[];
const file = (name: string) => path.join(root, name);

/** An HTTP event: the client 10.0.0.1 asks `hostname` of the server `server` on port 80 (both hosts, docs/eve.md). */
function httpLine(seconds: number, server: string, hostname: string): string {
  const timestamp = `2025-03-01T10:00:${String(seconds).padStart(2, '0')}.000000+0000`;
  return JSON.stringify({ timestamp, event_type: 'http', src_ip: '10.0.0.1', src_port: 50000 + seconds, dest_ip: server, dest_port: 80, proto: 'TCP', http: { hostname, url: '/', http_method: 'GET' } });
}

beforeAll(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'outpost-hosts-cli-'));
  at = (...args) => [...args, '--data', path.join(root, 'data')];
  fs.writeFileSync(file('morning.json'), `${httpLine(1, '10.0.0.2', 'intranet.example')}\n`);
  // The afternoon brings 10.0.0.3, and a second name for 10.0.0.2 (a new host name, not a new host).
  fs.writeFileSync(file('afternoon.json'), `${httpLine(2, '10.0.0.3', 'wiki.example')}\n${httpLine(3, '10.0.0.2', 'mail.example')}\n`);
  for (const name of ['morning.json', 'afternoon.json']) {
    const result = await outpost(at('import-eve', file(name)));
    expect(result.status, result.stderr).toBe(0);
  }
}, 120_000);
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

const sha256 = (name: string) => crypto.createHash('sha256').update(fs.readFileSync(file(name))).digest('hex');

describe('outpost hosts imports', () => {
  // The afternoon updates 10.0.0.2 (a name) and the client 10.0.0.1 (seen later): two updated.
  test('--json: the visits newest first, run by cli:<user>, with their files', async () => {
    const result = await outpost(at('hosts', 'imports', '--json'));
    expect(result.status).toBe(0);
    const visits = JSON.parse(result.stdout);
    expect(visits.map((v: { pk: number }) => v.pk)).toEqual([2, 1]);
    expect(visits[0]).toMatchObject({ kind: 'eve', user: `cli:${os.userInfo().username}`, hostsNew: 1, hostsUpdated: 2, files: [{ name: file('afternoon.json'), sha256: sha256('afternoon.json'), from: 0, lines: 2 }] });
    expect(visits[1]).toMatchObject({ hostsNew: 2, hostsUpdated: 0, files: [{ sha256: sha256('morning.json'), lines: 1 }] });
  });

  test('as text: one visit a line, its files below it', async () => {
    const result = await outpost(at('hosts', 'imports'));
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/^2\t\S+Z\tEVE log\tcli:\S+\t1 new, 2 updated\n {4}.*afternoon\.json \(\d+ bytes from byte 0, 2 lines, sha256 [0-9a-f]{64}\)$/m);
  });
});

describe('outpost hosts diff', () => {
  const expected = [
    { kind: 'host_new', ip: '10.0.0.3', value: null, previous: null },
    { kind: 'hostname_new', ip: '10.0.0.2', value: 'mail.example', previous: null },
  ];

  test('--since 1 --json: the app\'s comparison', async () => {
    const result = await outpost(at('hosts', 'diff', '--since', '1', '--json'));
    expect(result.status, result.stderr).toBe(0);
    const comparison = JSON.parse(result.stdout);
    expect(comparison.changes).toEqual(expected);
    expect(comparison.until.visit).toBe(2);
  });

  test('a date: the imports finished by then', async () => {
    const visits = JSON.parse((await outpost(at('hosts', 'imports', '--json'))).stdout);
    const result = await outpost(at('hosts', 'diff', '--since', visits[1].at, '--until', visits[0].at, '--json'));
    expect(JSON.parse(result.stdout).changes).toEqual(expected);
  });

  test('as text: the totals, then a change a line', async () => {
    const result = await outpost(at('hosts', 'diff', '--since', '1'));
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('new host: 1, new host name: 1');
    expect(result.stdout).toMatch(/^new host\s+10\.0\.0\.3$/m);
    expect(result.stdout).toMatch(/^new host name\s+10\.0\.0\.2\tmail\.example$/m);
  });

  test.each([
    [["--since", "yesterday"], /--since: "yesterday" is no point: give the number of an import/],
    [['--since', '9'], /--since: there is no import or pull 9/],
    [['--since', '1', '--until', 'pull'], /--until: no pull/],
    [[], /needs --since/],
  ])('%j is refused in one line naming the option', async (args, message) => {
    const result = await outpost(at('hosts', 'diff', ...args));
    expect(result.status).toBe(1);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(message);
  });
});
