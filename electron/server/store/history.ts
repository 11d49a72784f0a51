/**
 * The user-action history (api.md §5): one entry per successful write, written by the caller
 * inside the write's own transaction. `ua_objects` keep the pk of linked objects; it is left out
 * when read once the object no longer exists (pks are never reused, so the test is exact).
 */
import { formatDateTime } from '../../../shared/api/datetime';
import { fieldChangesJson, parseFieldChanges, type FieldChange } from '../../../shared/api/fieldChanges';
import type { HistoryRange } from '../../../shared/app/history';
import type { JsonObject, JsonValue } from '../../../shared/resources';
import { ACTIONS } from '../../../shared/resources';
import { int, intOrNull, text, textOrNull } from './rows';
import type { Store } from './store';
import type { Row } from './table';
import type { SqlValue } from './columns';

/** A linked object `{type, pk, value}` or a plain value `{value}`. */
export interface UaObject {
  readonly type?: string;
  readonly pk?: number;
  readonly value: JsonValue;
}

export interface HistoryEntry {
  readonly actionType: string;
  readonly user: { readonly pk: number; readonly username: string };
  readonly clientIp: string;
  readonly comment: string | null | undefined;
  readonly objects: Readonly<Record<string, UaObject>>;
  /** The write's field changes (secrets without values); absent for actions that change no field. */
  readonly changes?: readonly FieldChange[];
}

/** `exists(type, pk)`: does the object an entry links to still exist? */
export type ObjectExists = (type: string, pk: number) => boolean;

export function describe(actionType: string, username: string, objects: Readonly<Record<string, UaObject>>): string {
  const raw = ACTIONS[actionType]?.[1] ?? '';
  let complete = true;
  const text = raw.replace(/\{(\w+)\}/g, (_, key: string) => {
    if (key === 'user') return username;
    const entry = objects[key];
    if (!entry) {
      complete = false;
      return '';
    }
    return typeof entry.value === 'string' ? entry.value : JSON.stringify(entry.value);
  });
  return complete ? text : raw;
}

export class History {
  constructor(
    private readonly store: Store,
    private readonly exists: ObjectExists,
  ) {}

  log(entry: HistoryEntry): number {
    return Number(
      this.store
        .command(
          'INSERT INTO user_action (action_type, date, comment, user, username, client_ip, ua_objects, changes) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
        )
        .run(
          entry.actionType,
          this.store.now(),
          entry.comment ?? null,
          entry.user.pk,
          entry.user.username,
          entry.clientIp,
          JSON.stringify(entry.objects),
          entry.changes === undefined ? null : JSON.stringify(fieldChangesJson(entry.changes)),
        ).lastInsertRowid,
    );
  }

  /** Link entry `pk` to an object known only once it is written (an import's visit, written with its identities after it). */
  attach(pk: number, key: string, object: UaObject): void {
    this.store.command("UPDATE user_action SET ua_objects = json_set(ua_objects, '$.' || ?, json(?)) WHERE pk = ?").run(key, JSON.stringify(object), pk);
  }

  /**
   * The field changes recorded with entry `pk`: undefined when there is no such entry, null when
   * none were recorded (an entry older than them, or an action that changes no field).
   */
  changesOf(pk: number): FieldChange[] | null | undefined {
    const row = this.store.query('SELECT changes FROM user_action WHERE pk = ?').get(pk) as { changes: string | null } | undefined;
    if (!row) return undefined;
    return row.changes === null ? null : parseFieldChanges(JSON.parse(row.changes) as JsonValue);
  }

  /** SQL conditions on user_action for the app's range of days and the entries naming one object. */
  rangeConditions(range: HistoryRange): { sql: string; params: SqlValue[] }[] {
    const out: { sql: string; params: SqlValue[] }[] = [];
    if (range.from !== undefined) out.push({ sql: 'date >= ?', params: [range.from] });
    if (range.until !== undefined) out.push({ sql: 'date < ?', params: [range.until] });
    if (range.object) {
      out.push({
        sql: "EXISTS (SELECT 1 FROM json_each(user_action.ua_objects) WHERE json_extract(value, '$.type') = ? AND json_extract(value, '$.pk') = ?)",
        params: [range.object.type, range.object.pk],
      });
    }
    return out;
  }

  /** ua_objects as read: `pk` dropped for objects that no longer exist. */
  objectsNow(raw: string): Record<string, UaObject> {
    const stored = JSON.parse(raw) as Record<string, UaObject>;
    const out: Record<string, UaObject> = {};
    for (const [key, entry] of Object.entries(stored)) {
      if (entry.type !== undefined && entry.pk !== undefined && !this.exists(entry.type, entry.pk)) {
        const { pk: _, ...rest } = entry;
        out[key] = rest;
      } else out[key] = entry;
    }
    return out;
  }

  toJson(row: Row): JsonObject {
    const objects = this.objectsNow(text(row, 'ua_objects'));
    const actionType = text(row, 'action_type');
    const username = text(row, 'username');
    const [title, raw] = ACTIONS[actionType] ?? ['', ''];
    return {
      pk: int(row, 'pk'),
      action_type: actionType,
      date: formatDateTime(int(row, 'date')),
      comment: textOrNull(row, 'comment'),
      user: intOrNull(row, 'user'),
      username,
      client_ip: text(row, 'client_ip'),
      title,
      description: describe(actionType, username, objects),
      description_raw: raw,
      ua_objects: uaObjectsJson(objects),
    };
  }
}

function uaObjectsJson(objects: Readonly<Record<string, UaObject>>): JsonObject {
  const out: JsonObject = {};
  for (const [key, entry] of Object.entries(objects)) {
    const item: JsonObject = {};
    if (entry.type !== undefined) item.type = entry.type;
    if (entry.pk !== undefined) item.pk = entry.pk;
    item.value = entry.value;
    out[key] = item;
  }
  return out;
}
