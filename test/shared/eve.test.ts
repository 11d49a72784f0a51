/**
 * Host evidence from Suricata EVE events (issue 10), derived with no I/O from the real samples
 * of ../shared/samples/eve (values checked by hand against the files and their README) and from
 * hand-made Suricata 8 events.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { parseNetwork } from '../../shared/api/address';
import { EvidenceBatch } from '../../shared/eve/accumulate';
import { deriveEvidence, personalAccount } from '../../shared/eve/derive';
import { eveTimestamp, readEveLine, type EveEvent } from '../../shared/eve/event';
import { parseIsoDateTime } from '../../shared/api/datetime';
import { DEFAULT_HOME_NETS, eveTime, hostIdentity, hostTime, identityRecord, identityRecordOfObjects, parseHomeNets, type EvidenceRow, type IdentitySource, type LocalHost } from '../../shared/eve/identity';
import { localIdentityRecord } from '../../shared/eve/identityText';
import { prng } from '../helpers/prng';
import type { JsonObject } from '../../shared/resources';
import { SAMPLES_DIR } from '../helpers/workplace';

const SAMPLES = path.join(SAMPLES_DIR, 'eve');
const HOME = DEFAULT_HOME_NETS.map((n) => parseNetwork(n)!);

function gather(file: string): EvidenceBatch {
  const batch = new EvidenceBatch();
  for (const line of fs.readFileSync(path.join(SAMPLES, file), 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    const read = readEveLine(line);
    if ('event' in read) batch.add(deriveEvidence(read.event));
  }
  return batch;
}

function localOf(batch: EvidenceBatch, ip: string): LocalHost {
  const host = batch.hosts.get(ip)!;
  const values = [...batch.eachValue()].filter((v) => v.ip === ip).map((v) => ({ list: v.list, key: v.key, item: v.item, first: v.first, last: v.last }));
  return { hits: host.hits, first: host.first, last: host.last, values };
}

function identity(batch: EvidenceBatch, ip: string): JsonObject {
  return hostIdentity({ ip, local: localOf(batch, ip), homeNets: HOME });
}

const names = (value: unknown, key: string) => (value as JsonObject[]).map((item) => item[key]).sort();

function event(body: JsonObject): EveEvent {
  const read = readEveLine(JSON.stringify(body));
  if (!('event' in read)) throw new Error(`not an event this import uses: ${JSON.stringify(read)}`);
  return read.event;
}

describe('a Windows domain (Suricata 7, alaajili sample)', () => {
  const batch = gather('alaajili-EVE-Json-Parser-eve.json');

  test('the workstation: its user from Kerberos, never its machine account or <empty>; its hits are the 653 alerts it is in', () => {
    const host = identity(batch, '172.17.0.153');
    expect(names(host.username, 'user')).toEqual(['jessie.andrews']);
    expect(batch.hosts.get('172.17.0.153')!.hits).toBe(653);
    expect(host['tls.ja3_count']).toBe(6);
    expect(names(host['http.user_agent'], 'agent')).toContain('Microsoft-CryptoAPI/10.0');
    expect(host.in_home_net).toBe(true);
    expect(host.net_info).toEqual([{ agg: '172.16.0.0/12', first_seen: host.first_seen, last_seen: host.last_seen }]);
  });

  test('the server: DHCP and Kerberos answered from it make it a dhcp server and a domain controller', () => {
    const host = identity(batch, '172.17.0.7');
    expect(names(host.roles, 'name')).toEqual(expect.arrayContaining(['dhcp', 'domain controller']));
    const kerberos = (host.services as JsonObject[]).find((s) => s.port === 88)!;
    expect((kerberos.values as JsonObject[]).map((v) => v.app_proto)).toContain('krb5');
  });

  test('Kerberos requests logged with the KDC as source give the user to the client all the same', () => {
    expect(batch.hosts.has('172.17.0.7')).toBe(true);
    expect(names(identity(batch, '172.17.0.7').username, 'user')).toEqual([]);
  });

  test('times are UTC in the forms api.md gives, whatever offset the log carried (+01:00 here)', () => {
    const host = identity(batch, '172.17.0.153');
    expect(host.first_seen).toMatch(/^2022-11-17T23:\d\d:\d\d\.\d{6}\+00:00$/);
    const server = identity(batch, '172.17.0.7');
    const value = ((server.services as JsonObject[])[0]!.values as JsonObject[])[0]!;
    expect(value.first_seen).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}\+0000$/);
  });
});

describe('NTLMSSP and Kerberos (Suricata 7, Tr0llope sample)', () => {
  const batch = gather('Tr0llope-suricata_report_generator-eve.json');

  test('the client gets its NTLM host name and user, and its Kerberos user; the KDC is a domain controller', () => {
    const client = identity(batch, '172.16.0.153');
    expect(names(client.hostname, 'host')).toContain('DESKTOP-ARMANI');
    expect(names(client.username, 'user')).toEqual(['giorgio.armani']);
    expect(names(identity(batch, '172.16.0.12').roles, 'name')).toContain('domain controller');
  });

  test('a DNS answer names the address it resolves to, not the asker', () => {
    expect(names(identity(batch, '67.205.184.237').hostname, 'host')).toContain('vgiragdoffy.com');
    expect(names(identity(batch, '172.16.0.153').hostname, 'host')).not.toContain('vgiragdoffy.com');
  });
});

describe('Suricata 8 (IceFice1337 sample) and the Stamus sample', () => {
  test('DNS v3 responses, TLS SNI and subject, HTTP host and user agent', () => {
    const batch = gather('IceFice1337-Automating-Network-Threat-Monitoring-Using-AI-eve.json');
    expect(names(identity(batch, '64.4.9.254').hostname, 'host')).toContain('messenger.hotmail.msnmessenger.msn.com.akadns.net');
    const google = identity(batch, '72.14.213.147');
    expect(names(google.hostname, 'host')).toContain('www.google.com');
    const https = (google.services as JsonObject[]).find((s) => s.port === 443)!;
    expect((https.values as JsonObject[]).find((v) => v.app_proto === 'tls')!.tls).toEqual({
      subject: 'C=US, ST=California, L=Mountain View, O=Google Inc, CN=www.google.com',
      issuerdn: 'C=ZA, O=Thawte Consulting (Pty) Ltd., CN=Thawte SGC CA',
      fingerprint: '40:50:62:e5:be:fd:e4:af:97:e9:38:2a:f1:6c:c8:7c:8f:b7:c4:e2',
    });
    expect(names(identity(batch, '192.168.3.131')['http.user_agent'], 'agent')).toContain(
      'Mozilla/5.0 (Windows; U; Windows NT 6.1; en-US) AppleWebKit/534.10 (KHTML, like Gecko) Chrome/8.0.552.237 Safari/534.10',
    );
  });

  test('JA4 as an object (Stamus) gives its hash; the HTTP server of a download goes to the server, not the source of the event', () => {
    const batch = gather('StamusNetworks-suricata-analytics-eve.json');
    const client = identity(batch, '10.4.18.169');
    expect(names(client['tls.ja4'], 'hash')).toContain('t13d201100_2b729b4bf6f3_9e7b989ebec8');
    const server = identity(batch, '23.220.102.21');
    const http = (server.services as JsonObject[]).find((s) => s.port === 80)!;
    expect((http.values as JsonObject[]).find((v) => v.app_proto === 'http')!.http).toEqual({ server: 'Microsoft-IIS/8.5' });
    expect(names(client['http.user_agent'], 'agent')).toContain('Microsoft-CryptoAPI/10.0');
  });
});

describe('rules of derivation', () => {
  const base = { timestamp: '2025-03-01T10:00:00.000000+0000', proto: 'TCP' };

  test('machine accounts and Suricata\'s <empty> placeholder are not users', () => {
    expect(personalAccount('DESKTOP-K8LUF0E$')).toBeUndefined();
    expect(personalAccount('<empty>')).toBeUndefined();
    expect(personalAccount('')).toBeUndefined();
    expect(personalAccount('jessie.andrews')).toBe('jessie.andrews');
  });

  test('JA4 as a plain string (Suricata 8); SSH client and server software; a CONNECT makes an HTTP proxy', () => {
    const tls = deriveEvidence(event({ ...base, event_type: 'tls', src_ip: '10.0.0.5', src_port: 50000, dest_ip: '93.184.216.34', dest_port: 443, tls: { sni: 'example.com', ja4: 't13d1516h2_8daaf6152771_02713d6af862' } }));
    expect(tls.evidence).toContainEqual({ ip: '10.0.0.5', list: 'tls.ja4', key: 't13d1516h2_8daaf6152771_02713d6af862', item: { hash: 't13d1516h2_8daaf6152771_02713d6af862', agent: [] } });
    const ssh = deriveEvidence(event({ ...base, event_type: 'ssh', src_ip: '10.0.0.5', src_port: 50001, dest_ip: '10.0.0.9', dest_port: 22, ssh: { client: { software_version: 'OpenSSH_9.6' }, server: { software_version: 'OpenSSH_8.9p1' } } }));
    expect(ssh.evidence).toContainEqual({ ip: '10.0.0.5', list: 'ssh.client', key: 'OpenSSH_9.6', item: { software_version: 'OpenSSH_9.6' } });
    // The service, and its detail as evidence of its own under the service's key.
    expect(ssh.evidence).toContainEqual({ ip: '10.0.0.9', list: 'services', key: 'tcp/22/ssh', item: { proto: 'tcp', port: 22, app_proto: 'ssh' } });
    expect(ssh.evidence).toContainEqual({ ip: '10.0.0.9', list: 'services.ssh', key: 'tcp/22/ssh', item: { server: { software_version: 'OpenSSH_8.9p1' } } });
    const connect = deriveEvidence(event({ ...base, event_type: 'http', src_ip: '10.0.0.5', src_port: 50002, dest_ip: '10.0.0.3', dest_port: 3128, http: { hostname: 'example.com', url: 'example.com:443', http_method: 'CONNECT' } }));
    expect(connect.evidence).toContainEqual({ ip: '10.0.0.3', list: 'roles', key: 'http proxy', item: { name: 'http proxy' } });
  });

  test('a to_client alert counts for both addresses; a flow that nobody answered makes no service', () => {
    const alert = deriveEvidence(event({ ...base, event_type: 'alert', src_ip: '198.51.100.7', src_port: 443, dest_ip: '10.0.0.5', dest_port: 50003, alert: { signature_id: 1 } }));
    expect(alert.alerted).toEqual(['198.51.100.7', '10.0.0.5']);
    const silent = deriveEvidence(event({ ...base, event_type: 'flow', src_ip: '10.0.0.5', src_port: 50004, dest_ip: '10.0.0.6', dest_port: 9100, app_proto: 'failed', flow: { pkts_toserver: 3, pkts_toclient: 0 } }));
    expect(silent.evidence).toEqual([]);
    const printer = deriveEvidence(event({ ...base, event_type: 'flow', src_ip: '10.0.0.5', src_port: 50004, dest_ip: '10.0.0.6', dest_port: 9100, app_proto: 'failed', flow: { pkts_toserver: 3, pkts_toclient: 2 } }));
    expect(printer.evidence).toContainEqual({ ip: '10.0.0.6', list: 'services', key: 'tcp/9100/unknown', item: { proto: 'tcp', port: 9100, app_proto: 'unknown' } });
    expect(printer.evidence).toContainEqual({ ip: '10.0.0.6', list: 'roles', key: 'printer', item: { name: 'printer' } });
  });

  test('a flow is logged when it ends: its hosts and service were seen from its own start, whatever offset it carries', () => {
    const flow = { ...base, timestamp: '2025-03-01T12:00:00.000000+0100', event_type: 'flow', src_ip: '10.0.0.5', src_port: 50010, dest_ip: '10.0.0.7', dest_port: 443, app_proto: 'tls' };
    const long = deriveEvidence(event({ ...flow, flow: { pkts_toserver: 9, pkts_toclient: 8, start: '2025-03-01T09:15:00.250000+0100', end: '2025-03-01T11:59:00.000000+0100' } }));
    const at = Date.UTC(2025, 2, 1, 11) * 1000;
    expect(long.at).toBe(at);
    expect(long.from).toBe(Date.UTC(2025, 2, 1, 8, 15, 0, 250) * 1000);
    const batch = new EvidenceBatch();
    batch.add(long);
    const server = identity(batch, '10.0.0.7');
    expect(server.first_seen).toBe('2025-03-01T08:15:00.250000+00:00');
    expect(server.last_seen).toBe('2025-03-01T11:00:00.000000+00:00');
    expect(server.services).toEqual([{ proto: 'tcp', port: 443, values: [{ app_proto: 'tls', first_seen: '2025-03-01T08:15:00.250000+0000', last_seen: '2025-03-01T11:00:00.000000+0000' }] }]);
    expect(identity(batch, '10.0.0.5').client_service).toEqual([{ name: 'tls', first_seen: '2025-03-01T08:15:00.250000+00:00', last_seen: '2025-03-01T11:00:00.000000+00:00' }]);
    // A start that is not a time, or after the event, is not used.
    expect(deriveEvidence(event({ ...flow, flow: { pkts_toserver: 9, pkts_toclient: 8, start: 'yesterday' } })).from).toBeUndefined();
    expect(deriveEvidence(event({ ...flow, flow: { pkts_toserver: 9, pkts_toclient: 8, start: '2025-03-01T12:30:00.000000+0100' } })).from).toBeUndefined();
  });

  test('a DHCP hostname goes to the assigned address', () => {
    const dhcp = deriveEvidence(event({ ...base, event_type: 'dhcp', proto: 'UDP', src_ip: '10.0.0.1', src_port: 67, dest_ip: '255.255.255.255', dest_port: 68, dhcp: { type: 'reply', assigned_ip: '10.0.0.42', hostname: 'laptop-7' } }));
    expect(dhcp.evidence).toContainEqual({ ip: '10.0.0.42', list: 'hostname', key: 'laptop-7', item: { host: 'laptop-7' } });
    expect(dhcp.evidence).toContainEqual({ ip: '10.0.0.1', list: 'roles', key: 'dhcp', item: { name: 'dhcp' } });
  });

  test('a flow picked up from the server\'s side (a server port as source, an ephemeral one as destination) gives the service to its server', () => {
    const flowOf = (src: [string, number], dest: [string, number], counts: JsonObject) =>
      deriveEvidence(event({ ...base, event_type: 'flow', proto: 'TCP', src_ip: src[0], src_port: src[1], dest_ip: dest[0], dest_port: dest[1], flow: counts }));
    const midStream = flowOf(['23.205.110.133', 443], ['10.4.18.169', 49928], { pkts_toserver: 3, pkts_toclient: 2 });
    expect(midStream.evidence).toEqual([{ ip: '23.205.110.133', list: 'services', key: 'tcp/443/unknown', item: { proto: 'tcp', port: 443, app_proto: 'unknown' } }]);
    // Only the workstation's packets: the server never answered.
    expect(flowOf(['23.205.110.133', 443], ['10.4.18.169', 49928], { pkts_toserver: 0, pkts_toclient: 2 }).evidence).toEqual([]);
    // Written in its direction: the destination is the server, as before.
    expect(flowOf(['10.4.18.169', 49928], ['23.205.110.133', 443], { pkts_toserver: 3, pkts_toclient: 2 }).evidence.map((e) => `${e.ip} ${e.key}`)).toEqual(['23.205.110.133 tcp/443/unknown']);
    // Two ephemeral ports, or two server ports: the direction it was written in.
    expect(flowOf(['10.0.0.5', 50000], ['10.0.0.6', 50001], { pkts_toserver: 1, pkts_toclient: 1 }).evidence.map((e) => e.ip)).toEqual(['10.0.0.6']);
    expect(flowOf(['10.0.0.5', 123], ['10.0.0.6', 123], { pkts_toserver: 1, pkts_toclient: 1 }).evidence.map((e) => e.ip)).toEqual(['10.0.0.6']);
  });

  test('a host name is one value whatever its case, shown as it was last seen', () => {
    const batch = new EvidenceBatch();
    const named = (at: string, name: string) => deriveEvidence(event({ ...base, timestamp: at, event_type: 'smb', src_ip: '10.0.0.7', src_port: 49700, dest_ip: '10.0.0.1', dest_port: 445, smb: { ntlmssp: { host: name, user: 'x$' } } }));
    batch.add(named('2022-11-17T23:15:50.000000+0000', 'WIN-G2YBXE8XMCG'));
    batch.add(named('2022-11-17T23:20:50.000000+0000', 'win-g2ybxe8xmcg'));
    const hostnames = identity(batch, '10.0.0.7').hostname as JsonObject[];
    expect(hostnames.map((h) => h.host)).toEqual(['win-g2ybxe8xmcg']);
    expect([hostnames[0]!.first_seen, hostnames[0]!.last_seen]).toEqual(['2022-11-17T23:15:50.000000+00:00', '2022-11-17T23:20:50.000000+00:00']);
  });

  test('lines that are not events are skipped with their reason', () => {
    expect(readEveLine('not json')).toEqual({ skip: 'not JSON' });
    expect(readEveLine('[1,2]')).toEqual({ skip: 'not an EVE event' });
    expect(readEveLine('{"event_type":"dns","timestamp":"yesterday","src_ip":"10.0.0.1","dest_ip":"10.0.0.2"}')).toEqual({ skip: 'no valid timestamp' });
    expect(readEveLine('{"event_type":"dns","timestamp":"2025-03-01T10:00:00+0000","src_ip":"nope","dest_ip":"10.0.0.2"}')).toEqual({ skip: 'no valid address' });
  });
});

describe('timestamps', () => {
  test('Suricata\'s own form is read as the general ISO reader reads it, for every event of the samples', () => {
    for (const name of fs.readdirSync(SAMPLES).filter((n) => n.endsWith('.json'))) {
      for (const match of fs.readFileSync(path.join(SAMPLES, name), 'utf8').matchAll(/"timestamp":"([^"]+)"/g)) {
        expect(eveTimestamp(match[1]!), match[1]).toBe(parseIsoDateTime(match[1]!));
      }
    }
  });

  test('impossible dates are refused alike; other forms fall back to the general reader', () => {
    expect(eveTimestamp('2023-02-31T10:00:00.000000+0000')).toBeUndefined();
    expect(eveTimestamp('2023-02-28T24:00:00.000000+0000')).toBeUndefined();
    expect(eveTimestamp('2023-02-28T10:00:00+01:00')).toBe(parseIsoDateTime('2023-02-28T10:00:00+01:00'));
    expect(eveTimestamp('2023-02-28T10:00:00.123456-0330')).toBe(Date.UTC(2023, 1, 28, 13, 30) * 1000 + 123456);
  });

  test('the last day of each month, leap years included, is read as the general reader reads it', () => {
    for (const year of [1900, 2000, 2023, 2024, 2100]) {
      for (let month = 1; month <= 12; month++) {
        for (const day of [28, 29, 30, 31]) {
          const text = `${year}-${String(month).padStart(2, '0')}-${day}T23:59:59.999999+0000`;
          expect(eveTimestamp(text), text).toBe(parseIsoDateTime(text));
        }
      }
    }
    expect(eveTimestamp('2024-02-29T00:00:00.000000+0000')).toBe(Date.UTC(2024, 1, 29) * 1000);
    expect(eveTimestamp('1900-02-29T00:00:00.000000+0000')).toBeUndefined();
  });

  test('times of days read one after another in any order, impossible ones among them, are each read as the general reader reads them', () => {
    const random = prng(7);
    const two = (n: number) => String(n).padStart(2, '0');
    const pick = (n: number) => Math.floor(random() * n);
    let last = '';
    for (let i = 0; i < 5000; i++) {
      // Often the same day as the one before (as in a log), sometimes another, sometimes no such day.
      const day = i % 3 === 0 || last === '' ? `${1999 + pick(30)}-${two(1 + pick(12))}-${two(1 + pick(31))}` : last.slice(0, 10);
      const text = `${day}T${two(pick(25))}:${two(pick(60))}:${two(pick(60))}.${String(pick(1e6)).padStart(6, '0')}${random() < 0.5 ? '+' : '-'}${two(pick(15))}${two(pick(4) * 15)}`;
      expect(eveTimestamp(text), text).toBe(parseIsoDateTime(text));
      last = text;
    }
  });
});

describe('gathering', () => {
  test('a log cut anywhere into batches, its parts gathered in either order, gathers the same evidence as the whole', () => {
    const lines = fs.readFileSync(path.join(SAMPLES, 'Tr0llope-suricata_report_generator-eve.json'), 'utf8').split('\n').filter((l) => l.trim() !== '');
    const derived = lines.flatMap((line) => {
      const read = readEveLine(line);
      return 'event' in read ? [deriveEvidence(read.event)] : [];
    });
    const whole = new EvidenceBatch();
    derived.forEach((d) => whole.add(d));
    for (const cut of [1, 17, Math.floor(derived.length / 2), derived.length - 1]) {
      const a = new EvidenceBatch();
      const b = new EvidenceBatch();
      derived.slice(0, cut).forEach((d) => a.add(d));
      derived.slice(cut).forEach((d) => b.add(d));
      const id = (v: { ip: string; list: string; key: string }) => `${v.ip}\u0000${v.list}\u0000${v.key}`;
      const merged = new Map([...a.eachValue()].map((v) => [id(v), { ...v }]));
      for (const v of b.eachValue()) {
        const k = id(v);
        const known = merged.get(k);
        if (!known) merged.set(k, { ...v });
        else {
          // The rule, written here on its own: the item of the latest; on a tie the greater, byte for byte.
          const later = v.last > known.last || (v.last === known.last && Buffer.compare(Buffer.from(JSON.stringify(v.item)), Buffer.from(JSON.stringify(known.item))) > 0);
          if (later) known.item = v.item;
          known.first = Math.min(known.first, v.first);
          known.last = Math.max(known.last, v.last);
        }
      }
      expect(new Map([...merged].map(([k, v]) => [k, [v.first, v.last, JSON.stringify(v.item)]]))).toEqual(
        new Map([...whole.eachValue()].map((v) => [id(v), [v.first, v.last, JSON.stringify(v.item)]])),
      );
      const hits = (batch: EvidenceBatch, ip: string) => batch.hosts.get(ip)?.hits ?? 0;
      expect(hits(a, '172.16.0.153') + hits(b, '172.16.0.153')).toBe(hits(whole, '172.16.0.153'));
    }
  });
});

describe('identity', () => {
  test('times: the host form and the EVE form of services', () => {
    const micros = Date.UTC(2023, 6, 11, 16, 7, 33) * 1000 + 559720;
    expect(hostTime(micros)).toBe('2023-07-11T16:07:33.559720+00:00');
    expect(eveTime(micros)).toBe('2023-07-11T16:07:33.559720+0000');
  });

  test('home networks are CIDR lists; anything else is refused with the item named', () => {
    expect(parseHomeNets('10.0.0.0/8, 192.168.1.0/24')).toMatchObject({ networks: [{ text: '10.0.0.0/8' }, { text: '192.168.1.0/24' }] });
    expect(parseHomeNets('10.0.0.0/8,corp')).toEqual({ error: '"corp" is not a network in CIDR form (10.0.0.0/8, fd00::/8)' });
    // Host bits set: refused with the network meant, as Python's ip_network refuses them.
    expect(parseHomeNets('10.1.2.3/8')).toEqual({ error: '"10.1.2.3/8" has bits set past its prefix: did you mean 10.0.0.0/8?' });
    expect(parseHomeNets('192.168.1.130/25')).toEqual({ error: '"192.168.1.130/25" has bits set past its prefix: did you mean 192.168.1.128/25?' });
    expect(parseHomeNets('fd00::1/8')).toEqual({ error: '"fd00::1/8" has bits set past its prefix: did you mean fd00::/8?' });
    // Written canonically.
    expect(parseHomeNets('FD00:0::/8, 10.0.0.0/08')).toMatchObject({ networks: [{ text: 'fd00::/8' }, { text: '10.0.0.0/8' }] });
    expect(parseHomeNets('0.0.0.0/0')).toMatchObject({ networks: [{ text: '0.0.0.0/0' }] });
  });

  test('the central server\'s identity and the local evidence read together: lists merged, the earliest first seen, the latest last seen', () => {
    const central: JsonObject = {
      first_seen: '2023-01-01T00:00:00.000000+00:00',
      last_seen: '2023-02-01T00:00:00.000000+00:00',
      hostname: [{ host: 'pc-1.corp', first_seen: '2023-01-01T00:00:00.000000+00:00', last_seen: '2023-02-01T00:00:00.000000+00:00' }],
    };
    const at = (day: number) => Date.UTC(2023, 0, day) * 1000;
    const local: LocalHost = {
      hits: 3,
      first: at(15),
      last: at(60),
      values: [
        { list: 'hostname', key: 'pc-1.corp', item: { host: 'pc-1.corp' }, first: at(15), last: at(60) },
        { list: 'username', key: 'ann', item: { user: 'ann' }, first: at(20), last: at(21) },
      ],
    };
    const merged = hostIdentity({ ip: '10.1.2.3', central, local, homeNets: HOME });
    expect(merged.first_seen).toBe('2023-01-01T00:00:00.000000+00:00');
    expect(merged.last_seen).toBe(hostTime(at(60)));
    expect(merged.hostname).toEqual([{ host: 'pc-1.corp', first_seen: '2023-01-01T00:00:00.000000+00:00', last_seen: hostTime(at(60)) }]);
    expect(merged.username_count).toBe(1);
    expect(merged.in_home_net).toBe(true);
  });

  test('a service value known to the central server and seen locally: each detail from whichever saw it last, the central one as of its value\'s last seen', () => {
    const at = (hour: number) => Date.UTC(2024, 2, 1, hour) * 1000;
    const central = (certificate: JsonObject, lastHour: number): JsonObject => ({
      first_seen: '2024-03-01T00:00:00.000000+00:00',
      last_seen: hostTime(at(lastHour)),
      services: [{ proto: 'tcp', port: 443, values: [{ app_proto: 'tls', first_seen: '2024-03-01T00:00:00.000000+0000', last_seen: eveTime(at(lastHour)), tls: certificate, http: { server: 'central' } }] }],
    });
    const mine = { subject: 'CN=local', issuerdn: 'CN=ca', fingerprint: 'bb' };
    const theirs = { subject: 'CN=central', issuerdn: 'CN=ca', fingerprint: 'aa' };
    /** The local evidence: the service seen from 1 h to 5 h, its certificate last at `certHour`; no HTTP server header. */
    const local = (certHour: number): LocalHost => ({
      hits: 0,
      first: at(1),
      last: at(5),
      values: [
        { list: 'services', key: 'tcp/443/tls', item: { proto: 'tcp', port: 443, app_proto: 'tls' }, first: at(1), last: at(5) },
        { list: 'services.tls', key: 'tcp/443/tls', item: mine, first: at(certHour), last: at(certHour) },
      ],
    });
    const value = (centralHour: number, certHour: number) => (hostIdentity({ ip: '10.0.0.2', central: central(theirs, centralHour), local: local(certHour), homeNets: HOME }).services as JsonObject[])[0]!.values as JsonObject[];
    // The local certificate seen at 4 h, the central value last seen at 3 h: the local one; the HTTP header only the central server knows stays.
    expect(value(3, 4)).toEqual([{ app_proto: 'tls', first_seen: '2024-03-01T00:00:00.000000+0000', last_seen: eveTime(at(5)), tls: mine, http: { server: 'central' } }]);
    // The central value last seen at 6 h, after the local certificate (4 h): the central one, though the local service was seen until 5 h.
    expect(value(6, 4)[0]!.tls).toEqual(theirs);
    // At the same instant: the greater, byte for byte ({"subject":"CN=local"… is greater than {"subject":"CN=central"…).
    expect(value(4, 4)[0]!.tls).toEqual(mine);
  });

  test('an address only the local imports saw: its row written straight from the stored items is the one made through objects, byte for byte', () => {
    const sources: IdentitySource[] = [];
    const bytes = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));
    for (const file of fs.readdirSync(SAMPLES).filter((name) => name.endsWith('.json'))) {
      const batch = gather(file);
      // In the evidence's key order, as SQLite reads it.
      const values = [...batch.eachValue()].sort((a, b) => bytes(a.ip, b.ip) || bytes(a.list, b.list) || bytes(a.key, b.key));
      for (const host of batch.hosts.values()) {
        const rows: EvidenceRow[] = values.filter((v) => v.ip === host.ip).map((v) => [v.list, v.key, JSON.stringify(v.item), v.first, v.last]);
        sources.push({ ip: host.ip, central: null, centralHits: null, hits: host.hits, first: host.first, last: host.last, values: rows });
      }
    }
    expect(sources.length).toBeGreaterThan(100);
    expect(sources.filter((s) => s.values.some(([list]) => list === 'services.tls')).length).toBeGreaterThan(10);
    // Items of unusual forms too: non-ASCII, quotes, escapes, an empty object, services of odd protocols with details.
    const random = prng(7);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
    const at = () => Date.UTC(2024, 0, 1) * 1000 + Math.floor(random() * 1e12);
    for (let n = 0; n < 300; n++) {
      const rows: EvidenceRow[] = [];
      for (let k = 0; k < 1 + Math.floor(random() * 8); k++) {
        const [first, last] = [at(), at()].sort((a, b) => a - b) as [number, number];
        if (random() < 0.5) {
          const list = pick(['hostname', 'username', 'roles', 'tls.ja3', 'client_service'] as const);
          const item = pick<JsonObject>([{ host: pick(['pc-1.corp', 'Ünïcödé.example', 'quote"d\\name', '']) }, { user: 'ann', 10: 'numeric key' }, {}, { hash: 'abc', agent: [] }]);
          rows.push([list, `${k}`, JSON.stringify(item), first, last]);
          continue;
        }
        const service = { proto: pick(['tcp', 'udp', '', 't"cp', 'é']), port: pick([0, 22, 80, 443, 65535]), app_proto: pick(['tls', 'unknown', 'h"2', 'é\\x', 'http']) };
        const key = `${service.proto}/${service.port}/${service.app_proto}`;
        rows.push(['services', key, JSON.stringify(service), first, last]);
        if (random() < 0.5) rows.push(['services.tls', key, JSON.stringify({ subject: 'CN="a", O=\\b', issuerdn: 'CN=ca\u0001', fingerprint: 'aa:bb' }), first, last]);
        if (random() < 0.3) rows.push(['services.http', key, JSON.stringify({ server: pick(['nginx', 'Ünï "quoted"', '']) }), first, last]);
        if (random() < 0.3) rows.push(['services.ssh', key, JSON.stringify({ server: { software_version: 'OpenSSH_9.6', first_seen: 'nested, not the value’s' } }), first, last]);
      }
      const unique = new Map(rows.map((row) => [`${row[0]}\u0000${row[1]}`, row]));
      const sorted = [...unique.values()].sort((a, b) => bytes(a[0], b[0]) || bytes(a[1], b[1]));
      sources.push({ ip: pick(['10.0.0.1', '8.8.8.8', '192.168.1.20', 'fe80::1', '2001:db8::1']), central: null, centralHits: pick([null, 4]), hits: Math.floor(random() * 10), first: at(), last: at(), values: sorted });
    }
    const nets = ['10.0.0.0/8', 'fe80::/10'].map((n) => parseNetwork(n)!);
    for (const source of sources) {
      for (const homeNets of [HOME, nets]) {
        expect(localIdentityRecord(source, homeNets), source.ip).toEqual(identityRecordOfObjects(source, homeNets));
      }
      expect(identityRecord(source, HOME)).toEqual(localIdentityRecord(source, HOME));
    }
  });
});
