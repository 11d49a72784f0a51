/**
 * Open one workspace for serving: its database (migrated), the services over it, vendor_device
 * pk 1 and the admin user with its token. Used by `outpost serve`, the other CLI commands and
 * the Electron app's server process alike.
 */
import { createApi, type Api } from './api';
import { Services, type Instance } from './services';
import { OutboxRecorder } from '../remote/outbox';
import { openDatabase, type Db, type OpenOptions } from './store/database';

export interface OpenedWorkspace {
  readonly services: Services;
  readonly api: Api;
  readonly adminToken: string;
  close(): void;
}

export interface OpenWorkspaceOptions extends OpenOptions {
  readonly file: string;
  readonly instance: Instance;
  /** Set the admin's token to exactly this (else keep it, or make a random one). */
  readonly adminToken?: string;
}

/** The name of the central server a workspace is bound to, if any (app.md §2). */
export function boundRemote(db: Db): string | undefined {
  return (db.prepare("SELECT value FROM sync_meta WHERE key = 'remote'").pluck().get() as string | undefined) ?? undefined;
}

export function openWorkspace(options: OpenWorkspaceOptions): OpenedWorkspace {
  const db = openDatabase(options.file, options.nativeBinding ? { nativeBinding: options.nativeBinding } : {});
  const bound = boundRemote(db) !== undefined;
  const services = new Services(db, options.instance, bound ? (store) => new OutboxRecorder(store) : undefined);
  try {
    // In a bound workspace, vendor_device pk 1 is the central server, as mirrored.
    if (!bound) services.ensureInstanceDevice();
    const { token } = services.users.ensureAdmin(options.adminToken);
    return { services, api: createApi(services), adminToken: token, close: () => services.close() };
  } catch (error) {
    services.close();
    throw error;
  }
}
