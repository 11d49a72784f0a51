/**
 * The host list of the site survey, its facets, the query language's fields and values, and the
 * version of the host data (issue 24 §1; docs/survey.md). Read by every user, as the API's host
 * list is. The reads are store/hostSurvey.ts's; the facets' declarations shared/app/hostFacets.ts's.
 */
import { ApiError } from '../../shared/api/errors';
import { parsePage, parsePageSize } from '../../shared/api/listParams';
import { MESSAGES } from '../../shared/api/messages';
import { parseQFilter, QueryError, type QueryNode } from '../../shared/api/qfilter';
import { formatDateTime } from '../../shared/api/datetime';
import { bucketLabel, facetQuery, FACET_BUCKETS, HOST_FACETS, portLabel, type FacetDeclaration } from '../../shared/app/hostFacets';
import { parseHostFilter, parseHostOrdering, type Facet, type HostFilter, type HostRow, type HostSource } from '../../shared/app/hostSurvey';
import { queryFields } from '../../shared/app/queryFields';
import type { JsonObject, JsonValue } from '../../shared/resources';
import type { HostSurvey, SurveyFilter, SurveyRow, SurveySet } from '../server/store/hostSurvey';
import type { WorkspaceHost } from '../workspaces/host';
import { ok, type AppCall, type AppHandlers } from './appCall';

type SurveyRouteName = 'hostList' | 'hostFacets' | 'hostFields' | 'hostValues' | 'hostsVersion';

/** Values offered for completion at most. */
const VALUES_LIMIT = 20;
/** A completion prefix longer than this is cut (nothing longer is offered anyway). */
const PREFIX_MAX = 256;
/** Identities read to describe a port bucket (`443/tcp tls`). */
const LABEL_SAMPLE = 20;

/** The filter of a survey request: its parameters checked, its query parsed, its import known (400 otherwise). */
function filterOf(call: AppCall, survey: HostSurvey): SurveyFilter {
  const parsed = parseHostFilter((name) => call.query(name));
  if ('error' in parsed) throw ApiError.detail(400, parsed.error);
  return surveyFilter(parsed, survey);
}

/** A filter as the survey's store takes it: its query parsed, its import known (400 otherwise); the list, its exports and the report read it so. */
export function surveyFilter(parsed: HostFilter, survey: HostSurvey): SurveyFilter {
  let q: QueryNode | undefined;
  try {
    q = parsed.q === undefined ? undefined : parseQFilter(parsed.q);
  } catch (error) {
    // The API's own message (`character 7: unterminated quoted string.`), under the parameter's name.
    if (error instanceof QueryError) throw ApiError.validation({ q: [error.message] });
    throw error;
  }
  if (parsed.visit !== undefined && !survey.visitExists(parsed.visit)) throw ApiError.detail(400, `visit: no such import (${parsed.visit}).`);
  return {
    ...(q ? { q } : {}),
    ...(parsed.search !== undefined ? { search: parsed.search } : {}),
    ...(parsed.visit !== undefined ? { visit: parsed.visit, visitChange: parsed.visitChange ?? 'changed' } : {}),
  };
}

/** The version of the host data: the count of host writes, of this server's open (a workspace replaced by a bundle starts again). */
function versionOf(survey: HostSurvey, opened: string): string {
  return `${opened}.${survey.writes()}`;
}

function sourceOf(row: SurveyRow): HostSource {
  if (row.local) return row.central ? 'both' : 'local';
  return 'central';
}

export function hostRow(row: SurveyRow): HostRow {
  return {
    ip: row.ip,
    hits: row.hits,
    host_id: JSON.parse(row.data) as JsonObject,
    source: sourceOf(row),
    learned: { visit: row.learnedVisit, at: row.learnedAt === null ? null : formatDateTime(row.learnedAt) },
  };
}

function facetOf(survey: HostSurvey, set: SurveySet | undefined, facet: FacetDeclaration): Facet {
  if (facet.kind === 'present') {
    const count = survey.hostsWithAny(set, facet.field);
    return { id: facet.id, label: facet.label, buckets: count === 0 ? [] : [{ value: 'true', label: facet.bucket, count, qfilter: facetQuery(facet, 'true') }], more: 0 };
  }
  const counts = survey.valueCounts(set, facet.field);
  if (facet.kind === 'value') {
    const found = counts.find((c) => c.text.toLowerCase() === facet.value);
    return {
      id: facet.id,
      label: facet.label,
      buckets: found ? [{ value: facet.value, label: facet.bucket, count: found.count, qfilter: facetQuery(facet, facet.value) }] : [],
      more: 0,
    };
  }
  const shown = counts.slice(0, FACET_BUCKETS);
  return {
    id: facet.id,
    label: facet.label,
    buckets: shown.map((c) => {
      const service = facet.id === 'services' ? portLabel(c.text, survey.sampleIdentities(c.ids, LABEL_SAMPLE).map((data) => JSON.parse(data) as JsonValue)) : undefined;
      return { value: c.text, label: bucketLabel(facet, c.text, service), count: c.count, qfilter: facetQuery(facet, c.text) };
    }),
    more: counts.length - shown.length,
  };
}

export function surveyHandlers(host: WorkspaceHost): Pick<AppHandlers, SurveyRouteName> {
  // Told apart from a former open of another file under the same name (a bundle imported in its place).
  const opened = new WeakMap<HostSurvey, string>();
  const current = () => {
    const { services } = host.current();
    // Another process may have written (a terminal's import): what this one keeps goes then.
    services.store.checkFreshness();
    const survey = services.hostSurvey;
    if (!opened.has(survey)) opened.set(survey, Date.now().toString(36));
    return { survey, version: () => versionOf(survey, opened.get(survey)!) };
  };
  return {
    hostList: (call) => {
      const { survey, version } = current();
      const filter = filterOf(call, survey);
      const order = parseHostOrdering(call.query('ordering'));
      if (!order) throw ApiError.detail(400, 'ordering: give ip, hits, first_seen, last_seen or learned, with a leading - for descending.');
      const at = version();
      const page = survey.list(filter, order, parsePage(call.query('page')), parsePageSize(call.query('page_size')));
      if (!page) throw ApiError.detail(404, MESSAGES.invalidPage);
      return ok({ count: page.count, results: page.rows.map(hostRow), version: at });
    },
    hostFacets: (call) => {
      const { survey, version } = current();
      const filter = filterOf(call, survey);
      const at = version();
      // The filter's hosts once, for every facet.
      const set = survey.hostSet(filter);
      return ok({ count: survey.count(set), facets: HOST_FACETS.map((facet) => facetOf(survey, set, facet)), version: at });
    },
    hostFields: () => {
      const { survey } = current();
      const sample = survey.sample();
      return ok({ fields: queryFields(survey.paths(), { ip: sample.ip, lastDay: sample.lastSeen === null ? undefined : formatDateTime(sample.lastSeen).slice(0, 10) }) });
    },
    hostValues: (call) => {
      const { survey } = current();
      const field = call.query('field')?.trim() ?? '';
      if (field === '') throw ApiError.detail(400, 'field: give a field of the query language (host_id.roles.name…).');
      const prefix = [...(call.query('prefix') ?? '')].slice(0, PREFIX_MAX).join('');
      return ok({ field, values: survey.values(field, prefix, VALUES_LIMIT) });
    },
    hostsVersion: () => ok({ version: current().version() }),
  };
}
