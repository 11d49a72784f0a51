/**
 * Issue 24 §2, imports as visits, on a real log: one log split by time into two imports, the
 * hosts new in the second worked out from the log's lines by the rules of docs/eve.md (below, not
 * by the program); each import a visit with its files' SHA-256; compared by visit and by date;
 * the detail of visits beyond the last 50 pruned; a failure while recording leaves no visit and
 * no identity behind.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { hostImport } from '../../electron/server/handlers/hosts';
import { importEntries } from '../../electron/server/handlers/imports';
import { VISITS_KEPT, visitHostSet } from '../../electron/server/store/visits';
import { fileSources, importEve } from '../../electron/workspaces/eveImport';
import type { OpenedWorkspace } from '../../electron/workspaces/openWorkspace';
import { parsePoint } from '../../shared/app/hostChanges';
import { hostsOfLine, type EveEvent } from '../helpers/eveLineHosts';
import { tempWorkspaces } from '../helpers/tempWorkspaces';
import { SAMPLES_DIR } from '../helpers/workplace';

const STAMUS = path.join(SAMPLES_DIR, 'eve', 'StamusNetworks-suricata-analytics-eve.json');
const { tempDir, workspace } = tempWorkspaces('outpost-visits-');

type Event = EveEvent;

// ---------------------------------------------------------------------------------------------

function hostIps(opened: OpenedWorkspace, sql: { sql: string; params: Record<string, number> }): string[] {
  return opened.services.store.db.prepare(`SELECT ip FROM host_id WHERE pk IN (${sql.sql}) ORDER BY ip`).pluck().all(sql.params) as string[];
}

async function importLog(opened: OpenedWorkspace, file: string, visitUser?: string) {
  const { sources, ignored } = fileSources([file]);
  return importEve(opened.services, { sources, ignored, here: true, ...(visitUser ? { visitUser } : {}) });
}

/** The log split by time: the lines up to its middle instant, then the others, each part in the log's order. */
function splitByTime(): { first: string; second: string; firstLines: Event[]; secondLines: Event[] } {
  const text = fs.readFileSync(STAMUS, 'utf8');
  const lines = text.split(/(?<=\n)/).filter((line) => line.trim() !== '');
  const times = lines.map((line) => Date.parse(JSON.parse(line).timestamp.replace(/(\d{2})(\d{2})$/, '$1:$2')));
  const middle = [...times].sort((a, b) => a - b)[Math.floor(times.length / 2)]!;
  const dir = tempDir();
  const first = path.join(dir, 'first.json');
  const second = path.join(dir, 'second.json');
  fs.writeFileSync(first, lines.filter((_, i) => times[i]! <= middle).join(''));
  fs.writeFileSync(second, lines.filter((_, i) => times[i]! > middle).join(''));
  return {
    first,
    second,
    firstLines: lines.filter((_, i) => times[i]! <= middle).map((line) => JSON.parse(line)),
    secondLines: lines.filter((_, i) => times[i]! > middle).map((line) => JSON.parse(line)),
  };
}

const sha256 = (file: string) => crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex');

