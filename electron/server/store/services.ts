/**
 * The repositories of one open workspace database: the store, one Table per resource, and the
 * typed repositories over the other tables (accounts, history, hosts, devices, the outbox and
 * the sync state). Handlers, the sync engine, the CLI and /app/ reach the database only through
 * this object; there is no global state, so several workspaces can be served side by side.
 */
import {
  appliances,
  engineProbe,
  history,
  networkInterface,
  ruleset,
  source,
  threat,
  user,
  vendorDevice,
  vendorProbe,
  vendorProbeTemplate,
  type Resource,
} from '../../../shared/resources';
import type { ChangeRecorder } from './changeRecorder';
import type { Db } from './database';
import { Devices } from './devices';
import { Evidence } from './evidence';
import { History } from './history';
import { Hosts } from './hosts';
import { HostSurvey } from './hostSurvey';
import { MirrorRows } from './mirrorRows';
import { Outbox } from './outbox';
import { RemoteHistory } from './remoteHistory';
import { RulesetSources } from './rulesetSources';
import { Store, type SlowStatementLog } from './store';
import { SyncBases } from './syncBases';
import { SyncMeta } from './syncMeta';
import { Table } from './table';
import { Users } from './users';
import { Visits } from './visits';

export interface Instance {
  /** Name and version of this Outpost, shown as vendor_device pk 1. */
  readonly name: string;
  readonly version: string;
  readonly address: string;
}

function tablesOf(store: Store) {
  const table = (resource: Resource) => new Table(store, resource);
  return {
    template: table(vendorProbeTemplate),
    vendorProbe: table(vendorProbe),
    engineProbe: table(engineProbe),
    appliances: table(appliances),
    vendorDevice: table(vendorDevice),
    networkInterface: table(networkInterface),
    ruleset: table(ruleset),
    source: table(source),
    user: table(user),
    threat: table(threat),
    history: table(history),
  };
}

export type Tables = ReturnType<typeof tablesOf>;

export class Services {
  readonly store: Store;
  readonly tables: Tables;
  readonly users: Users;
  readonly history: History;
  readonly hosts: Hosts;
  readonly visits: Visits;
  /** The site survey's reads over the hosts (issue 24). */
  readonly hostSurvey: HostSurvey;
  readonly evidence: Evidence;
  readonly devices: Devices;
  readonly rulesetSources: RulesetSources;
  readonly outbox: Outbox;
  readonly syncMeta: SyncMeta;
  readonly syncBases: SyncBases;
  readonly remoteHistory: RemoteHistory;
  readonly mirrorRows: MirrorRows;
  readonly recorder: ChangeRecorder | undefined;
  /** EVE imports of this process running on threads of their own, with connections of their own (the background waits for them). */
  importsRunning = 0;
  private readonly byResource: ReadonlyMap<string, Table>;

  constructor(
    db: Db,
    readonly instance: Instance,
    /** The outbox's recorder when the workspace is bound to a central server (undefined: standalone). */
    recorderOf?: (services: Services) => ChangeRecorder | undefined,
    slowStatements?: SlowStatementLog,
  ) {
    this.store = new Store(db, slowStatements);
    this.evidence = new Evidence(this.store);
    this.hosts = new Hosts(this.store, this.evidence);
    this.visits = new Visits(this.store);
    this.hostSurvey = new HostSurvey(this.store, this.hosts);
    this.devices = new Devices(this.store);
    this.rulesetSources = new RulesetSources(this.store);
    this.outbox = new Outbox(this.store);
    this.syncMeta = new SyncMeta(this.store);
    this.syncBases = new SyncBases(this.store);
    this.remoteHistory = new RemoteHistory(this.store);
    this.mirrorRows = new MirrorRows(this.store);
    this.recorder = recorderOf?.(this);
    const recorder = this.recorder;
    if (recorder) this.store.localPk = () => recorder.newPk();
    this.tables = tablesOf(this.store);
    this.users = new Users(this.store);
    this.byResource = new Map(Object.values(this.tables).map((table) => [table.resource.name, table]));
    this.history = new History(this.store, (type, pk) => this.exists(type, pk));
  }

  /** The table of the resource called `name`. */
  tableOf(name: string): Table {
    const table = this.byResource.get(name);
    if (!table) throw new Error(`no table for resource ${name}`);
    return table;
  }

  /** Does `pk` name an existing object of the resource called `name`? */
  exists(name: string, pk: number): boolean {
    return this.byResource.get(name)?.exists(pk) ?? false;
  }

  /** First start of an empty workspace: vendor_device pk 1 describes this Outpost instance. */
  ensureInstanceDevice(): void {
    this.store.write(() => this.devices.ensureInstance(this.instance));
  }

  /** The name of the central server this workspace is bound to, if any (app.md §2). */
  boundRemote(): string | undefined {
    return this.syncMeta.get('remote');
  }

  close(): void {
    this.store.close();
  }
}
