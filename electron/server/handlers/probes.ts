/**
 * api.md §3–§4: templates and both probe families, the appliances and vendor_device views,
 * and network interfaces. Templates and first-family probes carry inheritable parameters; their
 * writes go through the inheritance checks and propagation of store/owners.ts.
 */
import { ApiError } from '../../../shared/api/errors';
import {
  changedFields,
  closesCycle,
  fieldsToInherit,
  inheritedFieldErrors,
  isItemField,
  itemsKey,
  ITEM_FIELDS,
  type ItemPair,
} from '../../../shared/api/inheritance';
import { MESSAGES, message } from '../../../shared/api/messages';
import { requireObject, validateComment, type ValidatedWrite } from '../../../shared/api/validate';
import { INHERITABLE, type InheritableName, type JsonObject, type Resource } from '../../../shared/resources';
import { noContent } from '../http/types';
import type { Endpoint, RequestContext } from '../routing/endpoint';
import type { Services } from '../store/services';
import { Owners, scalarKey, type OwnerKind, type OwnerRef } from '../store/owners';
import { int, intOrNull, text } from '../store/rows';
import { toSql } from '../store/columns';
import type { Row, Table } from '../store/table';
import { clientIp, insertWithTimes, lookupPk, modelEndpoint, updateWithTimes, type ModelHooks } from './model';

const FLAG = { interfaces: 'active', protocols: 'detection' } as const;

function overridesOf(row: Row | undefined): string[] {
  return row ? (JSON.parse(text(row, 'overriden_fields')) as string[]) : [];
}

function pairsOf(write: ValidatedWrite, field: 'interfaces' | 'protocols'): ItemPair[] | undefined {
  return write.items[field]?.map((item): ItemPair => [item.name, item.flag]);
}

/**
 * The inheritance checks of a write (rules 6–7): a template may not become its own ancestor, and
 * an inherited field may not be given another value. `body` is the request's, so that only what
 * it gives counts (not the defaults a create fills in). Throws the API's 400.
 */
export function checkInheritedWrite(owners: Owners, kind: OwnerKind, resource: Resource, body: JsonObject, write: ValidatedWrite, existing: Row | undefined): void {
  const parentValue = 'parent_tmpl' in write.values ? write.values.parent_tmpl : existing ? intOrNull(existing, 'parent_tmpl') : null;
  if (parentValue === null || parentValue === undefined) return;
  const parentPk = Number(parentValue);
  if (kind === 'template' && existing && closesCycle(int(existing, 'pk'), parentPk, (pk) => owners.parentOf(pk))) {
    throw ApiError.validation({ parent_tmpl: [MESSAGES.cycle] });
  }
  const overrides = (write.values.overriden_fields as string[] | undefined) ?? overridesOf(existing);
  const given: Partial<Record<InheritableName, string>> = {};
  for (const field of INHERITABLE) {
    if (!(field in body)) continue;
    if (isItemField(field)) {
      const pairs = pairsOf(write, field);
      if (pairs) given[field] = itemsKey(pairs);
    } else if (field in write.values) {
      given[field] = scalarKey(toSql(resource.fields[field]!, write.values[field]!));
    }
  }
  const parentState = owners.state({ kind: 'template', pk: parentPk });
  if (!parentState) return;
  const parent = { name: parentState.name, values: owners.snapshot({ kind: 'template', pk: parentPk }) };
  const current = existing
    ? { parent: intOrNull(existing, 'parent_tmpl'), overrides: overridesOf(existing), values: owners.snapshot({ kind, pk: int(existing, 'pk') }) }
    : undefined;
  const errors = inheritedFieldErrors(given, overrides, parentPk, parent, current);
  if (Object.keys(errors).length > 0) throw ApiError.validation(errors);
}

/** Hooks shared by templates and first-family probes: items, inheritance checks and copies. */
function inheritableHooks(services: Services, owners: Owners, kind: OwnerKind, table: Table, extra: Partial<ModelHooks> = {}): ModelHooks {
  const resource = table.resource;

  const fragments: ModelHooks['fragments'] = (ctx, pks) => {
    const out: Record<string, Map<number, string>> = {};
    for (const field of ITEM_FIELDS) {
      const key = `,${JSON.stringify(FLAG[field])}:`;
      const items = owners.itemsOf(field, kind, pks);
      out[field] = new Map(
        pks.map((pk) => [
          pk,
          `[${(items.get(pk) ?? []).map((item) => `{"pk":${item.pk},"name":${JSON.stringify(item.name)}${key}${item.flag}}`).join(',')}]`,
        ]),
      );
    }
    return { ...out, ...(extra.fragments?.(ctx, pks) ?? {}) };
  };

  const validate: ModelHooks['validate'] = (ctx, write, existing) => checkInheritedWrite(owners, kind, resource, requireObject(ctx.body()), write, existing);

  /** Items given in the write, then what the parent hands down now. */
  const settle = (ref: OwnerRef, write: ValidatedWrite, previous: Row | undefined) => {
    for (const field of ITEM_FIELDS) {
      const pairs = pairsOf(write, field);
      if (pairs) owners.setItems(field, ref, pairs, previous ? undefined : []);
    }
    const state = owners.state(ref)!;
    const inherit = fieldsToInherit(state.parent, previous ? intOrNull(previous, 'parent_tmpl') : undefined, state.overrides, overridesOf(previous));
    if (state.parent !== null) owners.copyFrom(ref, state.parent, inherit);
  };

  return {
    ...extra,
    fragments,
    validate,
    insert: (ctx, write) => {
      const pk = insertWithTimes(ctx, table, write.values);
      settle({ kind, pk }, write, undefined);
      extra.insert?.(ctx, write);
      return pk;
    },
    change: (ctx, pk, write, existing) => {
      const ref: OwnerRef = { kind, pk };
      const before = kind === 'template' ? owners.snapshot(ref) : undefined;
      updateWithTimes(ctx, table, pk, write.values);
      settle(ref, write, existing);
      if (before) owners.propagate(pk, changedFields(before, owners.snapshot(ref)));
      extra.change?.(ctx, pk, write, existing);
    },
  };
}

