/**
 * The site report's content (issue 24 §3, docs/report.md), gathered from the host list one host at
 * a time in bounded memory: counts, the period the evidence covers, hosts per network, roles with
 * their hosts, services by port and protocol, TLS certificates with their hosts, users per host
 * (only when asked: personal data), hosts first seen over time. What the engineer compares and
 * where the data came from (the imports, their files) are inputs. Beyond its limits a section
 * keeps counts and says so: nothing is dropped silently. No I/O.
 */
import { valuesAt, type HostComparison, type HostFilter, type HostRow, type Visit } from '../app/hostSurvey';
import type { JsonObject, JsonValue } from '../resources/fields';

/** What the report is made of besides the hosts: gathered by the server (electron/app/hostExport.ts). */
export interface ReportInputs {
  readonly workspace: string;
  /** The Outpost version that made it. */
  readonly version: string;
  /** When it was made (ISO, UTC). */
  readonly madeAt: string;
  readonly homeNets: readonly string[];
  /** The imports and pulls whose evidence it reports, with their files and SHA-256. */
  readonly visits: readonly Visit[];
  /** How many imports and pulls are recorded (more than `visits` when only the latest are listed). */
  readonly visitsTotal?: number;
  /** What changed since the chosen import, or null when none was chosen. */
  readonly changes: HostComparison | null;
  /** Users per host: only when the engineer asks (usernames are personal data). */
  readonly users: boolean;
  /** The part of the list reported (empty: every host). */
  readonly filter: HostFilter;
}

export interface ReportLimits {
  /** Groups shown per section (networks, roles, services, certificates), the largest first. */
  readonly groups: number;
  /** Hosts named per group. */
  readonly hostsPerGroup: number;
  /** Rows of the users and changes tables. */
  readonly rows: number;
  /** Host addresses kept over all groups: the memory bound on a site of millions of hosts. */
  readonly sampleBudget: number;
}

export const REPORT_LIMITS: ReportLimits = { groups: 100, hostsPerGroup: 50, rows: 2000, sampleBudget: 200_000 };

/** A group of hosts: a network, a role, a service, a certificate. */
export interface HostGroup {
  readonly key: string;
  /** Hosts in the group. */
  readonly count: number;
  /** Some of them, in the list's order (at most `hostsPerGroup`). */
  readonly hosts: readonly string[];
  /** Details of the group (a service's application protocols; a certificate's issuer, fingerprint, ports). */
  readonly details: readonly string[];
}

export interface GroupSection {
  /** The largest groups (at most `groups`), largest first, then by key. */
  readonly groups: readonly HostGroup[];
  /** All groups, shown or not. */
  readonly total: number;
}

export interface UserRow {
  readonly ip: string;
  readonly users: readonly string[];
}

export interface SiteReport {
  readonly inputs: ReportInputs;
  readonly limits: ReportLimits;
  readonly hosts: number;
  readonly inHomeNet: number;
  readonly withUsers: number;
  readonly tlsServers: number;
  readonly bySource: Readonly<Record<'local' | 'central' | 'both', number>>;
  /** The earliest first_seen and the latest last_seen of the hosts reported (null when none). */
  readonly period: { readonly from: string | null; readonly to: string | null };
  readonly networks: GroupSection;
  readonly roles: GroupSection;
  readonly services: GroupSection;
  readonly certificates: GroupSection;
  /** Only when `inputs.users`; the first `rows` hosts with users, and how many have some. */
  readonly users: { readonly rows: readonly UserRow[]; readonly total: number } | null;
  /** Hosts first seen per day (YYYY-MM-DD, UTC), in order. */
  readonly firstSeen: readonly { readonly day: string; readonly count: number }[];
}

class Groups {
  private readonly map = new Map<string, { count: number; hosts: string[]; details: Set<string> }>();

  constructor(private readonly budget: { left: number }, private readonly perGroup: number) {}

  add(key: string, ip: string, details: readonly string[] = []): void {
    let group = this.map.get(key);
    if (!group) {
      group = { count: 0, hosts: [], details: new Set() };
      this.map.set(key, group);
    }
    group.count++;
    if (group.hosts.length < this.perGroup && this.budget.left > 0) {
      group.hosts.push(ip);
      this.budget.left--;
    }
    // A group's details are few (a service's protocols, a certificate's ports); bounded anyway.
    for (const detail of details) if (group.details.size < 20) group.details.add(detail);
  }

  section(limit: number): GroupSection {
    const groups = [...this.map.entries()]
      .map(([key, g]) => ({ key, count: g.count, hosts: g.hosts, details: [...g.details] }))
      .sort((a, b) => b.count - a.count || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    return { groups: groups.slice(0, limit), total: groups.length };
  }
}

function object(value: JsonValue | undefined): JsonObject | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? value : undefined;
}

function text(value: JsonValue | undefined): string | undefined {
  return typeof value === 'string' ? value : typeof value === 'number' ? String(value) : undefined;
}

