/**
 * What one EVE event tells about the hosts in it, field by field (api.md §7's lists), with no
 * I/O. Client and server come from the flow (a `flow` event is written in the flow's direction)
 * and the well-known port of the application protocol, never from `src_ip` alone: Suricata logs a
 * Kerberos request, a download or a `to_client` alert with the server as source.
 */
import { isIpLiteral } from '../app/bridge';
import type { JsonObject, JsonValue } from '../resources/fields';
import { addressOf, eveTimestamp, isObject, text, type Address, type DropReason, type Endpoint, type EveEvent } from './event';

/**
 * Where a piece of evidence goes: a host_id list (net_info is computed), or a detail of a service
 * value, kept as evidence of its own under the service's key so that each detail is the one of the
 * latest event that carried it (a flow or a resumed TLS session, which carry none, change only the
 * service's times): `services.tls` is `values[].tls` (a certificate: subject, issuer and
 * fingerprint together), and so on.
 */
export type EvidenceKind = 'hostname' | 'username' | 'roles' | 'client_service' | 'http.user_agent' | 'tls.ja3' | 'tls.ja4' | 'ssh.client' | 'services' | `services.${ServiceDetail}`;
export const SERVICE_DETAILS = ['http', 'ssh', 'tls'] as const;
export type ServiceDetail = (typeof SERVICE_DETAILS)[number];

/** The detail a kind of evidence is, if it is one. */
export function detailOf(kind: string): ServiceDetail | undefined {
  return kind.startsWith('services.') ? (SERVICE_DETAILS as readonly string[]).find((d) => kind === `services.${d}`) as ServiceDetail | undefined : undefined;
}

/** One value seen for one address: its list, its identity within the list, and the item (without times). */
export interface Evidence {
  readonly ip: string;
  readonly list: EvidenceKind;
  /** Unique within the address and list: the host name (folded), the hash, `tcp/443/tls`… */
  readonly key: string;
  readonly item: JsonObject;
}

export interface Derived {
  /** When the event was logged: the last time its evidence was seen. */
  readonly at: number;
  /** When what it tells began, if before `at`: a flow is logged when it ends, and its hosts were seen from its start. */
  readonly from?: number;
  readonly evidence: readonly Evidence[];
  /** Addresses that take part in an alert (one hit each). */
  readonly alerted: readonly string[];
  /** Values the event gave that are not stored, by why (an address that is none, or no host's). */
  readonly dropped: readonly DropReason[];
}

/** Ports on which a server of the application protocol listens. */
const WELL_KNOWN: Readonly<Record<string, readonly number[]>> = {
  dns: [53, 5353, 5355], http: [80, 8080, 8000, 8008, 8888, 3128, 3129, 81], http2: [80, 443, 8080], tls: [443, 8443, 993, 995, 465, 636, 853, 3269, 5061],
  krb5: [88], smb: [445, 139], dcerpc: [135], dhcp: [67], ssh: [22, 2222], ntp: [123], snmp: [161], ldap: [389, 3268], ftp: [21], smtp: [25, 587],
  imap: [143], pop3: [110], rdp: [3389], sip: [5060], mqtt: [1883], modbus: [502], nfs: [2049], tftp: [69], rfb: [5900],
};

/** Printing: raw (JetDirect), LPD and IPP. */
const PRINTER_PORTS: ReadonlySet<number> = new Set([9100, 515, 631]);

/** A port a server of the application protocol listens on: one of its well-known ports, or any below 1024. */
function serverPort(port: number, appProto: string | undefined): boolean {
  return (appProto !== undefined && WELL_KNOWN[appProto]?.includes(port) === true) || (port > 0 && port < 1024);
}

/** Is this flow written from its server's side (picked up in the middle, from a server's packet: a server's port as source, an ephemeral one as destination)? */
function reversedFlow(event: EveEvent): boolean {
  return serverPort(event.src.port, event.appProto) && !serverPort(event.dest.port, event.appProto) && event.dest.port >= 1024;
}

/** Client and server of an event. */
function sidesOf(event: EveEvent, appProto: string | undefined): { client: Endpoint; server: Endpoint } {
  if (event.type === 'flow') return reversedFlow(event) ? { client: event.dest, server: event.src } : { client: event.src, server: event.dest };
  const known = appProto === undefined ? undefined : WELL_KNOWN[appProto];
  if (known?.includes(event.dest.port) && !known.includes(event.src.port)) return { client: event.src, server: event.dest };
  if (known?.includes(event.src.port) && !known.includes(event.dest.port)) return { client: event.dest, server: event.src };
  // Neither or both well known: the server is the side on the lower port (clients use ephemeral ones).
  return event.src.port !== 0 && event.src.port < event.dest.port ? { client: event.dest, server: event.src } : { client: event.src, server: event.dest };
}

/** A Kerberos or NTLM account name that is a person's: not a machine account, not Suricata's placeholder. */
export function personalAccount(name: string | undefined): string | undefined {
  if (name === undefined) return undefined;
  const trimmed = name.trim();
  if (trimmed === '' || trimmed === '<empty>' || trimmed.endsWith('$')) return undefined;
  return trimmed;
}

