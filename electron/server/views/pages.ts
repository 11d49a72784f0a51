import type { ApiRequest, ApiResponse } from '../http/types';
import type { Services } from '../services';
import { huntPage } from './hunt';
import { loginPages } from './login';

/** A route outside `/rest/`: answers the request, or undefined when the path is not its own. */
export type PageRoute = (req: ApiRequest) => ApiResponse | undefined;

/** The pages outside the API: the host view link (`/rules/hunt`), the login and logout pages. */
export function pages(services: Services): PageRoute[] {
  return [huntPage(services), ...loginPages(services)];
}
