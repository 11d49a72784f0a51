/**
 * Connecting a standalone workspace to a central server (shared/sync/connect.ts): the plan, then
 * the connect as planned.
 */
import { ApiError } from '../../shared/api/errors';
import type { WorkspaceHost } from '../workspaces/host';
import type { AppHandlers } from './appCall';

export function connectHandlers(_host: WorkspaceHost): Pick<AppHandlers, 'connectPlan' | 'connectWorkspace'> {
  const pending = () => {
    throw ApiError.detail(404, 'Not found.');
  };
  return { connectPlan: pending, connectWorkspace: pending };
}
