/**
 * The workspaces of one data folder, and the one being served (app.md §2): create, switch,
 * rename, delete, export to and import from a bundle. Every workspace's admin shares the data
 * folder's local token, so that the app and its user stay signed in across switches.
 * Plain Node: `outpost serve` and the desktop app's server process both run it.
 */
import fs from 'node:fs';
import { newTokenKey } from '../server/store/users';
import { openDatabase, openDatabaseReadOnly, type OpenOptions } from '../server/store/database';
import { StorageError, withFile } from '../server/store/storageErrors';
import { openWorkspace, type OpenedWorkspace } from './openWorkspace';
import type { Instance } from '../server/store/services';
import type { ClientOptions, RemoteConfig } from '../remote/client';
import { fileSecrets, Remotes, type SecretStore } from '../remote/remotes';
import { RemoteSession, type SessionOptions } from '../remote/session';
import { SyncMeta, bindRemote } from '../server/store/syncMeta';
import type { PushMode } from '../../shared/sync/review';
import { publishDatabase, removeDatabase, removeDeadImports, temporaryDatabase } from './bundleFiles';
import { exportOnThread, importOnThread } from './bundleThread';
import { Store } from '../server/store/store';
import type { ImportedAccounts } from '../../shared/app/importedAccounts';
import {
  DataFolderError,
  SIDE_FILES,
  checkDatabaseFile,
  checkWorkspaceName,
  prepareDataDir,
  readSettings,
  removeWorkspaceFiles,
  WorkspaceInUseError,
  resolveWorkspace,
  updateSettings,
  workspaceFile,
  workspaceNames,
  workspacesDir,
} from './dataFolder';

export class WorkspaceError extends Error {
  constructor(
    message: string,
    /** An HTTP status for the app's endpoints: 404 unknown, 409 conflict, 400 bad input. */
    readonly status: 400 | 404 | 409,
  ) {
    super(message);
  }
}

export interface WorkspaceInfo {
  readonly name: string;
  readonly current: boolean;
  readonly sizeBytes: number;
  /** The central server it is bound to; undefined when standalone. */
  readonly remote?: string;
}

export interface WorkspaceHostOptions extends OpenOptions {
  readonly dataDir: string;
  readonly instance: Instance;
  /** The workspace to open, which must exist (else the last used: dataFolder.ts's chooseWorkspace); not remembered as the last used. */
  readonly workspace?: string;
  /** The local token to use from now on (else the one kept in the settings, else a new one). */
  readonly adminToken?: string;
  /** Where remote tokens are kept (Electron: safeStorage via the main process); a 0600 file by default. */
  readonly secrets?: SecretStore;
  /** How a bound workspace syncs while open; without `auto`, only when asked. */
  readonly sync?: SessionOptions;
}

/** A bound workspace whose remote is not configured in this data folder (e.g. an imported one). */
export interface UnlinkedRemote {
  readonly name: string;
  readonly problem: string;
}

/** The workspaces of a data folder, `current` marked, each with its size and binding, none opened for writing. */
export function listWorkspaces(dataDir: string, current: string | undefined, options: OpenOptions = {}): WorkspaceInfo[] {
  return workspaceNames(dataDir).map((name) => {
    const file = workspaceFile(dataDir, name);
    const remote = bindingOf(file, options);
    return {
      name,
      current: name === current,
      ...(remote === undefined ? {} : { remote }),
      sizeBytes: SIDE_FILES.reduce((total, suffix) => total + (fs.statSync(file + suffix, { throwIfNoEntry: false })?.size ?? 0), 0),
    };
  });
}

/** The remote a workspace is bound to, read without writing (a read-only disk too). */
function bindingOf(file: string, options: OpenOptions): string | undefined {
  let db;
  try {
    db = openDatabaseReadOnly(file, options);
  } catch {
    // An empty or damaged database, or one from an older Outpost (no sync tables yet): shown as standalone; opening it tells what is wrong.
    return undefined;
  }
  const store = new Store(db);
  try {
    return new SyncMeta(store).get('remote');
  } finally {
    store.close();
  }
}

