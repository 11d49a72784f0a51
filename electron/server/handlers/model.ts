/**
 * Generic list / retrieve / create / update / destroy over a Table, as DRF's ModelViewSet:
 * a write is validated whole, applied with its history entry in one transaction, and answered
 * with the object as a detail GET shows it. Resource-specific behaviour comes in through hooks.
 */
import { ApiError } from '../../../shared/api/errors';
import { fieldChanges, type FieldChange } from '../../../shared/api/fieldChanges';
import { parseListQuery } from '../../../shared/api/listParams';
import { MESSAGES } from '../../../shared/api/messages';
import { pythonInt } from '../../../shared/api/python';
import { validateComment, validateWrite, type ValidatedWrite, type WriteMode } from '../../../shared/api/validate';
import type { JsonObject, JsonValue, Verb } from '../../../shared/resources';
import { RenderedJson } from '../http/jsonBody';
import { created, noContent, ok, type Result } from '../http/types';
import type { Endpoint, Handler, RequestContext } from '../routing/endpoint';
import { objectWriter, type Fragments } from '../store/render';
import type { Row, Table } from '../store/table';
import { paginatedRendered } from './pagination';

export interface ModelHooks {
  /** JSON text of the computed fields (no column of their own) of some objects. */
  readonly fragments?: (ctx: RequestContext, pks: readonly number[]) => Fragments;
  /** Checks after every field is valid (DRF's `validate()`); throw ApiError 400. */
  readonly validate?: (ctx: RequestContext, write: ValidatedWrite, existing: Row | undefined) => void;
  /** Store a new object; default: insert the values with created/updated times. Returns its pk. */
  readonly insert?: (ctx: RequestContext, write: ValidatedWrite) => number;
  /** Store a change; default: update the values and the `updated*` times. */
  readonly change?: (ctx: RequestContext, pk: number, write: ValidatedWrite, existing: Row) => void;
  /** Refuse a delete (ApiError) before anything is written. */
  readonly checkDelete?: (ctx: RequestContext, pk: number, row: Row) => void;
  /** Delete; default: delete the row. */
  readonly remove?: (ctx: RequestContext, pk: number, row: Row) => void;
}

/**
 * The pk in a detail path, read as Django reads it (Python's `int()`: ` 7`, `+7` and `0007` name
 * pk 7), or 404: a non-number, or a number no object can have, finds nothing, as in DRF.
 */
export function lookupPk(id: string): number {
  const pk = pythonInt(id);
  // Negative pks name objects created in a bound workspace and not yet on the central server.
  if (pk === undefined || pk === 0n || pk > BigInt(Number.MAX_SAFE_INTEGER) || pk < -BigInt(Number.MAX_SAFE_INTEGER)) {
    throw ApiError.detail(404, MESSAGES.notFound);
  }
  return Number(pk);
}

export function clientIp(ctx: RequestContext): string {
  return ctx.req.remoteAddress.replace(/^::ffff:/, '');
}

/** Record one history entry for a write to `table`'s object, with the write's field changes. */
export function logWrite(
  ctx: RequestContext,
  table: Table,
  verb: Verb,
  pk: number,
  display: JsonValue,
  comment: string | null | undefined,
  changes: readonly FieldChange[],
): void {
  const history = table.resource.history;
  if (!history) return;
  ctx.services.history.log({
    actionType: `${verb}_${history.kind}`,
    user: ctx.user,
    clientIp: clientIp(ctx),
    comment,
    objects: { [history.keys?.[verb] ?? history.kind]: { type: table.resource.name, pk, value: display } },
    changes,
  });
}

/** Timestamps a row gets on insert and on update, from the resource's datetime fields. */
function timestamps(table: Table, now: number, onInsert: boolean): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [name, field] of Object.entries(table.resource.fields)) {
    if (field.kind !== 'datetime' || !table.columns.includes(name)) continue;
    if (onInsert || name.startsWith('updated')) out[name] = now;
  }
  return out;
}

export function insertWithTimes(ctx: RequestContext, table: Table, values: Record<string, JsonValue>, extra: Record<string, string | number | null> = {}): number {
  return table.insert(values, { ...timestamps(table, ctx.services.store.now(), true), ...extra });
}

export function updateWithTimes(ctx: RequestContext, table: Table, pk: number, values: Record<string, JsonValue>, extra: Record<string, string | number | null> = {}): void {
  table.update(pk, values, { ...timestamps(table, ctx.services.store.now(), false), ...extra });
}

export interface ModelEndpointOptions {
  readonly table: Table;
  readonly hooks?: ModelHooks;
  /** Which handlers exist (default: by the resource's access). */
  readonly handlers?: readonly ('list' | 'retrieve' | 'create' | 'update' | 'destroy')[];
}

