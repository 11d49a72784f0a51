/**
 * The HTTP client of one remote central server (app.md §3, api.md §9): one undici Agent with
 * keep-alive, connect/headers/body timeouts, retries for GETs only, TLS verified unless the user
 * turned it off for this remote or pinned the certificate's SHA-256. A plain http:// remote is
 * accepted on a loopback address only.
 */
import type { TLSSocket } from 'node:tls';
import type { Agent, buildConnector, Dispatcher } from 'undici';
import type { RemoteFailure } from '../../shared/app/sync';
import type { JsonValue } from '../../shared/resources';

export interface RemoteConfig {
  readonly name: string;
  /** Base URL of the central server, without /rest/. */
  readonly url: string;
  /** TLS certificate not verified (a lab server); off by default. */
  readonly insecure?: boolean;
  /** SHA-256 fingerprint of the server certificate: accepted whoever signed it. */
  readonly pin?: string;
}


/** The remote could not be asked (network, TLS), or refused the token (401/403). */
export class RemoteError extends Error {
  constructor(
    readonly kind: RemoteFailure,
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}

export interface RemoteReply {
  readonly status: number;
  readonly body: JsonValue | null;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
}

export interface ClientOptions {
  readonly connectTimeoutMs?: number;
  readonly headersTimeoutMs?: number;
  readonly bodyTimeoutMs?: number;
  /** Attempts for a GET that failed on the network or got a 5xx (default 3). */
  readonly getAttempts?: number;
  /** Pause before retry n (ms); injectable for tests. */
  readonly backoff?: (attempt: number) => number;
  /** The longest answer read (bytes); a longer one is refused while it arrives (default 64 MiB). */
  readonly maxAnswerBytes?: number;
  /**
   * The whole request, from sending to the last byte of the answer (default 5 min). The body
   * timeout restarts with every byte, so without this a server sending one byte at a time would
   * hold a sync for ever.
   */
  readonly deadlineMs?: number;
}

/**
 * The longest answer read from a central server. A page of the largest size a pull asks for
 * (1,000 host identities of a few KB each) stays well under it; more is not an API answer.
 */
export const MAX_ANSWER_BYTES = 64 * 1024 * 1024;

/** A remote's settings refused, with the setting it is about (the app shows it beside that field). */
export class RemoteConfigError extends Error {
  constructor(
    message: string,
    readonly field?: 'name' | 'url' | 'token' | 'pin',
  ) {
    super(message);
  }
}

const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/i;

export function normalizeFingerprint(pin: string): string {
  return pin.replace(/[:\s]/g, '').toLowerCase();
}

/** Check a remote's URL and options; a clear error for what cannot work. */
export function checkRemoteConfig(config: RemoteConfig): { url: URL; warning?: string } {
  let url: URL;
  try {
    url = new URL(config.url);
  } catch {
    throw new RemoteConfigError(`"${config.url}" is not a URL (e.g. https://central.example.com)`, 'url');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new RemoteConfigError(`a central server is reached over https, not ${url.protocol}`, 'url');
  if (url.search || url.hash) throw new RemoteConfigError('the remote URL takes no query or fragment', 'url');
  if (config.pin !== undefined && !/^[0-9a-f]{64}$/.test(normalizeFingerprint(config.pin))) {
    throw new RemoteConfigError("the pinned certificate is given by its SHA-256 fingerprint: 64 hex digits (colons allowed)", 'pin');
  }
  if (url.protocol === 'http:') {
    if (!LOOPBACK.test(url.hostname)) throw new RemoteConfigError('a plain http:// central server is accepted on a loopback address only; use https://', 'url');
    return { url, warning: 'plain http:// (loopback only): the token travels unencrypted on this machine' };
  }
  return { url };
}

/**
 * How a remote's connections are opened: TLS verified, or not (insecure), or the pinned
 * certificate accepted whoever signed it. The sync's pool and the connection test
 * (remoteTest.ts) both open theirs with it, so a test passes exactly when a sync could connect.
 */
export async function remoteConnector(config: RemoteConfig, timeoutMs: number): Promise<buildConnector.connector> {
  const { buildConnector } = await import('undici');
  const host = checkRemoteConfig(config).url.host;
  const pin = config.pin === undefined ? undefined : normalizeFingerprint(config.pin);
  // No TLS session resumption with a pin: a resumed TLS 1.3 session shows no peer certificate, so
  // every connection after the first would fail the pin check (it did, on a pull's parallel pages).
  const connector = buildConnector({ rejectUnauthorized: !(config.insecure || pin), timeout: timeoutMs, ...(pin ? { maxCachedSessions: 0 } : {}) });
  if (!pin) return connector;
  return (opts, callback) =>
    connector(opts, (error, socket) => {
      if (error || !socket) return callback(error ?? new Error('no socket'), null);
      const seen = (socket as TLSSocket).getPeerCertificate?.()?.fingerprint256;
      if (!seen || normalizeFingerprint(seen) !== pin) {
        socket.destroy();
        return callback(new RemoteError('tls', `the certificate of ${host} is not the pinned one (it is ${seen ?? 'unknown'})`), null);
      }
      callback(null, socket);
    });
}

export class RemoteClient {
  private pool: Promise<{ agent: Agent; request: typeof import('undici').request }> | undefined;
  private readonly connectTimeoutMs: number;
  private readonly headersTimeoutMs: number;
  private readonly bodyTimeoutMs: number;
  private readonly base: URL;
  private readonly attempts: number;
  private readonly backoff: (attempt: number) => number;
  private readonly maxAnswerBytes: number;
  private answers = 0;
  private readonly deadlineMs: number;

  constructor(
    readonly config: RemoteConfig,
    private readonly token: () => string,
    options: ClientOptions = {},
  ) {
    this.base = checkRemoteConfig(config).url;
    this.attempts = options.getAttempts ?? 3;
    this.backoff = options.backoff ?? ((n) => 250 * 4 ** (n - 1));
    this.maxAnswerBytes = options.maxAnswerBytes ?? MAX_ANSWER_BYTES;
    this.deadlineMs = options.deadlineMs ?? 300_000;
    this.connectTimeoutMs = options.connectTimeoutMs ?? 10_000;
    this.headersTimeoutMs = options.headersTimeoutMs ?? 30_000;
    this.bodyTimeoutMs = options.bodyTimeoutMs ?? 120_000;
  }

  /**
   * The connection pool, made at the first request: undici is loaded then, not by every command
   * that opens a workspace (it is a sixth of the command line's start-up).
   */
  private dispatcher(): Promise<{ agent: Agent; request: typeof import('undici').request }> {
    this.pool ??= import('undici').then(async ({ Agent, request }) => {
      const agent = new Agent({
        keepAliveTimeout: 30_000,
        headersTimeout: this.headersTimeoutMs,
        bodyTimeout: this.bodyTimeoutMs,
        connect: await remoteConnector(this.config, this.connectTimeoutMs),
      });
      return { agent, request };
    });
    return this.pool;
  }

  /** An absolute URL on the remote for an API path (`/rest/...`). */
  url(path: string): string {
    return new URL(path.replace(/^\//, ''), this.base.href.endsWith('/') ? this.base : `${this.base.href}/`).href;
  }

  /** Requests the central server answered as a working server (below 500, token accepted): "online" means one did. */
  get answered(): number {
    return this.answers;
  }

  /**
   * One request. Any HTTP status is an answer (the caller decides); the network, TLS, timeouts
   * and a refused token (401/403) throw RemoteError. GETs are retried on network errors and 5xx.
   */
  async send(method: string, path: string, body?: JsonValue, query: Readonly<Record<string, string | number>> = {}): Promise<RemoteReply> {
    const target = new URL(this.url(path));
    for (const [key, value] of Object.entries(query)) target.searchParams.set(key, String(value));
    const retries = method === 'GET' ? this.attempts : 1;
    let last: unknown;
    for (let attempt = 1; attempt <= retries; attempt++) {
      try {
        const reply = await this.once(method, target, body);
        if (reply.status >= 500 && attempt < retries) {
          last = new RemoteError('network', `the central server answered ${reply.status}`, reply.status);
        } else {
          if (reply.status === 401 || reply.status === 403) {
            const detail = typeof reply.body === 'object' && reply.body && !Array.isArray(reply.body) ? reply.body.detail : undefined;
            const why = `${reply.status}${typeof detail === 'string' ? `: ${detail}` : ''}`;
            // Permissions go by role on the central server: an account refused one change is refused
            // them all, so this too pauses the queue until the token is changed (not a parked entry).
            if (reply.status === 403 && detail === 'You do not have permission to perform this action.') {
              throw new RemoteError('auth', `the account of this token may not make changes on the central server (${why}); set the token of an account that may`, reply.status);
            }
            throw new RemoteError('auth', `the central server refused the token (${why})`, reply.status);
          }
          if (reply.status < 500) this.answers++;
          return reply;
        }
      } catch (error) {
        if (error instanceof RemoteError && (error.kind === 'auth' || error.kind === 'tls' || error.kind === 'invalid')) throw error;
        last = error;
      }
      if (attempt < retries) await new Promise((resolve) => setTimeout(resolve, this.backoff(attempt)));
    }
    throw classify(last, this.base.host);
  }

  private async once(method: string, target: URL, body: JsonValue | undefined): Promise<RemoteReply> {
    const headers: Record<string, string> = { Accept: 'application/json', Authorization: `Token ${this.token()}` };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    const signal = AbortSignal.timeout(this.deadlineMs);
    try {
      const { agent, request } = await this.dispatcher();
      const response = await request(target, {
        method: method as Dispatcher.HttpMethod,
        headers,
        dispatcher: agent,
        signal,
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const where = `${method} ${target.pathname}`;
      if (response.statusCode >= 300 && response.statusCode < 400) {
        discard(response.body);
        const location = response.headers.location;
        throw new RemoteError(
          'invalid',
          `the central server answered ${where} with a redirect (${response.statusCode}${location ? ` to ${String(location)}` : ''}); Outpost does not follow redirects, so that the token goes nowhere else: check the remote's address`,
          response.statusCode,
        );
      }
      const text = await this.readText(response.body, where);
      let parsed: JsonValue | null = null;
      if (text) {
        try {
          parsed = JSON.parse(text) as JsonValue;
        } catch {
          // An error page (a proxy's 502, a 404 page) is an answer the caller judges by its status.
          if (response.statusCode >= 400) return { status: response.statusCode, body: { detail: `not JSON: ${text.slice(0, 200)}` }, headers: response.headers };
          const type = String(response.headers['content-type'] ?? 'no content type');
          throw new RemoteError('invalid', `the central server's answer to ${where} is not JSON (${response.statusCode}, ${type}: ${JSON.stringify(text.slice(0, 80))})`, response.statusCode);
        }
      }
      return { status: response.statusCode, body: parsed, headers: response.headers };
    } catch (error) {
      if (signal.aborted && !(error instanceof RemoteError)) {
        throw new RemoteError('timeout', `the central server ${this.base.host} took more than ${Math.round(this.deadlineMs / 1000)} s to answer ${method} ${target.pathname}`);
      }
      throw error;
    }
  }

  /** The answer's text, read no further than the size limit. */
  private async readText(stream: Dispatcher.ResponseData['body'], where: string): Promise<string> {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of stream) {
      size += chunk.length;
      if (size > this.maxAnswerBytes) {
        discard(stream);
        throw new RemoteError('invalid', `the central server's answer to ${where} is larger than ${Math.round(this.maxAnswerBytes / (1024 * 1024))} MiB; refused`);
      }
      chunks.push(chunk);
    }
    return Buffer.concat(chunks, size).toString('utf8');
  }

  /** A streamed request for the proxy: the caller reads the body. */
  async stream(method: string, target: string, headers: Record<string, string>, body: Buffer | undefined): Promise<Dispatcher.ResponseData> {
    const { agent, request } = await this.dispatcher();
    return request(new URL(target, this.base), {
      method: method as Dispatcher.HttpMethod,
      headers: { ...headers, Authorization: `Token ${this.token()}` },
      dispatcher: agent,
      ...(body && body.length > 0 ? { body } : {}),
    });
  }

  close(): Promise<void> {
    return this.pool ? this.pool.then(({ agent }) => agent.close()) : Promise.resolve();
  }
}

/** Stop reading an answer: the connection is dropped (its abort is expected, not an error to report). */
function discard(body: Dispatcher.ResponseData['body']): void {
  body.on('error', () => undefined);
  body.destroy();
}

/** What a socket error means, in words (the code stays in brackets for support). */
const NETWORK_WORDS: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'the connection was refused (is the server running?)',
  ECONNRESET: 'the connection was cut',
  UND_ERR_SOCKET: 'the connection was closed before the answer',
  ENOTFOUND: 'its host name is unknown (DNS)',
  EAI_AGAIN: 'its host name could not be looked up (DNS)',
  EHOSTUNREACH: 'its host cannot be reached (no route)',
  ENETUNREACH: 'the network is unreachable (offline?)',
  ENETDOWN: 'the network is down',
  EPIPE: 'the connection was cut',
};

export function classify(error: unknown, host: string): RemoteError {
  if (error instanceof RemoteError) return error;
  const code = (error as { code?: string } | undefined)?.code ?? '';
  const message = error instanceof Error ? error.message : String(error);
  if (/TIMEOUT/i.test(code)) return new RemoteError('timeout', `the central server ${host} did not answer in time (${code})`);
  if (/CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO_VERIFY/i.test(code) || /certificate/i.test(message)) {
    return new RemoteError('tls', `the certificate of ${host} could not be verified (${code || message}); pin it or turn verification off for this remote`);
  }
  const words = NETWORK_WORDS[code];
  return new RemoteError('network', words ? `the central server ${host} cannot be reached: ${words} [${code}]` : `the central server ${host} cannot be reached (${code || message})`);
}