/**
 * A new empty workspace (made and migrated, its admin's token the data folder's local one when it
 * has one), bound to `remote` if given. Refused when the name is taken.
 */
export function createWorkspace(
  dataDir: string,
  name: string,
  options: OpenOptions & { readonly instance: Instance; readonly remote?: RemoteConfig; readonly pushMode?: PushMode; readonly adminToken?: string },
): void {
  const checked = checkWorkspaceName(name);
  const file = workspaceFile(dataDir, checked);
  if (fs.existsSync(file)) throw new WorkspaceError(`a workspace named "${checked}" exists already`, 409);
  const binding = options.nativeBinding ? { nativeBinding: options.nativeBinding } : {};
  try {
    const db = openDatabase(file, binding);
    try {
      if (options.remote) bindRemote(db, options.remote, options.pushMode);
    } finally {
      db.close();
    }
    openWorkspace({ file, instance: options.instance, ...binding, ...(options.adminToken === undefined ? {} : { adminToken: options.adminToken }) }).close();
  } catch (error) {
    // Whole or not at all: a workspace half made (a full disk) would be listed, empty or damaged.
    removeWorkspaceFiles(dataDir, checked, binding);
    throw withFile(error, file);
  }
}

/**
 * A new workspace of `dataDir` from a bundle's bytes, on the bundle thread: parsed, checked and
 * written into a database under a temporary name, which takes the workspace's name only once all
 * of it succeeded. `importing` holds the names this process is importing (a second import of one
 * is refused at once). Needs no open workspace: `outpost import` works in a folder with none.
 */
export async function importBundleInto(
  dataDir: string,
  bytes: Uint8Array,
  options: OpenOptions & { readonly name?: string; readonly charset?: string; readonly instance: Instance; readonly adminToken: string; readonly importing: Set<string> },
): Promise<{ name: string; accounts: ImportedAccounts }> {
  const { importing } = options;
  let reserved: string | undefined;
  const reserve = (name: string): void => {
    let checked: string;
    try {
      checked = checkWorkspaceName(name);
    } catch (error) {
      if (error instanceof DataFolderError) throw new WorkspaceError(error.message, 400);
      throw error;
    }
    if (importing.has(checked)) throw new WorkspaceError(`a workspace named "${checked}" is being imported`, 409);
    if (fs.existsSync(workspaceFile(dataDir, checked))) throw new WorkspaceError(`a workspace named "${checked}" exists already`, 409);
    importing.add(checked);
    reserved = checked;
  };
  if (options.name !== undefined) reserve(options.name);
  const temporary = temporaryDatabase(workspacesDir(dataDir));
  try {
    const job = {
      dataDir,
      temporary,
      instance: options.instance,
      adminToken: options.adminToken,
      ...(options.nativeBinding === undefined ? {} : { nativeBinding: options.nativeBinding }),
    };
    const accounts = await importOnThread({ ...job, ...(options.name === undefined ? {} : { name: options.name }), ...(options.charset === undefined ? {} : { charset: options.charset }) }, bytes, (name) => {
      if (reserved === undefined) reserve(name);
    });
    // The thread told the name before it wrote anything, and it was reserved then.
    const name = reserved!;
    if (!publishDatabase(temporary, workspaceFile(dataDir, name))) throw new WorkspaceError(`a workspace named "${name}" exists already`, 409);
    return { name, accounts };
  } finally {
    if (reserved !== undefined) importing.delete(reserved);
    await removeDatabase(temporary);
  }
}

export class WorkspaceHost {
  readonly dataDir: string;
  readonly remotes: Remotes;
  private localToken: string;
  private opened: OpenedWorkspace;
  private remoteSession: RemoteSession | UnlinkedRemote | undefined;
  private currentName: string;
  private readonly listeners = new Set<(name: string) => void>();
  private readonly tokenListeners = new Set<(token: string) => void>();
  /** The names of the workspaces being imported now: taken already, as an existing one's. */
  private readonly importing = new Set<string>();

