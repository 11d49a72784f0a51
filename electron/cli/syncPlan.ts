/**
 * `outpost sync --plan`, `--apply PLAN.json` and `--push-mode` (docs/sync.md "Review before
 * push"): the review plan printed or saved, a saved plan's entries sent, and how the workspace's
 * changes leave. A plan file is read as untrusted input (shared/sync/applyRequest.ts).
 */
import { MAX_PLAN_FILE_BYTES, planFileChoices, type PlanFileChoices } from '../../shared/sync/applyRequest';
import { pushModeOf, type PlanEntry, type PlanField, type PlanReach, type ReviewPlan, type StoppedEntry } from '../../shared/sync/review';
import { makePlan } from '../remote/reviewPlan';
import type { RemoteSession } from '../remote/session';
import type { WorkspaceHost } from '../workspaces/host';
import { writeChunks } from './hostExport';
import { jsonWords, line, ownWords, type Line, type Output } from './output';
import { FileRefused, readRegularFile } from './regularFile';
import { UsageError } from './usage';

/** The most fields and reached names printed per entry: the whole plan is in `--json`. */
const FIELDS_SHOWN = 20;
const NAMES_SHOWN = 5;
const VALUE_CHARS = 80;

/** A value as compact JSON (its control characters already escaped by jsonWords), cut to a line's share. */
function shortJson(value: unknown): Line {
  const text = jsonWords(value).text;
  return text.length > VALUE_CHARS ? ownWords(`${text.slice(0, VALUE_CHARS - 1)}…`) : ownWords(text);
}

function fieldLine(entry: PlanEntry, field: PlanField): Line {
  const mark = field.outcome === 'conflict' ? '  CONFLICT' : field.outcome === 'same' ? '  (already so)' : '';
  if (entry.op === 'create') return line`    ${field.field}: ${shortJson(field.after)}`;
  if (entry.op === 'delete') return line`    ${field.field}: ${shortJson(field.now)}${field.outcome === 'conflict' ? line`  CONFLICT (was ${shortJson(field.base)} when deleted here)` : ''}`;
  return line`    ${field.field}: ${shortJson(field.now)} → ${shortJson(field.after)}${mark}`;
}

function count(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

function reachLine(reach: PlanReach): Line {
  const parts = [reach.probes > 0 ? count(reach.probes, 'probe', 'probes') : '', reach.templates > 0 ? count(reach.templates, 'template', 'templates') : ''].filter(Boolean);
  if (parts.length === 0) return line`    ${reach.field} reaches no other object there`;
  const names = reach.objects.slice(0, NAMES_SHOWN).map((o) => o.name);
  const more = reach.probes + reach.templates > names.length ? ', …' : '';
  return line`    this changes ${reach.field} on ${parts.join(' and ')}: ${names.join(', ')}${more}`;
}

/** The plan as a person reads it: per entry its label, op and outcome, each field now → after, what it reaches. */
export function planLines(plan: ReviewPlan): Line[] {
  const lines: Line[] = [line`plan of "${plan.workspace}" against "${plan.remote.name}" (${plan.remote.url}), read ${plan.made} with ${plan.requests} GET${plan.requests === 1 ? '' : 's'}`];
  if (plan.entries.length === 0) lines.push(line`nothing waits: every local change is on the central server`);
  for (const entry of plan.entries) {
    lines.push(line`${entry.seq}  ${entry.op} ${entry.resource.replace(/_/g, ' ')} "${entry.label}" (pk ${entry.pk}): ${entry.outcome.replace('_', ' ')}${entry.needs.length > 0 ? ` (after ${entry.needs.join(', ')})` : ''}`);
    if (entry.message) lines.push(line`    ${entry.message}`);
    for (const field of entry.fields.slice(0, FIELDS_SHOWN)) lines.push(fieldLine(entry, field));
    if (entry.fields.length > FIELDS_SHOWN) lines.push(line`    … and ${entry.fields.length - FIELDS_SHOWN} more fields (--json shows them all)`);
    for (const reach of entry.reaches) lines.push(reachLine(reach));
  }
  return lines;
}

export async function planCommand(host: WorkspaceHost, session: RemoteSession, values: { json?: boolean | undefined; out?: string | undefined }, out: Output): Promise<number> {
  const plan = await makePlan(host.current().services, session.client, { workspace: host.name, remote: { name: session.config.name, url: session.config.url } });
  if (values.out !== undefined) writeChunks(values.out, [Buffer.from(`${JSON.stringify(plan, null, 2)}\n`, 'utf8')]);
  if (values.json) out.json(plan);
  else {
    for (const shown of planLines(plan)) out.line(shown);
    out.line(values.out === undefined ? line`nothing was sent; send it all with outpost sync, or save it (--out PLAN.json) and send it with outpost sync --apply PLAN.json` : line`saved to ${values.out}; send exactly these entries with outpost sync --apply ${values.out}`);
  }
  return 0;
}

/** A plan file's entries, or a UsageError naming what is wrong with it (nothing is sent then). */
export function readPlanFile(file: string): PlanFileChoices {
  let text: string;
  try {
    text = readRegularFile(file, MAX_PLAN_FILE_BYTES).toString('utf8');
  } catch (error) {
    if (error instanceof FileRefused) throw new UsageError(`the plan file ${file} is refused: ${error.message}`);
    throw new UsageError(`cannot read the plan file ${file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
  const checked = planFileChoices(text);
  if (!checked.ok) throw new UsageError(`the plan file ${file} is refused: ${checked.error}`);
  return checked.value;
}

function stoppedLine(stop: StoppedEntry): Line {
  return line`  ${stop.seq}: ${stop.reason.replace(/_/g, ' ')}: ${stop.message}`;
}

export async function applyCommand(host: WorkspaceHost, session: RemoteSession, file: string, values: { json?: boolean | undefined }, out: Output): Promise<number> {
  const value = readPlanFile(file);
  if (value.workspace !== host.name || value.remote !== session.config.name) {
    throw new UsageError(`the plan file ${file} is of workspace "${value.workspace}" and remote "${value.remote}", not "${host.name}" and "${session.config.name}"`);
  }
  const { report, applied, stopped } = await session.engine.apply(value.entries, {});
  if (values.json) out.json({ workspace: host.name, remote: session.config.name, applied, stopped, ...report, status: session.status() });
  else {
    out.line(line`sent ${count(applied.length, 'entry', 'entries')} of ${value.entries.length}${applied.length > 0 ? `: ${applied.join(', ')}` : ''}`);
    if (stopped.length > 0) {
      out.line(line`${count(stopped.length, 'entry was', 'entries were')} not sent (they wait; review them again: outpost sync --plan):`);
      for (const stop of stopped) out.line(stoppedLine(stop));
    }
    if (report.outcome === 'error') out.stderr(line`outpost: sync of "${host.name}" stopped: ${report.error?.message ?? 'unknown error'}`);
  }
  return report.outcome === 'error' ? 1 : stopped.length > 0 || report.outcome === 'conflicts' ? 2 : 0;
}

export function pushModeCommand(session: RemoteSession, value: string, out: Output): number {
  const mode = pushModeOf(value);
  if (mode === null) throw new UsageError(`--push-mode is automatic or review, not "${value}"`);
  session.setMode(mode);
  out.line(
    mode === 'review'
      ? line`changes of this workspace are sent after review: outpost sync --plan shows them, outpost sync sends them all`
      : line`changes of this workspace are sent automatically (by the app and outpost serve)`,
  );
  return 0;
}
