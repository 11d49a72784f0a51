/**
 * `POST <endpoint>/import/` (api.md §7): a JSON array validated whole — any invalid entry is a
 * 400 with one error object per entry (`{}` for valid ones) and nothing is written — then
 * upserted in one transaction with one history entry. The CLI's import commands call the same
 * functions.
 */
import { ApiError } from '../../../shared/api/errors';
import { message, pythonTypeName, MESSAGES } from '../../../shared/api/messages';
import { queryGet } from '../../../shared/api/queryString';
import type { JsonObject, JsonValue } from '../../../shared/resources';
import { created, type Result } from '../http/types';
import type { RequestContext } from '../routing/endpoint';
import type { Services } from '../services';
import type { UserRecord } from '../store/users';
import { clientIp } from './model';

/** Who performs a write, for its history entry. */
export interface Actor {
  readonly user: Pick<UserRecord, 'pk' | 'username'>;
  readonly clientIp: string;
}

export function actorOf(ctx: RequestContext): Actor {
  return { user: ctx.user, clientIp: clientIp(ctx) };
}

/** Thrown by an entry validator: that entry's error object. */
export class EntryError extends Error {
  constructor(readonly errors: JsonObject) {
    super('invalid entry');
  }
}

export interface ImportKind<T> {
  readonly actionType: 'import_host_id' | 'import_threat';
  /** Validate one entry (throw EntryError with its field errors). */
  validate(entry: JsonValue, services: Services): T;
  /** Upsert one validated entry (called inside the import's transaction). */
  save(entry: T, services: Services): void;
}

export function importEntries<T>(services: Services, kind: ImportKind<T>, body: JsonValue, actor: Actor, comment: string | null): number {
  if (body === null) throw ApiError.validation({ non_field_errors: [MESSAGES.noData] });
  if (!Array.isArray(body)) {
    throw ApiError.validation({ non_field_errors: [message.expectedList(pythonTypeName(body))] });
  }
  return services.store.write(() => {
    const valid: T[] = [];
    const errors: JsonObject[] = [];
    let failed = false;
    for (const entry of body) {
      try {
        if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
          throw new EntryError({ non_field_errors: [message.expectedDictionary(pythonTypeName(entry))] });
        }
        valid.push(kind.validate(entry, services));
        errors.push({});
      } catch (error) {
        if (!(error instanceof EntryError)) throw error;
        errors.push(error.errors);
        failed = true;
      }
    }
    if (failed) throw ApiError.validation(errors);
    for (const entry of valid) kind.save(entry, services);
    services.history.log({
      actionType: kind.actionType,
      user: actor.user,
      clientIp: actor.clientIp,
      comment,
      objects: { count: { value: valid.length } },
    });
    return valid.length;
  });
}

/** The `?comment=` of an import (its body is an array, so the comment cannot ride in it). */
export function importComment(ctx: RequestContext): string | null {
  const comment = queryGet(ctx.query, 'comment');
  if (comment !== undefined && comment.includes('\0')) throw ApiError.validation({ comment: [MESSAGES.nullCharacters] });
  return comment === undefined ? null : comment.trim();
}

export function importHandler<T>(kind: ImportKind<T>): (ctx: RequestContext) => Result {
  return (ctx) => {
    const comment = importComment(ctx);
    const imported = importEntries(ctx.services, kind, ctx.body(), actorOf(ctx), comment);
    return created({ imported });
  };
}
