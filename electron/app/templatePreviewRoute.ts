/**
 * What saving a template would change for the local probes and templates that inherit from it
 * (shared/app/templatePreview.ts).
 */
import { ApiError } from '../../shared/api/errors';
import type { WorkspaceHost } from '../workspaces/host';
import type { AppHandlers } from './appCall';

export function templatePreviewHandlers(_host: WorkspaceHost): Pick<AppHandlers, 'templatePreview'> {
  const pending = () => {
    throw ApiError.detail(404, 'Not found.');
  };
  return { templatePreview: pending };
}
