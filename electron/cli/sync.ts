/**
 * `outpost sync`, `outpost conflicts`, `outpost resolve` and `outpost outbox`: the Sync screen's
 * buttons on the command line (app.md §5). `sync` exits 0 when everything went through, 2 when
 * conflicts or refused changes wait for the user, 1 on an error.
 */
import { crashFaults } from '../remote/faults';
import { syncAdvice, type EntryView, type SyncProgress, type SyncReport } from '../../shared/app/sync';
import { ResolveError, waitingLine } from '../remote/engine';
import { RemoteSession } from '../remote/session';
import { defaultDataDir } from '../workspaces/dataFolder';
import { WorkspaceHost } from '../workspaces/host';
import { instanceFor, parseCommand } from './context';
import { jsonWords, line, ownWords, type Line, type Output } from './output';
import { COMMON_OPTIONS, UsageError, defineCommand, type CommandGroup } from './usage';
import { applyCommand, planCommand, pushModeCommand, readPlanFile } from './syncPlan';

const JSON_OPTION = { json: { type: 'boolean', help: 'print JSON' } } as const;

export const SYNC = defineCommand({
  name: 'sync',
  positionals: 0,
  summary: 'Push the outbox to the central server, then pull from it.',
  options: {
    ...COMMON_OPTIONS,
    ...JSON_OPTION,
    'allow-mass-delete': { type: 'boolean', help: 'let a pull delete 90 % or more of what the workspace holds of a kind' },
    'page-size': { type: 'string', value: 'N', help: 'objects per page when pulling' },
    plan: { type: 'boolean', help: 'show what the push would do on the central server, field by field (GETs only; nothing is sent)' },
    out: { type: 'string', value: 'FILE', help: 'with --plan: save the plan (JSON) for --apply' },
    apply: { type: 'string', value: 'FILE', help: 'send exactly the entries of a saved plan, each only if unchanged here and there' },
    'push-mode': { type: 'string', value: 'MODE', help: 'automatic (the app and outpost serve send changes soon after each) or review (they only pull)' },
  },
  notes: [
    'Exit status: 0 all pushed and pulled; 2 conflicts or refused changes wait, or (--apply) some entries of the plan were not sent; 1 error or a refused plan file.',
    'outpost sync sends every waiting change whatever the push mode: it is the explicit command.',
    'A sync another Outpost process runs on the workspace (the app, outpost serve) is waited for, up to 30 s.',
  ],
});

export const CONFLICTS = defineCommand({
  name: 'conflicts',
  positionals: 0,
  summary: 'The fields changed both here and on the central server.',
  options: { ...COMMON_OPTIONS, ...JSON_OPTION },
});

export const RESOLVE = defineCommand({
  name: 'resolve',
  args: 'PK FIELD',
  positionals: 2,
  summary: "Keep the local value of a conflicting field, or take the central server's.",
  options: {
    ...COMMON_OPTIONS,
    mine: { type: 'boolean', help: 'keep the local value; the next sync pushes it' },
    theirs: { type: 'boolean', help: "take the central server's value" },
    resource: { type: 'string', value: 'NAME', help: 'the resource (vendor_probe, …) when PK is in conflict on several' },
  },
});

const OUTBOX_LIST = defineCommand({
  name: 'outbox',
  positionals: 0,
  summary: 'The local changes not yet pushed; refused ones with their message.',
  options: { ...COMMON_OPTIONS, ...JSON_OPTION },
});
const OUTBOX_RETRY = defineCommand({ name: 'outbox retry', args: 'ENTRY', positionals: 1, summary: 'Send a refused change again at the next sync.', options: COMMON_OPTIONS });
const OUTBOX_DISCARD = defineCommand({
  name: 'outbox discard',
  args: 'ENTRY',
  positionals: 1,
  summary: "Give a refused change up (the central server's state returns).",
  options: COMMON_OPTIONS,
});

export const OUTBOX: CommandGroup = {
  name: 'outbox',
  summary: 'The local changes waiting to be pushed; refused ones retried or given up.',
  commands: [OUTBOX_LIST, OUTBOX_RETRY, OUTBOX_DISCARD],
};

interface Opened {
  readonly host: WorkspaceHost;
  readonly session: RemoteSession;
}

