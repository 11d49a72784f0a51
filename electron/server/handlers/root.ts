import { RESOURCES } from '../../../shared/resources';
import { ok } from '../http/types';
import type { Handler } from '../routing/endpoint';
import { absoluteUrl } from './pagination';

/** `GET /rest/`: one absolute link per endpoint family (real clients use it as a connection test). */
export const apiRoot: Handler = (ctx) =>
  ok(Object.fromEntries(RESOURCES.map((resource) => [resource.path, absoluteUrl(ctx, `/rest/${resource.path}/`)])));
