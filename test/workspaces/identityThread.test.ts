/**
 * Identities made on another thread (issue 10, throughput): the rows a refresh writes are the
 * rows made on its own thread, in the order the chunks were given; a thread that fails or does
 * not answer is given up and the rows are made here, so that a refresh never waits forever.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { EvidenceBatch } from '../../shared/eve/accumulate';
import { InlineIdentities, type IdentityRecord, type IdentitySource } from '../../shared/eve/identity';
import { databaseSource } from '../../electron/server/store/database';
import type { GatheredBatch } from '../../electron/server/store/evidence';
import { IdentityThread, packRecords, unpackRecords } from '../../electron/workspaces/identityThread';
import { ChunkClaims, STAGED_CHUNK, writeStagedIdentities } from '../../electron/workspaces/stagedIdentities';
import { openWorkspace, type OpenedWorkspace } from '../../electron/workspaces/openWorkspace';

const HOME = ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16'];

const threads: IdentityThread[] = [];
const cleanups: (() => void)[] = [];
afterEach(async () => {
  for (const thread of threads.splice(0)) await thread.close();
  for (const cleanup of cleanups.splice(0).reverse()) cleanup();
});

function workspace(): OpenedWorkspace {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'outpost-identities-'));
  const opened = openWorkspace({ file: path.join(dir, 'ws.sqlite3'), instance: { name: 'outpost', version: 'test', address: '127.0.0.1' } });
  cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  cleanups.push(() => opened.close());
  return opened;
}

/** Evidence of `count` addresses from `from`, seen at `at` (seconds): a host name, a service, an alert for some. */
function batch(from: number, count: number, at: number, name: string): GatheredBatch {
  const evidence = new EvidenceBatch();
  for (let n = from; n < from + count; n++) {
    const ip = `10.1.${Math.floor(n / 250)}.${(n % 250) + 1}`;
    const micros = (1_700_000_000 + at) * 1_000_000 + n;
    evidence.add({
      at: micros,
      alerted: n % 4 === 0 ? [ip] : [],
      evidence: [
        { ip, list: 'hostname', key: `${name}-${n}.corp`, item: { host: `${name}-${n}.corp` } },
        { ip, list: 'services', key: 'TCP/443/tls', item: { proto: 'TCP', port: 443, app_proto: 'tls', tls: { subject: `CN=${name}`, issuerdn: 'CN=ca', fingerprint: 'aa' } } },
      ],
    });
  }
  return evidence.inKeyOrder();
}

function started(timeoutMs?: number): IdentityThread {
  const thread = IdentityThread.start(timeoutMs);
  expect(thread, 'worker threads run here').toBeDefined();
  threads.push(thread!);
  return thread!;
}

/** A chunk of hosts: some seen only here, some with a central part, one with a value of every kind. */
function chunk(n: number): IdentitySource[] {
  const at = 1_700_000_000_000_000 + n * 1_000_000;
  return Array.from({ length: 8 }, (_, i) => ({
    ip: `10.${n}.0.${i + 1}`,
    central:
      i % 3 === 0
        ? JSON.stringify({ first_seen: '2023-01-01T00:00:00.000000+00:00', last_seen: '2023-01-02T00:00:00.000000+00:00', hostname: [{ host: `central-${n}-${i}`, first_seen: '2023-01-01T00:00:00.000000+00:00', last_seen: '2023-01-02T00:00:00.000000+00:00' }] })
        : null,
    centralHits: i % 3 === 0 ? 7 : null,
    hits: i,
    first: at,
    last: at + 500,
    values: [
      ['hostname', `host-${n}-${i}.corp`, JSON.stringify({ host: `host-${n}-${i}.corp` }), at, at + 100],
      ['services', 'TCP/443/tls', JSON.stringify({ proto: 'TCP', port: 443, app_proto: 'tls', tls: { subject: 'CN=x', issuerdn: 'CN=y', fingerprint: 'aa' } }), at, at + 200],
      ['username', `user${i}`, JSON.stringify({ user: `user${i}` }), at + 1, at + 2],
    ] as const,
  }));
}

