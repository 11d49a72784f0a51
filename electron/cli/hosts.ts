/**
 * `outpost hosts …`: the site survey from a terminal (issue 24). `hosts imports` lists the imports
 * and pulls (visits), `hosts diff` compares two points as the app's Changes view does
 * (`/app/hosts/changes`, the same function). A subcommand is one entry of HOSTS_SUBCOMMANDS: its
 * declaration and its run.
 */
import { ApiError } from '../../shared/api/errors';
import type { HostChange, HostComparison, Visit } from '../../shared/app/hostSurvey';
import { CHANGES_DEFAULT_LIMIT, CHANGES_MAX_LIMIT, compareFromQuery } from '../app/visitRoutes';
import type { Services } from '../server/store/services';
import { withFile } from '../server/store/storageErrors';
import { openWorkspace } from '../workspaces/openWorkspace';
import { instanceFor, locateWorkspace, parseCommand } from './context';
import { HOSTS_EXPORT, hostsExportCommand } from './hostExport';
import { CliError, joined, line, type Line, type Output } from './output';
import { COMMON_OPTIONS, UsageError, defineCommand, type CommandGroup, type CommandSpec } from './usage';

const JSON_OPTION = { json: { type: 'boolean', help: 'print JSON (the app\'s answer)' } } as const;

const HOSTS_DIFF = defineCommand({
  name: 'hosts diff',
  positionals: 0,
  summary: 'What changed between two imports or dates: hosts new and not seen since, services, roles, users, host names, TLS certificates.',
  options: {
    ...COMMON_OPTIONS,
    since: { type: 'string', value: 'IMPORT|DATE', help: 'from this import or pull (its number in "hosts imports"), a date (2026-11-20, 2026-11-20T14:00Z: the imports finished by then), or "pull"' },
    until: { type: 'string', value: 'IMPORT|DATE', help: 'up to this one (default: the last import or pull)' },
    limit: { type: 'string', value: 'N', help: `changes listed at most (the totals are whole; up to ${CHANGES_MAX_LIMIT})`, default: String(CHANGES_DEFAULT_LIMIT) },
    ...JSON_OPTION,
  },
  notes: ['A date is when Outpost learned of the hosts (the imports and pulls finished by then), not the times in the logs; a date without a time zone is UTC.'],
});

const HOSTS_IMPORTS = defineCommand({
  name: 'hosts imports',
  positionals: 0,
  summary: 'The imports of host identities and the pulls that changed hosts, newest first: when, who, files (SHA-256), hosts new and updated.',
  options: { ...COMMON_OPTIONS, ...JSON_OPTION },
});

type Run = (args: readonly string[], out: Output) => number | Promise<number>;

/** The subcommands, by the word after `hosts`. */
const HOSTS_SUBCOMMANDS: Readonly<Record<string, { readonly spec: CommandSpec; readonly run: Run }>> = {
  diff: { spec: HOSTS_DIFF, run: diffCommand },
  imports: { spec: HOSTS_IMPORTS, run: importsCommand },
  export: { spec: HOSTS_EXPORT, run: hostsExportCommand },
};

export const HOSTS: CommandGroup = {
  name: 'hosts',
  summary: 'The host identities of a workspace: its imports, what changed between two of them, and the list exported.',
  commands: Object.values(HOSTS_SUBCOMMANDS).map((entry) => entry.spec),
};

export function hostsCommand(args: readonly string[], out: Output): number | Promise<number> {
  const [sub, ...rest] = args;
  const entry = sub === undefined ? undefined : HOSTS_SUBCOMMANDS[sub];
  if (!entry) throw new UsageError(sub === undefined ? `hosts needs a subcommand: ${Object.keys(HOSTS_SUBCOMMANDS).join(', ')}` : `unknown hosts subcommand "${sub}"`, 'hosts');
  return entry.run(rest, out);
}

