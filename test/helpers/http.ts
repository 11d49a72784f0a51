/** A small HTTP client over node:http for tests: any method, header, body and Host. */
import http from 'node:http';
import https from 'node:https';

export interface Reply {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly text: string;
  /** The body parsed as JSON (throws if it is not). */
  // Tests read response bodies loosely; production code types every boundary.
  json<T = any>(): T;
}

export interface RequestOptions {
  readonly headers?: Record<string, string>;
  /** A value to send as JSON (Content-Type set unless given). */
  readonly json?: unknown;
  /** Raw body bytes or text. */
  readonly body?: string | Buffer;
  readonly token?: string | null;
}

export function request(base: string, method: string, path: string, options: RequestOptions = {}): Promise<Reply> {
  const url = new URL(path, base);
  const headers: Record<string, string> = { ...(options.headers ?? {}) };
  let body: Buffer | undefined;
  if (options.json !== undefined) {
    body = Buffer.from(JSON.stringify(options.json));
    if (!Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) headers['Content-Type'] = 'application/json';
  } else if (options.body !== undefined) body = Buffer.isBuffer(options.body) ? options.body : Buffer.from(options.body);
  if (options.token) headers.Authorization = `Token ${options.token}`;
  if (body) headers['Content-Length'] = String(body.length);
  const transport = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = transport.request(
      url,
      { method, headers, rejectUnauthorized: false, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text,
            json: () => JSON.parse(text),
          });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** A client bound to one server and one token. */
export class Client {
  constructor(
    readonly base: string,
    readonly token: string | null,
  ) {}

  send(method: string, path: string, options: RequestOptions = {}): Promise<Reply> {
    return request(this.base, method, path, { token: this.token, ...options });
  }
  get(path: string, options?: RequestOptions) {
    return this.send('GET', path, options);
  }
  post(path: string, json?: unknown, options?: RequestOptions) {
    return this.send('POST', path, { ...(json === undefined ? {} : { json }), ...options });
  }
  put(path: string, json: unknown, options?: RequestOptions) {
    return this.send('PUT', path, { json, ...options });
  }
  patch(path: string, json: unknown, options?: RequestOptions) {
    return this.send('PATCH', path, { json, ...options });
  }
  delete(path: string, json?: unknown, options?: RequestOptions) {
    return this.send('DELETE', path, { ...(json === undefined ? {} : { json }), ...options });
  }
  options(path: string, options?: RequestOptions) {
    return this.send('OPTIONS', path, options);
  }
  as(token: string | null): Client {
    return new Client(this.base, token);
  }
}
