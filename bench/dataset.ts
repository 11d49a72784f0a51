/**
 * The benchmark's data set: first-family probes with 4 interfaces each under a 3-level template
 * tree (1 root → 10 regions → 100 sites), one site template with exactly 1,000 probes.
 * Templates go through the API itself; probes are inserted in one transaction with exactly
 * what a create under their template stores (the template's values and interfaces, a device).
 */
import fs from 'node:fs';
import path from 'node:path';
import { openWorkspace } from '../electron/workspaces/openWorkspace';
import { Owners, SCALARS } from '../electron/server/store/owners';
import type { Api } from '../electron/server/api';
import { bodyText } from '../electron/server/http/types';

export const BENCH_TOKEN = 'be0c4be0c4be0c4be0c4be0c4be0c4be0c4be0c4';
export const FLEET_SIZE = 1000;
const PER_SITE = 100;

export interface ProbeSpec {
  readonly name: string;
  readonly address: string;
  readonly location: string;
  readonly version: string;
  readonly serial: string;
  readonly descr: string;
  readonly enabled: boolean;
  /** Index of its site template (0 … 99); template 0 is the 1,000-probe fleet. */
  readonly site: number;
}

const CUSTOMERS = ['Acme', 'Globex', 'Initech', 'Umbrella', 'Hooli', 'Vandelay', 'Stark', 'Wayne', 'Tyrell', 'Cyberdyne'];
const CITIES = [
  'Paris', 'Lyon', 'Marseille', 'Toulouse', 'Nantes', 'Lille', 'Bordeaux', 'Rennes', 'Grenoble', 'Dijon',
  'Brussels', 'Antwerp', 'Geneva', 'Zurich', 'Basel', 'Madrid', 'Seville', 'Lisbon', 'Porto', 'Milan',
  'Turin', 'Munich', 'Hamburg', 'Cologne', 'Vienna', 'Prague', 'Warsaw', 'Krakow', 'Dublin', 'Leeds',
  'Bristol', 'Oslo', 'Bergen', 'Stockholm', 'Malmo', 'Aarhus', 'Helsinki', 'Tallinn', 'Riga', 'Vilnius',
  'Athens', 'Sofia', 'Bucharest', 'Zagreb', 'Ljubljana', 'Budapest', 'Bratislava', 'Luxembourg', 'Utrecht', 'Ghent',
];
const ROLES = ['core', 'dmz', 'edge', 'wifi', 'datacenter', 'factory', 'lab', 'vpn', 'branch', 'backbone'];
const BUILDINGS = ['North tower', 'South wing', 'Warehouse', 'Annex', 'Main hall', 'Plant B', 'Campus east', 'HQ'];

/**
 * The i-th probe, the same in both servers' data sets: 1,000 sites (customer × city, 100 probes
 * each), names like `glo-lyo-dmz-0042`, descriptions that vary by role and building.
 */
