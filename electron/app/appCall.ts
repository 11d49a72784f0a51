/** One call of an `/app/` route, as its handler sees it, and the handlers' table type. */
import type { AppRouteName } from '../../shared/app/routes';
import type { JsonObject, JsonValue } from '../../shared/resources';
import type { ApiRequest } from '../server/http/types';
import type { UserRecord } from '../server/store/users';

export type Answer = { status: number; body: JsonValue | null; headers?: Record<string, string | readonly string[]> };

export interface AppCall {
  readonly req: ApiRequest;
  readonly user: UserRecord;
  /** A query parameter's value. */
  query(name: string): string | undefined;
  /** The JSON object the request carries (400 otherwise). */
  body(): JsonObject;
}

/** The handler of a route: the call and the path's parameters (decoded). */
export type AppHandler = (call: AppCall, params: Readonly<Record<string, string>>) => Answer | Promise<Answer>;

export type AppHandlers = Readonly<Record<AppRouteName, AppHandler>>;
