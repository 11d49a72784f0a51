/**
 * The host_id row of an address that only the local imports saw (no central part: every address
 * of a site import but those the central server knows too), its JSON written straight from the
 * stored evidence: each stored item is already JSON text, so it is not parsed, rebuilt and
 * written again. The text is the one `hostIdentity` gives through objects (identity.ts), byte for
 * byte; where an item is not of the form this relies on, there is no row here and that path is
 * taken.
 */
import { networkContains, parseIp, type Network } from '../api/address';
import { pyStr } from '../api/python';
import { HOST_LISTS } from '../resources/hosts';
import type { JsonObject } from '../resources/fields';
import type { IdentityRecord, IdentitySource } from './identity';
import { eveTime, hostTime } from './times';

/** Each list's key and count key as JSON text, in the order host_id lists them. */
const LIST_KEYS = HOST_LISTS.filter((list) => list !== 'net_info').map((list) => ({ list, key: JSON.stringify(list), count: JSON.stringify(`${list}_count`) }));

/** A stored item of a list that is not `services`: an object of its own fields, times added after them. */
function timedItem(item: string, first: string, last: string): string | undefined {
  if (item.charCodeAt(0) !== 0x7b || item.charCodeAt(item.length - 1) !== 0x7d || item.includes('"first_seen"') || item.includes('"last_seen"')) return undefined;
  const times = `"first_seen":"${first}","last_seen":"${last}"}`;
  return item.length === 2 ? `{${times}` : `${item.slice(0, -1)},${times}`;
}

/**
 * A stored service as the import writes it (JSON.stringify of `{proto, port, app_proto, ...details}`):
 * its protocol, port and application protocol, plain strings and a port number, then its details.
 */
const SERVICE_HEAD = /^\{"proto":"([^"\\\u0000-\u001f]*)","port":(0|[1-9][0-9]{0,4}),"app_proto":("[^"\\\u0000-\u001f]*")(?=[,}])/;

/**
 * A stored service as its group (protocol and port), the head of that group and its value with its
 * times (the fields in the order the object path writes them: application protocol, times,
 * details). One of the import's own form is read without being parsed; any other is parsed.
 * Undefined when its details carry times of their own (the object path then writes the identity).
 */
function serviceEntry(item: string, first: number, last: number): { id: string; head: string; value: string } | undefined {
  const plain = SERVICE_HEAD.exec(item);
  if (plain && item.charCodeAt(item.length - 1) === 0x7d) {
    const details = item.slice(plain[0].length, -1);
    if (!details.includes('"first_seen"') && !details.includes('"last_seen"')) {
      const [, proto, port, app] = plain;
      return {
        id: `${proto}/${port}`,
        head: `{"proto":"${proto}","port":${port},"values":[`,
        value: `{"app_proto":${app},"first_seen":"${eveTime(first)}","last_seen":"${eveTime(last)}"${details}}`,
      };
    }
  }
  const { proto, port, app_proto, ...details } = JSON.parse(item) as JsonObject;
  if ('first_seen' in details || 'last_seen' in details) return undefined;
  return {
    id: `${String(proto)}/${String(port)}`,
    head: `{"proto":${JSON.stringify(proto ?? null)},"port":${JSON.stringify(port ?? null)},"values":[`,
    value: JSON.stringify({ app_proto: app_proto ?? 'unknown', first_seen: eveTime(first), last_seen: eveTime(last), ...details }),
  };
}

/** The row of an address with local evidence only, or undefined when an item is not of the usual form. */
export function localIdentityRecord(source: IdentitySource, homeNets: readonly Network[]): IdentityRecord | undefined {
  const items = new Map<string, string[]>();
  const hostnames: string[] = [];
  // Services by protocol and port, in the order of their first value (as the object path groups them).
  const services = new Map<string, { head: string; values: string[] }>();
  for (const [list, , item, first, last] of source.values) {
    if (list === 'services') {
      const entry = serviceEntry(item, first, last);
      if (!entry) return undefined;
      const service = services.get(entry.id);
      if (service) service.values.push(entry.value);
      else services.set(entry.id, { head: entry.head, values: [entry.value] });
      continue;
    }
    const text = timedItem(item, hostTime(first), hostTime(last));
    if (text === undefined) return undefined;
    if (list === 'hostname') hostnames.push(pyStr((JSON.parse(item) as JsonObject).host ?? ''));
    const listed = items.get(list);
    if (listed) listed.push(text);
    else items.set(list, [text]);
  }
  if (services.size > 0) items.set('services', [...services.values()].map((service) => `${service.head}${service.values.join(',')}]}`));
  const address = parseIp(source.ip);
  const home = address ? homeNets.find((network) => networkContains(network, address)) : undefined;
  const first = hostTime(source.first);
  const last = hostTime(source.last);
  let json = `{"first_seen":"${first}","last_seen":"${last}","in_home_net":${home !== undefined},"net_info":[{"agg":${JSON.stringify(home?.text ?? 'internet')},"first_seen":"${first}","last_seen":"${last}"}],"net_info_count":1`;
  for (const { list, key, count } of LIST_KEYS) {
    const listed = items.get(list) ?? [];
    json += `,${key}:[${listed.join(',')}],${count}:${listed.length}`;
  }
  return {
    ip: source.ip,
    hits: Math.max(source.centralHits ?? 0, source.hits),
    first_seen: source.first,
    last_seen: source.last,
    hostnames: hostnames.join(' '),
    data: `${json}}`,
  };
}
