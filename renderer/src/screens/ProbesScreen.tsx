/**
 * Probes (app.md §4): both families in one list (the appliances view) with search, filters,
 * ordering and paging in the URL; a detail/edit view per family with the template's inherited
 * parameters; create (a vendor probe optionally from a template) and delete with a comment.
 */
import { useEffect, useMemo, useState } from 'react';
import { appliances, engineProbe, ruleset, vendorProbe, type JsonObject } from '../../../shared/resources';
import { listPath } from '../../../shared/resources/derived';
import { ApiFailure, api } from '../api/client';
import { boundedText } from '../components/bounded';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { ListToolbar } from '../components/ListToolbar';
import { activeFilters, emptyListText } from '../components/listModel';
import { ConflictNotice } from '../components/ConflictNotice';
import { HistoryLink } from '../components/HistoryLink';
import { ResourceForm } from '../components/ResourceForm';
import { VirtualTable, type Column } from '../components/VirtualTable';
import { paramsOf, useListParams, useObject, usePagedList, useRefOptions } from '../hooks';
import { href, navigate, useRoute } from '../router';
import { leaveThen } from '../stores/unsavedChanges';
import { OverrideMarker } from './probeOverrides';
import { PARAMETER_LABELS, TEMPLATES_PATH } from './templatesFields';

const FAMILIES = {
  vendor: { resource: vendorProbe, path: listPath(vendorProbe), title: 'vendor probe' },
  engine: { resource: engineProbe, path: listPath(engineProbe), title: 'engine probe' },
} as const;
type Family = keyof typeof FAMILIES;

/** Route parameters that belong to the screen, not to the list (never sent to the API). */
const SCREEN_PARAMS = ['template'];

const COLUMNS: readonly Column[] = [
  // A vendor probe that sets some of its template's values itself says so after its name.
  {
    key: 'name',
    title: 'Name',
    width: 'minmax(9rem, 2fr)',
    sort: 'name',
    text: (row) => String(row.name ?? ''),
    render: (row) => (
      <span className="name-cell">
        <span className="name-text">{boundedText(String(row.name ?? ''))}</span>
        <OverrideMarker row={row} />
      </span>
    ),
  },
  { key: 'type', title: 'Family', width: '5.5rem', sort: 'type', priority: 2 },
  { key: 'address', title: 'Address', width: 'minmax(7.5rem, 1.2fr)', sort: 'address' },
  { key: 'location', title: 'Location', width: 'minmax(7rem, 1.2fr)', sort: 'location', priority: 1 },
  { key: 'version', title: 'Version', width: '5.5rem', priority: 3 },
  { key: 'enabled', title: 'Enabled', width: '5rem', priority: 2, render: (row) => (row.enabled ? 'yes' : 'no') },
];

function isFamily(value: string | undefined): value is Family {
  return value === 'vendor' || value === 'engine';
}

function listParamsOf(query: URLSearchParams): Record<string, string> {
  const params = paramsOf(query);
  for (const key of SCREEN_PARAMS) delete params[key];
  return params;
}

function TemplateLink({ probe }: { probe: JsonObject }) {
  const pk = probe.parent_tmpl;
  const template = useObject(typeof pk === 'number' ? `${TEMPLATES_PATH}${pk}/` : undefined);
  if (typeof pk !== 'number') return <> · no template</>;
  return (
    <>
      {' '}
      · from template <a href={href(`/templates/${pk}`)}>{template.data ? boundedText(String(template.data.name)) : `#${pk}`}</a>
    </>
  );
}

function ProbeDetail({ family, pk, params, onChanged, onDeleted }: { family: Family; pk: number; params: Record<string, string>; onChanged: () => void; onDeleted: (what: string) => void }) {
  const { resource, path, title } = FAMILIES[family];
  const probe = useObject(`${path}${pk}/`);
  const templates = useRefOptions(TEMPLATES_PATH, 'name', family === 'vendor');
  const rulesets = useRefOptions(listPath(ruleset), 'name', family === 'engine');
  const [deleting, setDeleting] = useState(false);
  if (probe.error) {
    const gone = probe.error instanceof ApiFailure && probe.error.status === 404;
    return (
      <div className="detail">
        <p className="notice error" role="alert">
          {gone ? `This ${title} does not exist (any more).` : `The ${title} could not be read: ${probe.error.message}`}
        </p>
        <a href={href('/probes', params)}>Back to the list</a>
      </div>
    );
  }
  if (!probe.data) return <p className="loading" role="status">Loading the {title}…</p>;
  return (
    <section aria-labelledby="probe-title" className="detail">
      <header className="detail-head">
        <h2 id="probe-title">{boundedText(String(probe.data.name))}</h2>
        <span className="muted">
          {title} · pk {pk}
          {family === 'vendor' && <TemplateLink probe={probe.data} />}
          <HistoryLink type={resource.name} pk={pk} />
        </span>
        <div className="actions" style={{ marginLeft: 'auto' }}>
          <button type="button" onClick={() => leaveThen(probe.reload)}>
            Reload
          </button>
          <button type="button" className="danger" onClick={() => setDeleting(true)}>
            Delete
          </button>
        </div>
      </header>
      <ConflictNotice type={resource.name} pk={pk} />
      <ResourceForm
        resource={resource}
        object={probe.data}
        labels={PARAMETER_LABELS}
        refOptions={{ parent_tmpl: templates, ruleset: rulesets }}
        submitLabel="Save changes"
        onSubmit={async (payload) => {
          await api.patch(`${path}${pk}/`, payload);
          probe.reload();
          onChanged();
        }}
      />
      {deleting && (
        <ConfirmDialog
          title={`Delete ${boundedText(String(probe.data.name))}?`}
          message={`The ${title}${family === 'vendor' ? ' and its interfaces and protocols are' : ' is'} deleted, with any change not saved; the history keeps a trace.`}
          confirmLabel="Delete probe"
          onClose={() => setDeleting(false)}
          onConfirm={async (comment) => {
            const name = boundedText(String(probe.data?.name ?? pk));
            await api.delete(`${path}${pk}/`, comment ? { comment } : undefined);
            onChanged();
            onDeleted(`Deleted the ${title} ${name}.`);
            // The form's changes went with the probe: nothing is left to ask about.
            navigate(href('/probes', params), { force: true });
          }}
        />
      )}
    </section>
  );
}

