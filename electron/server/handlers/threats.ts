/** api.md §6 threats: read-only here (list, detail), filled by `import/` and by the sync. */
import { checkThreatImport, type ThreatValues } from '../../../shared/api/imports';
import type { Endpoint } from '../routing/endpoint';
import type { Services } from '../store/services';
import { importHandler, type ImportKind } from './imports';
import { modelEndpoint } from './model';

/** One threat of an import: every field checked as on a write; absent fields keep stored values. */
export const threatImport: ImportKind<ThreatValues> = {
  actionType: 'import_threat',
  check: checkThreatImport,
  prepared: (req) => (req.prepared?.name === 'threat' ? req.prepared.checked : undefined),
  save(values, services) {
    const table = services.tables.threat;
    const pk = values.pk as number;
    const withId = values.threat_id === undefined ? { ...values, threat_id: pk } : values;
    if (table.exists(pk)) table.update(pk, withId);
    else table.insert(withId);
  },
};

export function threatEndpoint(services: Services): Endpoint {
  const base = modelEndpoint({ table: services.tables.threat });
  return {
    ...base,
    actions: [{ name: 'import', detail: false, methods: ['POST'], handler: importHandler(threatImport) }],
  };
}
