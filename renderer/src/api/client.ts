/**
 * The renderer's HTTP client for the embedded server: the API under /rest/ and the app's own
 * endpoints under /app/. Same-origin relative URLs in both modes: in Electron the app://
 * protocol forwards them with the local token; in a browser the session cookie authenticates
 * and unsafe methods carry the CSRF token.
 */
import { APP_ROUTES, appPath, type AppAnswer, type AppBody, type AppParams, type AppRouteName } from '../../../shared/app/routes';
import { WORKSPACE_HEADER } from '../../../shared/app/workspaceHeader';
import type { JsonObject, JsonValue } from '../../../shared/resources';
import { forgetUnsavedChanges } from '../stores/unsavedChanges';

/** An answer other than 2xx: its status and the API's error body (DRF shapes). */
export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly body: JsonValue,
  ) {
    super(describeFailure(status, body));
  }

  /** Field errors of a 400 (`{"field": ["message"]}`), if the body has that shape. */
  fieldErrors(): Record<string, JsonValue> {
    return this.status === 400 && typeof this.body === 'object' && this.body !== null && !Array.isArray(this.body) ? this.body : {};
  }
}

function describeFailure(status: number, body: JsonValue): string {
  if (typeof body === 'object' && body !== null && !Array.isArray(body) && typeof body.detail === 'string') return body.detail;
  if (status === 0) return 'The server did not answer.';
  return `The server answered ${status}.`;
}

/** The CSRF token a browser session sends with unsafe methods (none in Electron). */
export function csrfToken(): string | undefined {
  return /(?:^|;\s*)csrftoken=([^;]+)/.exec(document.cookie)?.[1];
}

export type Query = Readonly<Record<string, string | number | boolean | undefined>>;

export function withQuery(path: string, query: Query = {}): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value !== undefined && value !== '') params.set(key, String(value));
  const text = params.toString();
  return text ? `${path}${path.includes('?') ? '&' : '?'}${text}` : path;
}

export interface RequestOptions {
  readonly query?: Query;
  readonly body?: JsonValue;
  readonly signal?: AbortSignal;
}

/**
 * The workspace this page was loaded for. Every request names it (`X-Outpost-Workspace`), and
 * the server refuses a write meant for another workspace with a 409: a form left open in a tab
 * while another tab switched workspaces must not save into the workspace now open.
 */
let pageWorkspace: string | undefined;
const NOTICE_KEY = 'outpost.workspaceChanged';

/** Binds the page to the first workspace it sees; false when `name` is another one (the page is stale). */
export function followsPageWorkspace(name: string): boolean {
  pageWorkspace ??= name;
  return pageWorkspace === name;
}

/** The page belongs to a workspace that is no longer open: start afresh on the open one, saying why. */
export function workspaceChanged(open: string): void {
  sessionStorage.setItem(NOTICE_KEY, `The open workspace is now "${open}" (it was switched elsewhere): this page was reloaded, and nothing was saved into "${open}".`);
  // The page's edits belong to the workspace that is gone: nothing could save them now.
  forgetUnsavedChanges();
  window.location.reload();
}

/** The notice left by a reload after a workspace change, once. */
export function takeWorkspaceNotice(): string | undefined {
  const notice = sessionStorage.getItem(NOTICE_KEY) ?? undefined;
  sessionStorage.removeItem(NOTICE_KEY);
  return notice;
}

function isWorkspaceConflict(status: number, body: JsonValue): body is JsonObject & { workspace: string } {
  return status === 409 && typeof body === 'object' && body !== null && !Array.isArray(body) && body.code === 'workspace_changed' && typeof body.workspace === 'string';
}

let signedOut: () => void = () => undefined;

/** What to do when a request is refused for want of credentials (the app shows its sign-in screen). */
export function onSignedOut(handler: () => void): void {
  signedOut = handler;
}

/** A request as sent: its query, its body already encoded, and the body's type. */
interface Outgoing {
  readonly query?: Query;
  readonly body?: string;
  readonly contentType?: string;
  readonly signal?: AbortSignal;
}

/**
 * The one place the renderer calls `fetch` (test/layering.test.ts holds it): every request names
 * the page's workspace, carries the CSRF token when unsafe, and fails as an ApiFailure with the
 * API's error body (an abort stays an AbortError).
 */
async function send(method: string, path: string, outgoing: Outgoing): Promise<JsonValue> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (outgoing.body !== undefined) headers['Content-Type'] = outgoing.contentType ?? 'application/json';
  const csrf = csrfToken();
  if (csrf && method !== 'GET' && method !== 'HEAD') headers['X-CSRFToken'] = csrf;
  if (pageWorkspace !== undefined) headers[WORKSPACE_HEADER] = encodeURIComponent(pageWorkspace);
  let reply: Response;
  try {
    reply = await fetch(withQuery(path, outgoing.query), {
      method,
      headers,
      credentials: 'same-origin',
      ...(outgoing.body === undefined ? {} : { body: outgoing.body }),
      ...(outgoing.signal ? { signal: outgoing.signal } : {}),
    });
  } catch (error) {
    if (error instanceof DOMException && error.name === 'AbortError') throw error;
    throw new ApiFailure(0, { detail: 'The local server did not answer; it may be restarting.' });
  }
  const text = await reply.text();
  let body: JsonValue = null;
  if (text) {
    try {
      body = JSON.parse(text) as JsonValue;
    } catch {
      body = { detail: text.slice(0, 200) };
    }
  }
  if (!reply.ok) {
    if (reply.status === 403 && typeof body === 'object' && body !== null && !Array.isArray(body) && body.detail === 'Authentication credentials were not provided.') {
      signedOut();
    }
    if (isWorkspaceConflict(reply.status, body)) workspaceChanged(body.workspace);
    throw new ApiFailure(reply.status, body);
  }
  return body;
}

