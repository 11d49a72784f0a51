/**
 * Who the page is signed in as, checked before any call of the API (so that a first visit logs
 * no failed request): `/api-auth/session/` answers 200 with the user or null. In a browser the
 * app's own sign-in screen posts the login form asking for JSON; in the desktop app the
 * protocol's token signs every request in. Sign-out ends the browser session. The app-wide
 * state before any screen, so a store rather than a screen's `useQuery`; its requests go through
 * the one API client as every other (api/client.ts).
 */
import { create } from 'zustand';
import type { JsonValue } from '../../../shared/resources';
import { ApiFailure, csrfToken, onSignedOut, postForm, request } from '../api/client';

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

/** The user of a session answer (`{"user": {...}}` or `{"user": null}`: api-auth, not an `/app/` route). */
function userOf(body: JsonValue): SessionUser | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const user = body.user;
  if (typeof user !== 'object' || user === null || Array.isArray(user)) return undefined;
  const { pk, username, role } = user;
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

const NO_ANSWER = 'The Outpost server does not answer.';

export const useSession = create<SessionStore>((set, get) => ({
  state: 'checking',
  user: undefined,
  problem: undefined,
  async check() {
    try {
      const user = userOf(await request('GET', SESSION_PATH));
      set({ state: user ? 'signed-in' : 'signed-out', user, problem: undefined });
    } catch (error) {
      const problem = error instanceof ApiFailure && error.status !== 0 ? `The server answered ${error.status}.` : NO_ANSWER;
      set({ state: 'signed-out', user: undefined, problem });
    }
  },
  async signIn({ username, password, token }) {
    // The session check gave this browser its form token (the csrftoken cookie).
    if (!csrfToken()) await get().check();
    const form = new URLSearchParams({ csrfmiddlewaretoken: csrfToken() ?? '', username: username.trim(), password, token: token.trim() });
    let user: SessionUser | undefined;
    try {
      user = userOf(await postForm(LOGIN_PATH, form));
    } catch (error) {
      if (!(error instanceof ApiFailure)) throw error;
      return error.status === 0 ? NO_ANSWER : signInMessage(error.status, error.body);
    }
    if (!user) return signInMessage(200, null);
    set({ state: 'signed-in', user, problem: undefined });
    return undefined;
  },
  async signOut() {
    try {
      await request('POST', LOGOUT_PATH);
    } finally {
      // Every screen's state belongs to the user who left: start afresh on the sign-in screen.
      window.location.reload();
    }
  },
  ended() {
    set({ state: 'signed-out', user: undefined });
  },
}));

onSignedOut(() => useSession.getState().ended());
