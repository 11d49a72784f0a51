/**
 * The thin node:http(s) edge: applies the Host guard, asks the handler's admission step what to
 * do with a body before reading it (http/admission.ts), reads it within its limit into an
 * ApiRequest, hands that to the API and writes the ApiResponse back. Requests the parser refuses
 * are answered in JSON too (http/clientErrors.ts).
 */
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { unquotePath } from '../../../shared/api/queryString';
import { MESSAGES } from '../../../shared/api/messages';
import { StorageError } from '../store/storageErrors';
import { jsonResponse } from './responses';
import { closeGentlyAfterAnswer, hasBody, readBody, type Admission, type Admit, type RequestHead } from './admission';
import { answerClientErrors } from './clientErrors';
import { allowedHosts, hostAllowed } from './hostGuard';
import type { TlsMaterial } from './tls';
import { bodyLength, type ApiRequest, type ApiResponse } from './types';

/** The body limit of a handler without an admission step (the API alone, in tests and benchmarks). */
export const MAX_BODY_BYTES = 64 * 1024 * 1024;

const EMPTY = Buffer.alloc(0);

const EXPECTATION_FAILED = 'Expectation failed: only "Expect: 100-continue" is supported.';

export interface ApiHandler {
  (req: ApiRequest): ApiResponse | Promise<ApiResponse>;
  /** Asked with the head of a request that carries a body, before the body is read (http/admission.ts). */
  readonly admit?: Admit;
}

/** `1 MiB`, `64 KiB`: a limit as people read it. */
function sizeText(bytes: number): string {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}

export function tooLargeMessage(limit: number): string {
  return `Request body is too large: at most ${sizeText(limit)} here.`;
}

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
    // A streamed answer (the proxy, an export): written as it arrives, with the socket's
    // backpressure. A client gone stops it (the loop's break ends the producer): no drain would come.
    for await (const chunk of response.stream) {
      if (res.destroyed) break;
      if (!res.write(chunk)) {
        await new Promise<void>((resolve) => {
          const done = () => {
            res.off('drain', done);
            res.off('close', done);
            resolve();
          };
          res.once('drain', done);
          res.once('close', done);
        });
      }
    }
    res.end();
    return;
  }
  res.end(response.body ?? undefined);
}

/** An answer given while the request's body stays unread: the connection closes after it, gently. */
async function sendUnread(res: http.ServerResponse, response: ApiResponse): Promise<void> {
  if (res.socket) closeGentlyAfterAnswer(res.socket);
  await send(res, { ...response, headers: { ...response.headers, Connection: 'close' } });
}

function headOf(req: http.IncomingMessage, scheme: 'http' | 'https'): RequestHead {
  const target = req.url ?? '/';
  const q = target.indexOf('?');
  const rawPath = q < 0 ? target : target.slice(0, q);
  return {
    method: (req.method ?? 'GET').toUpperCase(),
    path: unquotePath(rawPath),
    rawQuery: q < 0 ? '' : target.slice(q + 1),
    headers: headersOf(req),
    remoteAddress: req.socket.remoteAddress ?? '',
    scheme,
  };
}

export function listen(handler: ApiHandler, options: ListenOptions, log: (line: string) => void = () => {}): Promise<RunningServer> {
  const scheme = options.tls ? 'https' : 'http';
  let allowed: ReadonlySet<string> = new Set();
  // Requests being answered, per connection: a parser error on a connection must not write into an answer.
  const answering = new Map<Duplex, number>();
  const track = (socket: Duplex) => {
    answering.set(socket, (answering.get(socket) ?? 0) + 1);
    return () => {
      const left = (answering.get(socket) ?? 1) - 1;
      if (left > 0) answering.set(socket, left);
      else answering.delete(socket);
    };
  };
  const onRequest = async (req: http.IncomingMessage, res: http.ServerResponse, expectsContinue = false) => {
    res.once('close', track(req.socket));
    try {
      const withBody = hasBody(req);
      if (!hostAllowed(req.headers.host, allowed)) {
        const refusal = jsonResponse(400, { detail: MESSAGES.invalidHost });
        await (withBody ? sendUnread(res, refusal) : send(res, refusal));
        return;
      }
      const head = headOf(req, scheme);
      let request: ApiRequest = { ...head, body: EMPTY };
      if (withBody) {
        // Nothing of the body is read before the handler says whether, and how much, to read.
        const admission: Admission = handler.admit ? handler.admit(head) : { limit: MAX_BODY_BYTES };
        if ('answer' in admission) {
          await sendUnread(res, await admission.answer);
          return;
        }
        if (expectsContinue) res.writeContinue();
        if ('stream' in admission) {
          const answer = await handler({ ...head, body: EMPTY, bodyStream: req });
          // A handler that answered before reading the whole body: the rest is not read.
          await (req.readableEnded ? send(res, answer) : sendUnread(res, answer));
          return;
        }
        const body = await readBody(req, admission.limit);
        if (body === 'aborted') return;
        if (body === 'too-large') {
          await sendUnread(res, jsonResponse(413, { detail: tooLargeMessage(admission.limit) }));
          return;
        }
        request = { ...head, body };
        if (admission.parse) request = await admission.parse(request);
      }
      const answer = handler(request);
      await send(res, answer instanceof Promise ? await answer : answer);
    } catch (error) {
      if (error instanceof StorageError) {
        // The disk, not the request: told with the file and what to do, the write undone whole (store.ts).
        log(`${req.method} ${req.url}: ${error.message}`);
        if (!res.headersSent) await send(res, jsonResponse(error.fault === 'full' ? 507 : 503, { detail: error.message }));
        else res.destroy();
        return;
      }
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
  // `Expect: 100-continue`: the client waits for admission before sending the body.
  server.on('checkContinue', (req: http.IncomingMessage, res: http.ServerResponse) => void onRequest(req, res, true));
  // Any other expectation: 417, in the API's shape (node:http's own has no body).
  server.on('checkExpectation', (_req: http.IncomingMessage, res: http.ServerResponse) => {
    void sendUnread(res, jsonResponse(417, { detail: EXPECTATION_FAILED }));
  });
  server.on('clientError', answerClientErrors((socket) => answering.has(socket)));
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
