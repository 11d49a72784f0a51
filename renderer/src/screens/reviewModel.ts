/**
 * The Review (issue 25 §2): what the Sync screen shows of a push plan (shared/sync/review.ts) and
 * the choices made on it. Pure: tested directly with hand-made plans (test/renderer/reviewModel.test.ts).
 */
import { syncAdvice, type SyncErrorKind } from '../../../shared/app/sync';
import { withDependencies, type ApplyChoice, type ApplyResult, type PlanEntry, type PlanOutcome, type PlanReach, type ReviewPlan } from '../../../shared/sync/review';
import { countText } from '../components/countText';
import { fieldLabel, plural, resourceText } from './syncFormat';
import { counted } from './templateUsage';

/** Objects of a reach named before "and N more". */
export const REACH_NAMED = 8;

export const OUTCOME_TEXT: Readonly<Record<PlanOutcome, string>> = {
  send: 'Will be sent',
  nothing: 'Already there: nothing to send',
  conflict: 'Conflict: changed there too',
  gone: 'Deleted on the central server',
  name_taken: 'Name taken on the central server',
  held: 'Held: waits for another change',
  parked: 'Refused by the central server: retry or discard it on the Sync screen',
};

const SUMMARY_TEXT: Readonly<Record<PlanOutcome, string>> = {
  send: 'to send',
  nothing: 'already there',
  conflict: 'in conflict',
  gone: 'deleted there',
  name_taken: 'with a name taken there',
  held: 'held',
  parked: 'refused',
};

/** Entries the engineer may choose: those the push would send, or that have nothing left to send. */
export function choosable(entry: Pick<PlanEntry, 'outcome'>): boolean {
  return entry.outcome === 'send' || entry.outcome === 'nothing';
}

/** "changes Capture threads on 37 probes and 2 templates: a, b, … and 29 more" */
export function reachText(resource: string, reach: PlanReach): string {
  const kinds = [...(reach.probes > 0 ? [counted(reach.probes, 'probe', 'probes')] : []), ...(reach.templates > 0 ? [counted(reach.templates, 'template', 'templates')] : [])];
  const what = `changes ${fieldLabel(resource, reach.field)} on ${kinds.join(' and ') || 'nothing else'}`;
  const named = reach.objects.slice(0, REACH_NAMED).map((o) => o.name);
  const rest = reach.probes + reach.templates - named.length;
  if (named.length === 0) return what;
  return `${what}: ${named.join(', ')}${rest > 0 ? ` and ${countText(rest)} more` : ''}`;
}

/** The entry's title: "Change vendor probe edge-1". */
export function entryTitle(entry: Pick<PlanEntry, 'op' | 'resource' | 'label'>): string {
  const op = entry.op === 'create' ? 'Create' : entry.op === 'delete' ? 'Delete' : 'Change';
  return `${op} ${resourceText(entry.resource).toLowerCase()} ${entry.label}`;
}

export interface Choice {
  readonly chosen: ReadonlySet<number>;
  /** What the last change of the choice did beyond the entry itself, in words, or null. */
  readonly note: string | null;
}

/**
 * Choosing an entry chooses what it needs too (withDependencies); unchoosing one unchooses the
 * entries that need it. Either says which others followed.
 */
export function toggle(plan: Pick<ReviewPlan, 'entries'>, current: ReadonlySet<number>, seq: number, on: boolean): Choice {
  const label = (s: number) => plan.entries.find((e) => e.seq === s)?.label ?? String(s);
  if (on) {
    const next = new Set(withDependencies(plan.entries, [...current, seq]));
    const added = [...next].filter((s) => s !== seq && !current.has(s));
    return { chosen: next, note: added.length > 0 ? `Also chosen, as ${label(seq)} needs them: ${added.map(label).join(', ')}.` : null };
  }
  const next = new Set(current);
  next.delete(seq);
  // Everything whose dependencies include seq goes too.
  const removed = [...next].filter((s) => withDependencies(plan.entries, [s]).includes(seq));
  for (const s of removed) next.delete(s);
  return { chosen: next, note: removed.length > 0 ? `Also unchosen, as they need ${label(seq)}: ${removed.map(label).join(', ')}.` : null };
}

/** What the apply request names of the chosen entries (every one's dependencies included), in outbox order. */
export function applyChoices(plan: Pick<ReviewPlan, 'entries'>, chosen: Iterable<number>): ApplyChoice[] {
  const seqs = new Set(withDependencies(plan.entries, chosen));
  return plan.entries.filter((e) => seqs.has(e.seq)).map((e) => ({ seq: e.seq, hash: e.hash, central: e.central }));
}

/** Every entry Send all sends: the choosable ones. */
export function allChoosable(plan: Pick<ReviewPlan, 'entries'>): number[] {
  return plan.entries.filter(choosable).map((e) => e.seq);
}

export interface ApplyOutcome {
  readonly sent: string;
  readonly stopped: readonly { readonly label: string; readonly message: string }[];
}

/** "Sent 3 changes." and each stopped entry with its message ("review again"). */
export function applyOutcome(plan: Pick<ReviewPlan, 'entries'>, result: ApplyResult): ApplyOutcome {
  const label = (seq: number) => plan.entries.find((e) => e.seq === seq)?.label ?? `change ${seq}`;
  const sent = result.applied.length === 0 ? 'Nothing was sent.' : `Sent ${plural(result.applied.length, 'change', 'changes')}.`;
  const stopped = result.stopped.map((s) => ({ label: label(s.seq), message: s.message }));
  return { sent: stopped.length > 0 ? `${sent} ${plural(stopped.length, 'change', 'changes')} stopped: review again.` : sent, stopped };
}

/** The plan's summary line: "5 changes to review: 3 will be sent, 1 conflict, 1 held." */
export function planSummary(plan: Pick<ReviewPlan, 'entries'>): string {
  if (plan.entries.length === 0) return 'Nothing waits for review: every change made here has been sent.';
  const counts = new Map<PlanOutcome, number>();
  for (const e of plan.entries) counts.set(e.outcome, (counts.get(e.outcome) ?? 0) + 1);
  const parts = (Object.keys(SUMMARY_TEXT) as PlanOutcome[]).filter((o) => counts.has(o)).map((o) => `${counts.get(o)} ${SUMMARY_TEXT[o]}`);
  return `${plural(plan.entries.length, 'change', 'changes')} to review: ${parts.join(', ')}.`;
}

/** What to try when the plan could not be made: the sync's own advice for the kind of failure the answer names, else by status. */
export function planFailureAdvice(status: number, body: unknown): string {
  const kind = typeof body === 'object' && body !== null && 'kind' in body ? (body as { kind: unknown }).kind : undefined;
  const known = typeof kind === 'string' ? syncAdvice(kind as SyncErrorKind) : null;
  if (known) return known;
  if (status === 0 || status === 502 || status === 503 || status === 504) return syncAdvice('network')!;
  if (status === 409) return 'Another sync of this workspace is running: review again once it has ended.';
  return 'Review again; if it happens again, report it with the message above.';
}
