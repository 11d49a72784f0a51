/**
 * What one EVE event tells about the hosts in it, field by field (api.md §7's lists), with no
 * I/O. Client and server come from the flow (a `flow` event is written in the flow's direction)
 * and the well-known port of the application protocol, never from `src_ip` alone: Suricata logs a
 * Kerberos request, a download or a `to_client` alert with the server as source.
 */
import { isIpLiteral } from '../app/bridge';
import type { JsonObject, JsonValue } from '../resources/fields';
import { eveTimestamp, isObject, text, type Endpoint, type EveEvent } from './event';

/** The host_id lists a piece of evidence adds to (the others, net_info, are computed). */
export type EvidenceList = 'hostname' | 'username' | 'roles' | 'client_service' | 'http.user_agent' | 'tls.ja3' | 'tls.ja4' | 'ssh.client' | 'services';

/** One value seen for one address: its list, its identity within the list, and the item (without times). */
export interface Evidence {
  readonly ip: string;
  readonly list: EvidenceList;
  /** Unique within the address and list: the host name, the hash, `TCP/443/tls`… */
  readonly key: string;
  readonly item: JsonObject;
}

export interface Derived {
  /** When the event was logged: the last time its evidence was seen. */
  readonly at: number;
  /**
   * When what it tells began, if before `at`: a flow is logged when it ends (or times out), and
   * its hosts were seen from its start.
   */
  readonly from?: number;
  readonly evidence: readonly Evidence[];
  /** Addresses that take part in an alert (one hit each). */
  readonly alerted: readonly string[];
}

/** Ports on which a server of the application protocol listens. */
const WELL_KNOWN: Readonly<Record<string, readonly number[]>> = {
  dns: [53, 5353, 5355],
  http: [80, 8080, 8000, 8008, 8888, 3128, 3129, 81],
  http2: [80, 443, 8080],
  tls: [443, 8443, 993, 995, 465, 636, 853, 3269, 5061],
  krb5: [88],
  smb: [445, 139],
  dcerpc: [135],
  dhcp: [67],
  ssh: [22, 2222],
  ntp: [123],
  snmp: [161],
  ldap: [389, 3268],
  ftp: [21],
  smtp: [25, 587],
  imap: [143],
  pop3: [110],
  rdp: [3389],
  sip: [5060],
  mqtt: [1883],
  modbus: [502],
  nfs: [2049],
  tftp: [69],
  rfb: [5900],
};

/** Printing: raw (JetDirect), LPD and IPP. */
const PRINTER_PORTS: ReadonlySet<number> = new Set([9100, 515, 631]);

/** A port a server of the application protocol listens on: one of its well-known ports, or any below 1024. */
function serverPort(port: number, appProto: string | undefined): boolean {
  return (appProto !== undefined && WELL_KNOWN[appProto]?.includes(port) === true) || (port > 0 && port < 1024);
}

/**
 * Is this flow written from its server's side? A flow is written in its direction, unless
 * Suricata picked it up in the middle, from a server's packet: a server's port as source, an
 * ephemeral one as destination.
 */
function reversedFlow(event: EveEvent): boolean {
  return serverPort(event.src.port, event.appProto) && !serverPort(event.dest.port, event.appProto) && event.dest.port >= 1024;
}

