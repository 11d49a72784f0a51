/**
 * What an EVE import must make of a log, stated on small hand-made logs (docs/eve.md, api.md §7):
 * details kept from the events that carry them, whatever the order; protocols in lower case;
 * addresses and times checked, what is not stored counted; two imports of one log at once
 * counting its alerts once; folders holding odd entries; lines nested too deep; host files' times
 * served in UTC; a file not taken for another that merely looks like it.
 *
 * Every event is written here by hand, and every expected value is worked out by hand from those
 * events (the comments say how): none is copied from the program's output (style.md, "Derived data").
 * The logs are in their real order (application events, then the flow that closes the connection)
 * unless a test is about the order.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { fileSources, importEve, type EveSummary } from '../../electron/workspaces/eveImport';
import { openWorkspace, type OpenedWorkspace } from '../../electron/workspaces/openWorkspace';
import type { ApiRequest } from '../../electron/server/http/types';
import { prng } from '../helpers/prng';
import { tempWorkspaces } from '../helpers/tempWorkspaces';

const ROOT = path.resolve(__dirname, '../..');
const CLI = path.join(ROOT, 'dist/node/outpost.cjs');
const HOSTS = '/rest/appliances/host_id';

// ---------------------------------------------------------------------------------------------
// Workspaces, logs and the API

const { cleanups, tempDir, workspace } = tempWorkspaces('outpost-eve-truth-');

type Event = Record<string, unknown>;

/** A log of these events, one JSON line each, written as `name` in a folder of its own. */
function writeLog(events: readonly Event[], name = 'eve.json', dir = tempDir()): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, events.map((e) => `${JSON.stringify(e)}\n`).join(''));
  return file;
}

/** The import of paths as the command makes it: fileSources, then importEve. */
async function importPaths(opened: OpenedWorkspace, paths: string[]): Promise<EveSummary> {
  const { sources, ignored } = fileSources(paths);
  return importEve(opened.services, { sources, ignored });
}

/** What the summary counts of values not stored (a field the import is to gain). */
type Dropped = Record<string, { count: number; first: string[] }>;
const droppedOf = (summary: EveSummary): Dropped | undefined => (summary as unknown as { dropped?: Dropped }).dropped;

async function call(opened: OpenedWorkspace, method: string, pathname: string, json?: unknown): Promise<{ status: number; body: any }> {
  const [pathOnly, query = ''] = pathname.split('?') as [string, string?];
  const body = json === undefined ? Buffer.alloc(0) : Buffer.from(JSON.stringify(json));
  const headers: Record<string, string> = { authorization: `Token ${opened.adminToken}`, host: 'localhost' };
  if (json !== undefined) {
    headers['content-type'] = 'application/json';
    headers['content-length'] = String(body.length);
  }
  const request: ApiRequest = { method, path: pathOnly, rawQuery: query, headers, body, scheme: 'http', remoteAddress: '127.0.0.1' };
  const answer = await opened.api(request);
  return { status: answer.status, body: answer.body === null ? null : JSON.parse(String(answer.body)) };
}

/** GET host_id/<ip>: the served entry. */
async function host(opened: OpenedWorkspace, ip: string): Promise<any> {
  const answer = await call(opened, 'GET', `${HOSTS}/${ip}`);
  expect(answer.status).toBe(200);
  return answer.body;
}

/** Every served entry, all pages of the list, by address. */
async function served(opened: OpenedWorkspace): Promise<Map<string, any>> {
  const out = new Map<string, any>();
  for (let page = 1; ; page++) {
    const answer = await call(opened, 'GET', `${HOSTS}/?page_size=500&ordering=ip&page=${page}`);
    expect(answer.status).toBe(200);
    for (const entry of answer.body.results) out.set(entry.ip, entry);
    if (answer.body.next === null) return out;
  }
}

const servedIps = async (opened: OpenedWorkspace) => [...(await served(opened)).keys()].sort();

/** The values of the service a host has on a port. */
async function serviceValues(opened: OpenedWorkspace, ip: string, port: number): Promise<unknown> {
  const entry = await host(opened, ip);
  const services = (entry.host_id?.services ?? []) as { port: number; values: unknown[] }[];
  return services.filter((s) => s.port === port).flatMap((s) => s.values);
}

