/**
 * What saving a template would change for the local probes and templates that inherit from it
 * (shared/app/templatePreview.ts). The body is validated as the save's PATCH is, with the same
 * inheritance checks; the subtree is read, and shared/api/inheritancePreview.ts decides what
 * changes. Nothing is written: a refused save answers its errors, not a 400.
 */
import { ApiError } from '../../shared/api/errors';
import { isItemField, type ItemFieldName } from '../../shared/api/inheritance';
import { otherChanges, previewTemplateSave, type OwnerValues, type PreviewNode, type PreviewTree } from '../../shared/api/inheritancePreview';
import { MESSAGES } from '../../shared/api/messages';
import { validateWrite, type ValidatedWrite } from '../../shared/api/validate';
import type { TemplatePreview } from '../../shared/app/templatePreview';
import { INHERITABLE, vendorProbeTemplate, type InheritableName, type JsonObject, type JsonValue } from '../../shared/resources';
import { lookupPk } from '../server/handlers/model';
import { checkInheritedWrite } from '../server/handlers/probes';
import { fromSql } from '../server/store/columns';
import { Owners, type OwnerKind, type OwnerState } from '../server/store/owners';
import type { Services } from '../server/store/services';
import type { WorkspaceHost } from '../workspaces/host';
import { ok, type AppHandlers } from './appCall';

const FLAG: Record<ItemFieldName, string> = { interfaces: 'active', protocols: 'detection' };

/** Reads the owners of one template's subtree in the API's value form. */
class SubtreeReader {
  private readonly owners: Owners;

  constructor(services: Services) {
    this.owners = new Owners(services.store, () => services.store.now());
  }

  /** Owners of one kind, their items read in one query per item field. */
  nodes(kind: OwnerKind, refs: readonly { pk: number }[]): PreviewNode[] {
    const pks = refs.map((r) => r.pk);
    const items = { interfaces: this.owners.itemsOf('interfaces', kind, pks), protocols: this.owners.itemsOf('protocols', kind, pks) };
    return pks.flatMap((pk) => {
      const state = this.owners.state({ kind, pk });
      return state ? [this.node(pk, state, (field) => items[field].get(pk) ?? [])] : [];
    });
  }

  template(pk: number): (PreviewNode & { parent: number | null }) | null {
    const state = this.owners.state({ kind: 'template', pk });
    if (!state) return null;
    return { ...this.node(pk, state, (field) => this.owners.items(field, { kind: 'template', pk })), parent: state.parent };
  }

  children(templatePk: number): { templates: PreviewNode[]; probes: PreviewNode[] } {
    const { templates, probes } = this.owners.children(templatePk);
    return { templates: this.nodes('template', templates), probes: this.nodes('probe', probes) };
  }

  private node(pk: number, state: OwnerState, items: (field: ItemFieldName) => readonly { name: string; flag: boolean }[]): PreviewNode {
    const values = {} as Record<InheritableName, JsonValue>;
    for (const field of INHERITABLE) {
      values[field] = isItemField(field)
        ? items(field).map((item) => ({ name: item.name, [FLAG[field]]: item.flag }))
        : fromSql(vendorProbeTemplate.fields[field]!, state.scalars[field as keyof OwnerState['scalars']]);
    }
    return { pk, name: state.name, overrides: state.overrides, values: values as OwnerValues };
  }

  /** The template's subtree, each template's children read once. */
  tree(template: PreviewNode & { parent: number | null }, parentAfter: number | null): PreviewTree {
    const children = new Map<number, { templates: PreviewNode[]; probes: PreviewNode[] }>();
    const queue = [template.pk];
    while (queue.length > 0) {
      const pk = queue.shift()!;
      if (children.has(pk)) continue;
      const found = this.children(pk);
      children.set(pk, found);
      queue.push(...found.templates.map((t) => t.pk));
    }
    return { template, parentAfter: parentAfter === null ? null : (this.template(parentAfter) ?? null), children };
  }
}

function preview(services: Services, pk: number, body: JsonObject): TemplatePreview {
  const table = services.tables.template;
  const existing = table.get(pk);
  if (!existing) throw ApiError.detail(404, MESSAGES.notFound);
  const owners = new Owners(services.store, () => services.store.now());
  let write: ValidatedWrite;
  try {
    write = validateWrite(vendorProbeTemplate, body, 'partial', {
      refExists: (target, ref) => services.exists(target, ref),
      uniqueTaken: (value) => {
        const owner = vendorProbeTemplate.unique ? table.findBy(vendorProbeTemplate.unique.field, value) : undefined;
        return owner !== undefined && owner !== pk;
      },
    });
    checkInheritedWrite(owners, 'template', vendorProbeTemplate, body, write, existing);
  } catch (error) {
    if (error instanceof ApiError && error.status === 400) {
      const errors = typeof error.body === 'object' && error.body !== null && !Array.isArray(error.body) ? error.body : { non_field_errors: [error.message] };
      return { own: [], objects: [], errors };
    }
    throw error;
  }
  const reader = new SubtreeReader(services);
  const template = reader.template(pk)!;
  const parent = 'parent_tmpl' in write.values ? (write.values.parent_tmpl === null ? null : Number(write.values.parent_tmpl)) : template.parent;
  const overrides = (write.values.overriden_fields as string[] | undefined) ?? template.overrides;
  const given: Partial<Record<InheritableName, JsonValue>> = {};
  for (const field of INHERITABLE) {
    if (isItemField(field)) {
      const items = write.items[field];
      if (items) given[field] = items.map((item) => ({ name: item.name, [FLAG[field]]: item.flag }));
    } else if (field in write.values) given[field] = write.values[field]!;
  }
  const { own, objects } = previewTemplateSave(reader.tree(template, parent), { parent, overrides, given });
  const others = otherChanges(table.toJson(existing), write.values);
  return { own: [...others, ...own], objects, errors: null };
}

export function templatePreviewHandlers(host: WorkspaceHost): Pick<AppHandlers, 'templatePreview'> {
  return {
    templatePreview: (call, params) => ok(preview(host.current().services, lookupPk(params.pk ?? ''), call.body())),
  };
}
