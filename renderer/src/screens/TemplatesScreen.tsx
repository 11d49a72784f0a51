/**
 * Templates (app.md §4, api.md §4): the template tree, a template's form with the same
 * inheritance controls as probes, create (at the top or under a parent) and delete, and for the
 * selected template the templates and probes that use it.
 */
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useStore } from 'zustand';
import { vendorProbeTemplate, type JsonObject } from '../../../shared/resources';
import { ApiFailure, api, appCall } from '../api/client';
import type { TemplatePreview } from '../../../shared/app/templatePreview';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { boundedText } from '../components/bounded';
import { ConflictNotice } from '../components/ConflictNotice';
import { HistoryLink } from '../components/HistoryLink';
import { ResourceForm } from '../components/ResourceForm';
import type { RefChoices, RefOption } from '../components/resourceFormModel';
import { ROW_HEIGHT, VirtualTable, type Column } from '../components/VirtualTable';
import { useQuery } from '../data/useQuery';
import { useListParams, useObject } from '../hooks';
import { href, navigate, useRoute } from '../router';
import { createPagedList } from '../stores/pagedList';
import { leaveThen } from '../stores/unsavedChanges';
import { counted, summariseRefusal, usageBadge, usersText } from './templateUsage';
import { TEMPLATE_LABELS, TEMPLATES_PATH, VENDOR_PROBES_PATH } from './templatesFields';
import { buildForest, descendantsOf, filterForest, type TemplateSummary } from './templatesTree';
import { TemplateTreeView } from './templatesTreeView';
import { TemplatePreviewDialog } from './templatePreviewDialog';
import './templates.css';

const TREE_PAGE_SIZE = 1000;
const USERS_PAGE_SIZE = 50;
/** Probe counts of the tree read at once (one small request per template). */
const COUNTS_AT_ONCE = 4;
/** Rows of the "used by" probe list in view before it scrolls. */
const USERS_ROWS_SHOWN = 8;

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
    .map((t): RefOption => (below.has(t.pk) ? { value: t.pk, label: `${boundedText(t.name)} (inherits from this one)`, disabled: true } : { value: t.pk, label: t.name }));
  return { options };
}

/**
 * How many probes use each template (the tree's counts): one count per template, a few
 * requests at a time, read again with the templates.
 */
function useProbeCounts(templates: readonly TemplateSummary[], refreshOn: unknown): { counts: ReadonlyMap<number, number> | undefined; error: string | undefined } {
  const pks = templates.map((t) => t.pk);
  const { data, error } = useQuery(
    pks.length > 0 ? `probe-counts:${pks.join(',')}` : undefined,
    async (signal) => {
      const counts = new Map<number, number>();
      const queue = [...pks];
      const worker = async () => {
        for (let pk = queue.shift(); pk !== undefined; pk = queue.shift()) {
          const body = await api.get(VENDOR_PROBES_PATH, { parent_tmpl: pk, page_size: 1 }, signal);
          counts.set(pk, Number(body.count));
        }
      };
      await Promise.all(Array.from({ length: Math.min(COUNTS_AT_ONCE, pks.length) }, worker));
      return counts;
    },
    { keepPrevious: true, refreshOn },
  );
  return { counts: data, error: error?.message };
}

const PROBE_COLUMNS: readonly Column[] = [
  { key: 'name', title: 'Probe', width: 'minmax(8rem, 1.3fr)' },
  { key: 'address', title: 'Address', width: 'minmax(7rem, 1fr)' },
  { key: 'location', title: 'Location', width: 'minmax(7rem, 1fr)' },
];

/** The probes whose template is `pk`: a virtualised, server-paged list (thousands stay fast). */
function useTemplateProbes(pk: number) {
  const list = useMemo(() => createPagedList(VENDOR_PROBES_PATH, USERS_PAGE_SIZE), []);
  useListParams(list, { parent_tmpl: pk, ordering: 'name' });
  const count = useStore(list, (s) => s.count);
  const error = useStore(list, (s) => s.error);
  return { list, count, error };
}

type TemplateProbes = ReturnType<typeof useTemplateProbes>;