/** Gathers the report's content from the hosts, one at a time. */
export class SiteReportBuilder {
  private hosts = 0;
  private inHomeNet = 0;
  private withUsers = 0;
  private tlsServers = 0;
  private readonly bySource = { local: 0, central: 0, both: 0 };
  private from: string | null = null;
  private to: string | null = null;
  private readonly budget: { left: number };
  private readonly networks: Groups;
  private readonly roles: Groups;
  private readonly services: Groups;
  private readonly certificates: Groups;
  private readonly userRows: UserRow[] = [];
  private readonly firstSeen = new Map<string, number>();

  constructor(
    private readonly inputs: ReportInputs,
    private readonly limits: ReportLimits = REPORT_LIMITS,
  ) {
    this.budget = { left: limits.sampleBudget };
    this.networks = new Groups(this.budget, limits.hostsPerGroup);
    this.roles = new Groups(this.budget, limits.hostsPerGroup);
    this.services = new Groups(this.budget, limits.hostsPerGroup);
    this.certificates = new Groups(this.budget, limits.hostsPerGroup);
  }

  add(row: HostRow): void {
    const identity = row.host_id;
    this.hosts++;
    this.bySource[row.source]++;
    if (identity.in_home_net === true) this.inHomeNet++;
    const first = text(identity.first_seen);
    const last = text(identity.last_seen);
    // Times are ISO with the same offset (+00:00): their texts order as the times do.
    if (first !== undefined && (this.from === null || first < this.from)) this.from = first;
    if (last !== undefined && (this.to === null || last > this.to)) this.to = last;
    const day = first === undefined ? undefined : dayOf(first);
    if (day !== undefined) {
      this.firstSeen.set(day, (this.firstSeen.get(day) ?? 0) + 1);
    }
    for (const network of valuesAt(identity, 'net_info.agg')) this.networks.add(network, row.ip);
    for (const role of valuesAt(identity, 'roles.name')) this.roles.add(role, row.ip);
    const users = valuesAt(identity, 'username.user');
    if (users.length > 0) {
      this.withUsers++;
      if (this.inputs.users && this.userRows.length < this.limits.rows) this.userRows.push({ ip: row.ip, users });
    }
    this.addServices(row.ip, identity.services);
  }

  private addServices(ip: string, services: JsonValue | undefined): void {
    if (!Array.isArray(services)) return;
    const seen = new Set<string>();
    const certificates = new Set<string>();
    let tls = false;
    for (const service of services) {
      const s = object(service);
      if (!s) continue;
      const port = text(s.port);
      if (port === undefined) continue;
      const key = `${port}${typeof s.proto === 'string' && s.proto !== '' ? `/${s.proto}` : ''}`;
      const apps: string[] = [];
      for (const value of Array.isArray(s.values) ? s.values : []) {
        const v = object(value);
        if (!v) continue;
        const app = text(v.app_proto);
        if (app !== undefined && app !== '') apps.push(app);
        const cert = object(v.tls);
        if (cert) {
          tls = true;
          const subject = text(cert.subject) ?? '';
          const fingerprint = text(cert.fingerprint) ?? '';
          const certKey = `${subject}\u0000${fingerprint}`;
          if (!certificates.has(certKey)) {
            certificates.add(certKey);
            this.certificates.add(certKey, ip, [`issuer: ${text(cert.issuerdn) ?? '?'}`, `port: ${key}`]);
          }
        }
      }
      if (!seen.has(key)) {
        seen.add(key);
        this.services.add(key, ip, apps);
      }
    }
    if (tls) this.tlsServers++;
  }

  report(): SiteReport {
    const { limits } = this;
    return {
      inputs: this.inputs,
      limits,
      hosts: this.hosts,
      inHomeNet: this.inHomeNet,
      withUsers: this.withUsers,
      tlsServers: this.tlsServers,
      bySource: { ...this.bySource },
      period: { from: this.from, to: this.to },
      networks: this.networks.section(limits.groups),
      roles: this.roles.section(limits.groups),
      services: this.services.section(limits.groups),
      certificates: this.certificates.section(limits.groups),
      users: this.inputs.users ? { rows: this.userRows, total: this.withUsers } : null,
      firstSeen: [...this.firstSeen.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([day, count]) => ({ day, count })),
    };
  }
}

/** The UTC day (YYYY-MM-DD) of an ISO time that names a real one. */
function dayOf(time: string): string | undefined {
  const ms = Date.parse(time);
  if (Number.isNaN(ms)) return undefined;
  const day = new Date(ms).toISOString().slice(0, 10);
  return /^\d{4}-\d{2}-\d{2}$/.test(day) ? day : undefined;
}

/** A certificate group's key as its subject and fingerprint. */
export function certificateOf(key: string): { readonly subject: string; readonly fingerprint: string } {
  const at = key.indexOf('\u0000');
  return at < 0 ? { subject: key, fingerprint: '' } : { subject: key.slice(0, at), fingerprint: key.slice(at + 1) };
}

