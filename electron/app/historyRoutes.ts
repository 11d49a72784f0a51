/**
 * The app's history routes (issue 11; shared/app/history.ts): the local history with the API's
 * list parameters plus a range of days and one object's entries, in the API's envelope and
 * entry shape; and the field changes recorded with one entry. Read by every user, as
 * `/rest/rules/history/` is.
 */
import { ApiError } from '../../shared/api/errors';
import { parseListQuery } from '../../shared/api/listParams';
import { MESSAGES } from '../../shared/api/messages';
import { encodeQuery, parseQuery, removeParam, replaceParam } from '../../shared/api/queryString';
import { fieldChangesJson } from '../../shared/api/fieldChanges';
import { parseHistoryRange } from '../../shared/app/history';
import { appPath } from '../../shared/app/routes';
import type { AppPage } from '../../shared/app/routes';
import type { JsonObject } from '../../shared/resources';
import { history as historyResource } from '../../shared/resources';
import { lookupPk } from '../server/handlers/model';
import { historyPage } from '../server/handlers/rules';
import type { WorkspaceHost } from '../workspaces/host';
import { ok, type AppHandlers } from './appCall';

type HistoryRouteName = 'history' | 'historyChanges';

export function historyHandlers(host: WorkspaceHost): Pick<AppHandlers, HistoryRouteName> {
  return {
    history: (call) => {
      const pairs = parseQuery(call.req.rawQuery);
      const parsed = parseHistoryRange(call.query);
      if ('errors' in parsed) throw ApiError.validation(parsed.errors);
      const services = host.current().services;
      const page = historyPage(services, parseListQuery(historyResource, pairs), services.history.rangeConditions(parsed.range));
      if (!page) throw ApiError.detail(404, MESSAGES.invalidPage);
      const pages = Math.max(1, Math.ceil(page.count / page.pageSize));
      const link = (n: number): string => {
        const query = encodeQuery(n === 1 ? removeParam(pairs, 'page') : replaceParam(pairs, 'page', String(n)));
        return `${appPath('history')}${query ? `?${query}` : ''}`;
      };
      const body: AppPage<JsonObject> = {
        count: page.count,
        next: page.page < pages ? link(page.page + 1) : null,
        previous: page.page > 1 ? link(page.page - 1) : null,
        results: page.rows.map((row) => services.history.toJson(row)),
      };
      return ok(body);
    },
    historyChanges: (_call, params) => {
      const pk = lookupPk(params.pk ?? '');
      const changes = host.current().services.history.changesOf(pk);
      if (changes === undefined) throw ApiError.detail(404, MESSAGES.notFound);
      return ok({ pk, recorded: changes !== null, changes: fieldChangesJson(changes ?? []) });
    },
  };
}
