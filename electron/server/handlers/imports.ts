/**
 * `POST <endpoint>/import/` (api.md §7): a JSON array checked whole — any invalid entry is a 400
 * with one error object per entry (`{}` for valid ones; at most MAX_REPORTED_MESSAGES messages,
 * shared/api/imports.ts) and nothing is written — then upserted in one transaction with one
 * history entry. Checking needs no database: for a large body it is done off the main thread
 * before the handler runs (app/bodyPolicy.ts), and the handler only writes. The CLI's import
 * commands call the same functions.
 */
import { createHash } from 'node:crypto';
import { ApiError } from '../../../shared/api/errors';
import type { VisitFile } from '../../../shared/app/hostSurvey';
import { checkImport, type EntryChecker, type ImportCheck } from '../../../shared/api/imports';
import { MESSAGES } from '../../../shared/api/messages';
import { queryGet } from '../../../shared/api/queryString';
import type { JsonValue } from '../../../shared/resources';
import { created, type ApiRequest, type Result } from '../http/types';
import type { RequestContext } from '../routing/endpoint';
import type { UaObject } from '../store/history';
import type { Services } from '../store/services';
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

export interface ImportKind<T> {
  readonly actionType: 'import_host_id' | 'import_threat';
  /** Check one entry, with no I/O (it also runs in the body worker). */
  readonly check: EntryChecker<T>;
  /** The request's body as this import, when it was checked before the handler ran. */
  prepared(req: ApiRequest): ImportCheck<T> | undefined;
  /** Upsert one checked entry (called inside the import's transaction). */
  save(entry: T, services: Services): void;
  /** An import of host identities is a visit (store/visits.ts), recorded with what it changed. */
  readonly visit?: 'host_file';
}

/** What an import read, for its visit: the file (the request's body) and who ran it (a username, or `cli:<user>`). */
export interface ImportSource {
  readonly file: VisitFile;
  readonly who?: string;
}

/** A visit's files as the history entry's `ua_objects` carry them. */
export function filesJson(files: readonly VisitFile[]): JsonValue {
  return files.map((f) => ({ name: f.name, size: f.size, sha256: f.sha256, from: f.from, lines: f.lines }));
}

/** Write checked entries in one transaction with one history entry; throws the refusal of a failed check. */
export function saveImport<T>(services: Services, kind: ImportKind<T>, checked: ImportCheck<T>, actor: Actor, comment: string | null, source?: ImportSource): number {
  if (!checked.ok) throw new ApiError(checked.status, checked.body);
  return services.store.write(() => {
    const save = () => {
      for (const entry of checked.entries) kind.save(entry, services);
    };
    const objects: Record<string, UaObject> = { count: { value: checked.entries.length } };
    let visitPk: number | undefined;
    if (kind.visit) {
      const files = source ? [{ ...source.file, lines: checked.entries.length }] : [];
      const recording = services.visits.begin({ kind: kind.visit, user: source?.who ?? actor.user.username, files });
      services.hosts.recordingInto(recording, save);
      visitPk = services.visits.flush(recording);
      objects.files = { value: filesJson(files) };
      if (visitPk !== undefined) objects.visit = { value: visitPk };
    } else save();
    const historyPk = services.history.log({ actionType: kind.actionType, user: actor.user, clientIp: actor.clientIp, comment, objects });
    if (visitPk !== undefined) services.visits.setHistory(visitPk, historyPk);
    return checked.entries.length;
  });
}

/** Check and write a parsed body (the CLI's imports). */
export function importEntries<T>(services: Services, kind: ImportKind<T>, body: JsonValue, actor: Actor, comment: string | null, source?: ImportSource): number {
  return saveImport(services, kind, checkImport(body, kind.check), actor, comment, source);
}

/** The `?comment=` of an import (its body is an array, so the comment cannot ride in it). */
export function importComment(ctx: RequestContext): string | null {
  const comment = queryGet(ctx.query, 'comment');
  if (comment !== undefined && comment.includes('\0')) throw ApiError.validation({ comment: [MESSAGES.nullCharacters] });
  return comment === undefined ? null : comment.trim();
}

/** The request's body as the file a host import read: named by `?name=` (the app sends the file's name), else the endpoint's. */
function bodyFile(ctx: RequestContext): VisitFile {
  const digest = ctx.req.bodyDigest ?? { size: ctx.req.body.length, sha256: createHash('sha256').update(ctx.req.body).digest('hex') };
  const name = queryGet(ctx.query, 'name')?.trim();
  return { name: name ? name.slice(0, 255) : 'POST host_id/import/', size: digest.size, sha256: digest.sha256, from: 0, lines: 0 };
}

export function importHandler<T>(kind: ImportKind<T>): (ctx: RequestContext) => Result {
  return (ctx) => {
    const comment = importComment(ctx);
    const checked = kind.prepared(ctx.req) ?? checkImport(ctx.body(), kind.check);
    return created({ imported: saveImport(ctx.services, kind, checked, actorOf(ctx), comment, kind.visit ? { file: bodyFile(ctx) } : undefined) });
  };
}