/** Client and server of an event. */
export function sidesOf(event: EveEvent, appProto: string | undefined): { client: Endpoint; server: Endpoint } {
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

class Collector {
  readonly evidence: Evidence[] = [];

  add(ip: string, list: EvidenceList, key: string, item: JsonObject): void {
    this.evidence.push({ ip, list, key, item });
  }

  /** A host name, one value whatever its case (DNS names are not case-sensitive): the latest spelling shown. */
  hostname(ip: string, name: string | undefined): void {
    if (name !== undefined) this.add(ip, 'hostname', name.toLowerCase(), { host: name });
  }

  username(ip: string, name: string | undefined): void {
    const user = personalAccount(name);
    if (user !== undefined) this.add(ip, 'username', user, { user });
  }

  role(ip: string, name: string): void {
    this.add(ip, 'roles', name, { name });
  }

  clientService(ip: string, name: string | undefined): void {
    if (name !== undefined && name !== 'failed' && name !== 'unknown') this.add(ip, 'client_service', name, { name });
  }

  service(server: Endpoint, proto: string, appProto: string | undefined, details: JsonObject = {}): void {
    const app = appProto === undefined || appProto === 'failed' ? 'unknown' : appProto;
    const protoName = proto.toUpperCase() || 'TCP';
    this.add(server.ip, 'services', `${protoName}/${server.port}/${app}`, { proto: protoName, port: server.port, app_proto: app, ...details });
    if (PRINTER_PORTS.has(server.port)) this.role(server.ip, 'printer');
  }
}

function dns(event: EveEvent, out: Collector): void {
  const body = event.body.dns;
  if (!isObject(body)) return;
  // Answers only (v2 `answer`, v3 `response`): the name goes to the address it resolves to.
  const answers = Array.isArray(body.answers) ? body.answers : [];
  for (const answer of answers) {
    if (!isObject(answer) || (answer.rrtype !== 'A' && answer.rrtype !== 'AAAA')) continue;
    const ip = typeof answer.rdata === 'string' && isIpLiteral(answer.rdata) ? answer.rdata : undefined;
    if (ip !== undefined) out.hostname(normalised(ip), hostName(answer.rrname));
  }
  if (answers.length === 0 && isObject(body.grouped)) {
    const name = hostName(body.rrname ?? (Array.isArray(body.queries) && isObject(body.queries[0]) ? body.queries[0].rrname : undefined));
    for (const type of ['A', 'AAAA'] as const) {
      const list = body.grouped[type];
      for (const ip of Array.isArray(list) ? list : []) if (typeof ip === 'string' && isIpLiteral(ip)) out.hostname(normalised(ip), name);
    }
  }
}

function normalised(ip: string): string {
  return ip.toLowerCase();
}

function tls(event: EveEvent, body: JsonObject, out: Collector): void {
  const { client, server } = sidesOf(event, 'tls');
  out.hostname(server.ip, hostName(body.sni));
  const ja3 = hashOf(body.ja3);
  if (ja3 !== undefined) out.add(client.ip, 'tls.ja3', ja3, { hash: ja3, agent: [] });
  const ja4 = hashOf(body.ja4);
  if (ja4 !== undefined) out.add(client.ip, 'tls.ja4', ja4, { hash: ja4, agent: [] });
  const subject = text(body.subject);
  const details: JsonObject =
    subject === undefined ? {} : { tls: { subject, issuerdn: text(body.issuerdn) ?? '', fingerprint: text(body.fingerprint) ?? '' } };
  out.service(server, event.proto, 'tls', details);
  out.clientService(client.ip, 'tls');
}

function http(event: EveEvent, body: JsonObject, out: Collector): void {
  const { client, server } = sidesOf(event, 'http');
  const method = text(body.http_method);
  const url = text(body.url);
  // A proxy is asked for `CONNECT host:port` or for an absolute URL.
  const proxied = method === 'CONNECT' || (url !== undefined && /^[a-z][a-z0-9+.-]*:\/\//i.test(url));
  if (proxied) out.role(server.ip, 'http proxy');
  else out.hostname(server.ip, hostName(body.hostname));
  const agent = text(body.http_user_agent);
  if (agent !== undefined) out.add(client.ip, 'http.user_agent', agent, { agent });
  const software = text(body.server);
  out.service(server, event.proto, 'http', software === undefined ? {} : { http: { server: software } });
  out.clientService(client.ip, 'http');
}

function dhcp(event: EveEvent, out: Collector): void {
  const body = event.body.dhcp;
  if (!isObject(body)) return;
  const { client, server } = sidesOf(event, 'dhcp');
  if (body.type === 'reply') out.role(server.ip, 'dhcp');
  const name = hostName(body.hostname);
  if (name === undefined) return;
  // The name goes to the address the server gives (or the client already has), not to 0.0.0.0.
  for (const candidate of [body.assigned_ip, body.client_ip, body.requested_ip]) {
    if (typeof candidate === 'string' && isIpLiteral(candidate) && candidate !== '0.0.0.0') {
      out.hostname(normalised(candidate), name);
      return;
    }
  }
  if (client.ip !== '0.0.0.0' && client.ip !== '255.255.255.255') out.hostname(client.ip, name);
}

function krb5(event: EveEvent, out: Collector): void {
  const body = event.body.krb5;
  if (!isObject(body)) return;
  const { client, server } = sidesOf(event, 'krb5');
  out.role(server.ip, 'domain controller');
  out.username(client.ip, text(body.cname));
  out.service(server, event.proto, 'krb5');
  out.clientService(client.ip, 'krb5');
}

function smb(event: EveEvent, out: Collector): void {
  const body = event.body.smb;
  if (!isObject(body)) return;
  const { client } = sidesOf(event, 'smb');
  const ntlm = body.ntlmssp;
  if (isObject(ntlm)) {
    out.hostname(client.ip, hostName(ntlm.host));
    out.username(client.ip, text(ntlm.user));
  }
}

function ssh(event: EveEvent, out: Collector): void {
  const body = event.body.ssh;
  if (!isObject(body)) return;
  const { client, server } = sidesOf(event, 'ssh');
  const clientSoftware = isObject(body.client) ? text(body.client.software_version) : undefined;
  if (clientSoftware !== undefined) out.add(client.ip, 'ssh.client', clientSoftware, { software_version: clientSoftware });
  const serverSoftware = isObject(body.server) ? text(body.server.software_version) : undefined;
  out.service(server, event.proto, 'ssh', serverSoftware === undefined ? {} : { ssh: { server: { software_version: serverSoftware } } });
  out.clientService(client.ip, 'ssh');
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
  out.clientService(client.ip, event.appProto);
}

/** A flow's own start (`flow.start`, in the event's time form), if it is one. */
function flowStart(body: JsonObject): number | undefined {
  const flow = body.flow;
  return isObject(flow) && typeof flow.start === 'string' ? eveTimestamp(flow.start) : undefined;
}

/** The evidence of one event. */
export function deriveEvidence(event: EveEvent): Derived {
  const out = new Collector();
  const alerted: string[] = [];
  const body = event.body;
  switch (event.type) {
    case 'dns':
      dns(event, out);
      break;
    case 'tls':
      if (isObject(body.tls)) tls(event, body.tls, out);
      break;
    case 'http':
    case 'fileinfo':
      if (isObject(body.http)) http(event, body.http, out);
      break;
    case 'dhcp':
      dhcp(event, out);
      break;
    case 'krb5':
      krb5(event, out);
      break;
    case 'smb':
      smb(event, out);
      break;
    case 'ssh':
      ssh(event, out);
      break;
    case 'flow':
      flow(event, out);
      break;
    case 'alert':
      alerted.push(event.src.ip);
      if (event.dest.ip !== event.src.ip) alerted.push(event.dest.ip);
      break;
    default:
      break;
  }
  const from = event.type === 'flow' && out.evidence.length > 0 ? flowStart(body) : undefined;
  return from !== undefined && from < event.at ? { at: event.at, from, evidence: out.evidence, alerted } : { at: event.at, evidence: out.evidence, alerted };
}

