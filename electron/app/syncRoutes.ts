/**
 * The app's endpoints for working against a central server (app.md §3, §4 "Sync", "Settings →
 * remotes"): the sync status and outbox, "Sync now", conflicts resolved field by field, refused
 * changes retried or discarded, the mirrored remote history, and the remotes of the data folder
 * (their tokens are written here, never read back).
 */
import { ApiError } from '../../shared/api/errors';
import { MESSAGES } from '../../shared/api/messages';
import { isIpLiteral } from '../../shared/app/bridge';
import type { AppRouteName, RemoteInfo } from '../../shared/app/routes';
import type { SyncStatusView } from '../../shared/app/sync';
import type { JsonObject } from '../../shared/resources';
import { ResolveError } from '../remote/engine';
import { RemoteConfigError } from '../remote/remotes';
import { testRemote } from '../remote/remoteTest';
import { RemoteSession } from '../remote/session';
import type { WorkspaceHost } from '../workspaces/host';
import { ok, type AppHandler, type AppHandlers } from './appCall';

/** The sync part of `/app/status`: what the always-visible indicator shows. */
export function syncSummary(host: WorkspaceHost): SyncStatusView | null {
  const session = host.session();
  if (session === undefined) return null;
  return session instanceof RemoteSession
      ? { ...session.status(), problem: null }
      : {
          remote: { name: session.name, url: null },
          connection: 'unknown',
          syncing: false,
          progress: null,
          lastPull: null,
          lastPush: null,
          lastSync: null,
          lastAttempt: null,
          nextAttemptAt: null,
          lastResult: null,
          lastError: null,
          lastErrorKind: null,
          outbox: null,
          pushMode: host.current().services.syncMeta.pushMode(),
          awaitingReview: 0,
          problem: session.problem,
        };
}