describe('one log split by time into two imports', () => {
  test('the second visit brought exactly the addresses its lines make hosts of that the first part did not', async () => {
    const opened = workspace();
    const split = splitByTime();
    const inFirst = new Set(split.firstLines.flatMap(hostsOfLine));
    const expectedNew = [...new Set(split.secondLines.flatMap(hostsOfLine))].filter((ip) => !inFirst.has(ip)).sort();
    expect(expectedNew.length).toBeGreaterThan(0);

    const one = await importLog(opened, split.first, 'cli:field');
    const two = await importLog(opened, split.second, 'cli:field');
    const [second, first] = opened.services.visits.page(0, 10).visits;
    expect(first!.hostsNew).toBe(inFirst.size);
    expect(first!.hostsNew).toBe(one.hostsCreated);
    expect(second!.hostsNew).toBe(expectedNew.length);
    expect(second!.hostsNew).toBe(two.hostsCreated);
    expect(hostIps(opened, visitHostSet(second!.pk, 'new'))).toEqual(expectedNew);
    expect(hostIps(opened, visitHostSet(first!.pk, 'new'))).toEqual([...inFirst].sort());

    // Each visit names its file by the SHA-256 of its bytes, who ran it, and its history entry.
    expect(first).toMatchObject({ kind: 'eve', user: 'cli:field', files: [{ name: split.first, size: fs.statSync(split.first).size, sha256: sha256(split.first), from: 0, lines: split.firstLines.length }] });
    expect(second!.files[0]).toMatchObject({ sha256: sha256(split.second), lines: split.secondLines.length });
    const entry = opened.services.history.toJson(opened.services.store.db.prepare('SELECT * FROM user_action WHERE pk = ?').get(second!.historyPk) as never);
    // api.md's text, unchanged: the files and the visit ride in ua_objects beside the count.
    expect(entry.description).toBe(`admin has imported ${(entry.ua_objects as any).count.value} host identities`);
    expect((entry.ua_objects as any).visit.value).toBe(second!.pk);
    expect((entry.ua_objects as any).files.value[0].sha256).toBe(sha256(split.second));

    // Compared: the same new hosts; changed hosts are a superset of them.
    const comparison = opened.services.visits.compare(opened.services.visits.resolve({ visit: first!.pk }, 'since'), opened.services.visits.resolve({ visit: second!.pk }, 'until'), 10_000);
    expect(comparison.changes.filter((c) => c.kind === 'host_new').map((c) => c.ip)).toEqual(expectedNew);
    expect(comparison.totals.host_new).toBe(expectedNew.length);
    const changed = new Set(hostIps(opened, visitHostSet(second!.pk, 'changed')));
    expect(expectedNew.every((ip) => changed.has(ip))).toBe(true);
    expect(changed.size).toBe(second!.hostsNew + second!.hostsUpdated);

    // Not seen since the first: known after it, made a host of by no line of the second part.
    const inSecond = new Set(split.secondLines.flatMap(hostsOfLine));
    expect(comparison.changes.filter((c) => c.kind === 'host_not_seen').map((c) => c.ip)).toEqual([...inFirst].filter((ip) => !inSecond.has(ip)).sort());
  });

  test('the same log again reads nothing: no visit', async () => {
    const opened = workspace();
    const split = splitByTime();
    await importLog(opened, split.first);
    await importLog(opened, split.first);
    expect(opened.services.visits.page(0, 10).count).toBe(1);
  });

  test('a date means the visits finished up to it: since the first visit\'s time is since the first visit', async () => {
    const opened = workspace();
    const split = splitByTime();
    await importLog(opened, split.first);
    await importLog(opened, split.second);
    const { visits } = opened.services;
    const [second, first] = visits.page(0, 10).visits;
    const byDate = visits.compare(visits.resolve(parsePoint(first!.at) as { at: number }, 'since'), visits.latest(), 10_000);
    const byVisit = visits.compare(visits.resolve({ visit: first!.pk }, 'since'), visits.resolve({ visit: second!.pk }, 'until'), 10_000);
    expect(byDate.changes).toEqual(byVisit.changes);
    expect(byDate.since).toEqual({ visit: null, at: first!.at, label: first!.at });
    // Before any visit: everything is new.
    const fromStart = visits.compare(visits.resolve({ at: 0 }, 'since'), visits.latest(), 0);
    expect(fromStart.totals.host_new).toBe(opened.services.hosts.count());
    expect(fromStart.truncated).toBe(true);
  });

  test('a failure while the visit is recorded undoes the identities written with it: no visit, no host; the addresses wait', async () => {
    const opened = workspace();
    const split = splitByTime();
    opened.services.store.db.exec('DROP TABLE host_visit_seen');
    await expect(importLog(opened, split.first)).rejects.toThrow();
    opened.services.store.db.exec('CREATE TABLE host_visit_seen (visit INTEGER NOT NULL, part INTEGER NOT NULL, pks BLOB NOT NULL, PRIMARY KEY (visit, part)) WITHOUT ROWID');
    expect(opened.services.store.db.prepare('SELECT count(*) FROM host_visit').pluck().get()).toBe(0);
    expect(opened.services.hosts.count()).toBe(0);
    expect(opened.services.evidence.pendingCount()).toBeGreaterThan(0);
  });

  test('a refused import leaves no visit', async () => {
    const opened = workspace();
    const empty = path.join(tempDir(), 'empty.json');
    fs.writeFileSync(empty, '');
    await expect(importLog(opened, empty)).rejects.toThrow(/empty/);
    expect(opened.services.visits.page(0, 10).count).toBe(0);
  });
});

