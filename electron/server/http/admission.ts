/**
 * Admission (docs/decisions.md, "Bodies"): before a byte of a request's body is read, the handler
 * is asked, with the request's head alone, what to do with it — answer at once (when the answer
 * cannot depend on the body: no credentials, an unknown path), or read the body up to a limit for
 * that kind of request, then maybe prepare it off the main thread. The policy (which route gets
 * which limit) lives with the app handler; this file holds the mechanics: the types, reading with
 * a limit, and closing a connection whose body was left unread.
 */
import type http from 'node:http';
import type { Socket } from 'node:net';
import type { ApiRequest, ApiResponse } from './types';

/** A request before its body: what admission decides from. */
export type RequestHead = Omit<ApiRequest, 'body' | 'prepared' | 'bodyStream'>;

export type Admission =
  /** Answered from the head: the body is never read, and the connection is closed after the answer. */
  | { readonly answer: ApiResponse | Promise<ApiResponse> }
  /** Read the body, at most `limit` bytes (413 beyond), then `parse` it (off the main thread) before the handler. */
  | { readonly limit: number; readonly parse?: (req: ApiRequest) => Promise<ApiRequest> }
  /** Hand the body to the handler as it arrives (`bodyStream`), of any length: the handler reads it with bounded memory. */
  | { readonly stream: true };

export type Admit = (head: RequestHead) => Admission;

/** Whether the request says it carries a body (a Content-Length of 0 does not). */
export function hasBody(req: http.IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && Number(length) !== 0);
}

export type BodyRead = Buffer | 'too-large' | 'aborted';

/**
 * Where a body's bytes are gathered. With a Content-Length the whole buffer is taken at once and
 * each chunk copied in as it arrives, so that its pages are touched bit by bit: joining tens of
 * megabytes of chunks at the end would hold the event loop for a tenth of a second. Without one
 * (chunked), the chunks are joined at the end.
 */
class BodyBytes {
  private readonly whole: Buffer | undefined;
  private readonly chunks: Buffer[] = [];
  size = 0;

  constructor(declared: number | undefined) {
    this.whole = declared === undefined ? undefined : Buffer.allocUnsafeSlow(declared);
  }

  add(chunk: Buffer): void {
    // node:http delivers no more than Content-Length bytes as the body.
    if (this.whole) chunk.copy(this.whole, this.size);
    else this.chunks.push(chunk);
    this.size += chunk.length;
  }

  bytes(): Buffer {
    return this.whole ? this.whole.subarray(0, this.size) : Buffer.concat(this.chunks, this.size);
  }
}

/**
 * The body, or 'too-large' as soon as it is known to exceed `limit` — from Content-Length before
 * reading anything, else when the bytes read pass it; reading then stops. 'aborted' when the
 * client goes away first.
 */
export function readBody(req: http.IncomingMessage, limit: number): Promise<BodyRead> {
  const header = req.headers['content-length'];
  const declared = header === undefined ? undefined : Number(header);
  if (declared !== undefined && declared > limit) return Promise.resolve('too-large');
  return new Promise((resolve) => {
    const body = new BodyBytes(declared);
    let settled = false;
    const finish = (read: BodyRead) => {
      if (settled) return;
      settled = true;
      req.off('data', onData);
      resolve(read);
    };
    const onData = (chunk: Buffer) => {
      if (body.size + chunk.length > limit) {
        req.pause();
        finish('too-large');
        return;
      }
      body.add(chunk);
    };
    req.on('data', onData);
    req.once('end', () => finish(body.bytes()));
    req.once('error', () => finish('aborted'));
    req.once('close', () => finish('aborted'));
  });
}

/** How long a connection whose body was left unread stays open after the answer, for the client to read it. */
export const LINGER_MS = 2000;

/**
 * Close the connection after this answer, gently. Closing a socket that still receives data makes
 * the system answer with a reset, and a client still sending its body would see ECONNRESET instead
 * of the answer. So the server sends its FIN, stops reading (the client is held back by TCP, not
 * read into memory), and destroys the socket once the client has closed or after LINGER_MS.
 * node:http ends a `Connection: close` answer's socket with `destroySoon()`: replaced on this
 * socket only.
 */
export function closeGentlyAfterAnswer(socket: Socket): void {
  socket.destroySoon = () => {
    socket.end();
    socket.pause();
    const timer = setTimeout(() => socket.destroy(), LINGER_MS);
    timer.unref();
    socket.once('close', () => clearTimeout(timer));
  };
}