async function openBound(
  values: { data?: string | undefined; workspace?: string | undefined; 'page-size'?: string | undefined },
  out: Output,
  fn: (opened: Opened) => Promise<number> | number,
): Promise<number> {
  let pageSize: number | undefined;
  if (values['page-size'] !== undefined) {
    pageSize = Number(values['page-size']);
    if (!/^\d+$/.test(values['page-size']) || pageSize < 1) throw new UsageError(`--page-size must be a positive number, not "${values['page-size']}"`);
  }
  const host = new WorkspaceHost({
    dataDir: values.data ?? defaultDataDir(),
    instance: instanceFor('127.0.0.1'),
    ...(values.workspace === undefined ? {} : { workspace: values.workspace }),
    // The crash-safety tests kill this process at a sync step (remote/faults.ts).
    sync: {
      auto: false,
      label: 'sync',
      faults: crashFaults(process.env.OUTPOST_SYNC_CRASH),
      log: (message) => out.stderr(line`outpost: ${message}`),
      ...(pageSize === undefined ? {} : { pageSize }),
    },
  });
  try {
    const session = host.session();
    if (session === undefined) {
      throw new Error(`workspace "${host.name}" is standalone: it has no central server. Create a bound one: outpost workspace create NAME --remote REMOTE`);
    }
    if (!(session instanceof RemoteSession)) throw new Error(session.problem);
    return await fn({ host, session });
  } catch (error) {
    if (error instanceof ResolveError) throw new Error(error.message);
    throw error;
  } finally {
    await host.close();
  }
}

function bar(progress: SyncProgress): Line {
  const width = 24;
  const share = progress.total > 0 ? Math.min(1, progress.done / progress.total) : 0;
  const filled = Math.round(share * width);
  const what = progress.phase === 'push' ? 'pushing changes' : `pulling ${progress.endpoint ?? ''}`;
  return line`[${'#'.repeat(filled)}${' '.repeat(width - filled)}] ${what} ${progress.done}/${progress.total}`;
}

function summary(report: SyncReport): Line[] {
  const lines: Line[] = [];
  lines.push(line`pushed ${report.pushed} change${report.pushed === 1 ? '' : 's'}, pulled ${report.pulled} change${report.pulled === 1 ? '' : 's'}`);
  if (report.conflicts > 0) lines.push(line`${report.conflicts} conflict${report.conflicts === 1 ? '' : 's'} wait: outpost conflicts, then outpost resolve PK FIELD --mine|--theirs`);
  if (report.parked > 0) lines.push(line`${report.parked} change${report.parked === 1 ? ' was' : 's were'} refused by the central server: outpost outbox (then retry or discard)`);
  if (report.waiting > 0) lines.push(line`${report.waiting} change${report.waiting === 1 ? ' waits' : 's wait'} behind them`);
  return lines;
}

/** OUTPOST_SYNC_WAIT_MS, for the tests only: a shorter wait for another process's sync than LEASE_WAIT_MS. */
function leaseWaitFromEnv(value: string | undefined): number | undefined {
  return value !== undefined && /^\d+$/.test(value) ? Number(value) : undefined;
}

export async function syncCommand(args: readonly string[], out: Output): Promise<number> {
  const { values } = parseCommand(args, SYNC);
  const modes = [values.plan === true, values.apply !== undefined, values['push-mode'] !== undefined].filter(Boolean).length;
  if (modes > 1) throw new UsageError('sync takes one of --plan, --apply FILE and --push-mode MODE', SYNC.name);
  if (values.out !== undefined && values.plan !== true) throw new UsageError('--out saves a plan: use it with --plan', SYNC.name);
  // Checked before the workspace is opened: a refused file sends nothing and touches nothing.
  if (values.apply !== undefined) readPlanFile(values.apply);
  return openBound(values, out, async ({ host, session }) => {
    if (values.plan) return planCommand(host, session, values, out);
    if (values.apply !== undefined) return applyCommand(host, session, values.apply, values, out);
    if (values['push-mode'] !== undefined) return pushModeCommand(session, values['push-mode'], out);
    const shown = values.json ? undefined : out.progress;
    let last = 0;
    const stop = shown
      ? session.engine.onChange(() => {
          const progress = session.engine.status().progress;
          const now = Date.now();
          if (!progress || now - last < 100) return;
          last = now;
          shown.show(bar(progress));
        })
      : () => undefined;
    const waitMs = leaseWaitFromEnv(process.env.OUTPOST_SYNC_WAIT_MS);
    const report = await session.syncNow({
      allowMassDelete: values['allow-mass-delete'] ?? false,
      // Another process's sync (the app, `outpost serve`, another `outpost sync`) is waited for.
      waitForLease: { ...(waitMs === undefined ? {} : { ms: waitMs }), onWaiting: (holder, ms) => out.stderr(ownWords(`outpost: ${waitingLine(holder, ms)}`)) },
    });
    stop();
    shown?.clear();
    // The same state as the app's /app/status and /app/sync (shared/app/sync.ts), after this sync.
    if (values.json) out.json({ workspace: host.name, remote: session.config.name, ...report, status: session.status() });
    else {
      if (report.outcome === 'error') {
        out.stderr(line`outpost: sync of "${host.name}" stopped: ${report.error?.message ?? 'unknown error'}`);
        const advice = syncAdvice(report.error?.kind ?? null);
        if (advice) out.stderr(line`outpost: ${advice}`);
      }
      for (const shownLine of summary(report)) out.line(shownLine);
    }
    return report.outcome === 'error' ? 1 : report.outcome === 'conflicts' ? 2 : 0;
  });
}

