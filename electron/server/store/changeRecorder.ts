/**
 * What the API's write paths tell a workspace bound to a central server (app.md §3): each write
 * appends its outbox entry in the write's own transaction, and objects made here get negative
 * pks until the central server gives them its own. A standalone workspace has no recorder.
 */
import type { JsonObject } from '../../../shared/resources';

export interface ChangeRecorder {
  /** A pk for an object created here: negative, never used before in this workspace. */
  newPk(): number;
  created(resource: string, pk: number, fields: JsonObject, comment: string | null | undefined): void;
  /** `given`: the fields the request wrote; `before`/`after`: the object as the API shows it. */
  updated(resource: string, pk: number, before: JsonObject, after: JsonObject, given: readonly string[], comment: string | null | undefined): void;
  deleted(resource: string, pk: number, before: JsonObject, comment: string | null | undefined): void;
}
