/**
 * `outpost workspace connect NAME --remote R`: connect a standalone workspace to a central server
 * (shared/sync/connect.ts, docs/sync.md "Connecting a standalone workspace"). Without --yes the
 * plan is printed and, on a terminal, confirmed; otherwise nothing is sent and nothing changes.
 */
import readline from 'node:readline';
import { parseJsonBytes } from '../../shared/api/pythonJson';
import { CONNECTED_RESOURCES, type ConnectItem, type ConnectPlan, type ConnectRequest, type ConnectResult } from '../../shared/sync/connect';
import { checkDecisions, connectActions, LISTED_DIFFERENCES } from '../../shared/sync/connectMatch';
import { NEW_WORKSPACE_MODE_DEFAULT, PUSH_MODES, pushModeOf } from '../../shared/sync/review';
import type { JsonValue } from '../../shared/resources';
import { RemoteError } from '../remote/client';
import { ConnectRefused } from '../remote/connect';
import { connectIn, connectPlanIn } from '../workspaces/connect';
import { WorkspaceError, WorkspaceHost } from '../workspaces/host';
import { instanceFor, parseCommand, startedDataDir } from './context';
import { CliError, joined, line, type Line, type Output } from './output';
import { readRegularFile } from './regularFile';
import { COMMON_OPTIONS, UsageError, defineCommand } from './usage';

export const WORKSPACE_CONNECT = defineCommand({
  name: 'workspace connect',
  args: 'NAME',
  positionals: 1,
  summary: 'Connect a standalone workspace to a central server: objects matched by name, yours sent, the rest pulled.',
  options: {
    data: COMMON_OPTIONS.data,
    remote: { type: 'string', value: 'NAME', help: 'the central server (outpost remote add)' },
    decisions: { type: 'string', value: 'FILE', help: 'decisions for objects of the same name that differ, as JSON: {"vendor_probe:12": {"use": "central", "mine": "queue"}, …}' },
    push: { type: 'string', value: 'MODE', help: 'how changes leave afterwards: review (the default) or automatic' },
    yes: { type: 'boolean', help: 'connect without asking' },
    json: { type: 'boolean', help: 'print JSON (the plan, or with --yes what connecting did)' },
  },
  notes: [
    'Without --yes the plan is printed and, on a terminal, confirmed ("Connect? [y/N]"); otherwise nothing is sent and nothing changes.',
    'A decision is keyed "resource:pk" (the local pk) or "resource:name"; each is {"use": "central", "mine": "queue"|"drop"}, {"use": "rename", "name": NEW} or {"use": "leave_out"}. A difference without one takes the central object and queues yours.',
    'The workspace is copied first to the data folder\'s backups/ folder.',
  ],
});

/** A decisions file is read up to this size: far above a plan's worth of decisions. */
const MAX_DECISIONS_BYTES = 16 * 1024 * 1024;
/** Items of each kind listed before "… and N more". */
const LISTED_ITEMS = 200;
/** A value shown in a difference, at most. */
const SHOWN_VALUE = 80;

function decisionsFrom(file: string | undefined): unknown {
  if (file === undefined) return {};
  let bytes: Buffer;
  try {
    bytes = readRegularFile(file, MAX_DECISIONS_BYTES);
  } catch (error) {
    throw new CliError(line`cannot read ${file}: ${(error as Error).message}`);
  }
  const parsed = parseJsonBytes(bytes);
  if (!parsed.ok) throw new CliError(line`${file} is not valid JSON: ${parsed.reason}`);
  return parsed.value;
}

function shortValue(value: JsonValue): Line {
  const text = JSON.stringify(value) ?? 'null';
  return text.length > SHOWN_VALUE ? line`${text.slice(0, SHOWN_VALUE)}…` : line`${text}`;
}

function itemLines(item: ConnectItem, decided: Line): Line[] {
  const out = [line`  ${item.resource} "${item.name}" (local ${item.pk}${item.centralPk === null ? '' : line`, central ${item.centralPk}`}): ${decided}`];
  for (const difference of item.differences.slice(0, LISTED_DIFFERENCES)) out.push(line`      ${difference.field}: mine ${shortValue(difference.mine)}, central ${shortValue(difference.central)}`);
  if (item.differences.length > LISTED_DIFFERENCES) out.push(line`      … and ${item.differences.length - LISTED_DIFFERENCES} more fields`);
  return out;
}