describe('identities made on another thread', () => {
  test('are the rows made here, chunk by chunk in the order given', () => {
    const thread = started();
    const here = new InlineIdentities();
    for (let n = 0; n < 5; n++) {
      thread.submit(chunk(n), HOME);
      here.submit(chunk(n), HOME);
    }
    expect(thread.pending).toBe(5);
    for (let n = 0; n < 5; n++) expect(thread.take()).toEqual(here.take());
    expect(thread.pending).toBe(0);
    expect(thread.givenUp).toBe(false);
    expect(() => thread.take()).toThrow(/no chunk/);
  });

  test('a thread that has ended is given up after its time and the rows are made here', async () => {
    const thread = started(300);
    // The worker goes before it answers anything.
    await thread.close();
    thread.submit(chunk(1), HOME);
    thread.submit(chunk(2), HOME);
    const here = new InlineIdentities();
    here.submit(chunk(1), HOME);
    here.submit(chunk(2), HOME);
    const begun = Date.now();
    expect(thread.take()).toEqual(here.take());
    expect(Date.now() - begun).toBeGreaterThanOrEqual(250);
    expect(thread.givenUp).toBe(true);
    // Given up: the next chunk is made here at once.
    const again = Date.now();
    expect(thread.take()).toEqual(here.take());
    expect(Date.now() - again).toBeLessThan(250);
  });

  test('a chunk the thread cannot make is made here', () => {
    const thread = started();
    const bad: IdentitySource[] = [{ ...chunk(3)[0]!, central: '{not json' }];
    thread.submit(bad, HOME);
    // Here too the bad chunk fails, as it would without a thread: the failure is the refresh's.
    expect(() => thread.take()).toThrow(SyntaxError);
    expect(thread.givenUp).toBe(true);
  });
});

