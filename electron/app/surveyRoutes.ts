/** The host list of the site survey, its facets, the query language's fields and values (issue 24). Under construction. */
import { ApiError } from '../../shared/api/errors';
import type { WorkspaceHost } from '../workspaces/host';
import type { AppHandlers } from './appCall';

type SurveyRouteName = 'hostList' | 'hostFacets' | 'hostFields' | 'hostValues' | 'hostsVersion';

const notYet = (): never => {
  throw ApiError.detail(501, 'Not built yet.');
};

export function surveyHandlers(_host: WorkspaceHost): Pick<AppHandlers, SurveyRouteName> {
  return { hostList: notYet, hostFacets: notYet, hostFields: notYet, hostValues: notYet, hostsVersion: notYet };
}
