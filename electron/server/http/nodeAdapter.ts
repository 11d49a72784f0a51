/**
 * The thin node:http(s) edge: reads a request into an ApiRequest, applies the Host guard,
 * hands it to the API and writes the ApiResponse back.
 */
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { unquotePath } from '../../../shared/api/queryString';
import { MESSAGES } from '../../../shared/api/messages';
import { jsonResponse } from '../routing/router';
import { allowedHosts, hostAllowed } from './hostGuard';
import type { TlsMaterial } from './tls';
import { bodyLength, type ApiRequest, type ApiResponse } from './types';

/** Bodies larger than this are refused (413) before they are read whole. */
export const MAX_BODY_BYTES = 512 * 1024 * 1024;

const EMPTY = Buffer.alloc(0);

export type ApiHandler = (req: ApiRequest) => ApiResponse | Promise<ApiResponse>;

export interface ListenOptions {
  readonly host: string;
  readonly port: number;
  readonly tls?: TlsMaterial;
}

export interface RunningServer {
  readonly url: string;
  readonly host: string;
  readonly port: number;
  close(): Promise<void>;
}

function headersOf(req: http.IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

async function send(res: http.ServerResponse, response: ApiResponse): Promise<void> {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(response.headers)) headers[name] = typeof value === 'string' ? value : [...value];
  if (response.body !== null) headers['Content-Length'] = String(bodyLength(response));
  res.writeHead(response.status, headers);
  if (response.stream) {
    // A streamed answer (the proxy): written as it arrives, with the socket's backpressure.
    for await (const chunk of response.stream) {
      if (!res.write(chunk)) await new Promise<void>((resolve) => res.once('drain', resolve));
    }
    res.end();
    return;
  }
  res.end(response.body ?? undefined);
}

function readBody(req: http.IncomingMessage): Promise<Buffer | 'too-large'> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > MAX_BODY_BYTES) {
      req.resume();
      resolve('too-large');
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        req.destroy();
        resolve('too-large');
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

export function listen(handler: ApiHandler, options: ListenOptions, log: (line: string) => void = () => {}): Promise<RunningServer> {
  const scheme = options.tls ? 'https' : 'http';
  let allowed: ReadonlySet<string> = new Set();
  const onRequest = async (req: http.IncomingMessage, res: http.ServerResponse) => {
    try {
      if (!hostAllowed(req.headers.host, allowed)) {
        await send(res, jsonResponse(400, { detail: MESSAGES.invalidHost }));
        return;
      }
      // A request without a body is not waited for.
      const body = req.headers['content-length'] === undefined && req.headers['transfer-encoding'] === undefined ? EMPTY : await readBody(req);
      if (body === 'too-large') {
        await send(res, jsonResponse(413, { detail: 'Request body is too large.' }));
        return;
      }
      const target = req.url ?? '/';
      const q = target.indexOf('?');
      const rawPath = q < 0 ? target : target.slice(0, q);
      const answer = handler({
        method: (req.method ?? 'GET').toUpperCase(),
        path: unquotePath(rawPath),
        rawQuery: q < 0 ? '' : target.slice(q + 1),
        headers: headersOf(req),
        body,
        remoteAddress: req.socket.remoteAddress ?? '',
        scheme,
      });
      await send(res, answer instanceof Promise ? await answer : answer);
    } catch (error) {
      log(`internal error on ${req.method} ${req.url}: ${(error as Error).stack ?? String(error)}`);
      if (!res.headersSent) await send(res, jsonResponse(500, { detail: 'A server error occurred.' }));
      else res.destroy();
    }
  };
  // The Host guard answers a missing Host itself, in the API's error shape.
  const server = options.tls
    ? https.createServer({ cert: options.tls.cert, key: options.tls.key, requireHostHeader: false }, onRequest)
    : http.createServer({ requireHostHeader: false }, onRequest);
  server.keepAliveTimeout = 65_000;
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      const address = server.address() as AddressInfo;
      allowed = allowedHosts(options.host, address.port, scheme);
      const shown = options.host.includes(':') ? `[${options.host}]` : options.host;
      resolve({
        url: `${scheme}://${shown}:${address.port}`,
        host: options.host,
        port: address.port,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}