export function sessionOf(host: WorkspaceHost): RemoteSession {
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
export function centralLink(host: WorkspaceHost, ip: string | undefined): { url: string | null } {
  const session = host.session();
  if (!(session instanceof RemoteSession) || ip === undefined || !isIpLiteral(ip)) return { url: null };
  const url = new URL('rules/hunt', session.config.url.endsWith('/') ? session.config.url : `${session.config.url}/`);
  url.searchParams.set('session', 'temporary');
  url.searchParams.set('page', 'HOSTS_LIST');
  url.searchParams.set('ip', ip);
  return { url: url.href };
}

type SyncRouteName = Extract<
  AppRouteName,
  | 'remotes'
  | 'addRemote'
  | 'changeRemote'
  | 'removeRemote'
  | 'testRemote'
  | 'sync'
  | 'syncNow'
  | 'conflicts'
  | 'remoteHistory'
  | 'discardEntry'
  | 'retryEntry'
  | 'resolveEntry'
>;

/** A remote's configuration error as the API's error shapes. */
function asApiError(error: unknown): unknown {
  if (error instanceof RemoteConfigError) {
    const text = error.message.charAt(0).toUpperCase() + error.message.slice(1) + (/[.!?]$/.test(error.message) ? '' : '.');
    return error.field ? ApiError.validation({ [error.field]: [text] }) : ApiError.detail(400, text);
  }
  if (error instanceof ResolveError) return ApiError.detail(error.status, error.message);
  return error;
}

/** Run a handler with the sync layer's errors turned into the API's. */
function guarded<N extends SyncRouteName>(handler: AppHandler<N>): AppHandler<N> {
  return (call, params) => {
    try {
      return handler(call, params);
    } catch (error) {
      throw asApiError(error);
    }
  };
}

/** The handlers of `/app/sync…` and `/app/remotes…`. */
export function syncHandlers(host: WorkspaceHost): Pick<AppHandlers, SyncRouteName> {
  const remoteList = (): RemoteInfo[] =>
    host.remotes.list().map((r) => ({ name: r.name, url: r.url, insecure: r.insecure === true, pin: r.pin ?? null, hasToken: host.remotes.token(r.name) !== undefined }));
  const existing = (name: string) => {
    const found = host.remotes.get(name);
    if (!found) throw ApiError.detail(404, `There is no remote "${name}".`);
    return found;
  };
  const handlers: Pick<AppHandlers, SyncRouteName> = {
    remotes: () => ok(remoteList()),
    addRemote: (call) => {
      const body = call.body();
      const remoteName = requiredText(body, 'name');
      const pin = optionalText(body, 'pin');
      const warning = host.remotes.add(
        { name: remoteName, url: requiredText(body, 'url'), ...(flag(body, 'insecure') ? { insecure: true } : {}), ...(pin ? { pin } : {}) },
        requiredText(body, 'token'),
      );
      return { status: 201, body: { remote: remoteList().find((r) => r.name === remoteName) ?? null, warning: warning ?? null } };
    },
    changeRemote: (call, params) => {
      const name = params.name!;
      const known = existing(name);
      const body = call.body();
      const token = optionalText(body, 'token');
      const url = optionalText(body, 'url');
      const changesTls = 'insecure' in body || 'pin' in body;
      let tokenCleared = false;
      if (url !== undefined || changesTls) {
        const pin = 'pin' in body ? optionalText(body, 'pin') : known.pin;
        const insecure = 'insecure' in body ? flag(body, 'insecure') : known.insecure === true;
        tokenCleared = host.remotes.change({ name, url: url ?? known.url, ...(insecure ? { insecure: true } : {}), ...(pin ? { pin } : {}) }, token).tokenCleared;
        // The open workspace's session follows the new address at once, not at the next switch.
        host.remoteChanged(name);
      } else if (token !== undefined) {
        host.remotes.setToken(name, token);
        host.remoteTokenChanged(name);
      }
      const remote = remoteList().find((r) => r.name === name) ?? null;
      return ok(remote && tokenCleared ? { ...remote, warning: 'The address now names another server: its token was removed; give the token for that server.' } : remote);
    },
    removeRemote: (_call, params) => {
      existing(params.name!);
      host.remotes.remove(params.name!);
      return { status: 204, body: null };
    },
    testRemote: async (_call, params) => {
      const config = existing(params.name!);
      return ok(await testRemote(config, host.remotes.token(config.name)));
    },
    sync: () => {
      const session = sessionOf(host);
      return ok({ status: session.status(), entries: session.engine.entries() });
    },
    syncNow: (call) => {
      const session = sessionOf(host);
      const body = call.body();
      // After review, "Sync now" pulls only (the app opens the review); `push: true` sends everything, as `outpost sync` does.
      const push = session.mode() === 'automatic' || flag(body, 'push') ? 'all' : 'none';
      void session.syncNow({ allowMassDelete: flag(body, 'allowMassDelete'), push, user: { pk: call.user.pk, username: call.user.username } });
      return { status: 202, body: session.status() };
    },
    conflicts: () => ok(sessionOf(host).engine.conflicts()),
    remoteHistory: (call) => {
      sessionOf(host);
      const page = Math.max(1, Number(call.query('page') ?? '1') || 1);
      const size = Math.min(1000, Math.max(1, Number(call.query('page_size') ?? '50') || 50));
      return ok(host.current().services.remoteHistory.page(page, size));
    },
    discardEntry: (_call, params) => {
      const session = sessionOf(host);
      session.engine.discard(seqOf(params.seq));
      return { status: 204, body: null };
    },
    retryEntry: (_call, params) => {
      const session = sessionOf(host);
      session.engine.retry(seqOf(params.seq));
      session.nudge();
      return ok(session.status());
    },
    resolveEntry: (call, params) => {
      const session = sessionOf(host);
      const seq = seqOf(params.seq);
      const body = call.body();
      const choice = body.choice;
      if (choice !== 'mine' && choice !== 'theirs') throw ApiError.validation({ choice: [`"${String(choice)}" is not a valid choice.`] });
      const left = session.engine.resolve(seq, requiredText(body, 'field'), choice);
      session.nudge();
      return ok({ entry: left ?? null });
    },
  };
  const guard = <N extends SyncRouteName>(name: N) => guarded(handlers[name]);
  return {
    remotes: guard('remotes'),
    addRemote: guard('addRemote'),
    changeRemote: guard('changeRemote'),
    removeRemote: guard('removeRemote'),
    testRemote: guard('testRemote'),
    sync: guard('sync'),
    syncNow: guard('syncNow'),
    conflicts: guard('conflicts'),
    remoteHistory: guard('remoteHistory'),
    discardEntry: guard('discardEntry'),
    retryEntry: guard('retryEntry'),
    resolveEntry: guard('resolveEntry'),
  };
}
