/**
 * The app's own view of the local history (`GET /app/history`): the API's list parameters
 * (api.md §2, §5) plus what an audit needs and the API does not have — a range of days
 * (`date_after`, `date_before`: `YYYY-MM-DD`, both days included, UTC) and the entries naming
 * one object (`object=<type>:<pk>`, e.g. `vendor_probe:7`). Pure: parsed here, turned into SQL
 * by the store. Entries keep the API's shape; each one's field changes are served beside it:
 * `GET /app/history/<pk>/changes` → `{"pk", "recorded", "changes": [{"field", "from"?, "to"?,
 * "secret"?}]}`, `recorded` false for an entry with none kept (shared/api/fieldChanges.ts).
 */
import { parseIsoDate } from '../api/datetime';

/** The extra parameters, in the order a filter bar shows them. */
export const HISTORY_EXTRA_PARAMS = ['date_after', 'date_before', 'object'] as const;

export interface HistoryRange {
  /** First microsecond included (UTC midnight of `date_after`). */
  readonly from?: number;
  /** First microsecond excluded (UTC midnight after `date_before`). */
  readonly until?: number;
  readonly object?: { readonly type: string; readonly pk: number };
}

export const INVALID_DAY = 'Enter a valid date (YYYY-MM-DD).';
export const INVALID_OBJECT = 'Name one object as <type>:<pk>, e.g. vendor_probe:7.';

const DAY_MICROS = 86_400_000_000;

function dayStart(text: string): number | undefined {
  const date = parseIsoDate(text);
  return date === undefined ? undefined : Date.UTC(date.year, date.month - 1, date.day) * 1000;
}

/** The range the parameters ask for, or the errors of those that are not valid (`{param: [message]}`). */
export function parseHistoryRange(get: (name: string) => string | undefined): { range: HistoryRange } | { errors: Record<string, string[]> } {
  const errors: Record<string, string[]> = {};
  const range: { from?: number; until?: number; object?: { type: string; pk: number } } = {};
  const after = get('date_after')?.trim();
  if (after) {
    const start = dayStart(after);
    if (start === undefined) errors.date_after = [INVALID_DAY];
    else range.from = start;
  }
  const before = get('date_before')?.trim();
  if (before) {
    const start = dayStart(before);
    if (start === undefined) errors.date_before = [INVALID_DAY];
    else range.until = start + DAY_MICROS;
  }
  const object = get('object')?.trim();
  if (object) {
    const match = /^([a-z_]+):(-?\d{1,15})$/.exec(object);
    if (!match || Number(match[2]) === 0) errors.object = [INVALID_OBJECT];
    else range.object = { type: match[1]!, pk: Number(match[2]) };
  }
  return Object.keys(errors).length > 0 ? { errors } : { range };
}
