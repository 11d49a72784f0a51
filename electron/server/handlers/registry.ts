import type { Endpoint } from '../routing/endpoint';
import type { Services } from '../services';
import { userEndpoint } from './accounts';
import { probeEndpoints } from './probes';
import { historyEndpoint, rulesetEndpoint, sourceEndpoint } from './rules';
import { threatEndpoint } from './threats';

/** Every endpoint family of api.md, each built once per workspace. */
export function allEndpoints(services: Services): Endpoint[] {
  return [
    ...probeEndpoints(services),
    threatEndpoint(services),
    historyEndpoint(services),
    rulesetEndpoint(services),
    sourceEndpoint(services),
    userEndpoint(services),
  ];
}