  constructor(private readonly options: WorkspaceHostOptions) {
    this.dataDir = prepareDataDir(options.dataDir);
    // The databases of imports a process that ended left unfinished (bundleFiles.ts).
    removeDeadImports(workspacesDir(this.dataDir));
    this.remotes = new Remotes(this.dataDir, options.secrets ?? fileSecrets(this.dataDir));
    const settings = readSettings(this.dataDir);
    this.localToken = options.adminToken ?? (typeof settings.localToken === 'string' ? settings.localToken : newTokenKey());
    const { name, firstStart } = resolveWorkspace(this.dataDir, options.workspace);
    this.opened = this.open(name, firstStart);
    this.currentName = name;
    this.remoteSession = this.link(this.opened);
    // Written only when it changes (a full disk still starts); a workspace asked for is not made the last used.
    this.remember({ localToken: this.token, ...(firstStart ? { lastWorkspace: name } : {}) });
  }

  /** The link of an opened bound workspace to its central server (undefined: standalone). */
  private link(opened: OpenedWorkspace): RemoteSession | UnlinkedRemote | undefined {
    const name = opened.services.boundRemote();
    if (name === undefined) return undefined;
    const config = this.remotes.get(name);
    if (!config) return { name, problem: `the remote "${name}" is not configured in this data folder; add it (outpost remote add ${name} URL --token T)` };
    return new RemoteSession(opened.services, config, () => this.remotes.token(name) ?? '', this.options.sync ?? {});
  }

  /** How this host's clients talk to a central server (limits, deadlines, retries): the sessions' and the connect's. */
  get clientOptions(): ClientOptions | undefined {
    return this.options.sync?.client;
  }

  /** The current workspace's remote session; undefined when standalone. */
  session(): RemoteSession | UnlinkedRemote | undefined {
    return this.remoteSession;
  }

  /**
   * A remote's address or TLS settings changed: the open workspace's session, if it follows that
   * remote, is replaced by one for the new settings at once (the old one stops at a safe point).
   */
  remoteChanged(name: string): void {
    const session = this.remoteSession;
    const follows = session instanceof RemoteSession ? session.config.name === name : session?.name === name;
    if (!follows) return;
    this.remoteSession = this.link(this.opened);
    if (session instanceof RemoteSession) void session.close().catch(() => undefined);
  }

  /** A remote's token was replaced: the session using it tries again. */
  remoteTokenChanged(name: string): void {
    const session = this.remoteSession;
    if (session instanceof RemoteSession && session.config.name === name) session.tokenChanged();
  }

  /** Close a workspace once its sync (if any) has stopped at a safe point. */
  private retire(opened: OpenedWorkspace, session: RemoteSession | UnlinkedRemote | undefined): Promise<void> {
    if (session instanceof RemoteSession && session.engine.syncing) return session.close().finally(() => opened.close());
    const closing = session instanceof RemoteSession ? session.close() : Promise.resolve();
    opened.close();
    return closing.catch(() => undefined);
  }

  private remember(changes: Record<string, unknown>): void {
    updateSettings(this.dataDir, changes);
  }

  /** Open a workspace: it must exist and be whole unless it is to be made now (the first start). */
  private open(name: string, create = false): OpenedWorkspace {
    const { nativeBinding } = this.options;
    const file = workspaceFile(this.dataDir, name);
    if (!create) checkDatabaseFile(file, name);
    const opened = openWorkspace({
      file,
      instance: this.options.instance,
      adminToken: this.localToken,
      ...(nativeBinding ? { nativeBinding } : {}),
    });
    // The local admin's token is the data folder's: regenerating it (Settings → Edit Token)
    // makes the new one the local token of every workspace and of the app.
    opened.services.users.onTokenRegenerated((user, token) => {
      if (user.username === 'admin') this.adoptToken(token);
    });
    return opened;
  }

  /** The data folder's local token (the admin's token in every workspace). */
  get token(): string {
    return this.localToken;
  }

  private adoptToken(token: string): void {
    this.localToken = token;
    this.remember({ localToken: token });
    for (const listener of this.tokenListeners) listener(token);
  }