function UsedBy({ name, children, probes, query }: { name: string; children: readonly TemplateSummary[]; probes: TemplateProbes; query: Record<string, string> }) {
  const none = children.length === 0 && probes.count === 0;
  const rowsShown = Math.max(1, Math.min(probes.count ?? 1, USERS_ROWS_SHOWN));
  return (
    <section className="used-by" id="used-by" aria-labelledby="used-by-title" tabIndex={-1}>
      <h3 id="used-by-title">Used by</h3>
      {none && <p className="empty">No template or probe uses this template: it can be deleted.</p>}
      {children.length > 0 && (
        <>
          <h4 id="used-by-templates">{counted(children.length, 'template', 'templates')}</h4>
          <ul className="used-by-list" aria-labelledby="used-by-templates">
            {children.map((child) => (
              <li key={child.pk}>
                <a href={href(`/templates/${child.pk}`, query)}>{boundedText(child.name)}</a>
                {child.descr && <span className="muted"> — {boundedText(child.descr)}</span>}
              </li>
            ))}
          </ul>
        </>
      )}
      {(probes.count === undefined || probes.count > 0 || probes.error) && (
        <>
          <h4 id="used-by-probes">{probes.count === undefined ? 'Probes' : counted(probes.count, 'probe', 'probes')}</h4>
          {/* Room for a few rows; the list scrolls (and reads its pages) beyond them. */}
          <div className="used-by-probes" style={{ height: `calc(${rowsShown * ROW_HEIGHT}px + 4.2rem)` }}>
            <VirtualTable
              label={`Probes using ${boundedText(name)}`}
              list={probes.list}
              columns={PROBE_COLUMNS}
              rowKey={(row) => String(row.pk)}
              emptyText="No probe uses this template."
              onOpen={(row) => navigate(href(`/probes/vendor/${String(row.pk)}`))}
            />
          </div>
        </>
      )}
    </section>
  );
}

/** What deleting will do; only offered when nothing uses the template (the server has the last word, rule 8). */
const DELETE_MESSAGE = 'The template and its interfaces and protocols are deleted, with any change not saved; the history keeps a trace.';

