/**
 * The host_id row of an address that only the local imports saw (no central part: every address
 * of a site import but those the central server knows too), its JSON written straight from the
 * stored evidence: each stored item is JSON text already, so it is not parsed, rebuilt and
 * written again. The text is the one identity.ts writes through objects, byte for byte (tested).
 */
import { networkContains, parseIp, type Network } from '../api/address';
import { pyStr } from '../api/python';
import { HOST_LISTS } from '../resources/hosts';
import type { JsonObject } from '../resources/fields';
import { detailOf } from './derive';
import type { IdentityRecord, IdentitySource } from './identitySource';
import { eveTime, hostTime } from './times';

/** Each list's key and count key as JSON text, in the order host_id lists them. */
const LIST_KEYS = HOST_LISTS.filter((list) => list !== 'net_info').map((list) => ({ list, key: JSON.stringify(list), count: JSON.stringify(`${list}_count`) }));

/** A stored item of a list that is not `services` (an object of its own fields), with its times added after them. */
function timedItem(item: string, first: string, last: string): string {
  const times = `"first_seen":"${first}","last_seen":"${last}"}`;
  return item === '{}' ? `{${times}` : `${item.slice(0, -1)},${times}`;
}

/** A stored service `{"proto":…,"port":…,"app_proto":…}` as the import writes it: read without being parsed. */
const SERVICE_ITEM = /^\{"proto":("[^"\\\u0000-\u001f]*"),"port":(0|[1-9][0-9]{0,4}),"app_proto":("[^"\\\u0000-\u001f]*")\}$/;

/** A stored service as its group (protocol and port), the head of that group and the start of its value (its times in). */
function serviceEntry(item: string, first: number, last: number): { group: string; head: string; value: string } {
  const plain = SERVICE_ITEM.exec(item);
  const [proto, port, app] = plain ? [plain[1]!, plain[2]!, plain[3]!] : serviceFields(item);
  const value = `{"app_proto":${app},"first_seen":"${eveTime(first)}","last_seen":"${eveTime(last)}"`;
  return { group: `${proto}/${port}`, head: `{"proto":${proto},"port":${port},"values":[`, value };
}

/** A service item of another form (escapes in its texts), its fields as JSON text. */
function serviceFields(item: string): [string, string, string] {
  const { proto, port, app_proto } = JSON.parse(item) as JsonObject;
  return [JSON.stringify(proto ?? null), JSON.stringify(port ?? null), JSON.stringify(app_proto ?? 'unknown')];
}

/** The row of an address with local evidence only. */
export function localIdentityRecord(source: IdentitySource, homeNets: readonly Network[]): IdentityRecord {
  const items = new Map<string, string[]>();
  const hostnames: string[] = [];
  // Service values by key, grouped by protocol and port in the order of their first value; details added to them.
  const values = new Map<string, { value: string; details: string }>();
  const groups = new Map<string, { head: string; keys: string[] }>();
  for (const [list, key, item, first, last] of source.values) {
    if (list === 'services') {
      const entry = serviceEntry(item, first, last);
      values.set(key, { value: entry.value, details: '' });
      const group = groups.get(entry.group);
      if (group) group.keys.push(key);
      else groups.set(entry.group, { head: entry.head, keys: [key] });
      continue;
    }
    const detail = detailOf(list);
    if (detail !== undefined) {
      const value = values.get(key);
      if (value) value.details += `,"${detail}":${item}`;
      continue;
    }
    if (list === 'hostname') hostnames.push(pyStr((JSON.parse(item) as JsonObject).host ?? ''));
    const text = timedItem(item, hostTime(first), hostTime(last));
    (items.get(list) ?? items.set(list, []).get(list)!).push(text);
  }
  if (groups.size > 0) items.set('services', [...groups.values()].map(({ head, keys }) => `${head}${keys.map((key) => `${values.get(key)!.value}${values.get(key)!.details}}`).join(',')}]}`));
  const address = parseIp(source.ip);
  const home = address ? homeNets.find((network) => networkContains(network, address)) : undefined;
  const first = hostTime(source.first);
  const last = hostTime(source.last);
  let json = `{"first_seen":"${first}","last_seen":"${last}","in_home_net":${home !== undefined},"net_info":[{"agg":${JSON.stringify(home?.text ?? 'internet')},"first_seen":"${first}","last_seen":"${last}"}],"net_info_count":1`;
  for (const { list, key, count } of LIST_KEYS) {
    const listed = items.get(list) ?? [];
    json += `,${key}:[${listed.join(',')}],${count}:${listed.length}`;
  }
  return { ip: source.ip, hits: Math.max(source.centralHits ?? 0, source.hits), first_seen: source.first, last_seen: source.last, hostnames: hostnames.join(' '), data: `${json}}` };
}