function deviceOf(services: Services, probePk: number): { name: string; address: string; version: string } {
  const row = services.tables.vendorProbe.get(probePk)!;
  return { name: text(row, 'name'), address: text(row, 'address'), version: text(row, 'version') };
}

export function templateEndpoint(services: Services, owners: Owners): Endpoint {
  const table = services.tables.template;
  return modelEndpoint({
    table,
    hooks: {
      ...inheritableHooks(services, owners, 'template', table),
      checkDelete: (_ctx, pk, row) => {
        const { templates, probes } = owners.children(pk);
        const users = [...templates.map((t) => `template "${t.name}"`), ...probes.map((p) => `probe "${p.name}"`)];
        if (users.length > 0) throw ApiError.detail(400, message.templateUsed(text(row, 'name'), users));
      },
    },
  });
}

export function vendorProbeEndpoint(services: Services, owners: Owners): Endpoint {
  const table = services.tables.vendorProbe;
  const { store } = services;
  const hooks = inheritableHooks(services, owners, 'probe', table, {
    fragments: (_ctx, pks) => {
      const devices = services.devices.ofProbes(pks);
      return { vendordevice_id: new Map([...devices].map(([probe, pk]) => [probe, String(pk)])) };
    },
  });
  return modelEndpoint({
    table,
    hooks: {
      ...hooks,
      insert: (ctx, write) => {
        const pk = hooks.insert!(ctx, write);
        const device = deviceOf(services, pk);
        services.devices.addForProbe(pk, device, store.localPk?.() ?? null);
        return pk;
      },
      change: (ctx, pk, write, existing) => {
        hooks.change!(ctx, pk, write, existing);
        const device = deviceOf(services, pk);
        services.devices.updateForProbe(pk, device);
      },
    },
  });
}

export function engineProbeEndpoint(services: Services): Endpoint {
  return modelEndpoint({ table: services.tables.engineProbe });
}

export function appliancesEndpoint(services: Services): Endpoint {
  return modelEndpoint({ table: services.tables.appliances });
}

export function vendorDeviceEndpoint(services: Services): Endpoint {
  return modelEndpoint({ table: services.tables.vendorDevice });
}

/** GET, and DELETE that removes the interface from its owner (and its inheriting children). */
export function networkInterfaceEndpoint(services: Services, owners: Owners): Endpoint {
  const table = services.tables.networkInterface;
  const base = modelEndpoint({ table, handlers: ['list', 'retrieve'] });
  const destroy = (ctx: RequestContext, id: string) => {
    const pk = lookupPk(id);
    services.store.write(() => {
      const row = table.get(pk);
      if (!row) throw ApiError.detail(404, MESSAGES.notFound);
      const comment = validateComment(ctx.body());
      const templatePk = intOrNull(row, 'template');
      const ref: OwnerRef = templatePk !== null ? { kind: 'template', pk: templatePk } : { kind: 'probe', pk: int(row, 'probe') };
      const owner = owners.state(ref)!;
      if (owner.parent !== null && !owner.overrides.includes('interfaces')) {
        const parent = owners.state({ kind: 'template', pk: owner.parent })!;
        throw ApiError.detail(400, message.interfaceInherited(parent.name));
      }
      const itemsOfOwner = () => owners.items('interfaces', ref).map((i) => ({ name: i.name, active: i.flag }));
      const before = itemsOfOwner();
      table.delete(pk);
      const ownerTable = ref.kind === 'template' ? services.tables.template : services.tables.vendorProbe;
      updateWithTimes(ctx, ownerTable, ref.pk, {});
      if (ref.kind === 'template') owners.propagate(ref.pk, ['interfaces']);
      services.history.log({
        actionType: 'delete_network_interface',
        user: ctx.user,
        clientIp: clientIp(ctx),
        comment,
        objects: {
          interface: { type: 'network_interface', pk, value: text(row, 'name') },
          owner: { type: ref.kind === 'template' ? 'vendor_probe_template' : 'vendor_probe', pk: ref.pk, value: owner.name },
        },
        changes: [{ field: 'interfaces', from: before, to: itemsOfOwner() }],
      });
      const recorder = services.recorder;
      if (recorder) {
        // An interface the central server knows is deleted there; one made here changes its owner's list.
        if (pk > 0) recorder.deleted('network_interface', pk, table.toJson(row), comment);
        else recorder.updated(ownerTable.resource.name, ref.pk, { interfaces: before }, { interfaces: itemsOfOwner() }, ['interfaces'], comment);
      }
    });
    return noContent();
  };
  return { ...base, destroy };
}

/** Every probe-related endpoint family, sharing one Owners. */
export function probeEndpoints(services: Services): Endpoint[] {
  const owners = new Owners(services.store, () => services.store.now());
  return [
    templateEndpoint(services, owners),
    vendorProbeEndpoint(services, owners),
    engineProbeEndpoint(services),
    appliancesEndpoint(services),
    vendorDeviceEndpoint(services),
    networkInterfaceEndpoint(services, owners),
  ];
}

