import { encodeQuery, removeParam, replaceParam } from '../../../shared/api/queryString';
import type { JsonObject, JsonValue } from '../../../shared/resources';
import type { RequestContext } from '../routing/endpoint';
import type { Page } from '../store/table';

const PATH_SAFE = /[A-Za-z0-9\/:@&+$,\-_.!~*'()]/;
const utf8 = new TextEncoder();

/** Django's `escape_uri_path`: the decoded path quoted again for absolute URLs. */
export function escapePath(path: string): string {
  let out = '';
  for (const char of path) {
    if (PATH_SAFE.test(char)) out += char;
    else for (const byte of utf8.encode(char)) out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** An absolute URL on this server for `path` with the given query (DRF's `build_absolute_uri`). */
export function absoluteUrl(ctx: RequestContext, path: string, query = ''): string {
  return `${ctx.origin}${escapePath(path)}${query ? `?${query}` : ''}`;
}

/** DRF's PageNumberPagination envelope: next/previous keep every other parameter, keys sorted. */
export function paginated(ctx: RequestContext, page: Pick<Page, 'count' | 'page' | 'pageSize'>, results: JsonValue[]): JsonObject {
  const pages = Math.max(1, Math.ceil(page.count / page.pageSize));
  const link = (n: number): string => {
    const pairs = n === 1 ? removeParam(ctx.query, 'page') : replaceParam(ctx.query, 'page', String(n));
    return absoluteUrl(ctx, ctx.req.path, encodeQuery(pairs));
  };
  return {
    count: page.count,
    next: page.page < pages ? link(page.page + 1) : null,
    previous: page.page > 1 ? link(page.page - 1) : null,
    results,
  };
}
