/**
 * Review before push (shared/sync/review.ts): the plan of what the outbox would do on the
 * central server, applying reviewed entries, and the workspace's push mode.
 */
import { ApiError } from '../../shared/api/errors';
import type { WorkspaceHost } from '../workspaces/host';
import type { AppHandlers } from './appCall';

export function reviewHandlers(_host: WorkspaceHost): Pick<AppHandlers, 'syncPlan' | 'syncApply' | 'setPushMode'> {
  const pending = () => {
    throw ApiError.detail(404, 'Not found.');
  };
  return { syncPlan: pending, syncApply: pending, setPushMode: pending };
}
