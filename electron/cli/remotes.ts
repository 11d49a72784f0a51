/**
 * `outpost remote …` and `outpost workspace …`: the central servers a data folder knows (their
 * tokens in 0600 files) and the workspaces bound to them (app.md §2).
 */
import { REMOTE_TEST_LABELS, type RemoteTestOutcome } from '../../shared/app/remoteTest';
import { testRemote } from '../remote/remoteTest';
import { fileSecrets, RemoteConfigError, Remotes } from '../remote/remotes';
import { checkWorkspaceName, defaultDataDir, looksLikeDatabase, prepareDataDir, readSettings, removeWorkspaceFiles, updateSettings, workspaceFile, workspaceNames } from '../workspaces/dataFolder';
import { WorkspaceError, createWorkspace, listWorkspaces } from '../workspaces/host';
import { instanceFor, parseCommand, readNamedFile, startedDataDir } from './context';
import { line, type Output } from './output';
import { COMMON_OPTIONS, UsageError, defineCommand, type CommandGroup } from './usage';
import { NEW_WORKSPACE_MODE_DEFAULT, pushModeOf } from '../../shared/sync/review';
import { WORKSPACE_CONNECT, workspaceConnect } from './workspaceConnect';

const DATA = { data: COMMON_OPTIONS.data } as const;
const STEP_MARKS: Readonly<Record<RemoteTestOutcome, string>> = { passed: 'ok    ', failed: 'FAILED', skipped: 'skip  ', 'not-tried': '-     ' };
const TOKEN_OPTIONS = {
  token: { type: 'string', value: 'TOKEN', help: 'your DRF token on the central server' },
  'token-file': { type: 'string', value: 'FILE', help: 'read the token from FILE instead' },
} as const;
const JSON_OPTION = { json: { type: 'boolean', help: 'print JSON' } } as const;

const REMOTE_ADD = defineCommand({
  name: 'remote add',
  args: 'NAME URL',
  positionals: 2,
  summary: 'Add a central server (its token kept in a 0600 file).',
  options: {
    ...DATA,
    ...TOKEN_OPTIONS,
    insecure: { type: 'boolean', help: "do not verify the server's certificate" },
    pin: { type: 'string', value: 'SHA256', help: "accept only the certificate with this SHA-256 fingerprint (a lab's self-signed one)" },
  },
});
const REMOTE_LIST = defineCommand({ name: 'remote list', positionals: 0, summary: 'The central servers this data folder knows.', options: { ...DATA, ...JSON_OPTION } });
const REMOTE_SET_TOKEN = defineCommand({
  name: 'remote set-token',
  args: 'NAME',
  positionals: 1,
  summary: "Replace a central server's token.",
  options: { ...DATA, ...TOKEN_OPTIONS },
});
const REMOTE_SET_URL = defineCommand({
  name: 'remote set-url',
  args: 'NAME URL',
  positionals: 2,
  summary: "Change a central server's address (and how its certificate is checked).",
  options: {
    ...DATA,
    ...TOKEN_OPTIONS,
    insecure: { type: 'boolean', help: "do not verify the server's certificate (drops a pin)" },
    pin: { type: 'string', value: 'SHA256', help: 'accept only the certificate with this SHA-256 fingerprint (turns --insecure off)' },
    verify: { type: 'boolean', help: "verify the certificate against the system's authorities again (drops --insecure and a pin)" },
  },
  notes: [
    'The token stays when only the path changes. A new scheme, host or port names another server: the token is dropped, so that it is never sent there, unless --token or --token-file gives the one for the new address.',
    'Without --insecure, --pin or --verify the certificate is checked as before.',
  ],
});
const REMOTE_TEST = defineCommand({
  name: 'remote test',
  args: 'NAME',
  positionals: 1,
  summary: 'Test the connection: reachable, TLS certificate, token accepted, the API answering.',
  options: { ...DATA, ...JSON_OPTION },
  notes: ['Each step says what it found and the time it took; the first failure stops the test. Exit status 1 when a step failed.'],
});
const REMOTE_REMOVE = defineCommand({
  name: 'remote remove',
  args: 'NAME',
  positionals: 1,
  summary: 'Forget a central server (bound workspaces keep their data).',
  options: DATA,
});

