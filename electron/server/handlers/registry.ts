import type { Endpoint } from '../routing/endpoint';
import type { Services } from '../store/services';
import { userEndpoint } from './accounts';
import { probeEndpoints } from './probes';
import { hostIdEndpoint } from './hosts';
import { historyEndpoint, rulesetEndpoint, sourceEndpoint } from './rules';
import { threatEndpoint } from './threats';

/** Every endpoint family of api.md, each built once per workspace. */
export function allEndpoints(services: Services): Endpoint[] {
  return [
    ...probeEndpoints(services),
    hostIdEndpoint(services),
    threatEndpoint(services),
    historyEndpoint(services),
    rulesetEndpoint(services),
    sourceEndpoint(services),
    userEndpoint(services),
  ];
}
