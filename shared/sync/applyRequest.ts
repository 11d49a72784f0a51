/**
 * Reviewed entries to send (shared/sync/review.ts), checked as hostile input: the body of
 * `POST /app/sync/apply` and the plan file `outpost sync --apply PLAN.json` reads. Only what names
 * an entry is taken (its seq and the two hashes); a plan file's values are never sent.
 */
import { PLAN_FORMAT, type ApplyChoice } from './review';

/** The most entries one request or plan file names (an outbox of a whole site's work fits). */
export const MAX_APPLY_ENTRIES = 100_000;

/** The largest plan file read (bytes): a plan of 100,000 entries, each with a few fields and its reach, fits. */
export const MAX_PLAN_FILE_BYTES = 64 * 1024 * 1024;

const HEX64 = /^[0-9a-f]{64}$/;

export type Checked<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: string };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The reviewed entries of a list: each a positive seq (once) with its two SHA-256 hashes. */
export function checkChoices(value: unknown): Checked<ApplyChoice[]> {
  if (!Array.isArray(value)) return { ok: false, error: 'entries must be a list' };
  if (value.length > MAX_APPLY_ENTRIES) return { ok: false, error: `at most ${MAX_APPLY_ENTRIES} entries at once, not ${value.length}` };
  const seen = new Set<number>();
  const choices: ApplyChoice[] = [];
  for (const [i, item] of value.entries()) {
    if (!isRecord(item)) return { ok: false, error: `entry ${i + 1} is not an object` };
    const { seq, hash, central } = item;
    if (typeof seq !== 'number' || !Number.isSafeInteger(seq) || seq < 1) return { ok: false, error: `entry ${i + 1}: seq must be a positive whole number` };
    if (typeof hash !== 'string' || !HEX64.test(hash)) return { ok: false, error: `entry ${i + 1}: hash must be 64 lowercase hex digits` };
    if (typeof central !== 'string' || !HEX64.test(central)) return { ok: false, error: `entry ${i + 1}: central must be 64 lowercase hex digits` };
    if (seen.has(seq)) return { ok: false, error: `entry ${seq} is named twice` };
    seen.add(seq);
    choices.push({ seq, hash, central });
  }
  return { ok: true, value: choices };
}

/** What a plan file names: the workspace and remote it was made for, and its entries. */
export interface PlanFileChoices {
  readonly workspace: string;
  readonly remote: string;
  readonly entries: ApplyChoice[];
}

/** A plan file's text (`outpost sync --plan --json`): its format and version, then its entries. */
export function planFileChoices(text: string): Checked<PlanFileChoices> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { ok: false, error: 'it is not JSON' };
  }
  if (!isRecord(parsed) || parsed.format !== PLAN_FORMAT) return { ok: false, error: `it is not a sync plan (format "${PLAN_FORMAT}" expected)` };
  if (parsed.version !== 1) return { ok: false, error: 'it is a sync plan of another version (1 expected)' };
  const remote = isRecord(parsed.remote) ? parsed.remote.name : undefined;
  if (typeof parsed.workspace !== 'string' || typeof remote !== 'string') return { ok: false, error: 'it names no workspace or remote' };
  const entries = checkChoices(parsed.entries);
  if (!entries.ok) return entries;
  return { ok: true, value: { workspace: parsed.workspace, remote, entries: entries.value } };
}
