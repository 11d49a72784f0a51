/**
 * api.md §7 host identity: detail by address, the list (window, search, ip, ordering,
 * host_id_qfilter) and `import/`, over the hosts repository (store/hosts.ts).
 */
import { ApiError } from '../../../shared/api/errors';
import { parseEpochSeconds } from '../../../shared/api/hostIdentity';
import { checkHostImport, type HostRecord } from '../../../shared/api/imports';
import { parseFilterValue, parseOrdering, parsePage, parsePageSize, parseSearch } from '../../../shared/api/listParams';
import { MESSAGES } from '../../../shared/api/messages';
import { parseQFilter, QueryError, type QueryNode } from '../../../shared/api/qfilter';
import { queryGet, type QueryPairs } from '../../../shared/api/queryString';
import { parseIp } from '../../../shared/api/address';
import { hostId, type JsonObject } from '../../../shared/resources';
import { escapeSeparators } from '../../../shared/api/json';
import { RenderedJson } from '../http/jsonBody';
import { ok } from '../http/types';
import type { Endpoint, Handler } from '../routing/endpoint';
import type { Services } from '../store/services';
import type { HostListQuery, HostRow } from '../store/hosts';
import { importHandler, type ImportKind } from './imports';
import { paginatedRendered } from './pagination';

export type { HostEntry } from '../../../shared/api/hostIdentity';

/**
 * A host entry rendered without parsing the identity: `data` is stored as JSON.stringify wrote
 * it, which is DRF's compact form but for the line separators that renderJson escapes.
 */
export function renderedHost(row: HostRow): RenderedJson {
  return RenderedJson.of(escapeSeparators(`{"ip":${JSON.stringify(row.ip)},"hits":${row.hits},"host_id":${row.data}}`));
}

/**
 * `host_id/import/` (and `outpost import-hosts`): entries checked with no I/O (in the body worker
 * for large bodies), each stored as its record.
 */
export const hostImport: ImportKind<HostRecord> = {
  actionType: 'import_host_id',
  visit: 'host_file',
  check: checkHostImport,
  prepared: (req) => (req.prepared?.name === 'host_id' ? req.prepared.checked : undefined),
  save(record, services) {
    services.hosts.saveRecord(record);
  },
};

// ---------------------------------------------------------------------------------------------
// List parameters

/** The list's parameters, with errors in the real server's order: filters, search, then the query. */
export function parseHostListQuery(pairs: QueryPairs): HostListQuery {
  const errors: JsonObject = {};
  const rawIp = queryGet(pairs, 'ip');
  const ip = rawIp === undefined ? {} : parseFilterValue(hostId.fields.ip!, rawIp);
  if (ip.error) errors.ip = [ip.error];
  const window: { start?: number; end?: number } = {};
  for (const [param, key] of [
    ['start_date', 'start'],
    ['end_date', 'end'],
  ] as const) {
    const raw = queryGet(pairs, param);
    const parsed = raw === undefined ? {} : parseEpochSeconds(raw);
    if (parsed.error) errors[param] = [parsed.error];
    else if (parsed.value !== undefined) window[key] = parsed.value;
  }
  if (Object.keys(errors).length > 0) throw ApiError.validation(errors);
  const ordering = parseOrdering(queryGet(pairs, 'ordering'), hostId.ordering, hostId.defaultOrdering);
  const search = parseSearch(queryGet(pairs, 'search'));
  let qfilter: QueryNode | undefined;
  try {
    qfilter = parseQFilter(queryGet(pairs, 'host_id_qfilter') ?? '');
  } catch (error) {
    if (error instanceof QueryError) throw ApiError.validation({ host_id_qfilter: [error.message] });
    throw error;
  }
  return {
    page: parsePage(queryGet(pairs, 'page')),
    pageSize: parsePageSize(queryGet(pairs, 'page_size')),
    ordering,
    search,
    ...(typeof ip.value === 'string' ? { ip: ip.value } : {}),
    ...window,
    ...(qfilter ? { qfilter } : {}),
  };
}

// ---------------------------------------------------------------------------------------------
// Endpoint

export function hostIdEndpoint(services: Services): Endpoint {
  const list: Handler = (ctx) => {
    const page = services.hosts.list(parseHostListQuery(ctx.query));
    if (!page) throw ApiError.detail(404, MESSAGES.invalidPage);
    return ok(paginatedRendered(ctx, page, page.rows.map(renderedHost)));
  };

  const retrieve: Handler = (_ctx, id) => {
    const ip = parseIp(id);
    if (!ip) throw ApiError.detail(400, MESSAGES.invalidIp);
    const known = services.hosts.rendered.get(ip.text);
    if (known instanceof RenderedJson) return ok(known);
    const row = services.hosts.find(ip.text);
    if (!row) return ok({ ip: ip.text, hits: 0 });
    const rendered = renderedHost(row);
    services.hosts.rendered.set(ip.text, rendered);
    return ok(rendered);
  };

  return {
    resource: hostId,
    lookup: '[^/]+',
    list,
    retrieve,
    actions: [{ name: 'import', detail: false, methods: ['POST'], handler: importHandler(hostImport) }],
  };
}
