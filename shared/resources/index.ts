import type { Resource } from './resource';
import { user } from './accounts';
import { hostId } from './hosts';
import { appliances, engineProbe, networkInterface, vendorDevice, vendorProbe, vendorProbeTemplate } from './probes';
import { history, ruleset, source } from './rules';
import { threat } from './threats';

export * from './fields';
export * from './resource';
export { user, ROLES, type Role } from './accounts';
export { hostId, HOST_LISTS, HOME_NETS, type HostListName } from './hosts';
export * from './probes';
export { history, ruleset, source, ACTIONS } from './rules';
export { threat } from './threats';

/** Every endpoint family, in the order `GET /rest/` lists them. */
export const RESOURCES: readonly Resource[] = [
  vendorProbeTemplate,
  vendorProbe,
  engineProbe,
  appliances,
  vendorDevice,
  networkInterface,
  hostId,
  threat,
  history,
  ruleset,
  source,
  user,
];

const byName = new Map(RESOURCES.map((r) => [r.name, r]));

export function resourceNamed(name: string): Resource {
  const found = byName.get(name);
  if (!found) throw new Error(`unknown resource ${name}`);
  return found;
}