function TemplateDetail({
  pk,
  templates,
  query,
  onChanged,
  onDeleted,
}: {
  pk: number;
  templates: readonly TemplateSummary[];
  query: Record<string, string>;
  onChanged: () => void;
  onDeleted: (what: string) => void;
}) {
  const template = useObject(`${TEMPLATES_PATH}${pk}/`);
  const [deleting, setDeleting] = useState(false);
  const options = useMemo(() => parentOptions(templates, pk), [templates, pk]);
  const children = useMemo(() => templates.filter((t) => t.parent === pk), [templates, pk]);
  const probes = useTemplateProbes(pk);
  const usedBy = useRef<HTMLDivElement>(null);
  const [asking, setAsking] = useState<{ preview: TemplatePreview; decide: (save: boolean) => void } | undefined>();

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
  // A template in use is not offered for deletion: what uses it is counted, and shown on request.
  const users = probes.count === undefined ? undefined : usersText(children.length, probes.count);
  const deletable = probes.count !== undefined && users === undefined;
  const reload = () => {
    template.reload();
    probes.list.getState().refresh();
  };
  const showUsers = () => {
    const section = usedBy.current?.querySelector<HTMLElement>('#used-by');
    section?.scrollIntoView({ block: 'start' });
    (section?.querySelector<HTMLElement>('[role="grid"]') ?? section)?.focus();
  };

  return (
    <section aria-labelledby="template-title" className="detail">
      <header className="detail-head">
        <h2 id="template-title">{boundedText(String(data.name))}</h2>
        <span className="muted">
          template · pk {pk}
          {parent && (
            <>
              {' '}
              · inherits from <a href={href(`/templates/${parent.pk}`, query)}>{boundedText(parent.name)}</a>
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
          <button type="button" onClick={() => leaveThen(reload)}>
            Reload
          </button>
          <button
            type="button"
            className="danger"
            disabled={!deletable}
            aria-describedby={users ? 'template-in-use' : undefined}
            title={probes.count === undefined ? 'Checking what uses it…' : users ? 'In use: it cannot be deleted' : undefined}
            onClick={() => setDeleting(true)}
          >
            Delete
          </button>
        </div>
      </header>
      <ConflictNotice type={vendorProbeTemplate.name} pk={pk} />
      {users && (
        <p className="notice info in-use" id="template-in-use">
          In use by{' '}
          <button type="button" className="link" onClick={showUsers}>
            {users}
          </button>
          : it can be deleted once they use another template.
        </p>
      )}
      <ResourceForm
        resource={vendorProbeTemplate}
        object={data}
        labels={TEMPLATE_LABELS}
        refOptions={{ parent_tmpl: options }}
        submitLabel="Save changes"
        savedText="Saved. Templates and probes that inherit from it follow."
        onSubmit={async (payload) => {
          // In use: what the save changes for them is shown first. A save the API would refuse
          // goes on to the PATCH, whose field errors the form shows.
          if (children.length > 0 || probes.count !== 0) {
            const preview = await appCall('templatePreview', { params: { pk }, body: payload });
            if (preview.errors === null && preview.objects.length > 0) {
              const save = await new Promise<boolean>((decide) => setAsking({ preview, decide }));
              setAsking(undefined);
              if (!save) return 'cancelled';
            }
          }
          await api.patch(`${TEMPLATES_PATH}${pk}/`, payload);
          reload();
          onChanged();
        }}
      />
      {asking && <TemplatePreviewDialog preview={asking.preview} labelOf={(field) => TEMPLATE_LABELS[field] ?? vendorProbeTemplate.fields[field]?.label ?? field} onDecide={asking.decide} />}
      <div ref={usedBy}>
        <UsedBy name={String(data.name)} children={children} probes={probes} query={query} />
      </div>
      {deleting && (
        <ConfirmDialog
          title={`Delete the template ${boundedText(String(data.name))}?`}
          message={DELETE_MESSAGE}
          confirmLabel="Delete template"
          onClose={() => setDeleting(false)}
          onConfirm={async (comment) => {
            try {
              await api.delete(`${TEMPLATES_PATH}${pk}/`, comment ? { comment } : undefined);
            } catch (error) {
              // Something came to use it meanwhile: say so in counts, and show what uses it now.
              reload();
              onChanged();
              throw error instanceof ApiFailure ? new Error(summariseRefusal(error.message)) : error;
            }
            onChanged();
            onDeleted(`Deleted the template ${boundedText(String(data.name))}.`);
            // The form's changes went with the template: nothing is left to ask about.
            navigate(href('/templates', query), { force: true });
          }}
        />
      )}
    </section>
  );
}

function NewTemplate({ parent, templates, query, onCreated }: { parent: number | undefined; templates: readonly TemplateSummary[]; query: Record<string, string>; onCreated: () => void }) {
  const options = useMemo(() => parentOptions(templates, undefined), [templates]);
  const found = templates.find((t) => t.pk === parent)?.name;
  const parentName = found === undefined ? undefined : boundedText(found);
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
          // Created: the form's values are saved, leaving it loses nothing.
          navigate(href(`/templates/${String(created.pk)}`, query), { force: true });
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
  const { counts: probeCounts, error: countsError } = useProbeCounts(templates, summaries.data);
  // Counted over every template, so that a search that hides some children does not change them.
  const usageOf = useMemo(() => {
    const children = new Map<number, number>();
    for (const t of templates) if (t.parent !== null) children.set(t.parent, (children.get(t.parent) ?? 0) + 1);
    return (pk: number) => usageBadge(children.get(pk) ?? 0, probeCounts?.get(pk));
  }, [templates, probeCounts]);
  // What the last delete did, said in the empty pane it leaves; gone once another template is open.
  const [deleted, setDeleted] = useState<string | undefined>();
  const search = route.query.get('search') ?? '';
  // The list's parameters (the search) travel with every link of the screen.
  const query = useMemo((): Record<string, string> => (search ? { search } : {}), [search]);
  const [, second] = route.segments;
  const selected = second && /^-?\d+$/.test(second) ? Number(second) : undefined;
  const creating = second === 'new';
  const parentParam = route.query.get('parent');
  const newParent = parentParam && /^-?\d+$/.test(parentParam) ? Number(parentParam) : undefined;
  useEffect(() => {
    if (second !== undefined) setDeleted(undefined);
  }, [second]);

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
          {forest.length > 0 && <TemplateTreeView forest={forest} selected={selected} onOpen={open} expandAll={search !== ''} usageOf={usageOf} />}
        </div>
        <div className="vtable-foot" role="status" aria-live="polite">
          {summaries.data ? `${templates.length.toLocaleString()} ${templates.length === 1 ? 'template' : 'templates'}` : ''}
          {summaries.loading && summaries.data ? ' · loading…' : ''}
          {countsError ? ` · the probes using each template could not be counted: ${countsError}` : ''}
        </div>
      </section>
      <div className="detail-pane">
        {creating ? (
          <NewTemplate parent={newParent} templates={templates} query={query} onCreated={summaries.reload} />
        ) : selected !== undefined ? (
          <TemplateDetail key={selected} pk={selected} templates={templates} query={query} onChanged={summaries.reload} onDeleted={setDeleted} />
        ) : (
          <>
            {deleted && (
              <p className="notice ok" role="status">
                {deleted}
              </p>
            )}
            <p className="empty">Select a template to see and change it, and the probes and templates that use it.</p>
          </>
        )}
      </div>
    </div>
  );
}
