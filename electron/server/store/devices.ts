/**
 * Vendor devices (api.md §3.7): pk 1 describes the central server (this Outpost when
 * standalone, the mirrored one when bound), and each first-family probe has one device.
 */
import type { Store } from './store';

export interface DeviceInfo {
  readonly name: string;
  readonly address: string;
  readonly version: string;
}

export class Devices {
  constructor(private readonly store: Store) {}

  /** Device pk by probe pk, for the probes that have one. */
  ofProbes(probes: readonly number[]): Map<number, number> {
    const rows = this.store
      .query('SELECT probe, pk FROM vendor_device WHERE probe IN (SELECT value FROM json_each(?))')
      .raw()
      .all(JSON.stringify(probes)) as [number, number][];
    return new Map(rows);
  }

  /** A new probe's device (pk given in a bound workspace, else the next one). */
  addForProbe(probe: number, info: DeviceInfo, pk: number | null): void {
    this.store
      .command("INSERT INTO vendor_device (pk, kind, name, address, probe, version) VALUES (?, 'probe', ?, ?, ?, ?)")
      .run(pk, info.name, info.address, probe, info.version);
  }

  updateForProbe(probe: number, info: DeviceInfo): void {
    this.store.command('UPDATE vendor_device SET name = ?, address = ?, version = ? WHERE probe = ?').run(info.name, info.address, info.version, probe);
  }

  /** The probe's device as the central server has it: `pk`, or none (null). */
  putForProbe(probe: number, pk: number | null, info: DeviceInfo): void {
    this.store.command('DELETE FROM vendor_device WHERE probe = ? AND pk IS NOT ?').run(probe, pk);
    if (pk === null) return;
    this.store
      .command(
        `INSERT INTO vendor_device (pk, kind, name, address, probe, version) VALUES (?, 'probe', ?, ?, ?, ?)
         ON CONFLICT(pk) DO UPDATE SET kind = 'probe', name = excluded.name, address = excluded.address, probe = excluded.probe, version = excluded.version`,
      )
      .run(pk, info.name, info.address, probe, info.version);
  }

  /** The central server's device (pk as the central server numbers it). */
  putCentral(pk: number, info: DeviceInfo): void {
    this.store
      .command(
        `INSERT INTO vendor_device (pk, kind, name, address, probe, version) VALUES (?, 'central', ?, ?, NULL, ?)
         ON CONFLICT(pk) DO UPDATE SET kind = 'central', name = excluded.name, address = excluded.address, probe = NULL, version = excluded.version`,
      )
      .run(pk, info.name, info.address, info.version);
  }

  /** pks of the central server's devices. */
  centralPks(): number[] {
    return this.store.query("SELECT pk FROM vendor_device WHERE kind = 'central'").pluck().all() as number[];
  }

  /** First start of an empty standalone workspace: pk 1 describes this Outpost (its name and version kept up to date). */
  ensureInstance(info: DeviceInfo): void {
    const row = this.store.query('SELECT pk FROM vendor_device WHERE pk = 1').get();
    if (row) {
      // Written only when it changed: opening a workspace writes nothing otherwise (a full disk still serves).
      this.store
        .command("UPDATE vendor_device SET name = ?, version = ? WHERE pk = 1 AND kind = 'central' AND (name IS NOT ? OR version IS NOT ?)")
        .run(info.name, info.version, info.name, info.version);
    } else {
      this.store.command("INSERT INTO vendor_device (pk, kind, name, address, probe, version) VALUES (1, 'central', ?, ?, NULL, ?)").run(info.name, info.address, info.version);
    }
  }
}