export function modelEndpoint({ table, hooks = {}, handlers }: ModelEndpointOptions): Endpoint {
  const resource = table.resource;
  const present =
    handlers ??
    (resource.access === 'read-write'
      ? (['list', 'retrieve', 'create', 'update', 'destroy'] as const)
      : resource.access === 'read-delete'
        ? (['list', 'retrieve', 'destroy'] as const)
        : (['list', 'retrieve'] as const));

  const writer = objectWriter(resource, table.columns);

  /**
   * Each object's JSON (those that exist), in the order asked; rendered once per change. Inside
   * a write, `fresh` renders what the transaction sees, bypassing the cache.
   */
  const show = (ctx: RequestContext, pks: readonly number[], fresh = false): RenderedJson[] => {
    const texts = new Map<number, RenderedJson>();
    const misses: number[] = [];
    for (const pk of pks) {
      const text = fresh ? undefined : (table.rendered.get(pk) as RenderedJson | undefined);
      if (text === undefined) misses.push(pk);
      else texts.set(pk, text);
    }
    if (misses.length > 0) {
      const rows = table.rawRows(misses);
      const fragments = hooks.fragments?.(ctx, [...rows.keys()]) ?? {};
      for (const [pk, row] of rows) {
        const text = RenderedJson.of(writer(row, pk, fragments));
        texts.set(pk, text);
        if (!fresh) table.rendered.set(pk, text);
      }
    }
    return pks.flatMap((pk) => texts.get(pk) ?? []);
  };

  const fetch = (pk: number): Row => {
    const row = table.get(pk);
    if (!row) throw ApiError.detail(404, MESSAGES.notFound);
    return row;
  };

  const detail = (ctx: RequestContext, pk: number): RenderedJson => {
    const [json] = show(ctx, [pk]);
    if (json === undefined) throw ApiError.detail(404, MESSAGES.notFound);
    return json;
  };

  const validate = (ctx: RequestContext, mode: WriteMode, existing?: Row): ValidatedWrite => {
    const pk = existing ? Number(existing.pk) : undefined;
    const write = validateWrite(resource, ctx.body(), mode, {
      refExists: (target, ref) => ctx.services.exists(target, ref),
      uniqueTaken: (value) => {
        const owner = resource.unique ? table.findBy(resource.unique.field, value) : undefined;
        return owner !== undefined && owner !== pk;
      },
    });
    hooks.validate?.(ctx, write, existing);
    return write;
  };

  const display = (values: JsonObject): JsonValue => values[resource.display] ?? null;

  /** The object as the API shows it, as the current transaction sees it (for the outbox). */
  const current = (ctx: RequestContext, pk: number): JsonObject => {
    const [json] = show(ctx, [pk], true);
    return json ? (JSON.parse(json.text) as JsonObject) : {};
  };

  /** The fields the request itself gave (not the defaults a create fills in), write-only ones too or not. */
  const givenFields = (ctx: RequestContext, withWriteOnly: boolean): string[] => {
    const body = ctx.body();
    if (typeof body !== 'object' || body === null || Array.isArray(body)) return [];
    return Object.keys(body).filter((name) => {
      const field = resource.fields[name];
      return field !== undefined && !field.readOnly && (withWriteOnly || !field.writeOnly);
    });
  };
  /** The writable fields the request itself gave, as the outbox takes them. */
  const given = (ctx: RequestContext): string[] => givenFields(ctx, false);

  const list: Handler = (ctx) => {
    const page = table.pkPage(parseListQuery(resource, ctx.query));
    if (!page) throw ApiError.detail(404, MESSAGES.invalidPage);
    return ok(paginatedRendered(ctx, page, show(ctx, page.pks)));
  };

  const retrieve: Handler = (ctx, id) => ok(detail(ctx, lookupPk(id)));

  const create: Handler = (ctx) => {
    const pk = ctx.services.store.write(() => {
      const write = validate(ctx, 'create');
      const newPk = hooks.insert ? hooks.insert(ctx, write) : insertWithTimes(ctx, table, write.values);
      const after = current(ctx, newPk);
      logWrite(ctx, table, 'create', newPk, display(table.toJson(fetch(newPk))), write.comment, fieldChanges(resource, undefined, after, givenFields(ctx, true)));
      const recorder = ctx.services.recorder;
      if (recorder) {
        recorder.created(resource.name, newPk, Object.fromEntries(given(ctx).map((f) => [f, after[f] ?? null])), write.comment);
      }
      return newPk;
    });
    return created(detail(ctx, pk));
  };

  const update =
    (partial: boolean): Handler =>
    (ctx, id) => {
      const pk = lookupPk(id);
      ctx.services.store.write(() => {
        const existing = fetch(pk);
        const write = validate(ctx, partial ? 'partial' : 'update', existing);
        const recorder = ctx.services.recorder;
        const before = current(ctx, pk);
        if (hooks.change) hooks.change(ctx, pk, write, existing);
        else updateWithTimes(ctx, table, pk, write.values);
        const after = current(ctx, pk);
        logWrite(ctx, table, 'edit', pk, display(table.toJson(fetch(pk))), write.comment, fieldChanges(resource, before, after, givenFields(ctx, true)));
        if (recorder) recorder.updated(resource.name, pk, before, after, given(ctx), write.comment);
      });
      return ok(detail(ctx, pk));
    };

  const destroy: Handler = (ctx, id) => {
    const pk = lookupPk(id);
    ctx.services.store.write(() => {
      const row = fetch(pk);
      const comment = validateComment(ctx.body());
      hooks.checkDelete?.(ctx, pk, row);
      const before = current(ctx, pk);
      logWrite(ctx, table, 'delete', pk, display(table.toJson(row)), comment, fieldChanges(resource, before, undefined, []));
      ctx.services.recorder?.deleted(resource.name, pk, before, comment);
      if (hooks.remove) hooks.remove(ctx, pk, row);
      else table.delete(pk);
    });
    return noContent();
  };

  return {
    resource,
    ...(present.includes('list') ? { list } : {}),
    ...(present.includes('retrieve') ? { retrieve } : {}),
    ...(present.includes('create') ? { create } : {}),
    ...(present.includes('update') ? { update: update(false), partialUpdate: update(true) } : {}),
    ...(present.includes('destroy') ? { destroy } : {}),
  };
}

export type { Result };
