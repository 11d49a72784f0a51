/**
 * The app's endpoints for working against a central server (app.md §3, §4 "Sync", "Settings →
 * remotes"): the sync status and outbox, "Sync now", conflicts resolved field by field, refused
 * changes retried or discarded, the mirrored remote history, and the remotes of the data folder
 * (their tokens are written here, never read back).
 */
import { ApiError } from '../../../shared/api/errors';
import { MESSAGES } from '../../../shared/api/messages';
import { isIpLiteral } from '../../../shared/app/bridge';
import type { SyncStatusView } from '../../../shared/app/sync';
import type { JsonObject, JsonValue } from '../../../shared/resources';
import { ResolveError } from '../../remote/engine';
import { RemoteConfigError } from '../../remote/remotes';
import { RemoteSession } from '../../remote/session';
import type { WorkspaceHost } from '../../workspaces/host';
import { int, text } from '../store/rows';
import type { Row } from '../store/table';
import type { UserRecord } from '../store/users';

export type Answer = { status: number; body: JsonValue | null; headers?: Record<string, string | readonly string[]> };

export interface SyncCall {
  readonly method: string;
  readonly segments: readonly string[];
  readonly query: (name: string) => string | undefined;
  readonly user: UserRecord;
  body(): JsonObject;
}

const ok = (body: JsonValue): Answer => ({ status: 200, body });

function toJson<T>(value: T): JsonValue {
  return JSON.parse(JSON.stringify(value)) as JsonValue;
}

/** The sync part of `/app/status`: what the always-visible indicator shows. */
export function syncSummary(host: WorkspaceHost): JsonValue {
  const session = host.session();
  if (session === undefined) return null;
  const view: SyncStatusView =
    session instanceof RemoteSession
      ? { ...session.engine.status(), problem: null }
      : {
          remote: { name: session.name, url: null },
          connection: 'unknown',
          syncing: false,
          progress: null,
          lastPull: null,
          lastPush: null,
          lastSync: null,
          lastError: null,
          lastErrorKind: null,
          outbox: null,
          problem: session.problem,
        };
  return toJson(view);
}

function sessionOf(host: WorkspaceHost): RemoteSession {
  const session = host.session();
  if (session === undefined) throw ApiError.detail(404, 'This workspace is standalone: it has no central server.');
  if (!(session instanceof RemoteSession)) throw ApiError.detail(409, session.problem);
  return session;
}

function seqOf(segment: string | undefined): number {
  if (segment === undefined || !/^\d{1,15}$/.test(segment)) throw ApiError.detail(404, MESSAGES.notFound);
  return Number(segment);
}

function flag(body: JsonObject, name: string): boolean {
  const value = body[name];
  if (value === undefined || value === null) return false;
  if (typeof value !== 'boolean') throw ApiError.validation({ [name]: [MESSAGES.notABoolean] });
  return value;
}

function requiredText(body: JsonObject, name: string): string {
  const value = body[name];
  if (typeof value !== 'string' || value.trim() === '') throw ApiError.validation({ [name]: [value === undefined || value === null ? MESSAGES.required : MESSAGES.blank] });
  return value.trim();
}

function optionalText(body: JsonObject, name: string): string | undefined {
  const value = body[name];
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') throw ApiError.validation({ [name]: [MESSAGES.notAString] });
  return value.trim();
}

/** The central server's hunt page for an address (app.md §4 Host lookup); null when standalone. */
export function centralLink(host: WorkspaceHost, ip: string | undefined): JsonValue {
  const session = host.session();
  if (!(session instanceof RemoteSession) || ip === undefined || !isIpLiteral(ip)) return { url: null };
  const url = new URL('rules/hunt', session.config.url.endsWith('/') ? session.config.url : `${session.config.url}/`);
  url.searchParams.set('session', 'temporary');
  url.searchParams.set('page', 'HOSTS_LIST');
  url.searchParams.set('ip', ip);
  return { url: url.href };
}

function remoteHistory(host: WorkspaceHost, call: SyncCall): Answer {
  sessionOf(host);
  const store = host.current().services.store;
  const page = Math.max(1, Number(call.query('page') ?? '1') || 1);
  const size = Math.min(1000, Math.max(1, Number(call.query('page_size') ?? '50') || 50));
  const count = Number(store.prepare('SELECT count(*) FROM remote_user_action').pluck().get());
  const rows = store.prepare('SELECT pk, data FROM remote_user_action ORDER BY pk DESC LIMIT ? OFFSET ?').all(size, (page - 1) * size) as Row[];
  return ok({ count, results: rows.map((r) => ({ ...(JSON.parse(text(r, 'data')) as JsonObject), pk: int(r, 'pk') })) });
}

