/**
 * "Open on the central server" (app.md §4, Host lookup): the system browser gets only a URL the
 * main process builds itself — the bound remote's hunt page for one validated address, over
 * https. A standalone workspace has no central server: nothing opens.
 */
import { parseIp } from '../../shared/api/address';
import { isIpLiteral } from '../../shared/app/bridge';

/** The address in its canonical form, or undefined when it is not an IP address. */
export function validIp(value: unknown): string | undefined {
  if (typeof value !== 'string' || !isIpLiteral(value)) return undefined;
  const ip = parseIp(value);
  // A zone (fe80::1%eth0) means nothing to another machine.
  return ip && !ip.text.includes('%') ? ip.text : undefined;
}

/** A remote's base URL fit to be opened: https, no credentials, query or fragment. */
export function validRemoteBase(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'https:' || url.username || url.password || url.search || url.hash || !url.hostname) return undefined;
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

/** The central server's host view of `ip`: `<base>/rules/hunt?session=temporary&page=HOSTS_LIST&ip=<ip>`. */
export function huntUrl(remoteBase: string, ip: string): string | undefined {
  const base = validRemoteBase(remoteBase);
  const address = validIp(ip);
  if (!base || !address) return undefined;
  const url = new URL(`${base}/rules/hunt`);
  url.searchParams.set('session', 'temporary');
  url.searchParams.set('page', 'HOSTS_LIST');
  url.searchParams.set('ip', address);
  return url.toString();
}

/**
 * The remote's base from the server's `/app/central-link` answer (`{"url": "<base>/rules/hunt?…"}`,
 * or `{"url": null}` for a standalone workspace). Only the base is taken; the link is rebuilt.
 */
export function remoteBaseFromLink(answer: unknown): string | undefined {
  if (typeof answer !== 'object' || answer === null || !('url' in answer) || typeof answer.url !== 'string') return undefined;
  let url: URL;
  try {
    url = new URL(answer.url);
  } catch {
    return undefined;
  }
  const hunt = url.pathname.replace(/\/+$/, '');
  if (!hunt.endsWith('/rules/hunt')) return undefined;
  return validRemoteBase(`${url.origin}${hunt.slice(0, -'/rules/hunt'.length)}`);
}

export interface CentralLinkDeps {
  /** The server's answer to `GET /app/central-link?ip=<ip>`, undefined when it could not be asked. */
  readonly centralLink: (ip: string) => Promise<unknown>;
  /** Electron's shell.openExternal. */
  readonly openExternal: (url: string) => Promise<void>;
}

/** Open the hunt page of `ip` in the system browser; false when there is none to open. */
export async function openOnCentral(deps: CentralLinkDeps, ip: string): Promise<boolean> {
  const address = validIp(ip);
  if (!address) return false;
  const base = remoteBaseFromLink(await deps.centralLink(address));
  const url = base ? huntUrl(base, address) : undefined;
  if (!url) return false;
  await deps.openExternal(url);
  return true;
}
