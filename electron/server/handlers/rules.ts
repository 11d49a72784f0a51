/** api.md §5–§6: sources, rulesets and the user-action history. */
import { parseListQuery, type ListQuery } from '../../../shared/api/listParams';
import { ACTIONS } from '../../../shared/resources';
import { ok } from '../http/types';
import type { Endpoint } from '../routing/endpoint';
import type { Services } from '../store/services';
import type { SqlValue } from '../store/columns';
import type { Page, Row } from '../store/table';
import { insertWithTimes, lookupPk, modelEndpoint, updateWithTimes } from './model';
import { paginated } from './pagination';
import { ApiError } from '../../../shared/api/errors';
import { MESSAGES } from '../../../shared/api/messages';

export function sourceEndpoint(services: Services): Endpoint {
  return modelEndpoint({ table: services.tables.source });
}

export function rulesetEndpoint(services: Services): Endpoint {
  const table = services.tables.ruleset;
  const setSources = (pk: number, sources: readonly number[]) => services.rulesetSources.set(pk, sources);
  return modelEndpoint({
    table,
    hooks: {
      fragments: (_ctx, pks) => {
        const sources = services.rulesetSources.of(pks);
        return { sources: new Map([...sources].map(([pk, list]) => [pk, `[${list.join(',')}]`])) };
      },
      insert: (ctx, write) => {
        const pk = insertWithTimes(ctx, table, write.values);
        if (Array.isArray(write.values.sources)) setSources(pk, write.values.sources as number[]);
        return pk;
      },
      change: (ctx, pk, write) => {
        updateWithTimes(ctx, table, pk, write.values);
        if (Array.isArray(write.values.sources)) setSources(pk, write.values.sources as number[]);
      },
    },
  });
}

/** One page of the local history as api.md §5 lists it, narrowed by `extra` conditions (the app's own filters). */
export function historyPage(services: Services, query: ListQuery, extra: { sql: string; params: SqlValue[] }[] = []): Page | undefined {
  // api.md §5: `-date` is always the last ordering term.
  return services.tables.history.list({ ...query, ordering: [...query.ordering, { field: 'date', descending: true }] }, extra);
}

export function historyEndpoint(services: Services): Endpoint {
  const table = services.tables.history;
  const toJson = (row: Row) => services.history.toJson(row);
  return {
    resource: table.resource,
    list: (ctx) => {
      const page = historyPage(services, parseListQuery(table.resource, ctx.query));
      if (!page) throw ApiError.detail(404, MESSAGES.invalidPage);
      return ok(paginated(ctx, page, page.rows.map(toJson)));
    },
    retrieve: (_ctx, id) => {
      const row = table.get(lookupPk(id));
      if (!row) throw ApiError.detail(404, MESSAGES.notFound);
      return ok(toJson(row));
    },
    actions: [
      {
        name: 'get_action_type_list',
        detail: false,
        methods: ['GET'],
        handler: () => ok({ action_type_list: Object.fromEntries(Object.entries(ACTIONS).map(([type, [title]]) => [type, title])) }),
      },
    ],
  };
}