describe('a staged import read by the identity thread from its own connection', () => {
  /** What the workspace holds before the import: its first import has nothing to merge with. */
  type Before = 'an earlier import and a central host' | 'nothing' | 'central hosts only';
  const BEFORE: readonly Before[] = ['an earlier import and a central host', 'nothing', 'central hosts only'];

  /**
   * A workspace with evidence known before (an earlier import) and a central part for one
   * address, or with central hosts only, or with nothing, and an import staged over it: half its
   * addresses seen again (later, the same service with a new subject), many new ones, in two
   * batches that overlap.
   */
  function stagedOver(before: Before = BEFORE[0]!): { opened: OpenedWorkspace; importPk: number } {
    const opened = workspace();
    const { evidence, hosts, store } = opened.services;
    if (before === 'an earlier import and a central host') {
      const earlier = evidence.begin();
      evidence.stage(earlier, batch(0, 300, 0, 'old'));
      store.write(() => {
        const ips = evidence.commit(earlier, [], { values: [], hosts: [] });
        hosts.refresh(ips);
      });
    }
    if (before !== 'nothing') {
      store.write(() => hosts.save({ ip: '10.1.0.201', hits: 50, hostId: { first_seen: '2020-01-01T00:00:00.000000+00:00', last_seen: '2020-01-02T00:00:00.000000+00:00' }, firstSeen: Date.UTC(2020, 0, 1) * 1000, lastSeen: Date.UTC(2020, 0, 2) * 1000 }));
      store.write(() => hosts.save({ ip: '10.9.0.1', hits: 3, hostId: { first_seen: '2020-01-01T00:00:00.000000+00:00', last_seen: '2020-01-02T00:00:00.000000+00:00' }, firstSeen: Date.UTC(2020, 0, 1) * 1000, lastSeen: Date.UTC(2020, 0, 2) * 1000 }));
    }
    const importPk = evidence.begin();
    evidence.stage(importPk, batch(150, 300, 100, 'new'));
    evidence.stage(importPk, batch(400, 200, 200, 'new'));
    return { opened, importPk };
  }

  /** The rows the commit and refresh made here give (every local address under new home networks when `everyLocal`). */
  function madeHere(everyLocal: boolean, before?: Before): IdentityRecord[] {
    const { opened, importPk } = stagedOver(before);
    const { evidence, store } = opened.services;
    const nets = everyLocal ? ['10.1.0.0/24'] : evidence.homeNets();
    return store.write(() => {
      const ips = evidence.commit(importPk, [], { values: [], hosts: [] });
      if (everyLocal) evidence.setHomeNets(nets);
      const here = new InlineIdentities();
      const locals = evidence.localRows(everyLocal ? evidence.localIps() : ips);
      const sources = [...locals].map(([ip, local]) => {
        const central = store.db.prepare("SELECT CASE WHEN central = '' THEN data ELSE central END AS data, central_hits AS hits FROM host_id WHERE ip = ?").get(ip) as { data: string | null; hits: number | null } | undefined;
        return { ip, central: central?.data ?? null, centralHits: central?.hits ?? null, ...local };
      });
      here.submit(sources, nets);
      return here.take();
    });
  }

  test.each(BEFORE)('gives the rows of the commit and refresh made here: values known before merged with those staged, central parts kept, every local address under new home networks (before: %s)', (before) => {
    for (const everyLocal of [false, true]) {
      const { opened, importPk } = stagedOver(before);
      const { evidence, store } = opened.services;
      const nets = everyLocal ? ['10.1.0.0/24'] : evidence.homeNets();
      const thread = started();
      const there = store.write(() => {
        const ips = evidence.stagedAddresses(importPk, everyLocal);
        const claims = ChunkClaims.create(ips.length);
        expect(thread.readStaged({ database: databaseSource(store.db)!, importPk, ips, claims: claims.shared, homeNets: nets })).toBe(true);
        evidence.commit(importPk, [], { values: [], hosts: [] });
        if (everyLocal) evidence.setHomeNets(nets);
        // Nothing claimed here: the thread makes every chunk, in order.
        const made: IdentityRecord[] = [];
        for (let chunk = thread.nextRead(); chunk !== undefined; chunk = thread.nextRead()) {
          if (chunk === 'failed' || chunk === 'later') throw new Error(`the staged read gave ${chunk}`);
          expect(chunk.chunk).toBe(made.length / STAGED_CHUNK);
          made.push(...chunk.rows);
        }
        return made;
      });
      expect(there.length).toBe(everyLocal && before === 'an earlier import and a central host' ? 600 : 450);
      expect(there).toEqual(madeHere(everyLocal, before));
      // Values staged in both batches are merged: the earliest first seen, the latest last seen and details.
      const again = there.find((r) => r.ip === '10.1.1.151')!;
      expect(again.first_seen).toBe((1_700_000_000 + 100) * 1_000_000 + 400);
      expect(again.last_seen).toBe((1_700_000_000 + 200) * 1_000_000 + 400);
      // The central part is merged in, and hits are the larger count.
      if (before !== 'nothing') expect(there.find((r) => r.ip === '10.1.0.201')).toMatchObject({ hits: 50, first_seen: Date.UTC(2020, 0, 1) * 1000 });
    }
  });

  test.each(BEFORE)('chunks claimed here are made here and skipped by the thread: every row written once, in address order (before: %s)', (before) => {
    for (const everyLocal of [false, true]) {
      const { opened, importPk } = stagedOver(before);
      const { evidence, hosts, store } = opened.services;
      const nets = everyLocal ? ['10.1.0.0/24'] : evidence.homeNets();
      const thread = started();
      const lastPk = (store.db.prepare('SELECT max(pk) FROM host_id').pluck().get() as number) ?? 0;
      store.write(() => {
        const ips = evidence.stagedAddresses(importPk, everyLocal);
        const claims = ChunkClaims.create(ips.length);
        expect(claims.count).toBeGreaterThan(6);
        // Some chunks taken here before the thread starts, as a late thread's would be.
        for (const chunk of [0, 2, 3, claims.count - 1]) expect(claims.claim(chunk, 'here')).toBe(true);
        expect(thread.readStaged({ database: databaseSource(store.db)!, importPk, ips, claims: claims.shared, homeNets: nets })).toBe(true);
        evidence.commit(importPk, [], { values: [], hosts: [] });
        if (everyLocal) evidence.setHomeNets(nets);
        expect(writeStagedIdentities({ thread, ips, claims, homeNets: nets }, hosts)).toBe(true);
      });
      expect(thread.givenUp).toBe(false);
      const expected = madeHere(everyLocal, before);
      const written = store.db.prepare('SELECT ip, hits, first_seen, last_seen, hostnames, data FROM host_id WHERE ip IN (SELECT value FROM json_each(?)) ORDER BY ip').all(JSON.stringify(expected.map((r) => r.ip)));
      expect(written).toEqual(expected);
      // New addresses numbered in address order, whichever thread made them.
      const fresh = store.db.prepare('SELECT ip FROM host_id WHERE pk > ? ORDER BY pk').pluck().all(lastPk) as string[];
      expect(fresh.length).toBeGreaterThan(100);
      expect(fresh).toEqual([...fresh].sort());
    }
  });

  test('a database the thread cannot open: the read fails, the thread is given up and the rows are made here', () => {
    const thread = started();
    const claims = ChunkClaims.create(1).shared;
    expect(thread.readStaged({ database: { file: '/nonexistent/ws.sqlite3', module: databaseSource(workspace().services.store.db)!.module }, importPk: 1, ips: ['10.0.0.1'], claims, homeNets: HOME })).toBe(true);
    expect(thread.nextRead()).toBe('failed');
    expect(thread.givenUp).toBe(true);
    expect(thread.readStaged({ database: { file: '/nonexistent/ws.sqlite3', module: 'x' }, importPk: 1, ips: ['10.0.0.1'], claims, homeNets: HOME })).toBe(false);
  });

  test('rows cross between threads packed, and come back as they were (any text)', () => {
    const records: IdentityRecord[] = [
      { ip: '10.0.0.1', hits: 3, first_seen: 1_700_000_000_000_001, last_seen: 1_700_000_000_000_002, hostnames: 'a.corp b.corp', data: '{"x":"é"}' },
      { ip: 'fe80::1', hits: 0, first_seen: 0, last_seen: 0, hostnames: '', data: '{}' },
      { ip: '10.0.0.2', hits: 1, first_seen: 5, last_seen: 6, hostnames: 'ünï 😀', data: '{"y":"\u0000😀"}' },
    ];
    expect(unpackRecords(packRecords(records))).toEqual(records);
    expect(unpackRecords(packRecords([]))).toEqual([]);
  });
});

