/**
 * Open one workspace for serving: its database (migrated), the services over it, vendor_device
 * pk 1 and the admin user with its token. Used by `outpost serve`, the other CLI commands and
 * the Electron app's server process alike.
 */
import { OutboxRecorder } from '../remote/outbox';
import { createApi, type Api } from '../server/api';
import { openDatabase, type OpenOptions } from '../server/store/database';
import { Services, type Instance } from '../server/store/services';
import { HostIndexer } from './hostIndexer';

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

export function openWorkspace(options: OpenWorkspaceOptions): OpenedWorkspace {
  const db = openDatabase(options.file, options.nativeBinding ? { nativeBinding: options.nativeBinding } : {});
  // A bound workspace records its local changes in the outbox.
  const services = new Services(db, options.instance, (repositories) => (repositories.boundRemote() === undefined ? undefined : new OutboxRecorder(repositories)));
  const bound = services.recorder !== undefined;
  try {
    // In a bound workspace, vendor_device pk 1 is the central server, as mirrored.
    if (!bound) services.ensureInstanceDevice();
    const { token } = services.users.ensureAdmin(options.adminToken);
    // Hosts written are indexed for host_id_qfilter in the background.
    const indexer = new HostIndexer(services);
    services.store.onCommit(() => indexer.kick());
    indexer.kick();
    return {
      services,
      api: createApi(services),
      adminToken: token,
      close: () => {
        indexer.stop();
        services.close();
      },
    };
  } catch (error) {
    services.close();
    throw error;
  }
}
