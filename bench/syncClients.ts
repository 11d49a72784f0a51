/**
 * The two sides of the sync benchmark's comparisons: a plain sequential HTTP client (undici,
 * keep-alive, one request at a time: the baseline), and Outpost's RemoteClient with a
 * trace of every request it sends (to check that both sides send the same requests, and to split
 * a pull's time by endpoint).
 *
 * The baseline's transport is Outpost's own (undici, an Agent with its defaults and keep-alive),
 * on purpose: the reference server (wsgiref) writes each response in five small send() calls
 * without TCP_NODELAY, so how a client's sockets are set up and reused changes the latency of a
 * request by ~40 ms (Nagle's algorithm meeting delayed ACKs): node:http, or undici limited to
 * one connection, wait ~50 ms for a GET that undici's defaults get in ~10 ms. With the same
 * transport on both sides the comparison measures the sync, not the HTTP library.
 */
import { Agent, request, type Dispatcher } from 'undici';
import { RemoteClient, type RemoteReply } from '../electron/remote/client';
import type { JsonValue } from '../shared/resources';

export interface PlainReply {
  readonly status: number;
  readonly body: unknown;
}

/** A query string in the order Outpost's client writes it (URLSearchParams over the object). */
export function queryString(query: Readonly<Record<string, string | number>>): string {
  const text = new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)])).toString();
  return text ? `?${text}` : '';
}

/** One request at a time, keep-alive; bodies read whole and parsed. */
export class PlainClient {
  private readonly agent = new Agent({ keepAliveTimeout: 30_000 });

  constructor(
    private readonly url: string,
    private readonly token: string,
  ) {}

  async request(method: string, target: string, body?: unknown): Promise<PlainReply> {
    const headers: Record<string, string> = { Accept: 'application/json', Authorization: `Token ${this.token}` };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    const response = await request(`${this.url}${target}`, {
      method: method as Dispatcher.HttpMethod,
      headers,
      dispatcher: this.agent,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.body.text();
    return { status: response.statusCode, body: text ? (JSON.parse(text) as unknown) : null };
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}

export interface TracedRequest {
  readonly method: string;
  /** Path and query, as `queryString` writes it. */
  readonly target: string;
  readonly start: number;
  end: number;
  status: number;
}

/** Outpost's client, unchanged, with each request it sends written down. */
export class TracingClient extends RemoteClient {
  readonly trace: TracedRequest[] = [];

  override async send(method: string, path: string, body?: JsonValue, query: Readonly<Record<string, string | number>> = {}): Promise<RemoteReply> {
    const entry: TracedRequest = { method, target: `${path}${queryString(query)}`, start: performance.now(), end: 0, status: 0 };
    this.trace.push(entry);
    const reply = await super.send(method, path, body, query);
    entry.end = performance.now();
    entry.status = reply.status;
    return reply;
  }
}
