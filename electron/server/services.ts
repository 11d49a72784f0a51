/**
 * The embedded server's state for one open workspace database: the store, one Table per
 * resource, accounts and history. Handlers reach everything through this object; there is no
 * global state, so several workspaces can be served side by side (tests do).
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
} from '../../shared/resources';
import type { ChangeRecorder } from './changeRecorder';
import type { Db } from './store/database';
import { History } from './store/history';
import { Store } from './store/store';
import { Table } from './store/table';
import { Users } from './store/users';

export interface Instance {
  /** Name and version of this Outpost, shown as vendor_device pk 1. */
  readonly name: string;
  readonly version: string;
  readonly address: string;
}

function tablesOf(store: Store) {
  return {
    template: new Table(store, { resource: vendorProbeTemplate, table: 'vendor_probe_template', computed: ['interfaces', 'protocols'] }),
    vendorProbe: new Table(store, {
      resource: vendorProbe,
      table: 'appliance',
      scope: { column: 'type', value: 'vendor' },
      computed: ['interfaces', 'protocols', 'vendordevice_id'],
      fts: 'appliance_search',
    }),
    engineProbe: new Table(store, { resource: engineProbe, table: 'appliance', scope: { column: 'type', value: 'engine' }, fts: 'appliance_search' }),
    appliances: new Table(store, { resource: appliances, table: 'appliance', fts: 'appliance_search' }),
    vendorDevice: new Table(store, { resource: vendorDevice, table: 'vendor_device' }),
    networkInterface: new Table(store, { resource: networkInterface, table: 'network_interface' }),
    ruleset: new Table(store, { resource: ruleset, table: 'ruleset', computed: ['sources'] }),
    source: new Table(store, { resource: source, table: 'source' }),
    user: new Table(store, { resource: user, table: 'user' }),
    threat: new Table(store, { resource: threat, table: 'threat' }),
    history: new Table(store, { resource: history, table: 'user_action', computed: ['title', 'description', 'description_raw'] }),
  };
}

export type Tables = ReturnType<typeof tablesOf>;

export class Services {
  readonly store: Store;
  readonly tables: Tables;
  readonly users: Users;
  readonly history: History;
  readonly recorder: ChangeRecorder | undefined;
  private readonly byResource: ReadonlyMap<string, Table>;

  constructor(
    db: Db,
    readonly instance: Instance,
    /** Given when the workspace is bound to a central server: the outbox's recorder. */
    recorderOf?: (store: Store) => ChangeRecorder,
  ) {
    this.store = new Store(db);
    this.recorder = recorderOf?.(this.store);
    const recorder = this.recorder;
    if (recorder) this.store.localPk = () => recorder.newPk();
    this.tables = tablesOf(this.store);
    this.users = new Users(this.store);
    this.byResource = new Map(Object.values(this.tables).map((table) => [table.resource.name, table]));
    this.history = new History(this.store, (type, pk) => this.exists(type, pk));
  }

  /** Does `pk` name an existing object of the resource called `name`? */
  exists(name: string, pk: number): boolean {
    return this.byResource.get(name)?.exists(pk) ?? false;
  }

  /** First start of an empty workspace: vendor_device pk 1 describes this Outpost instance. */
  ensureInstanceDevice(): void {
    this.store.write(() => {
      const row = this.store.prepare('SELECT pk FROM vendor_device WHERE pk = 1').get();
      if (row) {
        this.store.prepare("UPDATE vendor_device SET name = ?, version = ? WHERE pk = 1 AND kind = 'central'").run(this.instance.name, this.instance.version);
      } else {
        this.store
          .prepare("INSERT INTO vendor_device (pk, kind, name, address, probe, version) VALUES (1, 'central', ?, ?, NULL, ?)")
          .run(this.instance.name, this.instance.address, this.instance.version);
      }
    });
  }

  close(): void {
    this.store.close();
  }
}
