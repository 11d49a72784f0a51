import { defineResource, fields } from './resource';

/** api.md §7: the lists of a host identity, each served with its `<list>_count`. */
export const HOST_LISTS = [
  'net_info',
  'hostname',
  'username',
  'roles',
  'client_service',
  'http.user_agent',
  'tls.ja3',
  'tls.ja4',
  'ssh.client',
  'services',
] as const;
export type HostListName = (typeof HOST_LISTS)[number];

/** Suricata's HOME_NET: the default home networks of a workspace (docs/eve.md). */
export const HOME_NETS = ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16'] as const;

export const hostId = defineResource({
  name: 'host_id',
  path: 'appliances/host_id',
  title: 'Host Id',
  description:
    'Host identities: what is known of each IP address (hostnames, services, users, agents, TLS fingerprints, SSH clients, roles). GET host_id/<ip> for one address; import/ to load a JSON array.',
  fields: fields({
    ip: { kind: 'string', required: true, label: 'Ip' },
    hits: { kind: 'integer', min: 0, default: 0 },
    host_id: { kind: 'json', required: true, label: 'Host id' },
  }),
  access: 'read-only',
  filters: ['ip'],
  search: ['ip'],
  ordering: ['ip', 'hits', 'host_id.first_seen', 'host_id.last_seen', ...HOST_LISTS.map((list) => `host_id.${list}_count`)],
  defaultOrdering: ['-host_id.last_seen'],
  display: 'ip',
  // The identity is kept whole as JSON (`data`); copies of some of its values serve filters,
  // ordering and search.
  storage: { table: 'host_id', computed: ['host_id'], internal: ['pk', 'first_seen', 'last_seen', 'hostnames', 'data', 'central', 'central_hits', 'learned'] },
  sync: { pull: { order: 8, query: { ordering: 'ip' }, key: 'ip' } },
});