export const REMOTE: CommandGroup = {
  name: 'remote',
  summary: 'The central servers this data folder knows, and their tokens.',
  commands: [REMOTE_ADD, REMOTE_LIST, REMOTE_SET_URL, REMOTE_SET_TOKEN, REMOTE_TEST, REMOTE_REMOVE],
};

const WORKSPACE_CREATE = defineCommand({
  name: 'workspace create',
  args: 'NAME',
  positionals: 1,
  summary: 'Create a workspace, standalone or bound to a central server.',
  options: {
    ...DATA,
    remote: { type: 'string', value: 'NAME', help: 'bind it to this central server (outpost remote add); fill it with outpost sync' },
    push: { type: 'string', value: 'MODE', help: 'with --remote: send changes after review (review, the default) or soon after each (automatic)' },
  },
});
const WORKSPACE_LIST = defineCommand({
  name: 'workspace list',
  positionals: 0,
  summary: 'The workspaces of the data folder (* marks the default: the one used last in the app).',
  options: { ...DATA, ...JSON_OPTION },
});
const WORKSPACE_DELETE = defineCommand({
  name: 'workspace delete',
  args: 'NAME',
  positionals: 1,
  summary: 'Delete a workspace and its data (one whose database is lost or damaged too).',
  options: DATA,
  notes: ['Stop the app and outpost serve on it first. When it was the default, the first other workspace becomes the default.'],
});

export const WORKSPACE: CommandGroup = {
  name: 'workspace',
  summary: 'The workspaces of the data folder: one SQLite file each.',
  commands: [WORKSPACE_CREATE, WORKSPACE_LIST, WORKSPACE_CONNECT, WORKSPACE_DELETE],
};

function tokenFrom(values: { token?: string | undefined; 'token-file'?: string | undefined }): string | undefined {
  if (values.token !== undefined && values['token-file'] !== undefined) throw new UsageError('give either --token or --token-file, not both');
  if (values['token-file'] !== undefined) {
    // A token is 40 characters: 64 KiB is far more than any token file holds.
    return readNamedFile(values['token-file'], 64 * 1024).toString('utf8').trim();
  }
  return values.token;
}

/**
 * Remotes only: no workspace is opened (nor created, nor migrated) to add, list or change a
 * remote, so a bad `remote add` leaves the data folder as it was.
 */
function withRemotes<T>(data: string | undefined, fn: (remotes: Remotes) => T): T {
  const dataDir = prepareDataDir(data ?? defaultDataDir());
  try {
    return fn(new Remotes(dataDir, fileSecrets(dataDir)));
  } catch (error) {
    if (error instanceof RemoteConfigError) throw new Error(error.message);
    throw error;
  }
}

/**
 * A workspace command: on the data folder (its `default` made at the first start), no workspace
 * opened, so that one whose database is lost or damaged does not stop the others' commands.
 */
function withDataFolder<T>(data: string | undefined, fn: (dataDir: string) => T): T {
  const dataDir = startedDataDir(data);
  try {
    return fn(dataDir);
  } catch (error) {
    if (error instanceof RemoteConfigError || error instanceof WorkspaceError) throw new Error(error.message);
    throw error;
  }
}

/** The default workspace: the last used, else `default`. */
function defaultWorkspace(dataDir: string): string {
  const last = readSettings(dataDir).lastWorkspace;
  return typeof last === 'string' ? last : 'default';
}

