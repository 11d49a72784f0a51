/**
 * One address's host identity (api.md §7) from the local data: first/last seen, home net,
 * networks, then one table per list (hostnames, users, roles, agents, fingerprints, SSH clients,
 * services with their details), and "nothing known" when the API answers `{ip, hits: 0}`. Every
 * value is shown bounded (components/BoundedText.tsx): a host file or an EVE log may hold 100 KB
 * in one.
 */
import { useId, type ReactNode } from 'react';
import { hostId, type HostListName, type JsonObject, type JsonValue } from '../../../shared/resources';
import { listPath } from '../../../shared/resources/derived';
import { useObject } from '../hooks';
import { BoundedText } from '../components/BoundedText';
import { DateTime } from '../components/DateTime';

function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function itemsOf(hostId: JsonObject, list: HostListName): JsonObject[] {
  const value = hostId[list];
  return Array.isArray(value) ? value.filter(isObject) : [];
}

function text(value: JsonValue | undefined): string {
  if (value === null || value === undefined) return '';
  if (Array.isArray(value)) return value.map((v) => text(v)).join(', ');
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/** A value of the identity as the page shows it: at most 256 characters until asked for all. */
function Value({ value, label }: { value: JsonValue | undefined; label: string }) {
  return <BoundedText value={text(value)} label={label} />;
}

function Seen({ value }: { value: JsonValue | undefined }) {
  return <DateTime value={typeof value === 'string' ? value : value === undefined || value === null ? undefined : String(value)} />;
}

interface Column {
  readonly title: string;
  readonly cell: (item: JsonObject) => ReactNode;
}

interface Section {
  readonly list: HostListName;
  readonly title: string;
  /** How the section is named in "nothing known of …". */
  readonly plural: string;
  readonly columns: readonly Column[];
}

const seenColumns: readonly Column[] = [
  { title: 'First seen', cell: (item) => <Seen value={item.first_seen} /> },
  { title: 'Last seen', cell: (item) => <Seen value={item.last_seen} /> },
];

const simple = (list: HostListName, title: string, plural: string, column: string, key: string): Section => ({
  list,
  title,
  plural,
  columns: [{ title: column, cell: (item) => <Value value={item[key]} label={column} /> }, ...seenColumns],
});

const fingerprints = (list: HostListName, title: string, plural: string): Section => ({
  list,
  title,
  plural,
  columns: [
    {
      title: 'Hash',
      cell: (item) => (
        <code>
          <Value value={item.hash} label="Hash" />
        </code>
      ),
    },
    {
      title: 'Agents',
      cell: (item) =>
        Array.isArray(item.agent) && item.agent.length > 0 ? (
          <ul className="plain">
            {item.agent.map((agent, i) => (
              <li key={i}>
                <Value value={agent} label="Agent" />
              </li>
            ))}
          </ul>
        ) : (
          <span className="muted">none</span>
        ),
    },
    ...seenColumns,
  ],
});

const SECTIONS: readonly Section[] = [
  simple('hostname', 'Hostnames', 'hostnames', 'Hostname', 'host'),
  simple('username', 'Usernames', 'usernames', 'User', 'user'),
  simple('roles', 'Roles', 'roles', 'Role', 'name'),
  simple('client_service', 'Client services', 'client services', 'Protocol', 'name'),
  simple('http.user_agent', 'HTTP user agents', 'HTTP user agents', 'User agent', 'agent'),
  fingerprints('tls.ja3', 'TLS JA3 fingerprints', 'TLS JA3 fingerprints'),
  fingerprints('tls.ja4', 'TLS JA4 fingerprints', 'TLS JA4 fingerprints'),
  simple('ssh.client', 'SSH clients', 'SSH clients', 'Software version', 'software_version'),
];

function ListTable({ section, items }: { section: Section; items: readonly JsonObject[] }) {
  const id = useId();
  return (
    <section className="host-section">
      <h3 id={id}>
        {section.title} <span className="badge">{items.length}</span>
      </h3>
      <table className="data" aria-labelledby={id}>
        <thead>
          <tr>
            {section.columns.map((c) => (
              <th key={c.title} scope="col">
                {c.title}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {items.map((item, i) => (
            <tr key={i}>
              {section.columns.map((c) => (
                <td key={c.title}>{c.cell(item)}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

/** What a service's value says of the server: its HTTP server, TLS certificate, SSH software. */
function ServiceDetails({ value }: { value: JsonObject }) {
  const facts: [string, string][] = [];
  if (isObject(value.http) && value.http.server !== undefined) facts.push(['HTTP server', text(value.http.server)]);
  if (isObject(value.tls)) {
    if (value.tls.subject !== undefined) facts.push(['TLS subject', text(value.tls.subject)]);
    if (value.tls.issuerdn !== undefined) facts.push(['TLS issuer', text(value.tls.issuerdn)]);
    if (value.tls.fingerprint !== undefined) facts.push(['TLS fingerprint', text(value.tls.fingerprint)]);
  }
  if (isObject(value.ssh) && isObject(value.ssh.server)) facts.push(['SSH server', text(value.ssh.server.software_version)]);
  if (facts.length === 0) return <span className="muted">—</span>;
  return (
    <dl className="service-facts">
      {facts.map(([term, detail]) => (
        <div key={term}>
          <dt>{term}</dt>
          <dd>
            <BoundedText value={detail} label={term} />
          </dd>
        </div>
      ))}
    </dl>
  );
}

function ServicesTable({ services }: { services: readonly JsonObject[] }) {
  const id = useId();
  const rows = services.flatMap((service, s) => {
    const values = Array.isArray(service.values) ? service.values.filter(isObject) : [];
    return (values.length > 0 ? values : [undefined]).map((value, v) => ({ key: `${s}-${v}`, service, value }));
  });
  return (
    <section className="host-section">
      <h3 id={id}>
        Services <span className="badge">{services.length}</span>
      </h3>
      <table className="data" aria-labelledby={id}>
        <thead>
          <tr>
            <th scope="col">Service</th>
            <th scope="col">App protocol</th>
            <th scope="col">Details</th>
            <th scope="col">Seen</th>
          </tr>
        </thead>
        <tbody>
          {rows.map(({ key, service, value }) => (
            <tr key={key}>
              <td className="service-port">
                <Value value={service.proto} label="Protocol" />/<Value value={service.port} label="Port" />
              </td>
              <td>{value ? <Value value={value.app_proto} label="App protocol" /> : '—'}</td>
              <td className="service-details">{value ? <ServiceDetails value={value} /> : null}</td>
              <td className="seen-range">
                {value ? (
                  <>
                    <span>
                      from <Seen value={value.first_seen} />
                    </span>
                    <span>
                      to <Seen value={value.last_seen} />
                    </span>
                  </>
                ) : null}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

export function HostIdentity({ ip, hits, hostId }: { ip: string; hits: JsonValue | undefined; hostId: JsonObject }) {
  const networks = itemsOf(hostId, 'net_info');
  const services = itemsOf(hostId, 'services');
  const known = SECTIONS.filter((s) => itemsOf(hostId, s.list).length > 0);
  const unknown = SECTIONS.filter((s) => itemsOf(hostId, s.list).length === 0).map((s) => s.plural);
  if (services.length === 0) unknown.push('services');
  return (
    <article className="host-identity" aria-labelledby="host-title">
      <header className="detail-head">
        <h2 id="host-title">{ip}</h2>
        <span className={`badge ${hostId.in_home_net === true ? 'home' : 'internet'}`}>{hostId.in_home_net === true ? 'in home net' : 'outside home net'}</span>
      </header>
      <dl className="facts">
        <dt>First seen</dt>
        <dd>
          <Seen value={hostId.first_seen} />
        </dd>
        <dt>Last seen</dt>
        <dd>
          <Seen value={hostId.last_seen} />
        </dd>
        <dt>In home net</dt>
        <dd>{hostId.in_home_net === true ? 'yes' : 'no'}</dd>
        <dt>Alert hits</dt>
        <dd>{text(hits ?? 0)}</dd>
      </dl>
      {networks.length > 0 && (
        <ListTable
          section={{ list: 'net_info', title: 'Networks', plural: 'networks', columns: [{ title: 'Network', cell: (item) => <Value value={item.agg} label="Network" /> }, ...seenColumns] }}
          items={networks}
        />
      )}
      {services.length > 0 && <ServicesTable services={services} />}
      {known.map((section) => (
        <ListTable key={section.list} section={section} items={itemsOf(hostId, section.list)} />
      ))}
      {unknown.length > 0 && <p className="muted nothing-of">Nothing known of its {unknown.join(', ')}.</p>}
    </article>
  );
}

/** The host view of `ip`: loads it and shows the identity, "nothing known", or the API's error. */
export function HostView({ ip, actions }: { ip: string; actions: ReactNode }) {
  const host = useObject(`${listPath(hostId)}${encodeURIComponent(ip)}`);
  let body: ReactNode;
  if (host.error) {
    body = (
      <p className="notice error" role="alert">
        {host.error.message}
      </p>
    );
  } else if (!host.data || host.loading) {
    body = (
      <p className="loading" role="status">
        Loading…
      </p>
    );
  } else if (isObject(host.data.host_id)) {
    body = <HostIdentity ip={text(host.data.ip)} hits={host.data.hits} hostId={host.data.host_id} />;
  } else {
    body = (
      <div className="host-unknown">
        <h2 id="host-title">{text(host.data.ip)}</h2>
        <p className="notice info" role="status">
          Nothing known of this address in this workspace{Number(host.data.hits) > 0 ? ` (alert hits: ${text(host.data.hits)})` : ''}. Import host identities, or
          sync with the central server, to learn about it.
        </p>
      </div>
    );
  }
  return (
    <div className="host-view">
      {actions}
      {body}
    </div>
  );
}
