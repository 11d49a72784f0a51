/**
 * The embedded central-server API for one workspace: every endpoint family under `/rest/`, and
 * the few pages outside it. Request in, response out; transports live in http/.
 */
import { MESSAGES } from '../../shared/api/messages';
import { allEndpoints } from './handlers/registry';
import { apiRoot } from './handlers/root';
import type { ApiRequest, ApiResponse } from './http/types';
import { jsonResponse } from './http/responses';
import { createRouter } from './routing/router';
import type { Services } from './store/services';
import { browsableRenderer } from './views/browsable';
import { pages } from './views/pages';

export type Api = (req: ApiRequest) => ApiResponse | Promise<ApiResponse>;

export function createApi(services: Services): Api {
  const router = createRouter({ services, endpoints: allEndpoints(services), root: apiRoot, html: browsableRenderer });
  const pageRoutes = pages(services);
  return (req) => {
    const routed = router(req);
    if (routed) return routed;
    for (const page of pageRoutes) {
      const answer = page(req);
      if (answer) return answer;
    }
    return jsonResponse(404, { detail: MESSAGES.notFound });
  };
}
