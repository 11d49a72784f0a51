/**
 * Probes (app.md §4): both families in one list (the appliances view) with search, filters,
 * ordering and paging in the URL; a detail/edit view per family with the template's inherited
 * parameters; create (a vendor probe optionally from a template) and delete with a comment.
 */
import { useEffect, useMemo, useState } from 'react';
import { appliances, engineProbe, ruleset, vendorProbe, type JsonObject } from '../../../shared/resources';
import { listPath } from '../../../shared/resources/derived';
import { ApiFailure, api } from '../api/client';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { ListToolbar } from '../components/ListToolbar';
import { ConflictNotice } from '../components/ConflictNotice';
import { HistoryLink } from '../components/HistoryLink';
import { ResourceForm } from '../components/ResourceForm';
import { VirtualTable, type Column } from '../components/VirtualTable';
import { paramsOf, useObject, usePagedList, useRefOptions } from '../hooks';
import { href, navigate, useRoute } from '../router';
import { PARAMETER_LABELS, TEMPLATES_PATH } from './templatesFields';

const FAMILIES = {
  vendor: { resource: vendorProbe, path: listPath(vendorProbe), title: 'vendor probe' },
  engine: { resource: engineProbe, path: listPath(engineProbe), title: 'engine probe' },
} as const;
type Family = keyof typeof FAMILIES;

/** Route parameters that belong to the screen, not to the list (never sent to the API). */
const SCREEN_PARAMS = ['template'];

const COLUMNS: readonly Column[] = [
  { key: 'name', title: 'Name', width: 'minmax(10rem, 2fr)' },
  { key: 'type', title: 'Family', width: '6rem' },
  { key: 'address', title: 'Address', width: 'minmax(8rem, 1.2fr)' },
  { key: 'location', title: 'Location', width: 'minmax(8rem, 1.2fr)' },
  { key: 'version', title: 'Version', width: '6rem' },
  { key: 'enabled', title: 'Enabled', width: '5rem', render: (row) => (row.enabled ? 'yes' : 'no') },
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
      · from template <a href={href(`/templates/${pk}`)}>{template.data ? String(template.data.name) : `#${pk}`}</a>
    </>
  );
}

function ProbeDetail({ family, pk, params, onChanged }: { family: Family; pk: number; params: Record<string, string>; onChanged: () => void }) {
  const { resource, path, title } = FAMILIES[family];
  const probe = useObject(`${path}${pk}/`);
  const templates = useRefOptions(TEMPLATES_PATH, 'name', family === 'vendor');
  const rulesets = useRefOptions(listPath(ruleset), 'name', family === 'engine');
  const [deleting, setDeleting] = useState(false);
  const [saved, setSaved] = useState(false);
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
        <h2 id="probe-title">{String(probe.data.name)}</h2>
        <span className="muted">
          {title} · pk {pk}
          {family === 'vendor' && <TemplateLink probe={probe.data} />}
          <HistoryLink type={resource.name} pk={pk} />
        </span>
        <div className="actions" style={{ marginLeft: 'auto' }}>
          <button
            type="button"
            onClick={() => {
              setSaved(false);
              probe.reload();
            }}
          >
            Reload
          </button>
          <button type="button" className="danger" onClick={() => setDeleting(true)}>
            Delete
          </button>
        </div>
      </header>
      <ConflictNotice type={resource.name} pk={pk} />
      {saved && (
        <p className="notice ok" role="status">
          Saved.
        </p>
      )}
      <ResourceForm
        resource={resource}
        object={probe.data}
        labels={PARAMETER_LABELS}
        refOptions={{ parent_tmpl: templates, ruleset: rulesets }}
        submitLabel="Save changes"
        onSubmit={async (payload) => {
          setSaved(false);
          await api.patch(`${path}${pk}/`, payload);
          setSaved(true);
          probe.reload();
          onChanged();
        }}
      />
      {deleting && (
        <ConfirmDialog
          title={`Delete ${String(probe.data.name)}?`}
          message={`The ${title}${family === 'vendor' ? ' and its interfaces and protocols are' : ' is'} deleted; the history keeps a trace.`}
          confirmLabel="Delete probe"
          onClose={() => setDeleting(false)}
          onConfirm={async (comment) => {
            await api.delete(`${path}${pk}/`, comment ? { comment } : undefined);
            onChanged();
            navigate(href('/probes', params));
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
          navigate(href(`/probes/${family}/${String(created.pk)}`, params));
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
  useEffect(() => list.getState().setParams(params), [list, params]);

  const onParams = (next: Record<string, string>) => navigate(href(`/${route.segments.join('/')}`, next), { replace: true });
  const selected = isFamily(familyOrNew) && second ? `${familyOrNew}:${second}` : undefined;
  const templateParam = route.query.get('template');
  const template = templateParam && /^-?\d+$/.test(templateParam) ? Number(templateParam) : undefined;

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
          emptyText={Object.keys(params).length > 0 ? 'No probe matches. Change the search and filters.' : 'No probe yet. Create one with the buttons above.'}
          onOpen={(row) => navigate(href(`/probes/${String(row.type)}/${String(row.pk)}`, params))}
        />
      </section>
      <div className="detail-pane">
        {familyOrNew === 'new' && isFamily(second) ? (
          <NewProbe family={second} template={template} params={params} onCreated={() => list.getState().refresh()} />
        ) : isFamily(familyOrNew) && second && /^-?\d+$/.test(second) ? (
          <ProbeDetail key={`${familyOrNew}-${second}`} family={familyOrNew} pk={Number(second)} params={params} onChanged={() => list.getState().refresh()} />
        ) : (
          <p className="empty">Select a probe to see and change it.</p>
        )}
      </div>
    </div>
  );
}
