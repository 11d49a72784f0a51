/**
 * Templates (app.md §4, api.md §4): the template tree, a template's form with the same
 * inheritance controls as probes, create (at the top or under a parent) and delete, and for the
 * selected template the templates and probes that use it.
 */
import { useCallback, useEffect, useMemo, useState } from 'react';
import { vendorProbeTemplate, type JsonObject } from '../../../shared/resources';
import { ApiFailure, api } from '../api/client';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { ConflictNotice } from '../components/ConflictNotice';
import { HistoryLink } from '../components/HistoryLink';
import { ResourceForm } from '../components/ResourceForm';
import type { RefChoices, RefOption } from '../components/resourceFormModel';
import { useQuery } from '../data/useQuery';
import { useObject } from '../hooks';
import { href, navigate, useRoute } from '../router';
import { TEMPLATE_LABELS, TEMPLATES_PATH, VENDOR_PROBES_PATH } from './templatesFields';
import { buildForest, descendantsOf, filterForest, type TemplateSummary } from './templatesTree';
import { TemplateTreeView } from './templatesTreeView';
import './templates.css';

const TREE_PAGE_SIZE = 1000;
const USERS_PAGE_SIZE = 50;

function summaryOf(row: JsonObject): TemplateSummary {
  return {
    pk: Number(row.pk),
    name: String(row.name ?? ''),
    descr: String(row.descr ?? ''),
    parent: typeof row.parent_tmpl === 'number' ? row.parent_tmpl : null,
  };
}

/** Every template (pk, name, description, parent), all pages of them. */
function useTemplateSummaries() {
  return useQuery(TEMPLATES_PATH, async (signal) => {
    const templates: TemplateSummary[] = [];
    for (let page = 1; ; page++) {
      const body = await api.get(TEMPLATES_PATH, { page, page_size: TREE_PAGE_SIZE, ordering: 'name' }, signal);
      templates.push(...((body.results as JsonObject[] | undefined) ?? []).map(summaryOf));
      if (!body.next) return templates;
    }
  });
}

/** Choices for a template's parent: every other template; its descendants shown but refused (rule 7). */
function parentOptions(templates: readonly TemplateSummary[], self: number | undefined): RefChoices {
  const below = self === undefined ? new Set<number>() : descendantsOf(templates, self);
  const options = templates
    .filter((t) => t.pk !== self)
    .map((t): RefOption => (below.has(t.pk) ? { value: t.pk, label: `${t.name} (inherits from this one)`, disabled: true } : { value: t.pk, label: t.name }));
  return { options };
}

const NO_PROBES: readonly JsonObject[] = [];

/** The probes whose template is `pk`, a page at a time ("Show more" appends the next page). */
function useTemplateProbes(pk: number, generation: number) {
  const [page, setPage] = useState(1);
  // Another template, or a reload, starts again from the first page.
  const key = `${pk}:${generation}`;
  const [shownKey, setShownKey] = useState(key);
  if (shownKey !== key) {
    setShownKey(key);
    setPage(1);
  }
  // The probes shown stay while the next page, or the first one again, is read.
  const query = useQuery(
    `${key}:${page}`,
    async (signal, shown: { probes: readonly JsonObject[]; count: number } | undefined) => {
      const body = await api.get(VENDOR_PROBES_PATH, { parent_tmpl: pk, ordering: 'name', page, page_size: USERS_PAGE_SIZE }, signal);
      const results = (body.results as JsonObject[] | undefined) ?? [];
      return { probes: page === 1 ? results : [...(shown?.probes ?? []), ...results], count: Number(body.count) };
    },
    { keepPrevious: true },
  );
  return {
    probes: query.data?.probes ?? NO_PROBES,
    count: query.data?.count,
    // A failure is shown until the next page, or a reload, is asked for.
    error: query.loading ? undefined : query.error?.message,
    loading: query.loading,
    more: () => setPage((p) => p + 1),
  };
}

function counted(count: number, one: string, many: string): string {
  return `${count.toLocaleString()} ${count === 1 ? one : many}`;
}

type TemplateProbes = ReturnType<typeof useTemplateProbes>;