export function probeSpec(i: number, total: number): ProbeSpec {
  const site = i < FLEET_SIZE ? 0 : 1 + ((i - FLEET_SIZE) % 99);
  const siteIndex = Math.floor(i / PER_SITE);
  const customer = CUSTOMERS[siteIndex % CUSTOMERS.length]!;
  const city = CITIES[Math.floor(siteIndex / CUSTOMERS.length) % CITIES.length]!;
  const role = ROLES[(i * 7) % ROLES.length]!;
  const location = `${customer} ${city} ${Math.floor(siteIndex / (CUSTOMERS.length * CITIES.length)) + 1}`;
  return {
    name: `${customer.slice(0, 3).toLowerCase()}-${city.slice(0, 3).toLowerCase()}-${role}-${String(i).padStart(6, '0')}`,
    address: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`,
    location,
    version: ['7.0.3', '7.1.0', '8.0.1'][i % 3]!,
    serial: ((i * 2654435761) >>> 0).toString(36).toUpperCase().padStart(7, '0'),
    descr: `${role} segment, ${BUILDINGS[(i * 13) % BUILDINGS.length]}, floor ${i % 9}`,
    enabled: i % 10 !== 0,
    site,
  };
}

export const REGIONS = 10;
export const SITES = 100;
export const templateName = {
  root: 'tmpl-root',
  region: (r: number) => `tmpl-region-${r}`,
  site: (s: number) => `tmpl-site-${String(s).padStart(3, '0')}`,
};
const INTERFACES = [
  { name: 'eth0', active: true },
  { name: 'eth1', active: true },
  { name: 'eth2', active: false },
  { name: 'mgmt0', active: true },
];

function call(api: Api, method: string, p: string, body: unknown) {
  return api({
    method,
    path: p,
    rawQuery: '',
    headers: { host: 'localhost', authorization: `Token ${BENCH_TOKEN}`, 'content-type': 'application/json' },
    body: Buffer.from(JSON.stringify(body)),
    remoteAddress: '127.0.0.1',
    scheme: 'http',
  });
}

/** Build the Outpost data set into `dataDir` (workspace "default") unless it is there already. */
export async function buildOutpostDataset(dataDir: string, total: number, log: (line: string) => void): Promise<string> {
  const file = path.join(dataDir, 'workspaces', 'default.sqlite3');
  const marker = `${file}.complete-${total}`;
  if (fs.existsSync(marker)) return file;
  fs.rmSync(dataDir, { recursive: true, force: true });
  const started = Date.now();
  const workspace = openWorkspace({ file, instance: { name: 'outpost-bench', version: 'bench', address: '127.0.0.1' }, adminToken: BENCH_TOKEN });
  const { services, api } = workspace;
  const templatePks: number[] = [];
  const post = async (body: Record<string, unknown>) => {
    const reply = await call(api, 'POST', '/rest/appliances/vendor_probe_template/', body);
    if (reply.status !== 201) throw new Error(`template create failed: ${bodyText(reply)}`);
    return (JSON.parse(bodyText(reply)) as { pk: number }).pk;
  };
  const root = await post({ name: templateName.root, capture_threads: 4, interfaces: INTERFACES, protocols: [{ name: 'http' }, { name: 'tls' }] });
  const regions: number[] = [];
  for (let r = 0; r < REGIONS; r++) regions.push(await post({ name: templateName.region(r), parent_tmpl: root }));
  for (let s = 0; s < SITES; s++) templatePks.push(await post({ name: templateName.site(s), parent_tmpl: regions[s % REGIONS] }));

  const owners = new Owners(services.store, () => services.store.now());
  const table = services.tables.vendorProbe;
  const device = services.store.db.prepare("INSERT INTO vendor_device (kind, name, address, probe, version) VALUES ('probe', ?, ?, ?, ?)");
  const templates = templatePks.map((pk) => {
    const state = owners.state({ kind: 'template', pk })!;
    const interfaces = owners.items('interfaces', { kind: 'template', pk }).map((i) => [i.name, i.flag] as const);
    const protocols = owners.items('protocols', { kind: 'template', pk }).map((i) => [i.name, i.flag] as const);
    return { pk, scalars: state.scalars, interfaces, protocols };
  });
  const batch = 10_000;
  for (let start = 0; start < total; start += batch) {
    services.store.write(() => {
      for (let i = start; i < Math.min(total, start + batch); i++) {
        const spec = probeSpec(i, total);
        const parent = templates[spec.site]!;
        const now = services.store.now();
        const scalars: Record<string, string | number | boolean> = {};
        for (const field of SCALARS) {
          const value = parent.scalars[field];
          scalars[field] = field === 'pcap_capture' ? value === 1 : (value as string | number);
        }
        const pk = table.insert(
          {
            name: spec.name, descr: spec.descr, address: spec.address, location: spec.location, serial: spec.serial,
            version: spec.version, enabled: spec.enabled, parent_tmpl: parent.pk, overriden_fields: [], ...scalars,
          },
          { created: now, updated: now },
        );
        owners.setItems('interfaces', { kind: 'probe', pk }, parent.interfaces, []);
        owners.setItems('protocols', { kind: 'probe', pk }, parent.protocols, []);
        device.run(spec.name, spec.address, pk, spec.version);
      }
    });
    log(`  ${Math.min(total, start + batch)} probes`);
  }
  // A bulk load leaves the full-text index in many segments; merge them as an import would.
  services.store.db.exec("INSERT INTO appliance_search(appliance_search) VALUES ('optimize')");
  services.store.db.exec('ANALYZE');
  services.store.db.pragma('wal_checkpoint(TRUNCATE)');
  workspace.close();
  fs.writeFileSync(marker, new Date().toISOString());
  log(`data set of ${total} probes built in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return file;
}

/** The same probes and templates as a seed file of the reference server. */
export function referenceSeed(total: number): unknown {
  const templates: Record<string, unknown>[] = [
    { name: templateName.root, capture_threads: 4, interfaces: INTERFACES, protocols: [{ name: 'http' }, { name: 'tls' }] },
  ];
  for (let r = 0; r < REGIONS; r++) templates.push({ name: templateName.region(r), parent_tmpl: templateName.root });
  for (let s = 0; s < SITES; s++) templates.push({ name: templateName.site(s), parent_tmpl: templateName.region(s % REGIONS) });
  const probes = [];
  for (let i = 0; i < total; i++) {
    const spec = probeSpec(i, total);
    probes.push({
      name: spec.name, address: spec.address, location: spec.location, version: spec.version, serial: spec.serial,
      descr: spec.descr, enabled: spec.enabled, parent_tmpl: templateName.site(spec.site),
    });
  }
  return { vendor_probe_templates: templates, vendor_probes: probes };
}