function shuffled<T>(items: readonly T[], seed: number): T[] {
  const random = prng(seed);
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Hand-made events. Times are in Suricata's own form, UTC (+0000), so that what is served
// (`+00:00` for hosts and lists, `+0000` inside services) is read off them directly.

/** An SSH session: client 10.0.0.9:50000, server 10.0.0.1:22. */
const SSH_CONN = { src_ip: '10.0.0.9', src_port: 50000, dest_ip: '10.0.0.1', dest_port: 22, proto: 'TCP' };
const SSH_EVENT: Event = {
  timestamp: '2024-03-01T10:00:01.000000+0000',
  flow_id: 1001,
  event_type: 'ssh',
  ...SSH_CONN,
  app_proto: 'ssh',
  ssh: { client: { proto_version: '2.0', software_version: 'PuTTY_0.78' }, server: { proto_version: '2.0', software_version: 'OpenSSH_8.7' } },
};
/** The flow of that session, logged when it closed; it began half a second before the ssh event. */
const SSH_FLOW: Event = {
  timestamp: '2024-03-01T10:00:09.000000+0000',
  flow_id: 1001,
  event_type: 'flow',
  ...SSH_CONN,
  app_proto: 'ssh',
  flow: { pkts_toserver: 6, pkts_toclient: 5, bytes_toserver: 900, bytes_toclient: 1200, start: '2024-03-01T10:00:00.500000+0000', end: '2024-03-01T10:00:08.000000+0000', age: 8, state: 'closed', reason: 'timeout', alerted: false },
};
/** 10.0.0.1:22 from those two: seen from the flow's start to the flow's event; the server software from the ssh event. */
const SSH_VALUE = {
  app_proto: 'ssh',
  first_seen: '2024-03-01T10:00:00.500000+0000',
  last_seen: '2024-03-01T10:00:09.000000+0000',
  ssh: { server: { software_version: 'OpenSSH_8.7' } },
};

const CERT = { subject: 'C=US, O=Example Corp, CN=www.example.com', issuerdn: "C=US, O=Let's Encrypt, CN=R3", fingerprint: '3a:5c:9e:01:22:4f:6b:7d:88:90:ab:cd:ef:10:32:54:76:98:ba:dc' };
/** A TLS session with its certificate (client 10.0.0.9:50001, server 10.0.0.2:443), then a session resumed later (no certificate sent). */
const TLS_EVENTS: Event[] = [
  {
    timestamp: '2024-03-01T10:01:00.000000+0000',
    flow_id: 2001,
    event_type: 'tls',
    src_ip: '10.0.0.9',
    src_port: 50001,
    dest_ip: '10.0.0.2',
    dest_port: 443,
    proto: 'TCP',
    app_proto: 'tls',
    tls: { ...CERT, serial: '04:A1:B2', sni: 'www.example.com', version: 'TLS 1.2', notbefore: '2024-01-01T00:00:00', notafter: '2024-04-01T00:00:00', ja3: { hash: 'e7d705a3286e19ea42f587b344ee6865', string: '771,4865-4866,0-23,29-23,0' } },
  },
  {
    timestamp: '2024-03-01T10:01:30.000000+0000',
    flow_id: 2001,
    event_type: 'flow',
    src_ip: '10.0.0.9',
    src_port: 50001,
    dest_ip: '10.0.0.2',
    dest_port: 443,
    proto: 'TCP',
    app_proto: 'tls',
    flow: { pkts_toserver: 12, pkts_toclient: 14, bytes_toserver: 2100, bytes_toclient: 7400, start: '2024-03-01T10:00:59.000000+0000', end: '2024-03-01T10:01:20.000000+0000', age: 21, state: 'closed', reason: 'timeout', alerted: false },
  },
  {
    timestamp: '2024-03-01T10:05:00.000000+0000',
    flow_id: 2002,
    event_type: 'tls',
    src_ip: '10.0.0.9',
    src_port: 50002,
    dest_ip: '10.0.0.2',
    dest_port: 443,
    proto: 'TCP',
    app_proto: 'tls',
    tls: { sni: 'www.example.com', version: 'TLS 1.2', session_resumed: true, ja3: { hash: 'e7d705a3286e19ea42f587b344ee6865', string: '771,4865-4866,0-23,29-23,0' } },
  },
  {
    timestamp: '2024-03-01T10:05:30.000000+0000',
    flow_id: 2002,
    event_type: 'flow',
    src_ip: '10.0.0.9',
    src_port: 50002,
    dest_ip: '10.0.0.2',
    dest_port: 443,
    proto: 'TCP',
    app_proto: 'tls',
    flow: { pkts_toserver: 8, pkts_toclient: 7, bytes_toserver: 1500, bytes_toclient: 1900, start: '2024-03-01T10:04:59.000000+0000', end: '2024-03-01T10:05:20.000000+0000', age: 21, state: 'closed', reason: 'timeout', alerted: false },
  },
];
/** 10.0.0.2:443: from the first flow's start to the last flow's event; the certificate of the one session that sent it. */
const TLS_VALUE = { app_proto: 'tls', first_seen: '2024-03-01T10:00:59.000000+0000', last_seen: '2024-03-01T10:05:30.000000+0000', tls: CERT };

/** An HTTP request answered by nginx (client 10.0.0.9:50003, server 10.0.0.3:80), then its flow. */
const HTTP_EVENTS: Event[] = [
  {
    timestamp: '2024-03-01T10:02:00.000000+0000',
    flow_id: 3001,
    event_type: 'http',
    src_ip: '10.0.0.9',
    src_port: 50003,
    dest_ip: '10.0.0.3',
    dest_port: 80,
    proto: 'TCP',
    app_proto: 'http',
    tx_id: 0,
    http: { hostname: 'intranet.example', url: '/', http_user_agent: 'curl/8.5.0', http_content_type: 'text/html', server: 'nginx/1.24', http_method: 'GET', protocol: 'HTTP/1.1', status: 200, length: 612 },
  },
  {
    timestamp: '2024-03-01T10:02:03.000000+0000',
    flow_id: 3001,
    event_type: 'flow',
    src_ip: '10.0.0.9',
    src_port: 50003,
    dest_ip: '10.0.0.3',
    dest_port: 80,
    proto: 'TCP',
    app_proto: 'http',
    flow: { pkts_toserver: 5, pkts_toclient: 4, bytes_toserver: 420, bytes_toclient: 980, start: '2024-03-01T10:01:59.900000+0000', end: '2024-03-01T10:02:00.100000+0000', age: 1, state: 'closed', reason: 'timeout', alerted: false },
  },
];
const HTTP_VALUE = { app_proto: 'http', first_seen: '2024-03-01T10:01:59.900000+0000', last_seen: '2024-03-01T10:02:03.000000+0000', http: { server: 'nginx/1.24' } };

/** A TLS handshake to 10.0.0.4:443 from `src` at `timestamp`, sending `cert`. */
function tlsWithCert(timestamp: string, src: [string, number], cert: { subject: string; issuerdn: string; fingerprint: string }): Event {
  return { timestamp, flow_id: src[1], event_type: 'tls', src_ip: src[0], src_port: src[1], dest_ip: '10.0.0.4', dest_port: 443, proto: 'TCP', app_proto: 'tls', tls: { ...cert, sni: 'tie.example', version: 'TLS 1.3' } };
}
/** Two certificates; every field of B is greater than A's, byte for byte, so B's detail JSON is the greater in any key order. */
const CERT_A = { subject: 'CN=a.tie.example', issuerdn: 'CN=Issuer A', fingerprint: 'aa:aa:aa:aa:aa:aa:aa:aa:aa:aa:aa:aa:aa:aa:aa:aa:aa:aa:aa:aa' };
const CERT_B = { subject: 'CN=b.tie.example', issuerdn: 'CN=Issuer B', fingerprint: 'bb:bb:bb:bb:bb:bb:bb:bb:bb:bb:bb:bb:bb:bb:bb:bb:bb:bb:bb:bb' };
const TIE = '2024-03-01T11:00:00.000000+0000';
const TIE_EVENTS: Event[] = [tlsWithCert(TIE, ['10.0.0.9', 51000], CERT_A), tlsWithCert(TIE, ['10.0.0.10', 51001], CERT_B)];

/** The name of 10.0.0.9 in a DNS answer (asked by 10.0.0.10 of the resolver 10.0.0.53). */
function dnsName(timestamp: string, name: string, ip: string): Event {
  return {
    timestamp,
    flow_id: 4001,
    event_type: 'dns',
    src_ip: '10.0.0.53',
    src_port: 53,
    dest_ip: '10.0.0.10',
    dest_port: 40000,
    proto: 'UDP',
    app_proto: 'dns',
    dns: { version: 3, type: 'response', id: 4242, flags: '8180', qr: true, rd: true, ra: true, opcode: 0, rcode: 'NOERROR', queries: [{ rrname: name, rrtype: 'A' }], answers: [{ rrname: name, rrtype: 'A', ttl: 300, rdata: ip }] },
  };
}
/** 10.0.0.9's NetBIOS name in an NTLMSSP authentication to the file server 10.0.0.20. */
function ntlmName(timestamp: string, name: string): Event {
  return {
    timestamp,
    flow_id: 5001,
    event_type: 'smb',
    src_ip: '10.0.0.9',
    src_port: 50010,
    dest_ip: '10.0.0.20',
    dest_port: 445,
    proto: 'TCP',
    app_proto: 'smb',
    smb: { id: 3, dialect: '3.11', command: 'SMB2_COMMAND_SESSION_SETUP', status: 'STATUS_SUCCESS', status_code: '0x0', session_id: 1, tree_id: 0, ntlmssp: { domain: 'CORP', user: 'alice', host: name, version: '10.0 build 19041' } },
  };
}

// ---------------------------------------------------------------------------------------------

describe('1. a detail of a service value is the latest one seen; an event without it changes only the times', () => {
  test('the flow that closes an SSH session keeps the server software the ssh event gave', async () => {
    const opened = workspace();
    await importPaths(opened, [writeLog([SSH_EVENT, SSH_FLOW])]);
    expect(await serviceValues(opened, '10.0.0.1', 22)).toEqual([SSH_VALUE]);
  });

  test('a resumed TLS session, which sends no certificate, keeps the certificate seen before', async () => {
    const opened = workspace();
    await importPaths(opened, [writeLog(TLS_EVENTS)]);
    expect(await serviceValues(opened, '10.0.0.2', 443)).toEqual([TLS_VALUE]);
  });

  test('the flow of an HTTP request keeps the server software of its answer', async () => {
    const opened = workspace();
    await importPaths(opened, [writeLog(HTTP_EVENTS)]);
    expect(await serviceValues(opened, '10.0.0.3', 80)).toEqual([HTTP_VALUE]);
  });

  test('the same events in any order, or split in two files imported either way round, give the same identities', async () => {
    // In time order; the last four at the same instant, two ties (a certificate, a spelling), each cut in two by `cut`.
    const events = [
      SSH_EVENT,
      SSH_FLOW,
      TLS_EVENTS[0]!,
      TLS_EVENTS[1]!,
      ...HTTP_EVENTS,
      TLS_EVENTS[2]!,
      TLS_EVENTS[3]!,
      TIE_EVENTS[0]!,
      dnsName(TIE, 'desktop-a', '10.0.0.9'),
      TIE_EVENTS[1]!,
      ntlmName(TIE, 'DESKTOP-A'),
    ];
    const cut = 10;
    const orders: { name: string; files: Event[][] }[] = [
      { name: 'real order', files: [events] },
      { name: 'reversed', files: [[...events].reverse()] },
      ...[11, 12, 13].map((seed) => ({ name: `shuffled (seed ${seed})`, files: [shuffled(events, seed)] })),
      { name: 'two files, the earlier first', files: [events.slice(0, cut), events.slice(cut)] },
      { name: 'two files, the later first', files: [events.slice(cut), events.slice(0, cut)] },
    ];
    const results = new Map<string, Map<string, any>>();
    for (const order of orders) {
      const opened = workspace();
      const dir = tempDir();
      // One import per file, one after the other.
      for (const [i, part] of order.files.entries()) await importPaths(opened, [writeLog(part, `part-${i}.json`, dir)]);
      // The details each server gets whatever the order (a-c above; the ties as in the two tests below).
      expect.soft(await serviceValues(opened, '10.0.0.1', 22), order.name).toEqual([SSH_VALUE]);
      expect.soft(await serviceValues(opened, '10.0.0.2', 443), order.name).toEqual([TLS_VALUE]);
      expect.soft(await serviceValues(opened, '10.0.0.3', 80), order.name).toEqual([HTTP_VALUE]);
      expect.soft(await serviceValues(opened, '10.0.0.4', 443), order.name).toEqual([{ app_proto: 'tls', first_seen: '2024-03-01T11:00:00.000000+0000', last_seen: '2024-03-01T11:00:00.000000+0000', tls: CERT_B }]);
      expect.soft((await host(opened, '10.0.0.9')).host_id.hostname, order.name).toEqual([{ host: 'desktop-a', first_seen: '2024-03-01T11:00:00.000000+00:00', last_seen: '2024-03-01T11:00:00.000000+00:00' }]);
      results.set(order.name, await served(opened));
    }
    const [first, ...rest] = [...results.entries()];
    for (const [name, identities] of rest) expect.soft(Object.fromEntries(identities), `${name} against ${first![0]}`).toEqual(Object.fromEntries(first![1]));
  });

  test('two certificates seen at the same instant: the one whose detail is the greater byte for byte wins, in either order', async () => {
    for (const events of [TIE_EVENTS, [...TIE_EVENTS].reverse()]) {
      const opened = workspace();
      await importPaths(opened, [writeLog(events)]);
      expect.soft(await serviceValues(opened, '10.0.0.4', 443)).toEqual([{ app_proto: 'tls', first_seen: '2024-03-01T11:00:00.000000+0000', last_seen: '2024-03-01T11:00:00.000000+0000', tls: CERT_B }]);
    }
    // Compared as UTF-8 bytes, not as JavaScript's UTF-16 units: U+1F600 (F0 9F 98 80) is greater
    // than U+FF21 (EF BC A1), although its first UTF-16 unit (D83D) is less than FF21.
    const fullwidth = { subject: 'CN=\uFF21', issuerdn: 'CN=Same Issuer', fingerprint: '01:02:03:04:05:06:07:08:09:0a:0b:0c:0d:0e:0f:10:11:12:13:14' };
    const emoji = { ...fullwidth, subject: 'CN=\u{1F600}' };
    const pair = [tlsWithCert(TIE, ['10.0.0.9', 52000], fullwidth), tlsWithCert(TIE, ['10.0.0.10', 52001], emoji)];
    for (const events of [pair, [...pair].reverse()]) {
      const opened = workspace();
      await importPaths(opened, [writeLog(events)]);
      expect.soft(await serviceValues(opened, '10.0.0.4', 443)).toEqual([{ app_proto: 'tls', first_seen: '2024-03-01T11:00:00.000000+0000', last_seen: '2024-03-01T11:00:00.000000+0000', tls: emoji }]);
    }
  });

  test('a host name in two spellings is one value shown as the latest; at the same instant the greater byte for byte ("desktop-a"), in either order', async () => {
    // DNS at 10:00 says desktop-a, NTLMSSP at 10:10 says DESKTOP-A: one name, seen 10:00 to 10:10, spelt as at 10:10.
    const apart = [dnsName('2024-03-01T10:00:00.000000+0000', 'desktop-a', '10.0.0.9'), ntlmName('2024-03-01T10:10:00.000000+0000', 'DESKTOP-A')];
    for (const events of [apart, [...apart].reverse()]) {
      const opened = workspace();
      await importPaths(opened, [writeLog(events)]);
      expect.soft((await host(opened, '10.0.0.9')).host_id.hostname).toEqual([{ host: 'DESKTOP-A', first_seen: '2024-03-01T10:00:00.000000+00:00', last_seen: '2024-03-01T10:10:00.000000+00:00' }]);
    }
    // Both at 10:00: "desktop-a" (0x64…) is greater than "DESKTOP-A" (0x44…).
    const together = [dnsName('2024-03-01T10:00:00.000000+0000', 'desktop-a', '10.0.0.9'), ntlmName('2024-03-01T10:00:00.000000+0000', 'DESKTOP-A')];
    for (const events of [together, [...together].reverse()]) {
      const opened = workspace();
      await importPaths(opened, [writeLog(events)]);
      expect.soft((await host(opened, '10.0.0.9')).host_id.hostname).toEqual([{ host: 'desktop-a', first_seen: '2024-03-01T10:00:00.000000+00:00', last_seen: '2024-03-01T10:00:00.000000+00:00' }]);
    }
  });
});

describe('2. a service\'s protocol is served in lower case, as the central server answers it', () => {
  test('services from a log are "tcp" and "udp"', async () => {
    const opened = workspace();
    const dnsFlow: Event = {
      timestamp: '2024-03-01T10:03:00.000000+0000',
      flow_id: 6001,
      event_type: 'flow',
      src_ip: '10.0.0.9',
      src_port: 40001,
      dest_ip: '10.0.0.53',
      dest_port: 53,
      proto: 'UDP',
      app_proto: 'dns',
      flow: { pkts_toserver: 1, pkts_toclient: 1, bytes_toserver: 74, bytes_toclient: 90, start: '2024-03-01T10:02:30.000000+0000', end: '2024-03-01T10:02:30.010000+0000', age: 0, state: 'established', reason: 'timeout', alerted: false },
    };
    await importPaths(opened, [writeLog([SSH_EVENT, SSH_FLOW, dnsFlow])]);
    const protocols = async (ip: string) => ((await host(opened, ip)).host_id.services as { proto: string; port: number }[]).map((s) => [s.proto, s.port]);
    expect(await protocols('10.0.0.1')).toEqual([['tcp', 22]]);
    expect(await protocols('10.0.0.53')).toEqual([['udp', 53]]);
  });

  test('a host file\'s "TCP" is served as "tcp"', async () => {
    const opened = workspace();
    const seen = { first_seen: '2024-02-01T00:00:00.000000+00:00', last_seen: '2024-02-02T00:00:00.000000+00:00' };
    const entry = { ip: '10.0.0.1', host_id: { ...seen, services: [{ proto: 'TCP', port: 22, values: [{ app_proto: 'ssh', first_seen: '2024-02-01T00:00:00.000000+0000', last_seen: '2024-02-02T00:00:00.000000+0000' }] }] } };
    expect((await call(opened, 'POST', `${HOSTS}/import/`, [entry])).status).toBe(201);
    expect((await host(opened, '10.0.0.1')).host_id.services.map((s: { proto: string }) => s.proto)).toEqual(['tcp']);
  });

  test('a host file\'s tcp/22 and the log\'s SSH server on port 22 are one service', async () => {
    const opened = workspace();
    const seen = { first_seen: '2024-02-01T00:00:00.000000+00:00', last_seen: '2024-02-02T00:00:00.000000+00:00' };
    const entry = { ip: '10.0.0.1', host_id: { ...seen, services: [{ proto: 'tcp', port: 22, values: [{ app_proto: 'ssh', first_seen: '2024-02-01T00:00:00.000000+0000', last_seen: '2024-02-02T00:00:00.000000+0000' }] }] } };
    expect((await call(opened, 'POST', `${HOSTS}/import/`, [entry])).status).toBe(201);
    await importPaths(opened, [writeLog([SSH_EVENT, SSH_FLOW])]);
    const services = (await host(opened, '10.0.0.1')).host_id.services as { proto: string; port: number; values: { app_proto: string; first_seen: string; last_seen: string }[] }[];
    // One ssh value, from the host file's first sight (1 February) to the flow's event (1 March).
    expect(services.map((s) => ({ proto: s.proto, port: s.port, values: s.values.map((v) => [v.app_proto, v.first_seen, v.last_seen]) }))).toEqual([
      { proto: 'tcp', port: 22, values: [['ssh', '2024-02-01T00:00:00.000000+0000', '2024-03-01T10:00:09.000000+0000']] },
    ]);
  });
});

describe('3. addresses and times are checked; values not stored are counted by reason', () => {
  /** A DNS response naming `name` at `rdata`: v3 `answers[]`, or v2 `grouped`. */
  function answer(rdata: string, name: string, form: 'answers' | 'grouped' = 'answers'): Event {
    const rrtype = rdata.includes(':') ? 'AAAA' : 'A';
    const dns =
      form === 'answers'
        ? { version: 3, type: 'response', id: 7, flags: '8180', qr: true, rd: true, ra: true, opcode: 0, rcode: 'NOERROR', queries: [{ rrname: name, rrtype }], answers: [{ rrname: name, rrtype, ttl: 60, rdata }] }
        : { version: 2, type: 'answer', id: 7, flags: '8180', qr: true, rd: true, ra: true, rrname: name, rrtype, rcode: 'NOERROR', grouped: { [rrtype]: [rdata] } };
    return { timestamp: '2024-03-01T10:00:00.000000+0000', flow_id: 7001, event_type: 'dns', src_ip: '10.0.0.53', src_port: 53, dest_ip: '10.0.0.10', dest_port: 40000, proto: 'UDP', app_proto: 'dns', dns };
  }
  /** The hosts a DNS answer to 10.2.2.2 gives (the resolver and the asker get no evidence from a DNS event). */
  const GOOD = answer('10.2.2.2', 'good.example');

  test('an answer that is no address creates no host and is counted as "not a valid address"', async () => {
    const opened = workspace();
    const log = writeLog([
      answer('....', 'bad1.example'),
      answer('::::', 'bad2.example'),
      answer('999.999.999.999', 'bad3.example', 'grouped'),
      answer('300.1.1.1', 'bad4.example'),
      answer('010.001.001.001', 'bad5.example', 'grouped'),
      GOOD,
    ]);
    const summary = await importPaths(opened, [log]);
    expect.soft(await servedIps(opened)).toEqual(['10.2.2.2']);
    expect.soft(droppedOf(summary)).toEqual({ 'not a valid address': { count: 5, first: [1, 2, 3, 4, 5].map((line) => `${log}:${line}`) } });
    expect.soft(summary.skipped).toEqual({});
  });

  test('an address written in a long or IPv4-mapped form is stored as written canonically, and found by that form', async () => {
    const opened = workspace();
    await importPaths(opened, [writeLog([answer('2001:DB8:0:0:0:0:0:5', 'v6.example'), answer('::ffff:10.1.1.1', 'mapped.example'), answer('2001:0db8:0000:0000:0000:0000:0000:0006', 'v6b.example', 'grouped'), GOOD])]);
    expect(await servedIps(opened)).toEqual(['10.1.1.1', '10.2.2.2', '2001:db8::5', '2001:db8::6']);
    const named = async (ip: string) => ((await host(opened, ip)).host_id?.hostname ?? []).map((h: { host: string }) => h.host);
    expect(await named('2001:db8::5')).toEqual(['v6.example']);
    expect(await named('10.1.1.1')).toEqual(['mapped.example']);
    expect(await named('2001:db8::6')).toEqual(['v6b.example']);
  });

  test('an answer that is no host\'s address (unspecified, loopback, multicast, broadcast) creates no host and is counted as "not a host address"', async () => {
    const opened = workspace();
    const log = writeLog([
      answer('0.0.0.0', 'zero.example'),
      answer('::', 'zero6.example'),
      answer('127.0.0.1', 'loop.example', 'grouped'),
      answer('::1', 'loop6.example', 'grouped'),
      answer('224.0.0.251', 'mdns.example'),
      answer('ff02::1', 'all-nodes.example'),
      answer('255.255.255.255', 'broadcast.example'),
      // ::1 written in full.
      answer('0:0:0:0:0:0:0:1', 'loop6-long.example'),
      GOOD,
    ]);
    const summary = await importPaths(opened, [log]);
    expect.soft(await servedIps(opened)).toEqual(['10.2.2.2']);
    // Eight values on lines 1-8; the first five named, as for skipped lines.
    expect.soft(droppedOf(summary)).toEqual({ 'not a host address': { count: 8, first: [1, 2, 3, 4, 5].map((line) => `${log}:${line}`) } });
  });

  test('a time past year 9999 or before year 1 once in UTC is no valid timestamp; every time served can be imported back', async () => {
    const opened = workspace();
    const ssh = (timestamp: string, client: string, server: string): Event => ({ ...SSH_EVENT, timestamp, src_ip: client, dest_ip: server });
    const log = writeLog([
      SSH_EVENT,
      // 9999-12-31T23:59:59 at -23:59 is 10000-01-01T23:58:59Z; 0001-01-01T00:30 at +01:00 is 0000-12-31T23:30Z.
      ssh('9999-12-31T23:59:59.000000-2359', '10.0.0.30', '10.0.0.31'),
      ssh('0001-01-01T00:30:00.000000+01:00', '10.0.0.32', '10.0.0.33'),
      { timestamp: '9999-12-31T23:59:00.000000-23:59', event_type: 'alert', src_ip: '10.0.0.34', src_port: 50000, dest_ip: '10.0.0.35', dest_port: 80, proto: 'TCP', alert: { action: 'allowed', gid: 1, signature_id: 2000001, rev: 1, signature: 'test', category: 'test', severity: 3 } },
      ssh('0001-01-01T00:59:59.999999+0100', '10.0.0.36', '10.0.0.37'),
      // A flow whose start is before year 1 in UTC: the start is not used (the flow counts from its event).
      { ...SSH_FLOW, flow: { ...(SSH_FLOW.flow as object), start: '0001-01-01T00:00:00.000000+0100' } },
    ]);
    const summary = await importPaths(opened, [log]);
    expect.soft(summary.skipped).toEqual({ 'no valid timestamp': { count: 4, first: [2, 3, 4, 5].map((line) => `${log}:${line}`) } });
    expect.soft(await servedIps(opened)).toEqual(['10.0.0.1', '10.0.0.9']);
    // 10.0.0.1 was first seen at the ssh event (10:00:01), last at the flow's event (10:00:09).
    const server = (await host(opened, '10.0.0.1')).host_id;
    expect.soft([server.first_seen, server.last_seen]).toEqual(['2024-03-01T10:00:01.000000+00:00', '2024-03-01T10:00:09.000000+00:00']);
    const entries = [...(await served(opened)).values()].map((e) => ({ ip: e.ip, hits: e.hits, host_id: e.host_id }));
    const again = await call(workspace(), 'POST', `${HOSTS}/import/`, entries);
    expect.soft(again, JSON.stringify(again.body)).toMatchObject({ status: 201 });
  });
});

// ---------------------------------------------------------------------------------------------

/**
 * A log of 30 alerts between 10.0.0.5 and 10.0.0.6 spread among `flows` flows (about 500 bytes
 * each) between two other hosts: long enough to read that two imports started together overlap.
 */
function alertLog(dir: string, flows: number): string {
  const lines: string[] = [];
  const flow = (i: number) =>
    JSON.stringify({
      timestamp: `2024-03-01T10:${String(Math.floor(i / 6000) % 60).padStart(2, '0')}:${String(Math.floor(i / 100) % 60).padStart(2, '0')}.${String(i % 1_000_000).padStart(6, '0')}+0000`,
      flow_id: 900000 + i,
      event_type: 'flow',
      src_ip: '10.0.0.7',
      src_port: 1024 + (i % 60000),
      dest_ip: '10.0.0.8',
      dest_port: 443,
      proto: 'TCP',
      app_proto: 'tls',
      flow: { pkts_toserver: 3, pkts_toclient: 2, bytes_toserver: 300, bytes_toclient: 200, start: '2024-03-01T09:59:00.000000+0000', end: '2024-03-01T09:59:30.000000+0000', age: 30, state: 'closed', reason: 'timeout', alerted: false },
      padding: 'x'.repeat(64),
    });
  for (let i = 0; i < flows; i++) {
    lines.push(flow(i));
    if (i % (flows / 30) === flows / 60) {
      const n = lines.length;
      lines.push(
        JSON.stringify({ timestamp: '2024-03-01T10:30:00.000000+0000', flow_id: n, event_type: 'alert', src_ip: '10.0.0.5', src_port: 40000 + n, dest_ip: '10.0.0.6', dest_port: 80, proto: 'TCP', app_proto: 'http', alert: { action: 'allowed', gid: 1, signature_id: 2000002, rev: 1, signature: 'ET TEST', category: 'Misc activity', severity: 3 } }),
      );
    }
  }
  const file = path.join(dir, 'eve.json');
  fs.writeFileSync(file, lines.join('\n') + '\n');
  return file;
}

interface Ran {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

function started(args: string[]): { child: ChildProcess; done: Promise<Ran> } {
  const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  const done = new Promise<Ran>((resolve) => child.on('close', (status) => resolve({ status, stdout, stderr })));
  return { child, done };
}

/** `outpost serve` on a data folder, its port chosen free; its URL once it listens. */
async function serve(data: string, token: string): Promise<string> {
  const { child, done } = started(['serve', '--data', data, '--port', '0', '--admin-token', token]);
  cleanups.push(async () => {
    child.kill('SIGINT');
    await done;
  });
  let out = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  const deadline = Date.now() + 20_000;
  while (!/listening on (\S+)/.test(out)) {
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`outpost serve did not start: ${out}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return /listening on (\S+)/.exec(out)![1]!;
}

/** POST a log to /app/hosts/import-eve as the page does, 64 KB at a time, `pauseMs` between chunks. */
function upload(base: string, token: string, bytes: Buffer, pauseMs: number): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(new URL('/app/hosts/import-eve?name=eve.json', base), { method: 'POST', headers: { Authorization: `Token ${token}`, 'Content-Type': 'application/octet-stream', 'Content-Length': bytes.length } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
    void (async () => {
      for (let at = 0; at < bytes.length; at += 64 * 1024) {
        req.write(bytes.subarray(at, at + 64 * 1024));
        await new Promise((r) => setTimeout(r, pauseMs));
      }
      req.end();
    })();
  });
}

function getJson(base: string, token: string, pathname: string): Promise<any> {
  return new Promise((resolve, reject) => {
    http
      .get(new URL(pathname, base), { headers: { Authorization: `Token ${token}` } }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve(JSON.parse(text)));
      })
      .on('error', reject);
  });
}

describe('4. two imports of the same log at once count its alerts once', () => {
  test('two `import-eve` commands started together on one data folder: both exit 0, 10.0.0.5 has its 30 hits, one says its lines were imported already', async () => {
    const dir = tempDir();
    const log = alertLog(dir, 48_000); // about 24 MB
    const data = path.join(dir, 'data');
    // The workspace exists before (as the command finds it most of the time): both commands go straight to the log.
    openWorkspace({ file: path.join(data, 'workspaces', 'default.sqlite3'), instance: { name: 'outpost', version: 'test', address: '127.0.0.1' } }).close();
    const [a, b] = await Promise.all([started(['import-eve', log, '--data', data]).done, started(['import-eve', log, '--data', data]).done]);
    expect.soft([a.status, b.status], a.stderr + b.stderr).toEqual([0, 0]);
    expect.soft(a.stdout + b.stdout).toContain('lines already imported');
    const opened = workspace(path.join(data, 'workspaces', 'default.sqlite3'));
    // 30 alert events with 10.0.0.5 as source: one hit each.
    expect.soft((await host(opened, '10.0.0.5')).hits).toBe(30);
    expect.soft((await host(opened, '10.0.0.6')).hits).toBe(30);
  }, 120_000);

  test('an upload to `outpost serve` while the command imports the same file: both succeed, 10.0.0.5 has its 30 hits', async () => {
    const dir = tempDir();
    const log = alertLog(dir, 24_000); // about 12 MB
    const data = path.join(dir, 'data');
    const token = 'c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3';
    const base = await serve(data, token);
    // The upload is sent over about two seconds; the command, started with it, reads the file in about one.
    const [uploaded, command] = await Promise.all([upload(base, token, fs.readFileSync(log), 10), started(['import-eve', log, '--data', data]).done]);
    expect.soft(uploaded.status, uploaded.body).toBe(200);
    expect.soft(command.status, command.stderr).toBe(0);
    expect.soft((await getJson(base, token, `${HOSTS}/10.0.0.5`)).hits).toBe(30);
  }, 120_000);
});

// ---------------------------------------------------------------------------------------------

describe('5. folders with odd entries, and odd files', () => {
  const NOT_EVE_NAME = 'not an EVE file name (eve.json, eve.json.1, eve.json.2.gz…)';

  test('a folder with a broken link, a looping link, a FIFO and another file: eve.json is imported and each other entry is listed with its reason', async () => {
    const dir = tempDir();
    writeLog([SSH_EVENT, SSH_FLOW], 'eve.json', dir);
    fs.symlinkSync(path.join(dir, 'gone.json'), path.join(dir, 'eve.json.1'));
    fs.symlinkSync(path.join(dir, 'eve.json.2'), path.join(dir, 'eve.json.2'));
    expect(spawnSync('mkfifo', [path.join(dir, 'eve.json.3')]).status).toBe(0);
    fs.writeFileSync(path.join(dir, 'notes.txt'), 'not a log\n');
    const opened = workspace();
    const summary = await importPaths(opened, [dir]);
    expect.soft(summary.files.map((f) => f.path)).toEqual([path.join(dir, 'eve.json')]);
    expect.soft(summary.ignored).toHaveLength(4);
    expect.soft(summary.ignored).toEqual(
      expect.arrayContaining([
        { path: path.join(dir, 'eve.json.1'), reason: 'a link to something that does not exist' },
        { path: path.join(dir, 'eve.json.2'), reason: 'a link that loops' },
        { path: path.join(dir, 'eve.json.3'), reason: 'not a regular file (a FIFO)' },
        { path: path.join(dir, 'notes.txt'), reason: NOT_EVE_NAME },
      ]),
    );
    expect.soft((await host(opened, '10.0.0.1')).host_id.services_count).toBe(1);
  });

  test('a FIFO given to the command: exit 1 within 5 s, "not a regular file", never blocking', () => {
    const dir = tempDir();
    const fifo = path.join(dir, 'eve.json');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    const result = spawnSync(process.execPath, [CLI, 'import-eve', fifo, '--data', path.join(dir, 'data')], { encoding: 'utf8', timeout: 5000, killSignal: 'SIGKILL' });
    expect(result.status, `signal ${result.signal}`).toBe(1);
    expect(result.stderr).toContain('not a regular file');
  });

  test('a broken link given to the command: exit 1, "does not exist", no raw ENOENT', () => {
    const dir = tempDir();
    const link = path.join(dir, 'eve.json');
    fs.symlinkSync(path.join(dir, 'rotated-away.json'), link);
    const result = spawnSync(process.execPath, [CLI, 'import-eve', link, '--data', path.join(dir, 'data')], { encoding: 'utf8', timeout: 30_000 });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('does not exist');
    expect(result.stderr).not.toContain('ENOENT');
  });

  test('a file that begins with a UTF-8 byte order mark: its first line is read', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'eve.json');
    fs.writeFileSync(file, Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(`${JSON.stringify(SSH_EVENT)}\n${JSON.stringify(HTTP_EVENTS[0])}\n`)]));
    const opened = workspace();
    const summary = await importPaths(opened, [file]);
    expect.soft(summary.skipped).toEqual({});
    expect.soft(summary.eventsUsed).toBe(2);
    // The ssh event of line 1 makes 10.0.0.1 an SSH server.
    expect.soft((await host(opened, '10.0.0.1')).host_id?.services.map((s: { port: number }) => s.port)).toEqual([22]);
  });
});

describe('6. a line nested too deep', () => {
  test('a 5,000,000-deep array among good lines is skipped as "nested too deep"; the others are imported', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'eve.json');
    fs.writeFileSync(file, `${JSON.stringify(SSH_EVENT)}\n${'['.repeat(5e6)}${']'.repeat(5e6)}\n${JSON.stringify(HTTP_EVENTS[0])}\n`);
    const opened = workspace();
    const summary = await importPaths(opened, [file]);
    expect.soft(summary.skipped).toEqual({ 'nested too deep': { count: 1, first: [`${file}:2`] } });
    expect.soft(summary.eventsUsed).toBe(2);
    expect.soft(await servedIps(opened)).toEqual(['10.0.0.1', '10.0.0.3', '10.0.0.9']);
  });
});

describe('7. a host file\'s times are served in UTC', () => {
  test('times at +02:00 (and +0200 inside services) are served as the same instants at +00:00 (and +0000)', async () => {
    const opened = workspace();
    const entry = {
      ip: '10.0.0.1',
      host_id: {
        first_seen: '2024-03-01T12:00:00.000000+02:00',
        last_seen: '2024-03-02T01:30:00.250000+02:00',
        hostname: [{ host: 'srv1.example', first_seen: '2024-03-01T12:00:00.000000+02:00', last_seen: '2024-03-02T01:30:00.250000+02:00' }],
        username: [{ user: 'alice', first_seen: '2024-03-01T13:00:00.000000+02:00', last_seen: '2024-03-01T14:00:00.000000+02:00' }],
        services: [{ proto: 'tcp', port: 443, values: [{ app_proto: 'tls', first_seen: '2024-03-01T12:00:00.000000+0200', last_seen: '2024-03-02T01:30:00.250000+0200' }] }],
      },
    };
    expect.soft((await call(opened, 'POST', `${HOSTS}/import/`, [entry])).status).toBe(201);
    const hostId = (await host(opened, '10.0.0.1')).host_id;
    // Two hours earlier; 01:30 on 2 March is 23:30 on 1 March.
    expect.soft([hostId.first_seen, hostId.last_seen]).toEqual(['2024-03-01T10:00:00.000000+00:00', '2024-03-01T23:30:00.250000+00:00']);
    expect.soft(hostId.hostname).toEqual([{ host: 'srv1.example', first_seen: '2024-03-01T10:00:00.000000+00:00', last_seen: '2024-03-01T23:30:00.250000+00:00' }]);
    expect.soft(hostId.username).toEqual([{ user: 'alice', first_seen: '2024-03-01T11:00:00.000000+00:00', last_seen: '2024-03-01T12:00:00.000000+00:00' }]);
    expect.soft(hostId.net_info).toEqual([{ agg: '10.0.0.0/8', first_seen: '2024-03-01T10:00:00.000000+00:00', last_seen: '2024-03-01T23:30:00.250000+00:00' }]);
    expect.soft(hostId.services).toEqual([{ proto: 'tcp', port: 443, values: [{ app_proto: 'tls', first_seen: '2024-03-01T10:00:00.000000+0000', last_seen: '2024-03-01T23:30:00.250000+0000' }] }]);
  });
});

describe('8. a file read before is not taken for another that looks like it', () => {
  test('a file of the same size, first line and last 4 KB but other lines between is read: its new host is served', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'eve.json');
    const line = (event: Event) => `${JSON.stringify(event)}\n`;
    // Line 1 and a tail of more than 4 KB the same in both versions; between them, an ssh
    // session to 10.0.1.11 in the first and to 10.0.2.22 (an address of the same length) in the second.
    const first = line(SSH_EVENT);
    const tail = Array.from({ length: 20 }, (_, i) => line({ ...HTTP_EVENTS[0], timestamp: `2024-03-01T10:20:${String(i).padStart(2, '0')}.000000+0000` })).join('');
    expect(Buffer.byteLength(tail)).toBeGreaterThan(4096);
    const middle = (server: string) => Array.from({ length: 10 }, (_, i) => line({ ...SSH_EVENT, dest_ip: server, timestamp: `2024-03-01T10:10:${String(i).padStart(2, '0')}.000000+0000` })).join('');
    const before = first + middle('10.0.1.11') + tail;
    const after = first + middle('10.0.2.22') + tail;
    expect(Buffer.byteLength(after)).toBe(Buffer.byteLength(before));
    fs.writeFileSync(file, before);
    const opened = workspace();
    await importPaths(opened, [file]);
    expect((await host(opened, '10.0.1.11')).host_id).toBeDefined();
    fs.writeFileSync(file, after);
    await importPaths(opened, [file]);
    expect((await host(opened, '10.0.2.22')).host_id?.services.map((s: { port: number }) => s.port)).toEqual([22]);
  });
});
