/**
 * Which addresses an EVE line makes a host of, written from docs/eve.md's table (not the
 * program's code): the independent reckoning of the hosts an import brings, for the tests that
 * split a real log into imports (test/workspaces/visits.test.ts, test/e2e/hostsSurvey.test.ts).
 */
export type EveEvent = Record<string, any>;

/** An address as the API writes it, if it is a host's (not unspecified, loopback, multicast, broadcast). */
function hostAddress(text: unknown): string | undefined {
  if (typeof text !== 'string') return undefined;
  const v4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
  if (v4) {
    const octets = v4.slice(1).map(Number);
    if (octets.some((o, i) => o > 255 || v4[i + 1]!.length > 1 && v4[i + 1]!.startsWith('0'))) return undefined;
    const [a] = octets as [number];
    if (a === 0 || a === 127 || (a >= 224 && a <= 239) || text === '255.255.255.255') return undefined;
    return text;
  }
  if (!text.includes(':')) return undefined;
  let canonical: string;
  try {
    canonical = new URL(`http://[${text}]/`).hostname.slice(1, -1);
  } catch {
    return undefined;
  }
  const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(canonical);
  if (mapped) {
    const [hi, lo] = [parseInt(mapped[1]!, 16), parseInt(mapped[2]!, 16)];
    return hostAddress(`${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`);
  }
  return canonical === '::' || canonical === '::1' || canonical.startsWith('ff') ? undefined : canonical;
}

/** Ports a protocol's servers listen on (docs/eve.md: 53, 80/8080/3128, 443, 88, 445/139, 67, 22). */
const WELL_KNOWN: Record<string, number[]> = { dns: [53], http: [80, 8080, 3128, 8000], tls: [443, 8443], krb5: [88], smb: [445, 139], dhcp: [67], ssh: [22] };

function sides(event: EveEvent, proto: string | undefined): { client: unknown; server: unknown; serverPort: number } {
  const src = { ip: event.src_ip, port: Number(event.src_port ?? 0) };
  const dest = { ip: event.dest_ip, port: Number(event.dest_port ?? 0) };
  const known = (port: number) => (proto !== undefined && WELL_KNOWN[proto]?.includes(port)) || false;
  const pick = (server: typeof src, client: typeof src) => ({ client: client.ip, server: server.ip, serverPort: server.port });
  if (event.event_type === 'flow') {
    const serverish = (port: number) => known(port) || (port > 0 && port < 1024);
    return serverish(src.port) && !serverish(dest.port) && dest.port >= 1024 ? pick(src, dest) : pick(dest, src);
  }
  if (known(dest.port) && !known(src.port)) return pick(dest, src);
  if (known(src.port) && !known(dest.port)) return pick(src, dest);
  return src.port !== 0 && src.port < dest.port ? pick(src, dest) : pick(dest, src);
}

export function hostsOfLine(event: EveEvent): string[] {
  const out: unknown[] = [];
  switch (event.event_type) {
    case 'alert':
      out.push(event.src_ip, event.dest_ip);
      break;
    case 'http':
    case 'fileinfo':
    case 'tls':
    case 'krb5':
    case 'ssh':
      // The server gets a service, the client a client service: both are hosts.
      if (event[event.event_type === 'fileinfo' ? 'http' : event.event_type]) out.push(event.src_ip, event.dest_ip);
      break;
    case 'dns': {
      const dns = event.dns ?? {};
      const answers: EveEvent[] = Array.isArray(dns.answers) ? dns.answers : [];
      for (const answer of answers) if (answer.rrtype === 'A' || answer.rrtype === 'AAAA') out.push(answer.rdata);
      if (answers.length === 0 && dns.grouped) out.push(...(dns.grouped.A ?? []), ...(dns.grouped.AAAA ?? []));
      break;
    }
    case 'smb': {
      const ntlm = event.smb?.ntlmssp;
      const person = typeof ntlm?.user === 'string' && ntlm.user !== '' && ntlm.user !== '<empty>' && !ntlm.user.endsWith('$');
      if (ntlm && ((typeof ntlm.host === 'string' && ntlm.host !== '') || person)) out.push(sides(event, 'smb').client);
      break;
    }
    case 'flow': {
      const { client, server, serverPort } = sides(event, event.app_proto);
      const reversed = server === event.src_ip && event.src_ip !== event.dest_ip;
      const answered = Number(reversed ? event.flow?.pkts_toserver : event.flow?.pkts_toclient) > 0;
      if (!answered || serverPort === 0) break;
      out.push(server);
      if (event.app_proto && event.app_proto !== 'failed' && event.app_proto !== 'unknown') out.push(client);
      break;
    }
  }
  return out.map(hostAddress).filter((ip): ip is string => ip !== undefined);
}

