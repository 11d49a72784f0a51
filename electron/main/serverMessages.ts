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
  | { readonly type: 'failed'; readonly message: string; readonly permanent: boolean }
  /** A remote's token was set (or removed: null): the main process keeps it encrypted. */
  | { readonly type: 'secret'; readonly name: string; readonly secret: string | null };

export type SupervisorMessage =
  | { readonly type: 'stop' }
  /** The remote tokens, decrypted, sent once right after the server process starts. */
  | { readonly type: 'secrets'; readonly secrets: Readonly<Record<string, string>> };

export const STOP: SupervisorMessage = { type: 'stop' };

const TOKEN = /^[\x21-\x7e]{1,128}$/;
const REMOTE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

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
  if (type === 'secret') {
    const { name, secret } = value;
    if (typeof name !== 'string' || !REMOTE_NAME.test(name)) return undefined;
    if (secret !== null && (typeof secret !== 'string' || !TOKEN.test(secret))) return undefined;
    return { type, name, secret };
  }
  return undefined;
}

/** A message from the main process, or undefined when it is not one. */
export function parseSupervisorMessage(value: unknown): SupervisorMessage | undefined {
  if (!isRecord(value)) return undefined;
  if (value.type === 'stop') return STOP;
  if (value.type === 'secrets' && isRecord(value.secrets)) {
    const secrets: Record<string, string> = {};
    for (const [name, secret] of Object.entries(value.secrets)) {
      if (REMOTE_NAME.test(name) && typeof secret === 'string' && TOKEN.test(secret)) secrets[name] = secret;
    }
    return { type: 'secrets', secrets };
  }
  return undefined;
}
