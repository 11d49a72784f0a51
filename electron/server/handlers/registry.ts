import type { Endpoint } from '../routing/endpoint';
import type { Services } from '../services';
import { userEndpoint } from './accounts';
import { historyEndpoint, rulesetEndpoint, sourceEndpoint } from './rules';

/** Every endpoint family of api.md, each built once per workspace. */
export function allEndpoints(services: Services): Endpoint[] {
  return [historyEndpoint(services), rulesetEndpoint(services), sourceEndpoint(services), userEndpoint(services)];
}
