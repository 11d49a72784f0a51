/**
 * DNS-rebinding guard (api.md §9): a request is answered only when its Host header names the
 * address and port the server listens on, or `localhost` with that port when it listens on
 * loopback. Listening on a wildcard address accepts every local interface address.
 */
import os from 'node:os';

const isLoopback = (host: string) => host === '::1' || host.startsWith('127.') || host === 'localhost';
const isWildcard = (host: string) => host === '0.0.0.0' || host === '::' || host === '';

function hostPort(host: string, port: number): string {
  return `${host.includes(':') ? `[${host}]` : host}:${port}`.toLowerCase();
}

export function allowedHosts(listenHost: string, port: number, scheme: 'http' | 'https'): ReadonlySet<string> {
  const hosts = new Set<string>();
  const addresses = isWildcard(listenHost)
    ? Object.values(os.networkInterfaces()).flatMap((list) => (list ?? []).map((i) => i.address.replace(/%.*$/, '')))
    : [listenHost];
  if (isWildcard(listenHost) || isLoopback(listenHost)) addresses.push('localhost');
  const defaultPort = scheme === 'https' ? 443 : 80;
  for (const address of addresses) {
    hosts.add(hostPort(address, port));
    if (port === defaultPort) hosts.add(address.includes(':') ? `[${address}]`.toLowerCase() : address.toLowerCase());
  }
  return hosts;
}

export function hostAllowed(header: string | undefined, allowed: ReadonlySet<string>): boolean {
  return header !== undefined && allowed.has(header.trim().toLowerCase());
}
