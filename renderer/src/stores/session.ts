/**
 * Who the page is signed in as, checked before any call of the API (so that a first visit logs
 * no failed request): `/api-auth/session/` answers 200 with the user or null. In a browser the
 * app's own sign-in screen posts the login form asking for JSON; in the desktop app the
 * protocol's token signs every request in. Sign-out ends the browser session.
 */
import { create } from 'zustand';
import { csrfToken, onSignedOut } from '../api/client';

export interface SessionUser {
  readonly pk: number;
  readonly username: string;
  readonly role: string;
}

export type SessionState = 'checking' | 'signed-in' | 'signed-out';

/** What the sign-in form sends: a username and password, or an API token. */
export interface Credentials {
  readonly username: string;
  readonly password: string;
  readonly token: string;
}

interface SessionStore {
  readonly state: SessionState;
  readonly user: SessionUser | undefined;
  /** Why the last check could not be made (the server does not answer). */
  readonly problem: string | undefined;
  check(): Promise<void>;
  /** Undefined when signed in, else the message to show. */
  signIn(credentials: Credentials): Promise<string | undefined>;
  signOut(): Promise<void>;
  /** A request was refused for want of credentials: the session ended elsewhere. */
  ended(): void;
}

const SESSION_PATH = '/api-auth/session/';
const LOGIN_PATH = '/api-auth/login/';
const LOGOUT_PATH = '/api-auth/logout/';

function userOf(body: unknown): SessionUser | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const user = (body as { user?: unknown }).user;
  if (typeof user !== 'object' || user === null) return undefined;
  const { pk, username, role } = user as Record<string, unknown>;
  return typeof pk === 'number' && typeof username === 'string' ? { pk, username, role: String(role ?? '') } : undefined;
}

/** The message of a refused sign-in (DRF's shapes), or a plain one. */
export function signInMessage(status: number, body: unknown): string {
  if (typeof body === 'object' && body !== null) {
    const fields = body as Record<string, unknown>;
    const list = fields.non_field_errors;
    if (Array.isArray(list) && list.length > 0) return list.map(String).join(' ');
    if (typeof fields.detail === 'string') return fields.detail;
  }
  return `The server answered ${status}.`;
}

async function jsonOf(reply: Response): Promise<unknown> {
  const text = await reply.text();
  try {
    return text ? (JSON.parse(text) as unknown) : null;
  } catch {
    return null;
  }
}

export const useSession = create<SessionStore>((set, get) => ({
  state: 'checking',
  user: undefined,
  problem: undefined,
  async check() {
    try {
      const reply = await fetch(SESSION_PATH, { headers: { Accept: 'application/json' }, credentials: 'same-origin' });
      const user = reply.ok ? userOf(await jsonOf(reply)) : undefined;
      set({ state: user ? 'signed-in' : 'signed-out', user, problem: reply.ok ? undefined : `The server answered ${reply.status}.` });
    } catch {
      set({ state: 'signed-out', user: undefined, problem: 'The Outpost server does not answer.' });
    }
  },
  async signIn({ username, password, token }) {
    // The session check gave this browser its form token (the csrftoken cookie).
    if (!csrfToken()) await get().check();
    const form = new URLSearchParams({ csrfmiddlewaretoken: csrfToken() ?? '', username: username.trim(), password, token: token.trim() });
    let reply: Response;
    try {
      reply = await fetch(LOGIN_PATH, {
        method: 'POST',
        headers: { Accept: 'application/json', 'Content-Type': 'application/x-www-form-urlencoded' },
        body: form.toString(),
        credentials: 'same-origin',
      });
    } catch {
      return 'The Outpost server does not answer.';
    }
    const body = await jsonOf(reply);
    const user = reply.ok ? userOf(body) : undefined;
    if (!user) return signInMessage(reply.status, body);
    set({ state: 'signed-in', user, problem: undefined });
    return undefined;
  },
  async signOut() {
    const csrf = csrfToken();
    await fetch(LOGOUT_PATH, {
      method: 'POST',
      headers: { Accept: 'application/json', ...(csrf ? { 'X-CSRFToken': csrf } : {}) },
      credentials: 'same-origin',
    });
    // Every screen's state belongs to the user who left: start afresh on the sign-in screen.
    window.location.reload();
  },
  ended() {
    set({ state: 'signed-out', user: undefined });
  },
}));

onSignedOut(() => useSession.getState().ended());
