/**
 * The embedded central-server API for one workspace: every endpoint family, the API root, and
 * the few pages outside `/rest/`. Request in, response out; transports live in http/.
 */
import { MESSAGES } from '../../shared/api/messages';
import { accountEndpoints } from './handlers/registry';
import { apiRoot } from './handlers/root';
import type { ApiRequest, ApiResponse } from './http/types';
import { createRouter, jsonResponse } from './routing/router';
import type { Services } from './services';

export type Api = (req: ApiRequest) => ApiResponse | Promise<ApiResponse>;

export function createApi(services: Services): Api {
  const router = createRouter({ services, endpoints: accountEndpoints(services), root: apiRoot });
  return (req) => router(req) ?? jsonResponse(404, { detail: MESSAGES.notFound });
}