function NewProbe({ family, template, params, onCreated }: { family: Family; template: number | undefined; params: Record<string, string>; onCreated: () => void }) {
  const { resource, path, title } = FAMILIES[family];
  const templates = useRefOptions(TEMPLATES_PATH, 'name', family === 'vendor');
  const rulesets = useRefOptions(listPath(ruleset), 'name', family === 'engine');
  return (
    <section aria-labelledby="new-probe-title" className="detail">
      <h2 id="new-probe-title">New {title}</h2>
      {family === 'vendor' && <p className="muted">Choose a template to take its parameters, interfaces and protocols; override only what differs on this probe.</p>}
      <ResourceForm
        key={`${family}-${template ?? 'none'}`}
        resource={resource}
        initial={family === 'vendor' && template !== undefined ? { parent_tmpl: template } : undefined}
        labels={PARAMETER_LABELS}
        refOptions={{ parent_tmpl: templates, ruleset: rulesets }}
        submitLabel={`Create ${title}`}
        onCancel={() => navigate(href('/probes', params))}
        onSubmit={async (payload) => {
          const created = await api.post(path, payload);
          onCreated();
          // Created: the form's values are saved, leaving it loses nothing.
          navigate(href(`/probes/${family}/${String(created.pk)}`, params), { force: true });
        }}
      />
    </section>
  );
}

export function ProbesScreen() {
  const route = useRoute();
  const list = usePagedList(listPath(appliances));
  const queryText = route.query.toString();
  const params = useMemo(() => listParamsOf(new URLSearchParams(queryText)), [queryText]);
  const [, familyOrNew, second] = route.segments;
  useListParams(list, params);

  const onParams = (next: Record<string, string>) => navigate(href(`/${route.segments.join('/')}`, next), { replace: true });
  const selected = isFamily(familyOrNew) && second ? `${familyOrNew}:${second}` : undefined;
  const templateParam = route.query.get('template');
  const template = templateParam && /^-?\d+$/.test(templateParam) ? Number(templateParam) : undefined;
  // What the last delete did, said in the empty pane it leaves; gone once another probe is open.
  const [deleted, setDeleted] = useState<string | undefined>();
  useEffect(() => {
    if (familyOrNew !== undefined) setDeleted(undefined);
  }, [familyOrNew, second]);

  return (
    <div className="screen split">
      <section className="list-pane" aria-labelledby="probes-title">
        <header className="pane-head">
          <h1 id="probes-title">Probes</h1>
          <div className="actions">
            <button type="button" onClick={() => list.getState().refresh()}>
              Reload
            </button>
            <a className="button" href={href('/probes/new/vendor', params)}>
              New vendor probe
            </a>
            <a className="button" href={href('/probes/new/engine', params)}>
              New engine probe
            </a>
          </div>
        </header>
        <ListToolbar resource={appliances} params={params} onChange={onParams} />
        <VirtualTable
          label="Probes"
          list={list}
          columns={COLUMNS}
          rowKey={(row) => `${String(row.type)}:${String(row.pk)}`}
          selectedKey={selected}
          sorting={{ ordering: params.ordering, defaultOrdering: appliances.defaultOrdering, onSort: (ordering) => onParams({ ...params, ordering }) }}
          emptyText={emptyListText('probe', activeFilters(params, appliances.filters).length, (params.search ?? '') !== '', 'No probe yet. Create one with the buttons above.')}
          onOpen={(row) => navigate(href(`/probes/${String(row.type)}/${String(row.pk)}`, params))}
        />
      </section>
      <div className="detail-pane">
        {familyOrNew === 'new' && isFamily(second) ? (
          <NewProbe family={second} template={template} params={params} onCreated={() => list.getState().refresh()} />
        ) : isFamily(familyOrNew) && second && /^-?\d+$/.test(second) ? (
          <ProbeDetail
            key={`${familyOrNew}-${second}`}
            family={familyOrNew}
            pk={Number(second)}
            params={params}
            onChanged={() => list.getState().refresh()}
            onDeleted={setDeleted}
          />
        ) : (
          <>
            {deleted && (
              <p className="notice ok" role="status">
                {deleted}
              </p>
            )}
            <p className="empty">Select a probe to see and change it.</p>
          </>
        )}
      </div>
    </div>
  );
}
