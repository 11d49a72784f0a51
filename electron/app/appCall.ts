/** One call of an `/app/` route, as its handler sees it, and the handlers' table type. */
import type { AppAnswer, AppRouteName, FileAnswer } from '../../shared/app/routes';
import type { JsonObject } from '../../shared/resources';
import type { ApiRequest } from '../server/http/types';
import type { UserRecord } from '../server/store/users';

/**
 * JSON of a route's answer type rendered already, as UTF-8 bytes, sent as they are: a workspace
 * bundle made on a thread of its own (parsing it again here would hold the event loop).
 */
export class JsonBytes<T> {
  /** The type the bytes are JSON of (for the compiler only). */
  declare readonly of: T;
  constructor(readonly bytes: Uint8Array) {}
}

/**
 * A file answer (`FileAnswer<M>` in shared/app/routes.ts): its bytes produced a chunk at a time as
 * the client takes them (a CSV of a million hosts is never whole in memory). The chunks are made
 * when the answer is sent, not before: a generator's work starts with its first chunk.
 */
export class StreamedBytes<M extends string> {
  constructor(
    readonly mediaType: M,
    readonly chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
  ) {}
}

/** What a handler gives for an answer type: the JSON value (or its bytes), or the streamed file. */
export type AnswerBody<A> = A extends FileAnswer<infer M> ? StreamedBytes<M> : A | JsonBytes<A>;

/** A route's answer: its status, the body its type in shared/app/routes.ts says (or its JSON bytes, or a file streamed), extra headers. */
export interface Answer<N extends AppRouteName = AppRouteName> {
  readonly status: number;
  readonly body: AnswerBody<AppAnswer<N>>;
  readonly headers?: Record<string, string | readonly string[]>;
}

export interface AppCall {
  readonly req: ApiRequest;
  readonly user: UserRecord;
  /** A query parameter's value. */
  query(name: string): string | undefined;
  /** The JSON object the request carries (400 otherwise). */
  body(): JsonObject;
}

/** The handler of a route: the call and the path's parameters (decoded), answering the route's type. */
export type AppHandler<N extends AppRouteName> = (call: AppCall, params: Readonly<Record<string, string>>) => Answer<N> | Promise<Answer<N>>;

export type AppHandlers = { readonly [N in AppRouteName]: AppHandler<N> };

/** A 200 answer of route `N`. */
export function ok<N extends AppRouteName>(body: AnswerBody<AppAnswer<N>>): Answer<N> {
  return { status: 200, body };
}
