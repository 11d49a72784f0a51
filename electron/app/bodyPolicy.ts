/**
 * Which body each request may bring (docs/decisions.md, "Bodies"), decided from its head before a
 * byte of the body is read (the mechanics are in http/admission.ts):
 *
 * 1. The login and logout forms, open to anyone: read up to the form limit.
 * 2. Paths whose handlers never read a body (the renderer's files, /rules/hunt, any unknown path):
 *    answered at once, without it.
 * 3. /rest, /app and /remote are for authenticated callers only. Without valid credentials the
 *    answer (403, or the 404 or 406 DRF gives before it authenticates) is given at once.
 * 4. Imports, for managers (anyone else is answered at once: 403): read up to the import limit;
 *    the API's own imports are then parsed and checked off the main thread before the handler.
 * 5. Any other request of an authenticated caller: read up to the object limit.
 *
 * An answer given at once is the handler's own answer to the request without its body, which is
 * the answer it gives with the body: on those paths it never reads one. Should it try (credentials
 * that appeared in between), the withheld body is refused with a 400, never taken as `{}`.
 */
import { createHash } from 'node:crypto';
import { ApiError } from '../../shared/api/errors';
import type { ImportName } from '../../shared/api/imports';
import type { OpenedWorkspace } from '../workspaces/openWorkspace';
import type { Admit, RequestHead } from '../server/http/admission';
import { BODY_WITHHELD } from '../server/http/body';
import { prepareImportBody } from '../server/http/bodyWorker';
import type { ApiHandler } from '../server/http/nodeAdapter';
import type { ApiRequest, ApiResponse } from '../server/http/types';
import { authenticate } from '../server/routing/auth';
import { isManager, type UserRecord } from '../server/store/users';

const KiB = 1024;
const MiB = 1024 * KiB;

export const BODY_LIMITS = {
  /** The login and logout forms: a username, a password or a token, `next`. */
  form: 64 * KiB,
  /**
   * Any object write. The largest legitimate one, a template with a thousand interfaces and a
   * thousand protocols (at most 47 bytes each), is under 100 KiB. Kept this small because DRF's
   * errors repeat per item: 256 KiB of `[1,1,…]` in `interfaces` is a 10 MB answer, ~0.3 s of work
   * on the main thread (1 MiB: 39 MB and ~1 s).
   */
  object: 256 * KiB,
  /** Imports (host identities, threats, workspace bundles), streamed and parsed off the main thread. */
  import: 64 * MiB,
} as const;

const FORM_PATHS: ReadonlySet<string> = new Set(['/api-auth/login', '/api-auth/login/', '/api-auth/logout', '/api-auth/logout/']);

/** Where handlers may read a body, once they have authenticated the caller. */
const AUTHENTICATED_PREFIXES = ['/rest', '/app', '/remote'];

interface ImportRoute {
  /** The path of a POST, with DRF's optional format suffix where the router accepts one. */
  readonly path: RegExp;
  /** The import its body is checked as before the handler; none: the handler reads the body itself. */
  readonly prepare?: ImportName;
}

const IMPORT_ROUTES: readonly ImportRoute[] = [
  { path: /^\/rest\/appliances\/host_id\/import(?:\.[a-z0-9]+)?\/?$/, prepare: 'host_id' },
  { path: /^\/rest\/appliances\/threat\/import(?:\.[a-z0-9]+)?\/?$/, prepare: 'threat' },
  // The central server's imports, through the proxy: forwarded as they come.
  { path: /^\/remote\/rest\/appliances\/(?:host_id|threat)\/import(?:\.[a-z0-9]+)?\/?$/ },
  { path: /^\/app\/workspaces\/import\/?$/ },
  // Reviewed outbox entries to send: up to 100,000 of ~160 bytes each (shared/sync/applyRequest.ts).
  { path: /^\/app\/sync\/apply\/?$/ },
];

/** Bodies read as they arrive, of any length: EVE logs uploaded by the app (docs/eve.md). */
const STREAMED = /^\/app\/hosts\/import-eve\/?$/;

export interface BodyPolicyTarget {
  /** The workspace being served: its users authenticate the caller. */
  current(): Pick<OpenedWorkspace, 'services'>;
}

/** The caller the head's credentials name, if they are valid. */
function callerOf(head: RequestHead, target: BodyPolicyTarget): UserRecord | undefined {
  const { services } = target.current();
  // Token lookups are cached while the database is unchanged; another process may have changed it.
  services.store.checkFreshness();
  try {
    return authenticate({ ...head, body: BODY_WITHHELD }, services.users)?.user;
  } catch (error) {
    if (error instanceof ApiError) return undefined;
    throw error;
  }
}

function prepareImportRequest(name: ImportName): (req: ApiRequest) => Promise<ApiRequest> {
  return async (req) => {
    const bodyDigest = { size: req.body.length, sha256: createHash('sha256').update(req.body).digest('hex') };
    const prepared = await prepareImportBody({ name, contentType: req.headers['content-type'], body: req.body });
    // The bytes may have moved to the worker: the handler reads `prepared`, never `body`.
    return { ...req, body: BODY_WITHHELD, prepared, bodyDigest };
  };
}

type Answer = (req: ApiRequest) => ApiResponse | Promise<ApiResponse>;

/** The admission step of the handler `answer` (which gives the answers "at once"). */
export function admitBodies(target: BodyPolicyTarget, answer: Answer): Admit {
  return (head) => {
    const withoutBody = () => ({ answer: answer({ ...head, body: BODY_WITHHELD }) });
    if (FORM_PATHS.has(head.path)) return { limit: BODY_LIMITS.form };
    if (!AUTHENTICATED_PREFIXES.some((prefix) => head.path.startsWith(prefix))) return withoutBody();
    const caller = callerOf(head, target);
    if (!caller) return withoutBody();
    if (head.method === 'POST' && STREAMED.test(head.path)) return isManager(caller) ? { stream: true } : withoutBody();
    const route = head.method === 'POST' ? IMPORT_ROUTES.find((r) => r.path.test(head.path)) : undefined;
    if (!route) return { limit: BODY_LIMITS.object };
    if (!isManager(caller)) return withoutBody();
    return { limit: BODY_LIMITS.import, ...(route.prepare ? { parse: prepareImportRequest(route.prepare) } : {}) };
  };
}

/** `answer` with the admission step above. */
export function withBodyPolicy(target: BodyPolicyTarget, answer: Answer): ApiHandler {
  return Object.assign((req: ApiRequest) => answer(req), { admit: admitBodies(target, answer) });
}