function remotes(host: WorkspaceHost, call: SyncCall): Answer {
  const [, name] = call.segments;
  const list = () => host.remotes.list().map((r) => ({ name: r.name, url: r.url, insecure: r.insecure === true, pin: r.pin ?? null, hasToken: host.remotes.token(r.name) !== undefined }));
  try {
    if (name === undefined) {
      if (call.method === 'GET') return ok(list());
      if (call.method === 'POST') {
        const body = call.body();
        const remoteName = requiredText(body, 'name');
        const pin = optionalText(body, 'pin');
        const warning = host.remotes.add(
          { name: remoteName, url: requiredText(body, 'url'), ...(flag(body, 'insecure') ? { insecure: true } : {}), ...(pin ? { pin } : {}) },
          requiredText(body, 'token'),
        );
        return { status: 201, body: { remote: list().find((r) => r.name === remoteName) ?? null, warning: warning ?? null } };
      }
    } else if (call.segments.length === 2) {
      const existing = host.remotes.get(name);
      if (!existing) throw ApiError.detail(404, `There is no remote "${name}".`);
      if (call.method === 'PATCH') {
        const body = call.body();
        const token = optionalText(body, 'token');
        const url = optionalText(body, 'url');
        const changesTls = 'insecure' in body || 'pin' in body;
        let tokenCleared = false;
        if (url !== undefined || changesTls) {
          const pin = 'pin' in body ? optionalText(body, 'pin') : existing.pin;
          const insecure = 'insecure' in body ? flag(body, 'insecure') : existing.insecure === true;
          tokenCleared = host.remotes.change({ name, url: url ?? existing.url, ...(insecure ? { insecure: true } : {}), ...(pin ? { pin } : {}) }, token).tokenCleared;
          // The open workspace's session follows the new address at once, not at the next switch.
          host.remoteChanged(name);
        } else if (token !== undefined) {
          host.remotes.setToken(name, token);
          host.remoteTokenChanged(name);
        }
        const remote = list().find((r) => r.name === name) ?? null;
        return ok(tokenCleared ? { ...remote, warning: 'The address now names another server: its token was removed; give the token for that server.' } : remote);
      }
      if (call.method === 'DELETE') {
        host.remotes.remove(name);
        return { status: 204, body: null };
      }
    }
  } catch (error) {
    if (error instanceof RemoteConfigError) {
      const text = error.message.charAt(0).toUpperCase() + error.message.slice(1) + (/[.!?]$/.test(error.message) ? '' : '.');
      throw error.field ? ApiError.validation({ [error.field]: [text] }) : ApiError.detail(400, text);
    }
    throw error;
  }
  throw ApiError.detail(404, MESSAGES.notFound);
}

/** Answers `/app/sync…` and `/app/remotes…`; undefined for other paths. */
export function syncRoutes(host: WorkspaceHost, call: SyncCall): Answer | undefined {
  const [first, second, third, fourth] = call.segments;
  if (first === 'remotes') return remotes(host, call);
  if (first !== 'sync') return undefined;
  try {
    if (second === undefined) {
      const session = sessionOf(host);
      if (call.method === 'GET') return ok(toJson({ status: session.engine.status(), entries: session.engine.entries() }));
      if (call.method === 'POST') {
        const body = call.body();
        void session.syncNow({ allowMassDelete: flag(body, 'allowMassDelete'), user: { pk: call.user.pk, username: call.user.username }, recordEmpty: true });
        return { status: 202, body: toJson(session.engine.status()) };
      }
    }
    if (second === 'conflicts' && third === undefined && call.method === 'GET') return ok(toJson(sessionOf(host).engine.conflicts()));
    if (second === 'remote-history' && third === undefined && call.method === 'GET') return remoteHistory(host, call);
    if (second === 'entries' && third !== undefined) {
      const session = sessionOf(host);
      const seq = seqOf(third);
      if (fourth === undefined && call.method === 'DELETE') {
        session.engine.discard(seq);
        return { status: 204, body: null };
      }
      if (fourth === 'retry' && call.segments.length === 4 && call.method === 'POST') {
        session.engine.retry(seq);
        session.nudge();
        return ok(toJson(session.engine.status()));
      }
      if (fourth === 'resolve' && call.segments.length === 4 && call.method === 'POST') {
        const body = call.body();
        const choice = body.choice;
        if (choice !== 'mine' && choice !== 'theirs') throw ApiError.validation({ choice: [`"${String(choice)}" is not a valid choice.`] });
        const left = session.engine.resolve(seq, requiredText(body, 'field'), choice);
        session.nudge();
        return ok(toJson({ entry: left ?? null }));
      }
    }
  } catch (error) {
    if (error instanceof ResolveError) throw ApiError.detail(error.status, error.message);
    throw error;
  }
  throw ApiError.detail(404, MESSAGES.notFound);
}
