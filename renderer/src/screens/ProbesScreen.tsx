/**
 * Probes (app.md §4): both families in one list (the appliances view) with search, filters,
 * ordering and paging in the URL; a detail/edit view per family; create and delete.
 */
import { useEffect, useState } from 'react';
import { appliances, engineProbe, vendorProbe } from '../../../shared/resources';
import { api } from '../api/client';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { ListToolbar } from '../components/ListToolbar';
import { ResourceForm } from '../components/ResourceForm';
import { VirtualTable, type Column } from '../components/VirtualTable';
import { paramsOf, useObject, usePagedList, useRefOptions } from '../hooks';
import { href, navigate, useRoute } from '../router';

const FAMILIES = {
  vendor: { resource: vendorProbe, path: '/rest/appliances/vendor_probe/', title: 'vendor probe' },
  engine: { resource: engineProbe, path: '/rest/appliances/engine_probe/', title: 'engine probe' },
} as const;
type Family = keyof typeof FAMILIES;

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

function ProbeDetail({ family, pk, onChanged }: { family: Family; pk: number; onChanged: () => void }) {
  const { resource, path, title } = FAMILIES[family];
  const probe = useObject(`${path}${pk}/`);
  const templates = useRefOptions('/rest/appliances/vendor_probe_template/', 'name', family === 'vendor');
  const rulesets = useRefOptions('/rest/rules/ruleset/', 'name', family === 'engine');
  const [deleting, setDeleting] = useState(false);
  const [saved, setSaved] = useState(false);
  if (probe.error) return <p className="notice error" role="alert">{probe.error.message}</p>;
  if (!probe.data) return <p className="loading" role="status">Loading…</p>;
  return (
    <section aria-labelledby="probe-title" className="detail">
      <header className="detail-head">
        <h2 id="probe-title">{String(probe.data.name)}</h2>
        <span className="muted">
          {title} · pk {pk}
        </span>
        <button type="button" className="danger" onClick={() => setDeleting(true)}>
          Delete
        </button>
      </header>
      {saved && <p className="notice ok" role="status">Saved.</p>}
      <ResourceForm
        resource={resource}
        object={probe.data}
        refOptions={{ parent_tmpl: templates, ruleset: rulesets }}
        submitLabel="Save changes"
        onSubmit={async (payload) => {
          await api.patch(`${path}${pk}/`, payload);
          setSaved(true);
          probe.reload();
          onChanged();
        }}
      />
      {deleting && (
        <ConfirmDialog
          title={`Delete ${String(probe.data.name)}?`}
          message={`The ${title} and its interfaces are deleted; the history keeps a trace.`}
          confirmLabel="Delete probe"
          onClose={() => setDeleting(false)}
          onConfirm={async (comment) => {
            await api.delete(`${path}${pk}/`, comment ? { comment } : undefined);
            onChanged();
            navigate(href('/probes'));
          }}
        />
      )}
    </section>
  );
}

function NewProbe({ family, onCreated }: { family: Family; onCreated: () => void }) {
  const { resource, path, title } = FAMILIES[family];
  const templates = useRefOptions('/rest/appliances/vendor_probe_template/', 'name', family === 'vendor');
  const rulesets = useRefOptions('/rest/rules/ruleset/', 'name', family === 'engine');
  return (
    <section aria-labelledby="new-probe-title" className="detail">
      <h2 id="new-probe-title">New {title}</h2>
      <ResourceForm
        resource={resource}
        refOptions={{ parent_tmpl: templates, ruleset: rulesets }}
        submitLabel={`Create ${title}`}
        onCancel={() => navigate(href('/probes'))}
        onSubmit={async (payload) => {
          const created = await api.post(path, payload);
          onCreated();
          navigate(href(`/probes/${family}/${String(created.pk)}`));
        }}
      />
    </section>
  );
}

export function ProbesScreen() {
  const route = useRoute();
  const list = usePagedList('/rest/appliances/appliances/');
  const queryText = route.query.toString();
  const params = paramsOf(route.query);
  const [, familyOrNew, second] = route.segments;
  useEffect(() => list.getState().setParams(paramsOf(new URLSearchParams(queryText))), [list, queryText]);

  const onParams = (next: Record<string, string>) => navigate(href(`/${route.segments.join('/')}`, next), { replace: true });
  const selected = isFamily(familyOrNew) && second ? `${familyOrNew}:${second}` : undefined;

  return (
    <div className="screen split">
      <section className="list-pane" aria-labelledby="probes-title">
        <header className="pane-head">
          <h1 id="probes-title">Probes</h1>
          <div className="actions">
            <button type="button" onClick={() => list.getState().refresh()}>
              Reload
            </button>
            <a className="button" href={href('/probes/new/vendor')}>
              New vendor probe
            </a>
            <a className="button" href={href('/probes/new/engine')}>
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
          emptyText="No probe matches. Create one, or change the search and filters."
          onOpen={(row) => navigate(href(`/probes/${String(row.type)}/${String(row.pk)}`, params))}
        />
      </section>
      <div className="detail-pane">
        {familyOrNew === 'new' && isFamily(second) ? (
          <NewProbe family={second} onCreated={() => list.getState().refresh()} />
        ) : isFamily(familyOrNew) && second && /^\d+$/.test(second) ? (
          <ProbeDetail key={`${familyOrNew}-${second}`} family={familyOrNew} pk={Number(second)} onChanged={() => list.getState().refresh()} />
        ) : (
          <p className="empty">Select a probe to see and change it.</p>
        )}
      </div>
    </div>
  );
}