function UsedBy({ children, probes, query }: { children: readonly TemplateSummary[]; probes: TemplateProbes; query: Record<string, string> }) {
  const none = children.length === 0 && probes.count === 0;
  return (
    <section className="used-by" aria-labelledby="used-by-title">
      <h3 id="used-by-title">Used by</h3>
      {probes.error && (
        <p className="notice error" role="alert">
          The probes using this template could not be read: {probes.error}
        </p>
      )}
      {none && <p className="empty">No template or probe uses this template: it can be deleted.</p>}
      {children.length > 0 && (
        <>
          <h4 id="used-by-templates">{counted(children.length, 'template', 'templates')}</h4>
          <ul className="used-by-list" aria-labelledby="used-by-templates">
            {children.map((child) => (
              <li key={child.pk}>
                <a href={href(`/templates/${child.pk}`, query)}>{child.name}</a>
                {child.descr && <span className="muted"> — {child.descr}</span>}
              </li>
            ))}
          </ul>
        </>
      )}
      {probes.count !== undefined && probes.count > 0 && (
        <>
          <h4 id="used-by-probes">{counted(probes.count, 'probe', 'probes')}</h4>
          <ul className="used-by-list" aria-labelledby="used-by-probes">
            {probes.probes.map((probe) => (
              <li key={String(probe.pk)}>
                <a href={href(`/probes/vendor/${String(probe.pk)}`)}>{String(probe.name)}</a>
                <span className="muted">
                  {' '}
                  — {String(probe.address)}
                  {probe.location ? `, ${String(probe.location)}` : ''}
                </span>
              </li>
            ))}
          </ul>
          {probes.probes.length < probes.count && (
            <button type="button" onClick={probes.more} disabled={probes.loading}>
              Show more probes ({(probes.count - probes.probes.length).toLocaleString()} not shown)
            </button>
          )}
        </>
      )}
      {probes.loading && probes.count === undefined && (
        <p className="loading" role="status">
          Loading the probes that use it…
        </p>
      )}
    </section>
  );
}

/** What deleting will do, as far as the screen knows; the server has the last word (rule 8). */
function deleteMessage(templates: number, probes: number | undefined): string {
  const users = [...(templates > 0 ? [counted(templates, 'template', 'templates')] : []), ...(probes ? [counted(probes, 'probe', 'probes')] : [])];
  if (users.length > 0) return `It is used by ${users.join(' and ')}: the server refuses to delete a template in use until they use another template.`;
  return 'The template and its interfaces and protocols are deleted; the history keeps a trace.';
}

function TemplateDetail({
  pk,
  templates,
  query,
  onChanged,
}: {
  pk: number;
  templates: readonly TemplateSummary[];
  query: Record<string, string>;
  onChanged: () => void;
}) {
  const template = useObject(`${TEMPLATES_PATH}${pk}/`);
  const [deleting, setDeleting] = useState(false);
  const [saved, setSaved] = useState(false);
  const [generation, setGeneration] = useState(0);
  const options = useMemo(() => parentOptions(templates, pk), [templates, pk]);
  const children = useMemo(() => templates.filter((t) => t.parent === pk), [templates, pk]);
  const probes = useTemplateProbes(pk, generation);

  if (template.error) {
    const gone = template.error instanceof ApiFailure && template.error.status === 404;
    return (
      <div className="detail">
        <p className="notice error" role="alert">
          {gone ? 'This template does not exist (any more).' : `The template could not be read: ${template.error.message}`}
        </p>
        <a href={href('/templates', query)}>Back to the templates</a>
      </div>
    );
  }
  if (!template.data) return <p className="loading" role="status">Loading the template…</p>;
  const data = template.data;
  const parent = typeof data.parent_tmpl === 'number' ? templates.find((t) => t.pk === data.parent_tmpl) : undefined;

  return (
    <section aria-labelledby="template-title" className="detail">
      <header className="detail-head">
        <h2 id="template-title">{String(data.name)}</h2>
        <span className="muted">
          template · pk {pk}
          {parent && (
            <>
              {' '}
              · inherits from <a href={href(`/templates/${parent.pk}`, query)}>{parent.name}</a>
            </>
          )}
          <HistoryLink type={vendorProbeTemplate.name} pk={pk} />
        </span>
        <div className="actions detail-actions">
          <a className="button" href={href('/templates/new', { ...query, parent: String(pk) })}>
            New child template
          </a>
          <a className="button" href={href('/probes/new/vendor', { template: String(pk) })}>
            New probe from it
          </a>
          <button
            type="button"
            onClick={() => {
              setSaved(false);
              template.reload();
              setGeneration((g) => g + 1);
            }}
          >
            Reload
          </button>
          <button type="button" className="danger" onClick={() => setDeleting(true)}>
            Delete
          </button>
        </div>
      </header>
      <ConflictNotice type={vendorProbeTemplate.name} pk={pk} />
      {saved && (
        <p className="notice ok" role="status">
          Saved. Templates and probes that inherit from it follow.
        </p>
      )}
      <ResourceForm
        resource={vendorProbeTemplate}
        object={data}
        labels={TEMPLATE_LABELS}
        refOptions={{ parent_tmpl: options }}
        submitLabel="Save changes"
        onSubmit={async (payload) => {
          setSaved(false);
          await api.patch(`${TEMPLATES_PATH}${pk}/`, payload);
          setSaved(true);
          template.reload();
          setGeneration((g) => g + 1);
          onChanged();
        }}
      />
      <UsedBy children={children} probes={probes} query={query} />
      {deleting && (
        <ConfirmDialog
          title={`Delete the template ${String(data.name)}?`}
          message={deleteMessage(children.length, probes.count)}
          confirmLabel="Delete template"
          onClose={() => setDeleting(false)}
          onConfirm={async (comment) => {
            await api.delete(`${TEMPLATES_PATH}${pk}/`, comment ? { comment } : undefined);
            onChanged();
            navigate(href('/templates', query));
          }}
        />
      )}
    </section>
  );
}

