import { encodeQuery, removeParam, replaceParam } from '../../../shared/api/queryString';
import type { JsonObject, JsonValue } from '../../../shared/resources';
import { RenderedJson } from '../http/jsonBody';
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

type PageInfo = Pick<Page, 'count' | 'page' | 'pageSize'>;

function links(ctx: RequestContext, page: PageInfo): { next: string | null; previous: string | null } {
  const pages = Math.max(1, Math.ceil(page.count / page.pageSize));
  const link = (n: number): string => {
    const pairs = n === 1 ? removeParam(ctx.query, 'page') : replaceParam(ctx.query, 'page', String(n));
    return absoluteUrl(ctx, ctx.req.path, encodeQuery(pairs));
  };
  return { next: page.page < pages ? link(page.page + 1) : null, previous: page.page > 1 ? link(page.page - 1) : null };
}

/** DRF's PageNumberPagination envelope: next/previous keep every other parameter, keys sorted. */
export function paginated(ctx: RequestContext, page: PageInfo, results: JsonValue[]): JsonObject {
  return { count: page.count, ...links(ctx, page), results };
}

/** The same envelope around objects rendered already. */
export function paginatedRendered(ctx: RequestContext, page: PageInfo, results: readonly RenderedJson[]): RenderedJson {
  const { next, previous } = links(ctx, page);
  const head = `{"count":${page.count},"next":${JSON.stringify(next)},"previous":${JSON.stringify(previous)},"results":[`;
  let bytes = Buffer.byteLength(head) + 2 + Math.max(0, results.length - 1);
  const texts: string[] = [];
  for (const result of results) {
    texts.push(result.text);
    bytes += result.byteLength;
  }
  return new RenderedJson(`${head}${texts.join(',')}]}`, bytes);
}