export async function remoteCommand(args: readonly string[], out: Output): Promise<number> {
  const [sub, ...rest] = args;
  switch (sub) {
    case 'add': {
      const { values, positionals } = parseCommand(rest, REMOTE_ADD);
      const token = tokenFrom(values);
      if (token === undefined) throw new UsageError('remote add needs --token TOKEN (or --token-file FILE): the DRF token of your account on the central server', REMOTE_ADD.name);
      const [name, url] = positionals as [string, string];
      return withRemotes(values.data, (remotes) => {
        const warning = remotes.add({ name, url, ...(values.insecure ? { insecure: true } : {}), ...(values.pin ? { pin: values.pin } : {}) }, token);
        if (warning) out.line(line`warning: ${warning}`);
        if (values.insecure) out.line(line`warning: the certificate of this central server will not be verified`);
        out.line(line`remote "${name}" added (${remotes.get(name)!.url}); bind a workspace to it: outpost workspace create NAME --remote ${name}`);
        return 0;
      });
    }
    case 'list': {
      const { values } = parseCommand(rest, REMOTE_LIST);
      return withRemotes(values.data, (known) => {
        const remotes = known.list().map((r) => ({ ...r, hasToken: known.token(r.name) !== undefined }));
        if (values.json) out.json(remotes);
        else if (remotes.length === 0) out.line(line`no remotes; add one: outpost remote add NAME URL --token TOKEN`);
        else for (const r of remotes) out.line(line`${r.name}\t${r.url}${r.insecure ? line`\t(certificate not verified)` : ''}${r.pin ? line`\t(pinned ${r.pin.slice(0, 16)}…)` : ''}${r.hasToken ? '' : line`\t(no token)`}`);
        return 0;
      });
    }
    case 'set-token': {
      const { values, positionals } = parseCommand(rest, REMOTE_SET_TOKEN);
      const token = tokenFrom(values);
      if (token === undefined) throw new UsageError('remote set-token needs --token TOKEN (or --token-file FILE)', REMOTE_SET_TOKEN.name);
      return withRemotes(values.data, (remotes) => {
        remotes.setToken(positionals[0]!, token);
        out.line(line`token of remote "${positionals[0]!}" replaced`);
        return 0;
      });
    }
    case 'set-url': {
      const { values, positionals } = parseCommand(rest, REMOTE_SET_URL);
      const token = tokenFrom(values);
      const tlsChoices = [values.insecure, values.pin !== undefined, values.verify].filter(Boolean).length;
      if (tlsChoices > 1) throw new UsageError('give one of --insecure, --pin SHA256 or --verify', REMOTE_SET_URL.name);
      const [name, url] = positionals as [string, string];
      return withRemotes(values.data, (remotes) => {
        const known = remotes.get(name);
        if (!known) throw new Error(`there is no remote "${name}"`);
        const tls = tlsChoices === 0 ? { insecure: known.insecure, pin: known.pin } : { insecure: values.insecure === true, pin: values.pin };
        const { warning, tokenCleared } = remotes.change({ name, url, ...(tls.insecure ? { insecure: true } : {}), ...(tls.pin ? { pin: tls.pin } : {}) }, token);
        if (warning) out.line(line`warning: ${warning}`);
        if (tls.insecure) out.line(line`warning: the certificate of this central server will not be verified`);
        out.line(line`remote "${name}" now at ${remotes.get(name)!.url}`);
        if (tokenCleared) out.line(line`the token was dropped: the origin changes (scheme, host or port), so it is not sent to that server; give its token: outpost remote set-token ${name} --token TOKEN`);
        return 0;
      });
    }
    case 'test': {
      const { values, positionals } = parseCommand(rest, REMOTE_TEST);
      const name = positionals[0]!;
      const found = withRemotes(values.data, (remotes) => {
        const config = remotes.get(name);
        if (!config) throw new Error(`there is no remote "${name}"`);
        return { config, token: remotes.token(name) };
      });
      const result = await testRemote(found.config, found.token);
      if (values.json) out.json(result);
      else {
        out.line(line`remote "${name}" (${result.url})`);
        const width = Math.max(...Object.values(REMOTE_TEST_LABELS).map((label) => label.length));
        for (const step of result.steps) {
          const took = step.ms === null ? '' : line` (${step.ms} ms)`;
          out.line(line`  ${STEP_MARKS[step.outcome]} ${REMOTE_TEST_LABELS[step.step].padEnd(width)}  ${step.message}${took}`);
        }
        out.line(result.ok ? line`the connection works` : line`the connection does not work: see the failed step`);
      }
      return result.ok ? 0 : 1;
    }
    case 'remove': {
      const { values, positionals } = parseCommand(rest, REMOTE_REMOVE);
      return withRemotes(values.data, (remotes) => {
        const name = positionals[0]!;
        if (!remotes.get(name)) throw new Error(`there is no remote "${name}"`);
        remotes.remove(name);
        out.line(line`remote "${name}" removed (workspaces bound to it keep their data and outbox until it is added again)`);
        return 0;
      });
    }
    default:
      throw new UsageError(sub === undefined ? 'remote needs a subcommand: add, list, set-url, set-token, test, remove' : `unknown remote subcommand "${sub}"`, 'remote');
  }
}

