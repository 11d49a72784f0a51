/**
 * An endpoint family as a DRF ViewSet: a resource plus the handlers it has. The router derives
 * routes, the `Allow` header, 405s and OPTIONS from which handlers exist.
 */
import type { QueryPairs } from '../../../shared/api/queryString';
import type { JsonValue, Resource } from '../../../shared/resources';
import type { ApiRequest, Result } from '../http/types';
import type { Services } from '../store/services';
import type { UserRecord } from '../store/users';

export interface RequestContext {
  readonly req: ApiRequest;
  readonly query: QueryPairs;
  readonly user: UserRecord;
  readonly services: Services;
  /** `scheme://host` of the request, for absolute URLs. */
  readonly origin: string;
  /** The JSON body (`{}` when empty); 415 / 400 on a bad one. Parsed on first use, as DRF does. */
  body(): JsonValue;
}

export type Handler = (ctx: RequestContext, id: string) => Result;

export type ActionMethod = 'GET' | 'POST';

export interface Action {
  readonly name: string;
  /** On `<pk>/<name>/` (true) or `<name>/` (false). */
  readonly detail: boolean;
  readonly methods: readonly ActionMethod[];
  readonly handler: Handler;
  /** Non-managers may call it with POST on their own pk (token/, password/). */
  readonly selfService?: boolean;
}

export interface Endpoint {
  readonly resource: Resource;
  /** Regex source of a valid lookup value in the detail path (DRF's default: `[^/.]+`). */
  readonly lookup?: string;
  readonly list?: Handler;
  readonly create?: Handler;
  readonly retrieve?: Handler;
  readonly update?: Handler;
  readonly partialUpdate?: Handler;
  readonly destroy?: Handler;
  readonly actions?: readonly Action[];
}

/** HTTP method → handler name, in the order DRF lists allowed methods. */
export const LIST_METHODS = { GET: 'list', POST: 'create' } as const;
export const DETAIL_METHODS = { GET: 'retrieve', PUT: 'update', PATCH: 'partialUpdate', DELETE: 'destroy' } as const;
