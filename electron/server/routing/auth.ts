/**
 * Authentication as the real server configures DRF: a browser session first (cookie, CSRF on
 * unsafe methods), then `Authorization: Token <key>`. Every failure is a 403 without
 * WWW-Authenticate. Secrets are found by their SHA-256 and compared in constant time.
 */
import { ApiError } from '../../../shared/api/errors';
import { MESSAGES } from '../../../shared/api/messages';
import type { ApiRequest } from '../http/types';
import { sameSecret } from '../store/secrets';
import type { UserRecord, Users } from '../store/users';

export interface Authenticated {
  readonly user: UserRecord;
  readonly via: 'token' | 'session';
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE']);

export function isSafeMethod(method: string): boolean {
  return SAFE_METHODS.has(method);
}

export function parseCookies(header: string | undefined): Map<string, string> {
  const cookies = new Map<string, string>();
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const name = part.slice(0, eq).trim();
    if (name && !cookies.has(name)) cookies.set(name, part.slice(eq + 1).trim());
  }
  return cookies;
}

export const SESSION_COOKIE = 'sessionid';
export const CSRF_COOKIE = 'csrftoken';

/** Latin-1 header text back to its bytes, then UTF-8 (node:http decodes headers as latin-1). */
function headerUtf8(value: string): string | undefined {
  const bytes = Buffer.from(value, 'latin1');
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

function fromSession(req: ApiRequest, users: Users): Authenticated | undefined {
  const key = parseCookies(req.headers.cookie).get(SESSION_COOKIE);
  if (!key) return undefined;
  const session = users.session(key);
  if (!session || !session.user.is_active) return undefined;
  if (!isSafeMethod(req.method)) {
    const header = req.headers['x-csrftoken'];
    if (!header) throw ApiError.detail(403, MESSAGES.csrfMissing);
    if (!sameSecret(header, session.csrf)) throw ApiError.detail(403, MESSAGES.csrfIncorrect);
  }
  return { user: session.user, via: 'session' };
}

function fromToken(req: ApiRequest, users: Users): Authenticated | undefined {
  const header = req.headers.authorization;
  if (header === undefined) return undefined;
  const parts = header.split(/[ \t\n\r\f\v]+/).filter((p) => p !== '');
  if (parts.length === 0 || parts[0]!.toLowerCase() !== 'token') return undefined;
  if (parts.length === 1) throw ApiError.detail(403, MESSAGES.tokenNoCredentials);
  if (parts.length > 2) throw ApiError.detail(403, MESSAGES.tokenSpaces);
  const key = headerUtf8(parts[1]!);
  if (key === undefined) throw ApiError.detail(403, MESSAGES.tokenInvalidCharacters);
  const user = users.byToken(key);
  if (!user) throw ApiError.detail(403, MESSAGES.invalidToken);
  if (!user.is_active) throw ApiError.detail(403, MESSAGES.userInactive);
  return { user, via: 'token' };
}

/** The caller, or undefined when no credentials came; throws 403 for bad ones. */
export function authenticate(req: ApiRequest, users: Users): Authenticated | undefined {
  return fromSession(req, users) ?? fromToken(req, users);
}