/** Open the workspace the options name, run `work` on it, close it; a disk's failure names the file. */
function withWorkspace<T>(values: { data?: string | undefined; workspace?: string | undefined }, work: (services: Services) => T): T {
  const location = locateWorkspace(values);
  const workspace = openWorkspace({ file: location.file, instance: instanceFor('127.0.0.1') });
  try {
    return work(workspace.services);
  } catch (error) {
    throw error instanceof ApiError || error instanceof CliError ? error : withFile(error, location.file);
  } finally {
    workspace.close();
  }
}

const KIND_LABEL: Readonly<Record<HostChange['kind'], string>> = {
  host_new: 'new host',
  host_not_seen: 'not seen since',
  service_added: 'service added',
  service_gone: 'service gone',
  role_new: 'new role',
  user_new: 'new user',
  hostname_new: 'new host name',
  tls_changed: 'certificate changed',
};

function diffCommand(args: readonly string[], out: Output): number {
  const { values } = parseCommand(args, HOSTS_DIFF);
  if (values.since === undefined) throw new UsageError('hosts diff needs --since IMPORT|DATE', HOSTS_DIFF.name);
  const comparison = withWorkspace(values, (services) => {
    try {
      return compareFromQuery(services, (name) => (name === 'since' ? values.since : name === 'until' ? values.until : name === 'limit' ? values.limit : undefined));
    } catch (error) {
      if (error instanceof ApiError && error.status === 400) throw new UsageError(refusal(error), HOSTS_DIFF.name);
      throw error;
    }
  });
  if (values.json) out.json(comparison);
  else printComparison(comparison, out);
  return 0;
}

/** The message of a 400 (`{param: [message]}`), with the option it names. */
function refusal(error: ApiError): string {
  const body = error.body as Record<string, unknown>;
  return Object.entries(body)
    .map(([param, messages]) => {
      const message = Array.isArray(messages) ? String(messages[0]) : String(messages);
      return message.startsWith(`${param}:`) ? `--${message}` : `--${param}: ${message}`;
    })
    .join('; ');
}

function printComparison(comparison: HostComparison, out: Output): void {
  out.line(line`changes from ${comparison.since.label} to ${comparison.until.label}`);
  const totals = Object.entries(comparison.totals).filter(([, count]) => count > 0);
  if (totals.length === 0) {
    out.line(line`no change`);
    return;
  }
  out.line(line`${totals.map(([kind, count]) => `${KIND_LABEL[kind as HostChange['kind']]}: ${count}`).join(', ')}`);
  for (const change of comparison.changes) {
    const value: Line | string = change.value === null ? '' : change.previous === null ? line`\t${change.value}` : line`\t${change.value} (was ${change.previous})`;
    out.line(line`${KIND_LABEL[change.kind].padEnd(20)}${change.ip}${value}`);
  }
  if (comparison.truncated) {
    const total = Object.values(comparison.totals).reduce((sum, count) => sum + count, 0);
    out.line(line`… ${total - comparison.changes.length} more (--limit N, or --json)`);
  }
}

function importsCommand(args: readonly string[], out: Output): number {
  const { values } = parseCommand(args, HOSTS_IMPORTS);
  const visits = withWorkspace(values, (services) => services.visits.page(0, Number.MAX_SAFE_INTEGER).visits);
  if (values.json) out.json(visits);
  else if (visits.length === 0) out.line(line`no import yet: outpost import-eve PATH, or outpost import-hosts FILE`);
  else for (const visit of visits) out.line(visitLine(visit));
  return 0;
}

const KIND_WORD: Readonly<Record<Visit['kind'], string>> = { eve: 'EVE log', host_file: 'host file', pull: 'pull' };

function visitLine(visit: Visit): Line {
  const files = visit.files.map((file) => line`\n    ${file.name} (${file.size} bytes from byte ${file.from}, ${file.lines} lines, sha256 ${file.sha256})`);
  return line`${visit.pk}\t${visit.at}\t${KIND_WORD[visit.kind]}\t${visit.user}\t${visit.hostsNew} new, ${visit.hostsUpdated} updated${joined(files, '')}`;
}
