/**
 * What the server process and the main process say to each other over the utility process's
 * message port. Messages are structured clones from another process: checked, never trusted.
 */

/** Where the server listens and the local token it accepts. */
export interface ServerEndpoint {
  readonly port: number;
  readonly token: string;
}

export type ServerMessage =
  /** Listening on 127.0.0.1:port; requests must carry `Authorization: Token <token>`. */
  | { readonly type: 'ready'; readonly port: number; readonly token: string }
  /** The local token changed (the admin regenerated it): forward with the new one. */
  | { readonly type: 'token'; readonly token: string }
  /** Could not start; `permanent` when starting again would fail the same way. */
  | { readonly type: 'failed'; readonly message: string; readonly permanent: boolean };

export type SupervisorMessage = { readonly type: 'stop' };

export const STOP: SupervisorMessage = { type: 'stop' };

const TOKEN = /^[\x21-\x7e]{1,128}$/;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A message from the server process, or undefined when it is not one. */
export function parseServerMessage(value: unknown): ServerMessage | undefined {
  if (!isRecord(value)) return undefined;
  const { type } = value;
  if (type === 'ready') {
    const { port, token } = value;
    if (typeof port !== 'number' || !Number.isInteger(port) || port < 1 || port > 65535) return undefined;
    if (typeof token !== 'string' || !TOKEN.test(token)) return undefined;
    return { type, port, token };
  }
  if (type === 'token') {
    const { token } = value;
    return typeof token === 'string' && TOKEN.test(token) ? { type, token } : undefined;
  }
  if (type === 'failed') {
    const { message, permanent } = value;
    if (typeof message !== 'string') return undefined;
    return { type, message: message.slice(0, 1000), permanent: permanent === true };
  }
  return undefined;
}

/** A message from the main process, or undefined when it is not one. */
export function parseSupervisorMessage(value: unknown): SupervisorMessage | undefined {
  return isRecord(value) && value.type === 'stop' ? STOP : undefined;
}
