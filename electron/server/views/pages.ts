import type { PageRoute } from '../http/types';
import type { Services } from '../store/services';
import { huntPage } from './hunt';
import { loginPages } from './login';

/** The pages outside the API: the host view link (`/rules/hunt`), the login and logout pages. */
export function pages(services: Services): PageRoute[] {
  return [huntPage(services), ...loginPages(services)];
}
