/** The imports and pulls of host identities, and a comparison of two points (issue 24). Under construction. */
import { ApiError } from '../../shared/api/errors';
import type { WorkspaceHost } from '../workspaces/host';
import type { AppHandlers } from './appCall';

type VisitRouteName = 'visits' | 'hostChanges';

const notYet = (): never => {
  throw ApiError.detail(501, 'Not built yet.');
};

export function visitHandlers(_host: WorkspaceHost): Pick<AppHandlers, VisitRouteName> {
  return { visits: notYet, hostChanges: notYet };
}
