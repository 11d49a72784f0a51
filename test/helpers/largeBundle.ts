/**
 * A large workspace bundle made from a small exported one, for the tests of a bundle's import that
 * must take long (seconds): copies of its first host identity, of its first probe (with that probe's
 * interfaces) and of its first history entry, each under new pks, addresses and names, its pk
 * sequences raised to match. Made here rather than through the API, which would take as long again.
 */
type Row = Record<string, unknown>;
export interface BundleFile {
  name: string;
  tables: Record<string, Row[]>;
  [key: string]: unknown;
}

const ipOf = (n: number) => `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;

export function enlarged(base: BundleFile, counts: { readonly hosts: number; readonly probes?: number; readonly history?: number }): BundleFile {
  const bundle: BundleFile = structuredClone(base);
  const { tables } = bundle;
  const maxPk = (table: string) => Math.max(0, ...(tables[table] ?? []).map((row) => Number(row.pk)));
  const host = tables.host_id?.[0];
  if (!host) throw new Error('the base bundle has no host identity to copy');
  let pk = maxPk('host_id');
  tables.host_id = [...tables.host_id!, ...Array.from({ length: counts.hosts }, (_, n) => ({ ...host, pk: ++pk, ip: ipOf(n + 1 + (1 << 20)) }))];
  const probe = tables.appliance?.[0];
  if (counts.probes && probe) {
    const interfaces = tables.network_interface!.filter((row) => row.probe === probe.pk);
    let probePk = maxPk('appliance');
    let interfacePk = maxPk('network_interface');
    for (let n = 0; n < counts.probes; n++) {
      const copy = { ...probe, pk: ++probePk, name: `probe-${n}`, address: ipOf(n + 1 + (2 << 20)) };
      tables.appliance!.push(copy);
      for (const row of interfaces) tables.network_interface!.push({ ...row, pk: ++interfacePk, probe: copy.pk });
    }
  }
  const entry = tables.user_action?.[0];
  if (counts.history && entry) {
    let entryPk = maxPk('user_action');
    for (let n = 0; n < counts.history; n++) tables.user_action!.push({ ...entry, pk: ++entryPk });
  }
  tables.sqlite_sequence = (tables.sqlite_sequence ?? []).map((row) => ({ ...row, seq: Math.max(Number(row.seq), maxPk(String(row.name))) }));
  return bundle;
}
