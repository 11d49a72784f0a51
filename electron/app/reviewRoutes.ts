/**
 * Review before push (shared/sync/review.ts, docs/sync.md "Review before push"): the plan of what
 * the outbox would do on the central server (`GET /app/sync/plan`), sending reviewed entries
 * (`POST /app/sync/apply`), and the workspace's push mode (`PUT /app/sync/push-mode`).
 */
import { ApiError } from '../../shared/api/errors';
import { MESSAGES, message } from '../../shared/api/messages';
import { pyStr } from '../../shared/api/python';
import { checkChoices } from '../../shared/sync/applyRequest';
import { pushModeOf } from '../../shared/sync/review';
import { RemoteError } from '../remote/client';
import { makePlan } from '../remote/reviewPlan';
import type { WorkspaceHost } from '../workspaces/host';
import { ok, type AppHandlers } from './appCall';
import { sessionOf } from './syncRoutes';

/**
 * The central server could not be read (unreachable, token refused, a wrong answer): a 502 with
 * its reason, not a failure of this server; the plan is all or nothing.
 */
function unreadable(error: unknown): never {
  // The sync's kind of failure comes with it, so the Review says what to try as the Sync screen does.
  if (error instanceof RemoteError) throw new ApiError(502, { detail: `The central server could not be read: ${error.message}`, kind: error.kind });
  throw error;
}

export function reviewHandlers(host: WorkspaceHost): Pick<AppHandlers, 'syncPlan' | 'syncApply' | 'setPushMode'> {
  return {
    syncPlan: async () => {
      const session = sessionOf(host);
      const plan = await makePlan(host.current().services, session.client, { workspace: host.name, remote: { name: session.config.name, url: session.config.url } }).catch(unreadable);
      return ok(plan);
    },
    syncApply: async (call) => {
      const session = sessionOf(host);
      const checked = checkChoices(call.body().entries);
      if (!checked.ok) throw ApiError.validation({ entries: [checked.error.charAt(0).toUpperCase() + checked.error.slice(1) + '.'] });
      const { applied, stopped } = await session.engine.apply(checked.value, { user: { pk: call.user.pk, username: call.user.username } });
      return ok({ applied, stopped, status: session.status() });
    },
    setPushMode: (call) => {
      const session = sessionOf(host);
      const value = call.body().mode;
      const mode = pushModeOf(value);
      // DRF's words for a choice field, the value as Python prints it (bounded: it comes back to the caller).
      if (mode === null) throw ApiError.validation({ mode: [value === undefined || value === null ? MESSAGES.required : message.invalidChoice(pyStr(value).slice(0, 40))] });
      session.setMode(mode);
      return ok(session.status());
    },
  };
}
