/** api.md §6 threats: read-only here (list, detail), filled by `import/` and by the sync. */
import { ApiError } from '../../../shared/api/errors';
import { validateWrite } from '../../../shared/api/validate';
import type { JsonObject, JsonValue } from '../../../shared/resources';
import type { Endpoint } from '../routing/endpoint';
import type { Services } from '../services';
import { EntryError, importHandler, type ImportKind } from './imports';
import { modelEndpoint } from './model';

type ThreatValues = Record<string, JsonValue>;

/** One threat of an import: every field checked as on a write; absent fields keep stored values. */
export const threatImport: ImportKind<ThreatValues> = {
  actionType: 'import_threat',
  validate(entry, services) {
    try {
      const write = validateWrite(services.tables.threat.resource, entry, 'update', { refExists: () => false, uniqueTaken: () => false });
      return write.values;
    } catch (error) {
      if (error instanceof ApiError) throw new EntryError(error.body as JsonObject);
      throw error;
    }
  },
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
