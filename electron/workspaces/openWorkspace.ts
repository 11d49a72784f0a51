/**
 * Open one workspace for serving: its database (migrated), the services over it, vendor_device
 * pk 1 and the admin user with its token. Used by `outpost serve`, the other CLI commands and
 * the Electron app's server process alike.
 */
import { ApiError } from '../../shared/api/errors';
import { OutboxRecorder } from '../remote/outbox';
import { createApi, type Api } from '../server/api';
import path from 'node:path';
import { folderWritable, openDatabase, openDatabaseReadOnly, removeFailedSideFiles, sideFilesOf, type Db, type OpenOptions } from '../server/store/database';
import { storageFault, withFile } from '../server/store/storageErrors';
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

/**
 * Open a workspace (made when its file does not exist: the caller has chosen it, dataFolder.ts);
 * a full or read-only disk or a damaged database is told naming the file (storageErrors.ts).
 */
export function openWorkspace(options: OpenWorkspaceOptions): OpenedWorkspace {
  try {
    return opened(options);
  } catch (error) {
    throw withFile(error, options.file);
  }
}

/**
 * A workspace's existing database, to read only: as any workspace where its folder can be written
 * (migrated if it must be), else opened read-only, writing nothing (database.ts).
 */
export function openForReading(file: string, options: OpenOptions = {}): Db {
  const binding = options.nativeBinding ? { nativeBinding: options.nativeBinding } : {};
  try {
    if (!folderWritable(path.dirname(file))) return openDatabaseReadOnly(file, binding);
    const before = sideFilesOf(file);
    try {
      return openDatabase(file, binding);
    } catch (error) {
      // A full disk: what is there can still be read (an export to another disk rescues it).
      if (storageFault(error) !== 'full') throw error;
      removeFailedSideFiles(file, before);
      return openDatabaseReadOnly(file, binding);
    }
  } catch (error) {
    throw withFile(error, file);
  }
}

function opened(options: OpenWorkspaceOptions): OpenedWorkspace {
  const db = openDatabase(options.file, options.nativeBinding ? { nativeBinding: options.nativeBinding } : {});
  // A bound workspace records its local changes in the outbox.
  let services: Services;
  try {
    services = new Services(db, options.instance, (repositories) => (repositories.boundRemote() === undefined ? undefined : new OutboxRecorder(repositories)));
  } catch (error) {
    db.close();
    throw error;
  }
  const bound = services.recorder !== undefined;
  // Opened standalone, it writes as standalone (positive pks, no outbox). Should another process
  // connect it meanwhile (outpost workspace connect while outpost serve has it open), such a
  // write would make objects no push ever sends and a pull would take for the central server's.
  if (!bound) services.store.beforeWrite = () => {
    const remote = services.boundRemote();
    if (remote !== undefined) throw new ApiError(409, { detail: `this workspace was connected to the remote "${remote}" by another Outpost process; open it again (restart this one) before changing it` });
  };
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