/** The plan as the engineer reads it before saying yes: what is sent, what becomes central, what differs. */
function planLines(plan: ConnectPlan, decisions: unknown): Line[] {
  const checked = checkDecisions(decisions, plan.items, new Map());
  const actions = connectActions(plan.items, checked.ok ? checked.decisions : new Map());
  const out: Line[] = [line`workspace "${plan.workspace}" → remote "${plan.remote.name}" (${plan.remote.url})`];
  const groups: [string, (typeof actions)[number][]][] = [
    ['sent as new objects', actions.filter((a) => a.kind === 'create')],
    ['the same on the central server (take its pk, nothing sent)', actions.filter((a) => a.kind === 'match' && a.mine === 'none')],
    ['of the same name but different', actions.filter((a) => a.item.match === 'collision')],
    ['left out (kept only in the copy made before connecting)', actions.filter((a) => a.kind === 'leave_out' && a.item.match !== 'collision')],
  ];
  for (const [title, listed] of groups) {
    out.push(line`${listed.length} ${title}${listed.length > 0 ? ':' : ''}`);
    for (const action of listed.slice(0, LISTED_ITEMS)) {
      const decided =
        action.kind === 'create'
          ? action.name === action.item.name
            ? line`create`
            : line`create as "${action.name}"`
          : action.kind === 'leave_out'
            ? line`leave out`
            : action.mine === 'none'
              ? line`same`
              : action.mine === 'queue'
                ? line`central, mine queued as a change`
                : line`central, mine dropped`;
      out.push(...itemLines(action.item, decided));
    }
    if (listed.length > LISTED_ITEMS) out.push(line`  … and ${listed.length - LISTED_ITEMS} more`);
  }
  out.push(line`pulled after: ${joined(CONNECTED_RESOURCES.map((r) => line`${plan.centralCounts[r]} ${r}`), ', ')} (from the central server)`);
  out.push(line`kept here: ${plan.hosts} host identities as local evidence, ${plan.localHistory} local history entries, ${plan.localUsers} local users`);
  if (!checked.ok) for (const [key, messages] of Object.entries(checked.errors)) out.push(line`decision ${key}: ${messages.join('; ')}`);
  for (const problem of plan.problems) out.push(line`cannot connect: ${problem}`);
  return out;
}

function resultLines(result: ConnectResult): Line[] {
  const out = [
    line`workspace "${result.workspace}" is now bound to remote "${result.remote}"`,
    line`${result.matched} matched to central objects, ${result.queued} changes queued, ${result.leftOut} left out`,
    line`the standalone workspace was copied to ${result.backup}`,
  ];
  out.push(result.pullError === null ? line`first pull: ${result.pulled ?? 0} objects` : line`the first pull failed (the workspace stays bound; run outpost sync): ${result.pullError}`);
  return out;
}

async function confirmed(out: Output): Promise<boolean> {
  out.line(line`Connect? [y/N]`);
  const reader = readline.createInterface({ input: process.stdin });
  try {
    const answer = await new Promise<string>((resolve) => {
      reader.once('line', resolve);
      reader.once('close', () => resolve(''));
    });
    return /^y(es)?$/i.test(answer.trim());
  } finally {
    reader.close();
  }
}

function failure(error: unknown): never {
  if (error instanceof ConnectRefused) {
    const details = error.errors?.decisions;
    const lines = [line`${error.message}`];
    if (details && typeof details === 'object' && !Array.isArray(details)) for (const [key, messages] of Object.entries(details)) lines.push(line`  decision ${key}: ${Array.isArray(messages) ? messages.join('; ') : ''}`);
    throw new CliError(joined(lines, '\n'));
  }
  if (error instanceof WorkspaceError) throw new Error(error.message);
  if (error instanceof RemoteError) throw new Error(`the central server could not be read: ${error.message}`);
  throw error;
}

export async function workspaceConnect(rest: readonly string[], out: Output): Promise<number> {
  const { values, positionals } = parseCommand(rest, WORKSPACE_CONNECT);
  const name = positionals[0]!;
  if (values.remote === undefined) throw new UsageError('workspace connect needs --remote NAME (outpost remote list)', WORKSPACE_CONNECT.name);
  const pushMode = values.push === undefined ? NEW_WORKSPACE_MODE_DEFAULT : pushModeOf(values.push);
  if (pushMode === null) throw new UsageError(`--push is one of ${PUSH_MODES.join(', ')}`, WORKSPACE_CONNECT.name);
  const decisions = decisionsFrom(values.decisions);
  const dataDir = startedDataDir(values.data);
  let host: WorkspaceHost;
  try {
    host = new WorkspaceHost({ dataDir, instance: instanceFor('127.0.0.1'), workspace: name });
  } catch (error) {
    throw new Error(error instanceof Error ? error.message : String(error));
  }
  try {
    const plan = await connectPlanIn(host, name, values.remote).catch(failure);
    const ask = !values.yes && !values.json && process.stdin.isTTY === true;
    if (!values.yes) {
      if (values.json) out.json(plan);
      else for (const text of planLines(plan, decisions)) out.line(text);
      if (plan.problems.length > 0) return 1;
      if (!ask || !(await confirmed(out))) {
        if (!values.json) out.line(line`nothing was sent and nothing changed; to connect: outpost workspace connect ${name} --remote ${values.remote} --yes${values.decisions === undefined ? '' : line` --decisions ${values.decisions}`}`);
        return 0;
      }
    } else if (plan.problems.length > 0) {
      throw new CliError(joined(plan.problems.map((problem) => line`cannot connect: ${problem}`), '\n'));
    }
    // The decisions as read: the connect checks them against the plan it makes again (shared/sync/connectMatch.ts).
    const result = await connectIn(host, name, { remote: values.remote, central: plan.central, decisions: decisions as ConnectRequest['decisions'], pushMode }).catch(failure);
    if (values.json) out.json(result);
    else for (const text of resultLines(result)) out.line(text);
    return 0;
  } finally {
    await host.close();
  }
}
