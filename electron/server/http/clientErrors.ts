/**
 * Requests node:http's parser refuses (an unknown method, a raw space in the path, a malformed or
 * oversized header…) never reach a handler: node:http reports them with 'clientError' and, left
 * alone, answers an empty 400 without a Content-Type. Here they get the API's shape instead: a
 * status, `Content-Type: application/json` and `{"detail": "..."}`, then the connection is closed.
 */
import http from 'node:http';
import type { Duplex } from 'node:stream';
import { SECURITY_HEADERS } from './responses';
import { LINGER_MS } from './admission';

interface ParserError extends Error {
  readonly code?: string;
  /** The bytes node:http was parsing (documented for 'clientError'). */
  readonly rawPacket?: Buffer;
}

/** The answer to a parser error code; anything not listed is a malformed request. */
const ANSWERS: Readonly<Record<string, { readonly status: number; readonly detail: string }>> = {
  HPE_INVALID_METHOD: { status: 400, detail: 'Malformed request: unknown HTTP method.' },
  HPE_INVALID_URL: { status: 400, detail: 'Malformed request: invalid request target (spaces and control characters must be percent-encoded).' },
  HPE_INVALID_VERSION: { status: 400, detail: 'Malformed request: unsupported HTTP version.' },
  HPE_INVALID_HEADER_TOKEN: { status: 400, detail: 'Malformed request: invalid header.' },
  HPE_HEADER_OVERFLOW: { status: 431, detail: 'Request header fields are too large.' },
  HPE_CHUNK_EXTENSIONS_OVERFLOW: { status: 413, detail: 'Request chunk extensions are too large.' },
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, detail: 'The request took too long to arrive.' },
};
const MALFORMED = { status: 400, detail: 'Malformed request.' };

/**
 * The raw HTTP/1.1 answer to a parser error (no request object exists to answer through). A HEAD
 * request, when its request line got that far, gets the head of the answer only, as HTTP wants.
 */
export function clientErrorResponse(error: ParserError): string {
  const { status, detail } = (error.code !== undefined ? ANSWERS[error.code] : undefined) ?? MALFORMED;
  const head = error.rawPacket?.subarray(0, 5).toString('latin1') === 'HEAD ';
  const body = JSON.stringify({ detail });
  const headers = {
    'Content-Type': 'application/json',
    ...SECURITY_HEADERS,
    'Content-Length': String(Buffer.byteLength(body)),
    Connection: 'close',
  };
  const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
  return `HTTP/1.1 ${status} ${http.STATUS_CODES[status] ?? 'Error'}\r\n${lines.join('')}\r\n${head ? '' : body}`;
}

/**
 * The server's 'clientError' listener. `busy(socket)`: whether an answer to an earlier request on
 * the same connection is under way — nothing may be written in its middle, so that connection is
 * only closed. The parser may report again for bytes that follow: answered once.
 */
export function answerClientErrors(busy: (socket: Duplex) => boolean): (error: ParserError, socket: Duplex) => void {
  const answered = new WeakSet<Duplex>();
  return (error, socket) => {
    if (answered.has(socket)) return;
    answered.add(socket);
    if (error.code === 'ECONNRESET' || !socket.writable || busy(socket)) {
      socket.destroy();
      return;
    }
    socket.end(clientErrorResponse(error));
    // Closed after a moment rather than at once, so that the client reads the answer, not a reset.
    const timer = setTimeout(() => socket.destroy(), LINGER_MS);
    timer.unref();
    socket.once('close', () => clearTimeout(timer));
  };
}