/** A host name as a DNS name (not an address, not empty), without a trailing dot. */
function hostName(value: JsonValue | undefined): string | undefined {
  const name = text(value)?.trim().replace(/\.$/, '');
  if (!name || isIpLiteral(name) || name.length > 253) return undefined;
  return name;
}

/** The hash of a JA3/JA4 value: Suricata 7 writes `{hash, string}`, Suricata 8 a plain string for JA4. */
function hashOf(value: JsonValue | undefined): string | undefined {
  if (typeof value === 'string') return text(value);
  return isObject(value) ? text(value.hash) : undefined;
}

/** An address a field of an event gives (a DNS answer, a DHCP lease): read as the event's own are, or undefined when absent. */
function givenAddress(value: JsonValue | undefined): Address | DropReason | undefined {
  return typeof value === 'string' && value !== '' ? addressOf(value) : undefined;
}

const NO_DETAILS: Readonly<Partial<Record<ServiceDetail, JsonObject>>> = {};

class Collector {
  readonly evidence: Evidence[] = [];
  dropped: DropReason[] | undefined;

  /** A value for an address, unless the address is none or no host's (then counted as dropped). */
  add(address: Address | DropReason, list: EvidenceKind, key: string, item: JsonObject): void {
    if (typeof address === 'string') (this.dropped ??= []).push(address);
    else if (!address.host) (this.dropped ??= []).push('not a host address');
    else this.evidence.push({ ip: address.ip, list, key, item });
  }

  /** A host name, one value whatever its case (DNS names are not case-sensitive): the latest spelling shown. */
  hostname(address: Address | DropReason, name: string | undefined): void {
    if (name !== undefined) this.add(address, 'hostname', name.toLowerCase(), { host: name });
  }

  username(address: Address, name: string | undefined, user = personalAccount(name)): void {
    if (user !== undefined) this.add(address, 'username', user, { user });
  }

  role(address: Address, name: string): void {
    this.add(address, 'roles', name, { name });
  }

  clientService(address: Address, name: string | undefined): void {
    if (name !== undefined && name !== 'failed' && name !== 'unknown') this.add(address, 'client_service', name, { name });
  }

  /**
   * A service of the server: `{proto, port, app_proto}` keyed `tcp/443/tls` (the protocol in
   * lower case, as the central server writes it), and each detail the event carries as evidence
   * of its own under the same key.
   */
  service(server: Endpoint, proto: string, appProto: string | undefined, details = NO_DETAILS): void {
    const app = appProto === undefined || appProto === 'failed' ? 'unknown' : appProto;
    const protoName = proto.toLowerCase() || 'tcp';
    const key = `${protoName}/${server.port}/${app}`;
    this.add(server, 'services', key, { proto: protoName, port: server.port, app_proto: app });
    for (const detail of SERVICE_DETAILS) {
      const value = details[detail];
      if (value !== undefined) this.add(server, `services.${detail}`, key, value);
    }
    if (PRINTER_PORTS.has(server.port)) this.role(server, 'printer');
  }
}

function dns(event: EveEvent, out: Collector): void {
  const body = event.body.dns;
  if (!isObject(body)) return;
  // Answers only (v2 `answer`, v3 `response`): the name goes to the address it resolves to.
  const answers = Array.isArray(body.answers) ? body.answers : [];
  for (const answer of answers) {
    if (!isObject(answer) || (answer.rrtype !== 'A' && answer.rrtype !== 'AAAA')) continue;
    const address = givenAddress(answer.rdata);
    if (address !== undefined) out.hostname(address, hostName(answer.rrname));
  }
  if (answers.length === 0 && isObject(body.grouped)) {
    const name = hostName(body.rrname ?? (Array.isArray(body.queries) && isObject(body.queries[0]) ? body.queries[0].rrname : undefined));
    for (const type of ['A', 'AAAA'] as const) {
      const list = body.grouped[type];
      for (const ip of Array.isArray(list) ? list : []) {
        const address = givenAddress(ip);
        if (address !== undefined) out.hostname(address, name);
      }
    }
  }
}

function tls(event: EveEvent, out: Collector): void {
  const body = event.body.tls;
  if (!isObject(body)) return;
  const { client, server } = sidesOf(event, 'tls');
  out.hostname(server, hostName(body.sni));
  const ja3 = hashOf(body.ja3);
  if (ja3 !== undefined) out.add(client, 'tls.ja3', ja3, { hash: ja3, agent: [] });
  const ja4 = hashOf(body.ja4);
  if (ja4 !== undefined) out.add(client, 'tls.ja4', ja4, { hash: ja4, agent: [] });
  const subject = text(body.subject);
  // A resumed session shows no certificate: the one seen before stays.
  const certificate = subject === undefined ? undefined : { subject, issuerdn: text(body.issuerdn) ?? '', fingerprint: text(body.fingerprint) ?? '' };
  out.service(server, event.proto, 'tls', certificate === undefined ? NO_DETAILS : { tls: certificate });
  out.clientService(client, 'tls');
}

