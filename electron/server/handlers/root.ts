import { queryGet, quotePlus } from '../../../shared/api/queryString';
import { RESOURCES } from '../../../shared/resources';
import { ok } from '../http/types';
import type { Handler } from '../routing/endpoint';
import { formatSuffixOf } from '../routing/router';
import { absoluteUrl } from './pagination';

/**
 * `GET /rest/`: one absolute link per endpoint family (real clients use it as a connection
 * test). As DRF's `reverse()`, the links keep the request's `?format=`, and a format suffix
 * (`/rest/.json` links to `/rest/rules/source.json`).
 */
export const apiRoot: Handler = (ctx) => {
  const format = queryGet(ctx.query, 'format');
  const query = format === undefined ? '' : `format=${quotePlus(format)}`;
  const suffix = ctx.req.path === '/rest/' || ctx.req.path === '/rest' ? undefined : formatSuffixOf(ctx.req.path);
  const link = (path: string) => (suffix === undefined ? `/rest/${path}/` : `/rest/${path}.${suffix}`);
  return ok(Object.fromEntries(RESOURCES.map((resource) => [resource.path, absoluteUrl(ctx, link(resource.path), query)])));
};