export async function workspaceCommand(args: readonly string[], out: Output): Promise<number> {
  const [sub, ...rest] = args;
  switch (sub) {
    case 'create': {
      const { values, positionals } = parseCommand(rest, WORKSPACE_CREATE);
      const name = positionals[0]!;
      return withDataFolder(values.data, (dataDir) => {
        const remote = values.remote === undefined ? undefined : new Remotes(dataDir, fileSecrets(dataDir)).get(values.remote);
        if (values.remote !== undefined && !remote) throw new Error(`there is no remote "${values.remote}"; add it first`);
        const pushMode = values.push === undefined ? undefined : pushModeOf(values.push);
        if (pushMode === null) throw new UsageError(`--push is review or automatic, not "${values.push}"`, WORKSPACE_CREATE.name);
        if (pushMode !== undefined && remote === undefined) throw new UsageError('--push is for a workspace bound to a central server (--remote NAME)', WORKSPACE_CREATE.name);
        const localToken = readSettings(dataDir).localToken;
        createWorkspace(dataDir, name, {
          instance: instanceFor('127.0.0.1'),
          ...(remote ? { remote } : {}),
          ...(pushMode ? { pushMode } : {}),
          ...(typeof localToken === 'string' ? { adminToken: localToken } : {}),
        });
        out.line(
          values.remote === undefined
            ? line`workspace "${name}" created (standalone)`
            : line`workspace "${name}" created, bound to remote "${values.remote}", changes sent ${(pushMode ?? NEW_WORKSPACE_MODE_DEFAULT) === 'review' ? 'after review' : 'automatically'}; fill it: outpost sync --workspace ${name}`,
        );
        return 0;
      });
    }
    case 'list': {
      const { values } = parseCommand(rest, WORKSPACE_LIST);
      return withDataFolder(values.data, (dataDir) => {
        const list = listWorkspaces(dataDir, defaultWorkspace(dataDir)).map((w) => ({ ...w, remote: w.remote ?? null }));
        if (values.json) out.json(list);
        else for (const w of list) out.line(line`${w.current ? '*' : ' '} ${w.name}\t${w.remote === null ? 'standalone' : line`bound to ${w.remote}`}`);
        return 0;
      });
    }
    case 'delete': {
      const { values, positionals } = parseCommand(rest, WORKSPACE_DELETE);
      const dataDir = prepareDataDir(values.data ?? defaultDataDir());
      const name = checkWorkspaceName(positionals[0]!);
      const existing = workspaceNames(dataDir);
      const wasDefault = defaultWorkspace(dataDir) === name;
      // The default's database may be gone already: deleting it is how its name is given up.
      if (!existing.includes(name) && !wasDefault) throw new Error(`there is no workspace "${name}" in ${dataDir} (${existing.length === 0 ? 'it has none' : `its workspaces: ${existing.join(', ')}`})`);
      removeWorkspaceFiles(dataDir, name);
      out.line(line`workspace "${name}" deleted`);
      if (wasDefault) {
        // The next default is one that opens: a damaged database would only fail the next command.
        const left = workspaceNames(dataDir);
        const next = left.find((other) => looksLikeDatabase(workspaceFile(dataDir, other)));
        updateSettings(dataDir, { lastWorkspace: next });
        if (next !== undefined) out.line(line`the default workspace is now "${next}"`);
        else if (left.length === 0) out.line(line`no workspace is left; the next start makes "default"`);
        else out.line(line`no workspace left opens (${left.join(', ')}): give --workspace NAME to each command, or delete them`);
      }
      return 0;
    }
    case 'connect':
      return workspaceConnect(rest, out);
    default:
      throw new UsageError(sub === undefined ? 'workspace needs a subcommand: create, list, connect, delete' : `unknown workspace subcommand "${sub}"`, 'workspace');
  }
}