  /** Be told when the local token changes (the app forwards requests with it). */
  onTokenChange(listener: (token: string) => void): () => void {
    this.tokenListeners.add(listener);
    return () => this.tokenListeners.delete(listener);
  }

  get name(): string {
    return this.currentName;
  }

  /** The workspace being served. */
  current(): OpenedWorkspace {
    return this.opened;
  }

  /** Be told when another workspace becomes the current one. */
  onSwitch(listener: (name: string) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private exists(name: string): boolean {
    return fs.existsSync(workspaceFile(this.dataDir, name));
  }

  /** A name a new workspace cannot take: one exists, or is being imported. */
  private taken(name: string): boolean {
    return this.importing.has(name) || this.exists(name);
  }

  /** Open a listed workspace for the app's routes: what is wrong with its file is a 409 that names it. */
  private openKnown(name: string): OpenedWorkspace {
    try {
      return this.open(name);
    } catch (error) {
      if (error instanceof DataFolderError || error instanceof StorageError) throw new WorkspaceError(error.message, 409);
      throw error;
    }
  }

  private known(name: string): string {
    const checked = this.checked(name);
    if (!this.exists(checked)) throw new WorkspaceError(`there is no workspace "${checked}"`, 404);
    return checked;
  }

  private checked(name: string): string {
    try {
      return checkWorkspaceName(name);
    } catch (error) {
      if (error instanceof DataFolderError) throw new WorkspaceError(error.message, 400);
      throw error;
    }
  }

  list(): WorkspaceInfo[] {
    return listWorkspaces(this.dataDir, this.currentName, this.options.nativeBinding ? { nativeBinding: this.options.nativeBinding } : {}).map((info) => {
      if (info.name !== this.currentName) return info;
      const remote = this.opened.services.boundRemote();
      const { remote: _read, ...rest } = info;
      return remote === undefined ? rest : { ...rest, remote };
    });
  }

  /** A new empty workspace (not switched to); bound to a configured remote if one is named, sending after review unless told. */
  create(name: string, options: { remote?: string; pushMode?: PushMode } = {}): void {
    const checked = this.checked(name);
    const remote = options.remote === undefined ? undefined : this.remotes.get(options.remote);
    if (options.remote !== undefined && !remote) throw new WorkspaceError(`there is no remote "${options.remote}"; add it first`, 404);
    if (this.importing.has(checked)) throw new WorkspaceError(`a workspace named "${checked}" is being imported`, 409);
    const { nativeBinding } = this.options;
    createWorkspace(this.dataDir, checked, {
      instance: this.options.instance,
      adminToken: this.localToken,
      ...(remote ? { remote } : {}),
      ...(options.pushMode ? { pushMode: options.pushMode } : {}),
      ...(nativeBinding ? { nativeBinding } : {}),
    });
  }

  switchTo(name: string): void {
    const checked = this.known(name);
    if (checked === this.currentName) return;
    const next = this.openKnown(checked);
    void this.retire(this.opened, this.remoteSession);
    this.opened = next;
    this.currentName = checked;
    this.remoteSession = this.link(next);
    this.remember({ lastWorkspace: checked });
    for (const listener of this.listeners) listener(checked);
  }

  rename(from: string, to: string): void {
    const source = this.known(from);
    const target = this.checked(to);
    if (source === target) return;
    if (this.taken(target)) throw new WorkspaceError(`a workspace named "${target}" exists already`, 409);
    const wasCurrent = source === this.currentName;
    if (wasCurrent && this.remoteSession instanceof RemoteSession && this.remoteSession.engine.syncing) {
      throw new WorkspaceError(`"${source}" is syncing; rename it when the sync is done`, 409);
    }
    if (wasCurrent) void this.retire(this.opened, this.remoteSession);
    for (const suffix of SIDE_FILES) {
      const file = workspaceFile(this.dataDir, source) + suffix;
      if (fs.existsSync(file)) fs.renameSync(file, workspaceFile(this.dataDir, target) + suffix);
    }
    if (wasCurrent) {
      this.opened = this.openKnown(target);
      this.remoteSession = this.link(this.opened);
      this.currentName = target;
      this.remember({ lastWorkspace: target });
      for (const listener of this.listeners) listener(target);
    }
  }

  /** Delete a workspace that is not the current one (switch away first). */
  delete(name: string): void {
    const checked = this.known(name);
    if (checked === this.currentName) throw new WorkspaceError(`"${checked}" is the workspace in use; switch to another one before deleting it`, 409);
    try {
      removeWorkspaceFiles(this.dataDir, checked, this.options.nativeBinding ? { nativeBinding: this.options.nativeBinding } : {});
    } catch (error) {
      if (error instanceof WorkspaceInUseError) throw new WorkspaceError(error.message, 409);
      throw error;
    }
  }

  /**
   * A workspace's bundle file (its JSON, UTF-8), read from a connection of its own (the last
   * committed state, the open workspace's too) and made on the bundle thread (bundleThread.ts).
   */
  async exportBundle(name: string): Promise<Uint8Array> {
    const checked = this.known(name);
    const file = workspaceFile(this.dataDir, checked);
    try {
      checkDatabaseFile(file, checked);
      return await exportOnThread({ file, name: checked, ...this.binding() });
    } catch (error) {
      if (error instanceof DataFolderError || error instanceof StorageError) throw new WorkspaceError(error.message, 409);
      throw error;
    }
  }

  /**
   * A new workspace from a bundle file's bytes, whole or not at all (app.md §2), named `name` or as
   * the bundle says. The bundle thread parses it, checks every row, and writes a new database under
   * a temporary name (bundleThread.ts); only once all of it succeeded does the database take the
   * workspace's name. A name that exists or is being imported is refused (409), before any check.
   * The bytes may be moved to that thread: the caller must not read them afterwards. What the
   * bundle's accounts may do comes back.
   */
  async importBundle(bytes: Uint8Array, options: { readonly name?: string; readonly charset?: string } = {}): Promise<{ name: string; accounts: ImportedAccounts }> {
    return importBundleInto(this.dataDir, bytes, { ...options, instance: this.options.instance, adminToken: this.localToken, importing: this.importing, ...this.binding() });
  }


  private binding(): OpenOptions {
    return this.options.nativeBinding ? { nativeBinding: this.options.nativeBinding } : {};
  }

  /**
   * The first step of an orderly exit: no sync starts any more, and a running one stops at its
   * next safe point, releasing the workspace's sync lease, before the server and the workspace
   * close (a process syncing next need not wait for them).
   */
  async stopSyncing(): Promise<void> {
    const session = this.remoteSession;
    if (session instanceof RemoteSession) await session.close().catch(() => undefined);
  }

  /**
   * Run `fn` on a workspace: the current one as it is served, another one opened for it and
   * closed after (a connect plans and commits on it: electron/workspaces/connect.ts).
   */
  async onWorkspace<T>(name: string, fn: (opened: OpenedWorkspace) => Promise<T>): Promise<T> {
    const checked = this.known(name);
    if (checked === this.currentName) return fn(this.opened);
    const opened = this.openKnown(checked);
    try {
      return await fn(opened);
    } finally {
      opened.close();
    }
  }

  /**
   * A workspace was just bound to a central server (a connect): opened again as bound (its
   * changes recorded in the outbox from now on), `first` run on it (the first pull) before its
   * sync session starts when it is the current one, so that nothing else syncs it meanwhile.
   */
  async reopenBound<T>(name: string, first: (opened: OpenedWorkspace) => Promise<T>): Promise<T> {
    const checked = this.known(name);
    if (checked !== this.currentName) return this.onWorkspace(checked, first);
    await this.retire(this.opened, this.remoteSession);
    this.remoteSession = undefined;
    this.opened = this.openKnown(checked);
    try {
      return await first(this.opened);
    } finally {
      this.remoteSession = this.link(this.opened);
      for (const listener of this.listeners) listener(checked);
    }
  }

  /** Close the current workspace (after its sync, if one runs, has stopped at a safe point). */
  close(): Promise<void> {
    return this.retire(this.opened, this.remoteSession);
  }
}