function describe(entry: EntryView): Line {
  return line`${entry.resource.replace(/_/g, ' ')} "${entry.label}" (pk ${entry.pk}), ${entry.op}, entry ${entry.seq}`;
}

export async function conflictsCommand(args: readonly string[], out: Output): Promise<number> {
  const { values } = parseCommand(args, CONFLICTS);
  return openBound(values, out, ({ session }) => {
    const conflicts = session.engine.conflicts();
    if (values.json) {
      out.json(conflicts);
      return 0;
    }
    if (conflicts.length === 0) {
      out.line(line`no conflicts`);
      return 0;
    }
    for (const entry of conflicts) {
      out.line(describe(entry));
      if (entry.message) out.line(line`  ${entry.message}`);
      for (const c of entry.conflicts) {
        out.line(line`  ${c.field}: base ${jsonWords(c.base)}, mine ${entry.op === 'delete' ? '(deleted)' : jsonWords(c.mine)}, theirs ${jsonWords(c.theirs)}`);
      }
    }
    out.line(line`resolve each field: outpost resolve PK FIELD --mine | --theirs`);
    return 0;
  });
}

export async function resolveCommand(args: readonly string[], out: Output): Promise<number> {
  const { values, positionals } = parseCommand(args, RESOLVE);
  if (Boolean(values.mine) === Boolean(values.theirs)) throw new UsageError('resolve takes exactly one of --mine (keep the local value) and --theirs (take the central server\'s)', RESOLVE.name);
  const [pkText, field] = positionals as [string, string];
  if (!/^-?\d+$/.test(pkText)) throw new UsageError(`PK must be an object's pk (a number), not "${pkText}"`);
  const pk = Number(pkText);
  return openBound(values, out, ({ session }) => {
    const candidates = session.engine
      .conflicts()
      .filter((e) => e.pk === pk && (values.resource === undefined || e.resource === values.resource) && e.conflicts.some((c) => c.field === field));
    if (candidates.length === 0) {
      const all = session.engine.conflicts().filter((e) => e.pk === pk);
      throw new Error(
        all.length === 0
          ? `no conflict on an object with pk ${pk} (outpost conflicts lists them)`
          : `field "${field}" is not in conflict on pk ${pk}; conflicting: ${all.flatMap((e) => e.conflicts.map((c) => c.field)).join(', ')}`,
      );
    }
    const resources = new Set(candidates.map((e) => e.resource));
    if (resources.size > 1) throw new UsageError(`pk ${pk} has conflicts on ${[...resources].join(' and ')}: add --resource NAME`);
    const choice = values.mine ? 'mine' : 'theirs';
    for (const entry of candidates) session.engine.resolve(entry.seq, field, choice);
    const left = session.engine.conflicts().filter((e) => e.pk === pk).flatMap((e) => e.conflicts.map((c) => c.field));
    out.line(line`${field} of ${candidates[0]!.resource.replace(/_/g, ' ')} ${pk}: ${choice === 'mine' ? 'the local value will be pushed' : "the central server's value is kept"}`);
    out.line(left.length > 0 ? line`still in conflict on this object: ${left.join(', ')}` : line`run outpost sync to push the result`);
    return 0;
  });
}

export async function outboxCommand(args: readonly string[], out: Output): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === 'retry' || sub === 'discard') {
    const { values, positionals } = parseCommand(rest, sub === 'retry' ? OUTBOX_RETRY : OUTBOX_DISCARD);
    if (!/^\d+$/.test(positionals[0]!)) throw new UsageError(`ENTRY must be an outbox entry number, not "${positionals[0]}"`);
    const seq = Number(positionals[0]);
    return openBound(values, out, ({ session }) => {
      if (sub === 'retry') session.engine.retry(seq);
      else session.engine.discard(seq);
      out.line(sub === 'retry' ? line`entry ${seq} will be sent again at the next sync` : line`entry ${seq} discarded; the object shows the central server's state`);
      return 0;
    });
  }
  const { values } = parseCommand(args, OUTBOX_LIST);
  return openBound(values, out, ({ session }) => {
    const entries = session.engine.entries();
    if (values.json) out.json(entries);
    else if (entries.length === 0) out.line(line`the outbox is empty: every local change is on the central server`);
    else for (const e of entries) out.line(line`${e.seq}\t${e.state}\t${describe(e)}${e.message ? line`\n\t${e.message}` : ''}`);
    return 0;
  });
}