function NewTemplate({ parent, templates, query, onCreated }: { parent: number | undefined; templates: readonly TemplateSummary[]; query: Record<string, string>; onCreated: () => void }) {
  const options = useMemo(() => parentOptions(templates, undefined), [templates]);
  const parentName = templates.find((t) => t.pk === parent)?.name;
  return (
    <section aria-labelledby="new-template-title" className="detail">
      <h2 id="new-template-title">{parentName ? `New template under ${parentName}` : 'New template'}</h2>
      <p className="muted">
        {parentName
          ? `It inherits every parameter from ${parentName} until you override it.`
          : 'Choose a parent template to inherit its parameters, or set them here.'}
      </p>
      <ResourceForm
        key={parent ?? 'top'}
        resource={vendorProbeTemplate}
        initial={{ parent_tmpl: parent ?? null }}
        labels={TEMPLATE_LABELS}
        refOptions={{ parent_tmpl: options }}
        submitLabel="Create template"
        onCancel={() => navigate(href(parent === undefined ? '/templates' : `/templates/${parent}`, query))}
        onSubmit={async (payload) => {
          const created = await api.post(TEMPLATES_PATH, payload);
          onCreated();
          navigate(href(`/templates/${String(created.pk)}`, query));
        }}
      />
    </section>
  );
}

function SearchBox({ value, onChange }: { value: string; onChange: (value: string) => void }) {
  const [text, setText] = useState(value);
  useEffect(() => setText(value), [value]);
  useEffect(() => {
    if (text === value) return;
    const timer = window.setTimeout(() => onChange(text), 150);
    return () => window.clearTimeout(timer);
  }, [text, value, onChange]);
  return (
    <div className="toolbar" role="search" aria-label="Template search">
      <label className="search" htmlFor="search-templates">
        Search
        <input id="search-templates" type="search" value={text} placeholder="name, descr" onChange={(e) => setText(e.target.value)} />
      </label>
    </div>
  );
}

export function TemplatesScreen() {
  const route = useRoute();
  const summaries = useTemplateSummaries();
  const templates = useMemo(() => summaries.data ?? [], [summaries.data]);
  const search = route.query.get('search') ?? '';
  // The list's parameters (the search) travel with every link of the screen.
  const query = useMemo((): Record<string, string> => (search ? { search } : {}), [search]);
  const [, second] = route.segments;
  const selected = second && /^-?\d+$/.test(second) ? Number(second) : undefined;
  const creating = second === 'new';
  const parentParam = route.query.get('parent');
  const newParent = parentParam && /^-?\d+$/.test(parentParam) ? Number(parentParam) : undefined;

  const forest = useMemo(() => filterForest(buildForest(templates), search), [templates, search]);
  const onSearch = useCallback(
    (value: string) => navigate(href(`/${route.segments.join('/')}`, { ...(value ? { search: value } : {}), ...(parentParam ? { parent: parentParam } : {}) }), { replace: true }),
    [route.segments, parentParam],
  );
  const open = useCallback((pk: number) => navigate(href(`/templates/${pk}`, query)), [query]);

  return (
    <div className="screen split templates-screen">
      <section className="list-pane" aria-labelledby="templates-title">
        <header className="pane-head">
          <h1 id="templates-title">Templates</h1>
          <div className="actions">
            <button type="button" onClick={summaries.reload}>
              Reload
            </button>
            <a className="button" href={href('/templates/new', query)}>
              New template
            </a>
          </div>
        </header>
        <SearchBox value={search} onChange={onSearch} />
        <div className="tree-box">
          {summaries.error && (
            <p className="notice error" role="alert">
              The templates could not be read: {summaries.error.message}
            </p>
          )}
          {summaries.loading && !summaries.data && (
            <p className="loading" role="status">
              Loading templates…
            </p>
          )}
          {summaries.data && templates.length === 0 && <p className="empty">No template yet. Create one: probes created from it take its parameters.</p>}
          {templates.length > 0 && forest.length === 0 && <p className="empty">No template matches the search.</p>}
          {forest.length > 0 && <TemplateTreeView forest={forest} selected={selected} onOpen={open} expandAll={search !== ''} />}
        </div>
        <div className="vtable-foot" role="status" aria-live="polite">
          {summaries.data ? `${templates.length.toLocaleString()} ${templates.length === 1 ? 'template' : 'templates'}` : ''}
          {summaries.loading && summaries.data ? ' · loading…' : ''}
        </div>
      </section>
      <div className="detail-pane">
        {creating ? (
          <NewTemplate parent={newParent} templates={templates} query={query} onCreated={summaries.reload} />
        ) : selected !== undefined ? (
          <TemplateDetail key={selected} pk={selected} templates={templates} query={query} onChanged={summaries.reload} />
        ) : (
          <p className="empty">Select a template to see and change it, and the probes and templates that use it.</p>
        )}
      </div>
    </div>
  );
}