function http(event: EveEvent, out: Collector): void {
  const body = event.body.http;
  if (!isObject(body)) return;
  const { client, server } = sidesOf(event, 'http');
  const method = text(body.http_method);
  const url = text(body.url);
  // A proxy is asked for `CONNECT host:port` or for an absolute URL.
  const proxied = method === 'CONNECT' || (url !== undefined && /^[a-z][a-z0-9+.-]*:\/\//i.test(url));
  if (proxied) out.role(server, 'http proxy');
  else out.hostname(server, hostName(body.hostname));
  const agent = text(body.http_user_agent);
  if (agent !== undefined) out.add(client, 'http.user_agent', agent, { agent });
  const software = text(body.server);
  out.service(server, event.proto, 'http', software === undefined ? NO_DETAILS : { http: { server: software } });
  out.clientService(client, 'http');
}

function dhcp(event: EveEvent, out: Collector): void {
  const body = event.body.dhcp;
  if (!isObject(body)) return;
  const { client, server } = sidesOf(event, 'dhcp');
  if (body.type === 'reply') out.role(server, 'dhcp');
  const name = hostName(body.hostname);
  if (name === undefined) return;
  // The name goes to the address the server gives (or the client already has); 0.0.0.0 in these
  // fields means none.
  const given = [body.assigned_ip, body.client_ip, body.requested_ip].map((field) => (field === '0.0.0.0' ? undefined : givenAddress(field))).find((a) => a !== undefined);
  out.hostname(given ?? client, name);
}

function krb5(event: EveEvent, out: Collector): void {
  const body = event.body.krb5;
  if (!isObject(body)) return;
  const { client, server } = sidesOf(event, 'krb5');
  out.role(server, 'domain controller');
  out.username(client, text(body.cname));
  out.service(server, event.proto, 'krb5');
  out.clientService(client, 'krb5');
}

function smb(event: EveEvent, out: Collector): void {
  const body = event.body.smb;
  if (!isObject(body)) return;
  const { client } = sidesOf(event, 'smb');
  const ntlm = body.ntlmssp;
  if (isObject(ntlm)) {
    out.hostname(client, hostName(ntlm.host));
    out.username(client, text(ntlm.user));
  }
}

function ssh(event: EveEvent, out: Collector): void {
  const body = event.body.ssh;
  if (!isObject(body)) return;
  const { client, server } = sidesOf(event, 'ssh');
  const clientSoftware = isObject(body.client) ? text(body.client.software_version) : undefined;
  if (clientSoftware !== undefined) out.add(client, 'ssh.client', clientSoftware, { software_version: clientSoftware });
  const serverSoftware = isObject(body.server) ? text(body.server.software_version) : undefined;
  out.service(server, event.proto, 'ssh', serverSoftware === undefined ? NO_DETAILS : { ssh: { server: { software_version: serverSoftware } } });
  out.clientService(client, 'ssh');
}

function flow(event: EveEvent, out: Collector): void {
  const body = event.body.flow;
  if (!isObject(body)) return;
  const reversed = reversedFlow(event);
  const { client, server } = sidesOf(event, event.appProto);
  // A server is one that answered: Suricata counts `toclient` the packets of the flow's second
  // side, which is the client's in a flow written from the server's side.
  const answers = reversed ? body.pkts_toserver : body.pkts_toclient;
  if (typeof answers !== 'number' || answers <= 0 || server.port === 0) return;
  out.service(server, event.proto, event.appProto);
  out.clientService(client, event.appProto);
}

/** A flow's own start (`flow.start`, in the event's time form), if it is one. */
function flowStart(body: JsonObject): number | undefined {
  const flow = body.flow;
  return isObject(flow) && typeof flow.start === 'string' ? eveTimestamp(flow.start) : undefined;
}

/** The addresses of an alert (one hit each). */
function alert(event: EveEvent, out: Collector): readonly string[] {
  const ips: string[] = [];
  for (const side of [event.src, event.dest]) {
    if (!side.host) (out.dropped ??= []).push('not a host address');
    else if (!ips.includes(side.ip)) ips.push(side.ip);
  }
  return ips;
}

const DERIVE = new Map<string, (event: EveEvent, out: Collector) => void>(Object.entries({ dns, tls, http, fileinfo: http, dhcp, krb5, smb, ssh, flow }));
const NOTHING: readonly never[] = [];

/** The evidence of one event. */
export function deriveEvidence(event: EveEvent): Derived {
  const out = new Collector();
  const alerted = event.type === 'alert' ? alert(event, out) : NOTHING;
  DERIVE.get(event.type)?.(event, out);
  const from = event.type === 'flow' && out.evidence.length > 0 ? flowStart(event.body) : undefined;
  const dropped = out.dropped ?? NOTHING;
  return from !== undefined && from < event.at ? { at: event.at, from, evidence: out.evidence, alerted, dropped } : { at: event.at, evidence: out.evidence, alerted, dropped };
}