export async function request<T extends JsonValue = JsonValue>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
  const { body, ...rest } = options;
  // The API's answers are read by their resource's declaration (shared/resources), not by this type.
  return (await send(method, path, { ...rest, ...(body === undefined ? {} : { body: JSON.stringify(body) }) })) as T;
}

/** A form posted as a browser's form is (the sign-in page), its JSON answer asked for. */
export function postForm(path: string, form: URLSearchParams): Promise<JsonValue> {
  return send('POST', path, { body: form.toString(), contentType: 'application/x-www-form-urlencoded' });
}

export const api = {
  get: <T extends JsonValue = JsonObject>(path: string, query?: Query, signal?: AbortSignal) =>
    request<T>('GET', path, { ...(query ? { query } : {}), ...(signal ? { signal } : {}) }),
  post: <T extends JsonValue = JsonObject>(path: string, body: JsonValue, query?: Query) => request<T>('POST', path, { body, ...(query ? { query } : {}) }),
  patch: <T extends JsonValue = JsonObject>(path: string, body: JsonValue) => request<T>('PATCH', path, { body }),
  put: <T extends JsonValue = JsonObject>(path: string, body: JsonValue) => request<T>('PUT', path, { body }),
  delete: (path: string, body?: JsonValue) => request('DELETE', path, body === undefined ? {} : { body }),
};

/**
 * Options of a call of one of the app's routes: its path parameters when it has some, and its
 * body when it takes one (typed by the route: shared/app/routes.ts).
 */
export type AppCallOptions<N extends AppRouteName> = Omit<RequestOptions, 'body'> &
  (keyof AppParams<N> extends never ? { readonly params?: undefined } : { readonly params: AppParams<N> }) &
  (AppBody<N> extends undefined ? { readonly body?: undefined } : { readonly body: AppBody<N> });

type AppCallArgs<N extends AppRouteName> = keyof AppParams<N> extends never ? (AppBody<N> extends undefined ? [AppCallOptions<N>?] : [AppCallOptions<N>]) : [AppCallOptions<N>];

/**
 * A call of one of the app's own routes, by name: its method and path come from the table the
 * server dispatches on, its answer is the route's type (shared/app/routes.ts).
 */
export async function appCall<N extends AppRouteName>(name: N, ...[options]: AppCallArgs<N>): Promise<AppAnswer<N>> {
  const { params, body, ...rest } = (options ?? {}) as Omit<RequestOptions, 'body'> & { params?: Readonly<Record<string, string | number>>; body?: unknown };
  const path = (appPath as (route: AppRouteName, values?: Readonly<Record<string, string | number>>) => string)(name, params);
  const answer = await send(APP_ROUTES[name].method, path, { ...rest, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  return answerOf(name, answer);
}

/**
 * The JSON of a 2xx answer of route `name` as the route's type: the one place an `/app/` answer
 * is given its type, which holds because the server's handler of the route is typed against the
 * same table (electron/app/appCall.ts). Also for answers that come another way (an upload).
 */
export function answerOf<N extends AppRouteName>(_name: N, body: JsonValue): AppAnswer<N> {
  return body as AppAnswer<N>;
}

/** A file an `/app/` route answered (an attachment), with the name its answer gives it. */
export interface AppFile {
  readonly blob: Blob;
  readonly fileName: string | undefined;
}

/** The file name of a `Content-Disposition` (its UTF-8 form when given). */
export function dispositionName(header: string | null): string | undefined {
  if (!header) return undefined;
  const encoded = /filename\*=UTF-8''([^;]+)/i.exec(header)?.[1];
  if (encoded) {
    try {
      return decodeURIComponent(encoded);
    } catch {
      // a malformed escape: the plain name below
    }
  }
  return /filename="([^"]*)"/i.exec(header)?.[1];
}

/**
 * A route answering a file or JSON (the report's PDF, or why none could be made), read whole:
 * only for answers the server made whole anyway; the streamed exports are downloaded by the
 * browser itself (a link), never held in the page.
 */
export async function appFileOrJson<N extends AppRouteName>(name: N, query: Query, signal?: AbortSignal): Promise<AppFile | AppAnswer<N>> {
  const headers: Record<string, string> = {};
  if (pageWorkspace !== undefined) headers[WORKSPACE_HEADER] = encodeURIComponent(pageWorkspace);
  let reply: Response;
  try {
    reply = await fetch(withQuery((appPath as (route: AppRouteName) => string)(name), query), { headers, credentials: 'same-origin', ...(signal ? { signal } : {}) });
  } catch (error) {
    if (error instanceof DOMException && error.name === 'AbortError') throw error;
    throw new ApiFailure(0, { detail: 'The local server did not answer; it may be restarting.' });
  }
  const type = reply.headers.get('Content-Type') ?? '';
  if (!reply.ok || type.startsWith('application/json')) {
    const text = await reply.text();
    let body: JsonValue = null;
    try {
      body = text ? (JSON.parse(text) as JsonValue) : null;
    } catch {
      body = { detail: text.slice(0, 200) };
    }
    if (!reply.ok) throw new ApiFailure(reply.status, body);
    return answerOf(name, body);
  }
  return { blob: await reply.blob(), fileName: dispositionName(reply.headers.get('Content-Disposition')) };
}

/** A DRF page of results. */
export interface Page<T = JsonObject> {
  readonly count: number;
  readonly next: string | null;
  readonly previous: string | null;
  readonly results: readonly T[];
}

export function isPage(value: JsonValue): value is JsonObject & { count: number; results: JsonObject[] } {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && typeof value.count === 'number' && Array.isArray(value.results);
}
