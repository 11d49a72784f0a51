import type { PreparedImport } from '../../../shared/api/imports';
import type { Body } from './jsonBody';

/** A request as the router sees it, whatever carried it (node:http, Electron protocol, tests). */
export interface ApiRequest {
  /** Upper-case method. */
  readonly method: string;
  /** Percent-decoded path, without the query: `/rest/appliances/vendor_probe/1/`. */
  readonly path: string;
  /** The query string as received, without `?`. */
  readonly rawQuery: string;
  /** Header values by lower-case name (bytes as latin-1, as node:http gives them). */
  readonly headers: Readonly<Record<string, string | undefined>>;
  readonly body: Buffer;
  /** An import body already parsed and checked (off the main thread), which its handler uses instead of `body`. */
  readonly prepared?: PreparedImport;
  /** The body's size and SHA-256 (hex), taken before its bytes went to the worker that prepared it (a host import's visit names its file so). */
  readonly bodyDigest?: { readonly size: number; readonly sha256: string };
  /** The body as it arrives, for the routes admitted to read it so (an EVE log of any size); `body` is then empty. */
  readonly bodyStream?: AsyncIterable<Buffer>;
  readonly remoteAddress: string;
  readonly scheme: 'http' | 'https';
}

/** A header value; a list goes out as one header line per item (Set-Cookie). */
export type HeaderValue = string | readonly string[];

export interface ApiResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, HeaderValue>>;
  /** null: no body (204, HEAD). */
  readonly body: string | Buffer | null;
  /** The body's length in bytes when known already (saves measuring a long string again). */
  readonly bodyLength?: number;
  /** A body streamed as it arrives (with `body: null`, no Content-Length): the proxy's answers. */
  readonly stream?: AsyncIterable<Uint8Array>;
}

/** What a handler returns before rendering: a status and a JSON body (null for none). */
export interface Result {
  readonly status: number;
  readonly body: Body | null;
  readonly headers?: Readonly<Record<string, string>>;
}

/** The body as text (in-process callers of the API). */
export function bodyText(response: ApiResponse): string {
  const { body } = response;
  return body === null ? '' : typeof body === 'string' ? body : body.toString('utf8');
}

export function bodyLength(response: ApiResponse): number {
  const { body } = response;
  return response.bodyLength ?? (body === null ? 0 : typeof body === 'string' ? Buffer.byteLength(body) : body.length);
}

/** HEAD: the GET answer's headers, Content-Length included, and no body. */
export function withoutBody(response: ApiResponse): ApiResponse {
  return { status: response.status, body: null, headers: { ...response.headers, 'Content-Length': String(bodyLength(response)) } };
}

export const ok = (body: Body): Result => ({ status: 200, body });
export const created = (body: Body): Result => ({ status: 201, body });
export const noContent = (): Result => ({ status: 204, body: null });

/** A route outside `/rest/`: answers the request, or undefined when the path is not its own. */
export type PageRoute = (req: ApiRequest) => ApiResponse | undefined;
