/**
 * IP addresses and host names as Python's `ipaddress` and the central server read them, with
 * no Node or DOM dependency (the renderer validates forms with the same code).
 */

export interface IpAddress {
  readonly version: 4 | 6;
  /** 4 bytes, or 16 for IPv6. */
  readonly bytes: readonly number[];
  /** Canonical text: IPv6 compressed and lower-case, as Python's `str(ip_address(x))`. */
  readonly text: string;
}

function parseIpv4Bytes(text: string): number[] | undefined {
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  const bytes: number[] = [];
  for (const part of parts) {
    if (!/^\d{1,3}$/.test(part) || (part.length > 1 && part.startsWith('0'))) return undefined;
    const n = Number(part);
    if (n > 255) return undefined;
    bytes.push(n);
  }
  return bytes;
}

function parseIpv6Bytes(text: string): number[] | undefined {
  let body = text;
  const scope = body.indexOf('%');
  if (scope >= 0) {
    if (scope === body.length - 1 || body.slice(scope + 1).includes('%')) return undefined;
    body = body.slice(0, scope);
  }
  if (body.length < 2) return undefined;
  let tail: number[] = [];
  const lastColon = body.lastIndexOf(':');
  if (body.slice(lastColon + 1).includes('.')) {
    const v4 = parseIpv4Bytes(body.slice(lastColon + 1));
    if (!v4) return undefined;
    tail = [(v4[0]! << 8) | v4[1]!, (v4[2]! << 8) | v4[3]!];
    body = body.slice(0, lastColon + 1);
    if (!body.endsWith('::')) body = body.slice(0, -1);
  }
  const halves = body.split('::');
  if (halves.length > 2) return undefined;
  const groups = (part: string): number[] | undefined => {
    if (part === '') return [];
    const out: number[] = [];
    for (const g of part.split(':')) {
      if (!/^[0-9A-Fa-f]{1,4}$/.test(g)) return undefined;
      out.push(parseInt(g, 16));
    }
    return out;
  };
  const head = groups(halves[0]!);
  const rest = halves.length === 2 ? groups(halves[1]!) : [];
  if (!head || !rest) return undefined;
  const given = head.length + rest.length + tail.length;
  let hextets: number[];
  if (halves.length === 2) {
    if (given > 7) return undefined;
    hextets = [...head, ...new Array<number>(8 - given).fill(0), ...rest, ...tail];
  } else {
    if (given !== 8) return undefined;
    hextets = [...head, ...tail];
  }
  return hextets.flatMap((h) => [h >> 8, h & 0xff]);
}

function ipv6Text(bytes: readonly number[]): string {
  const hextets: number[] = [];
  for (let i = 0; i < 16; i += 2) hextets.push((bytes[i]! << 8) | bytes[i + 1]!);
  let bestStart = -1;
  let bestLength = 0;
  for (let i = 0; i < 8; ) {
    if (hextets[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && hextets[j] === 0) j++;
    if (j - i > bestLength) {
      bestStart = i;
      bestLength = j - i;
    }
    i = j;
  }
  const hex = hextets.map((h) => h.toString(16));
  if (bestLength < 2) return hex.join(':');
  const left = hex.slice(0, bestStart).join(':');
  const right = hex.slice(bestStart + bestLength).join(':');
  return `${left}::${right}`;
}

/** Python's `ip_address(text)`: undefined when `text` is not an IPv4 or IPv6 address. */
export function parseIp(text: string): IpAddress | undefined {
  if (text.includes(':')) {
    const bytes = parseIpv6Bytes(text);
    if (!bytes) return undefined;
    const scope = text.indexOf('%');
    return { version: 6, bytes, text: ipv6Text(bytes) + (scope >= 0 ? text.slice(scope) : '') };
  }
  const bytes = parseIpv4Bytes(text);
  return bytes ? { version: 4, bytes, text: bytes.join('.') } : undefined;
}

const HOST_NAME =
  /^(?=.{1,253}\.?$)[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?$/;

/** A probe's `address`: an IP address or an RFC 1123 host name (all-digit names are not). */
export function isAddressOrHostName(text: string): boolean {
  if (parseIp(text)) return true;
  return !/^[0-9.]+$/.test(text) && HOST_NAME.test(text);
}

export interface Network {
  readonly text: string;
  readonly version: 4 | 6;
  readonly bytes: readonly number[];
  readonly prefix: number;
}

export function parseNetwork(text: string): Network | undefined {
  const slash = text.indexOf('/');
  if (slash < 0) return undefined;
  const ip = parseIp(text.slice(0, slash));
  const prefixText = text.slice(slash + 1);
  if (!ip || !/^\d{1,3}$/.test(prefixText)) return undefined;
  const prefix = Number(prefixText);
  if (prefix > ip.bytes.length * 8) return undefined;
  return { text, version: ip.version, bytes: ip.bytes, prefix };
}

/** A network's address: its bytes with the host bits (those past the prefix) cleared. */
function networkBytes(network: Network): number[] {
  return network.bytes.map((byte, i) => {
    const bits = network.prefix - i * 8;
    return bits >= 8 ? byte : bits <= 0 ? 0 : byte & ((0xff << (8 - bits)) & 0xff);
  });
}

/** Does the address of `10.1.2.3/8` have bits set past its prefix (Python's strict ip_network refuses it)? */
export function hasHostBits(network: Network): boolean {
  return networkBytes(network).some((byte, i) => byte !== network.bytes[i]);
}

/** The canonical text of a network, its host bits cleared: `10.0.0.0/8`, `fd00::/8`. */
export function networkText(network: Network): string {
  const bytes = networkBytes(network);
  return `${network.version === 4 ? bytes.join('.') : ipv6Text(bytes)}/${network.prefix}`;
}

export function networkContains(network: Network, ip: IpAddress): boolean {
  if (network.version !== ip.version) return false;
  let bits = network.prefix;
  for (let i = 0; bits > 0; i++, bits -= 8) {
    const mask = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff;
    if ((network.bytes[i]! & mask) !== (ip.bytes[i]! & mask)) return false;
  }
  return true;
}