describe('what a host file import changed', () => {
  const admin = (opened: OpenedWorkspace) => ({ user: opened.services.users.byUsername('admin')!, clientIp: '' });
  const file = (name: string) => ({ file: { name, size: 1, sha256: 'x', from: 0, lines: 0 }, who: 'cli:test' });
  const seen = { first_seen: '2026-01-01T00:00:00Z', last_seen: '2026-01-02T00:00:00Z' };

  test('services that appeared or went, a certificate replaced, names and users new: the net change over the visits', () => {
    const opened = workspace();
    const cert = (subject: string, fingerprint: string) => ({ subject, issuerdn: 'CN=CA', fingerprint });
    const service = (port: number, app: string, tls?: object) => ({ proto: 'tcp', port, values: [{ app_proto: app, ...seen, ...(tls ? { tls } : {}) }] });
    const at = (host_id: object) => [{ ip: '10.1.0.1', host_id: { ...seen, ...host_id } }];
    importEntries(opened.services, hostImport, at({ services: [service(443, 'tls', cert('CN=old', 'aa')), service(22, 'ssh')] }), admin(opened), null, file('a.json'));
    // A role added then gone again within the range is no change; a certificate replaced twice is one change.
    importEntries(opened.services, hostImport, at({ roles: [{ name: 'printer' }], services: [service(443, 'tls', cert('CN=mid', 'bb')), service(22, 'ssh')] }), admin(opened), null, file('b.json'));
    importEntries(
      opened.services,
      hostImport,
      at({ hostname: [{ host: 'Web.Example', ...seen }], username: [{ user: 'alice', ...seen }], services: [service(443, 'tls', cert('CN=new', 'cc')), service(8080, 'http')] }),
      admin(opened),
      null,
      file('c.json'),
    );
    const { visits } = opened.services;
    const comparison = visits.compare(visits.resolve({ visit: 1 }, 'since'), visits.latest(), 100);
    expect(comparison.changes).toEqual([
      { kind: 'service_added', ip: '10.1.0.1', value: '8080/tcp http', previous: null },
      { kind: 'service_gone', ip: '10.1.0.1', value: '22/tcp ssh', previous: null },
      { kind: 'user_new', ip: '10.1.0.1', value: 'alice', previous: null },
      { kind: 'hostname_new', ip: '10.1.0.1', value: 'Web.Example', previous: null },
      { kind: 'tls_changed', ip: '10.1.0.1', value: '443/tcp tls: CN=new', previous: 'CN=old' },
    ]);
    expect(comparison.totals.role_new).toBe(0);
    // From the second visit on, the printer role went and is not reported; the certificate changed from the middle one.
    const later = visits.compare(visits.resolve({ visit: 2 }, 'since'), visits.latest(), 100);
    expect(later.changes.find((c) => c.kind === 'tls_changed')).toEqual({ kind: 'tls_changed', ip: '10.1.0.1', value: '443/tcp tls: CN=new', previous: 'CN=mid' });
  });

  test('not seen since and new, whether few or many of the hosts (found by their pks, or along the addresses)', () => {
    const opened = workspace();
    const all = Array.from({ length: 300 }, (_, i) => ({ ip: `10.3.${i >> 8}.${i & 255}`, host_id: seen }));
    importEntries(opened.services, hostImport, all, admin(opened), null, file('all.json'));
    // The second file leaves out one host (a third of a percent: few) and brings one.
    importEntries(opened.services, hostImport, [...all.filter((h) => h.ip !== '10.3.0.7'), { ip: '10.4.0.1', host_id: seen }], admin(opened), null, file('most.json'));
    // The third has only 10.3.0.1 (299 of 301 not seen: many).
    importEntries(opened.services, hostImport, [all[1]!], admin(opened), null, file('one.json'));
    const { visits } = opened.services;
    const few = visits.compare(visits.resolve({ visit: 1 }, 'since'), visits.resolve({ visit: 2 }, 'until'), 10);
    expect(few.changes).toEqual([
      { kind: 'host_new', ip: '10.4.0.1', value: null, previous: null },
      { kind: 'host_not_seen', ip: '10.3.0.7', value: null, previous: null },
    ]);
    const many = visits.compare(visits.resolve({ visit: 2 }, 'since'), visits.resolve({ visit: 3 }, 'until'), 3);
    expect(many.totals.host_not_seen).toBe(300);
    // The first three addresses in text order, 10.3.0.1 (seen) left out.
    expect(many.changes.map((c) => c.ip)).toEqual(['10.3.0.0', '10.3.0.10', '10.3.0.100']);
    const allNew = visits.compare(visits.resolve({ at: 0 }, 'since'), visits.latest(), 2);
    expect(allNew.changes.map((c) => c.ip)).toEqual(['10.3.0.0', '10.3.0.1']);
  });

  test(`only the last ${VISITS_KEPT} visits keep their detail; their rows stay, and a comparison reaching further names since`, () => {
    const opened = workspace();
    for (let i = 1; i <= VISITS_KEPT + 2; i++) importEntries(opened.services, hostImport, [{ ip: `10.2.0.${i}`, host_id: seen }], admin(opened), null, file(`${i}.json`));
    const { visits } = opened.services;
    expect(visits.page(0, 100).count).toBe(VISITS_KEPT + 2);
    const db = opened.services.store.db;
    expect(db.prepare('SELECT DISTINCT visit FROM host_visit_seen ORDER BY visit').pluck().all()).toEqual(Array.from({ length: VISITS_KEPT }, (_, i) => i + 3));
    expect(() => visits.compare(visits.resolve({ visit: 1 }, 'since'), visits.latest(), 10)).toThrow(/since: import 2 is older than the last 50/);
    const kept = visits.compare(visits.resolve({ visit: 2 }, 'since'), visits.latest(), 100);
    expect(kept.totals.host_new).toBe(VISITS_KEPT);
    // "New in" stays exact for a pruned visit: it is the host's own column; so do the new among "changed by".
    expect(hostIps(opened, visitHostSet(1, 'new'))).toEqual(['10.2.0.1']);
    expect(hostIps(opened, visitHostSet(1, 'changed'))).toEqual(['10.2.0.1']);
  });
});
