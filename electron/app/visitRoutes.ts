/**
 * The imports and pulls of host identities (issue 24 §2): `visits`, newest first and paged as the
 * history route is, and `hostChanges`, what changed between two points (store/visits.ts). Read
 * by every user, as the host list is.
 */
import { ApiError } from '../../shared/api/errors';
import { parsePage, parsePageSize, pageNumber } from '../../shared/api/listParams';
import { MESSAGES } from '../../shared/api/messages';
import { encodeQuery, parseQuery, removeParam, replaceParam } from '../../shared/api/queryString';
import { parsePoint } from '../../shared/app/hostChanges';
import { appPath, type AppPage } from '../../shared/app/routes';
import type { Visit } from '../../shared/app/hostSurvey';
import { CompareError } from '../server/store/visits';
import type { Services } from '../server/store/services';
import type { HostComparison } from '../../shared/app/hostSurvey';
import type { WorkspaceHost } from '../workspaces/host';
import { ok, type AppHandlers } from './appCall';

type VisitRouteName = 'visits' | 'hostChanges';

/** Changes listed by default, and at most (the totals are always whole). */
export const CHANGES_DEFAULT_LIMIT = 500;
export const CHANGES_MAX_LIMIT = 10_000;

export function visitHandlers(host: WorkspaceHost): Pick<AppHandlers, VisitRouteName> {
  return {
    visits: (call) => {
      const pairs = parseQuery(call.req.rawQuery);
      const pageSize = parsePageSize(call.query('page_size'));
      const { visits } = host.current().services;
      const count = visits.page(0, 0).count;
      const page = pageNumber(parsePage(call.query('page')), count, pageSize);
      if (page === undefined) throw ApiError.detail(404, MESSAGES.invalidPage);
      const pages = Math.max(1, Math.ceil(count / pageSize));
      const link = (n: number): string => {
        const query = encodeQuery(n === 1 ? removeParam(pairs, 'page') : replaceParam(pairs, 'page', String(n)));
        return `${appPath('visits')}${query ? `?${query}` : ''}`;
      };
      const body: AppPage<Visit> = {
        count,
        next: page < pages ? link(page + 1) : null,
        previous: page > 1 ? link(page - 1) : null,
        results: visits.page((page - 1) * pageSize, pageSize).visits,
      };
      return ok(body);
    },
    hostChanges: (call) => ok(compareFromQuery(host.current().services, (name) => call.query(name))),
  };
}

/** A point not read, quoted (bounded: it is the caller's text) with what is expected. */
function unread(text: string, expected: string): string {
  const shown = text.length > 100 ? `${text.slice(0, 100)}…` : text;
  return `"${shown}" is no point: ${expected}.`;
}

/** `since` (required), `until` (default: the last visit) and `limit` read and compared; a bad one is a 400 naming it. */
export function compareFromQuery(services: Services, query: (name: string) => string | undefined): HostComparison {
  const since = query('since');
  if (since === undefined || since.trim() === '') throw ApiError.validation({ since: ['give an import or pull number, a date, or "pull".'] });
  const limitText = query('limit');
  let limit = CHANGES_DEFAULT_LIMIT;
  if (limitText !== undefined && limitText !== '') {
    if (!/^\d{1,6}$/.test(limitText)) throw ApiError.validation({ limit: [`give a number of changes from 0 to ${CHANGES_MAX_LIMIT}.`] });
    limit = Math.min(Number(limitText), CHANGES_MAX_LIMIT);
  }
  const sinceText = parsePoint(since);
  if ('error' in sinceText) throw ApiError.validation({ since: [unread(since, sinceText.error)] });
  const untilRaw = query('until');
  const untilText = untilRaw === undefined || untilRaw.trim() === '' ? undefined : parsePoint(untilRaw);
  if (untilText && 'error' in untilText) throw ApiError.validation({ until: [unread(untilRaw!, untilText.error)] });
  const { visits } = services;
  try {
    return visits.compare(visits.resolve(sinceText, 'since'), untilText ? visits.resolve(untilText, 'until') : visits.latest(), limit);
  } catch (error) {
    if (error instanceof CompareError) throw ApiError.validation({ [error.param]: [error.message] });
    throw error;
  }
}
