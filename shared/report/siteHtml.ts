/**
 * The site report as one self-contained HTML file (issue 24 §3, docs/report.md): no script, no
 * network, nothing but the file; a Content-Security-Policy of `default-src 'none'` whose only
 * allowance is this file's own stylesheet, by its hash; every value from the data escaped for the
 * element it is in (SVG labels included), made readable (control and bidirectional characters
 * visible) and cut past SHOWN_CHARS; a section larger than its limit says how many it left out
 * and how to get them all (the CSV export). Print CSS makes it an A4 document: no clipping (long
 * values wrap), headings kept with what follows, table headers repeated. No I/O.
 */
import { CHANGE_KIND_LABELS, CHANGE_KINDS, hostFilterQuery, type HostFilter } from '../app/hostSurvey';
import { base64, sha256 } from '../text/sha256';
import { escapeHtml } from './html';
import { shortened } from './readable';
import { certificateOf, type GroupSection, type HostGroup, type SiteReport } from './siteModel';
import { barChart, binnedDays, timeChart } from './svgCharts';

export const REPORT_STYLE = `
:root { color-scheme: light; }
body { font: 10.5pt/1.4 system-ui, "Segoe UI", "DejaVu Sans", sans-serif; color: #111; margin: 2em auto; max-width: 60em; padding: 0 1em; }
h1 { font-size: 1.7em; margin: 0 0 .3em; }
h2 { font-size: 1.25em; margin: 1.6em 0 .5em; border-bottom: 1px solid #999; padding-bottom: .15em; break-after: avoid; page-break-after: avoid; }
h3 { font-size: 1.05em; margin: 1em 0 .3em; break-after: avoid; page-break-after: avoid; }
p, li, td, th, dd { overflow-wrap: anywhere; word-break: break-word; }
table { border-collapse: collapse; width: 100%; table-layout: fixed; margin: .4em 0 1em; }
thead { display: table-header-group; }
tr { break-inside: avoid; page-break-inside: avoid; }
th, td { border: 1px solid #bbb; padding: .2em .4em; text-align: left; vertical-align: top; }
th { background: #eee; }
td.n, th.n { text-align: right; width: 6em; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: .15em 1em; }
dl.facts dt { font-weight: 600; }
dl.facts dd { margin: 0; }
code, .mono { font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: .92em; }
.note { color: #444; font-style: italic; }
.hosts { font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: .9em; }
svg.chart { display: block; max-width: 100%; height: auto; margin: .5em 0 1em; break-inside: avoid; page-break-inside: avoid; }
svg.chart text { font: 10px system-ui, "DejaVu Sans", sans-serif; fill: #111; }
svg.chart .bar { fill: #3566a8; }
@page { size: A4; margin: 14mm 12mm; }
@media print {
  body { margin: 0; max-width: none; padding: 0; font-size: 9.5pt; }
  section { break-before: auto; }
  a { color: inherit; text-decoration: none; }
}
`;

/** The CSP hash source of the report's stylesheet. */
export const REPORT_STYLE_HASH = `sha256-${base64(sha256(REPORT_STYLE))}`;

export const REPORT_CSP = `default-src 'none'; style-src '${REPORT_STYLE_HASH}'`;

const e = (value: string): string => escapeHtml(shortened(value));

/** How the engineer gets the whole of a group: the CLI command and the app's place, as text. */
function fullList(q: string): string {
  const quoted = `'${q.replace(/'/g, `'\\''`)}'`;
  return `outpost hosts export --format csv --q ${quoted} --out hosts.csv`;
}

/** A `host_id_qfilter` value quoted (backslash before `"` and `\\`). */
function quoted(value: string): string {
  return `"${value.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}

function countText(n: number, one: string, many = `${one}s`): string {
  return `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;
}

function hostsCell(group: HostGroup, q: string): string {
  const listed = group.hosts.map((ip) => escapeHtml(ip)).join(', ');
  if (group.hosts.length >= group.count) return `<td class="hosts">${listed}</td>`;
  return `<td class="hosts">${listed}${listed === '' ? '' : ' '}<span class="note">(${group.hosts.length} of ${group.count} listed; all: <code>${e(fullList(q))}</code>)</span></td>`;
}

function sectionNote(section: GroupSection, what: string): string {
  return section.total > section.groups.length ? `<p class="note">The ${section.groups.length} largest of ${countText(section.total, what)} are shown; the CSV export lists every host with its ${what}s.</p>` : '';
}

function groupTable(section: GroupSection, head: string, q: (key: string) => string, key: (g: HostGroup) => string = (g) => `<td>${e(g.key)}</td>`, details = false): string {
  if (section.groups.length === 0) return '<p class="note">None.</p>';
  const rows = section.groups.map(
    (g) => `<tr>${key(g)}${details ? `<td>${g.details.map(e).join('<br>')}</td>` : ''}<td class="n">${g.count}</td>${hostsCell(g, q(g.key))}</tr>`,
  );
  return `<table><thead><tr>${head}<th class="n">Hosts</th><th>Addresses</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

function filterText(filter: HostFilter): string {
  const params = hostFilterQuery(filter);
  const parts = Object.entries(params).map(([name, value]) => `${name}=${value}`);
  return parts.length === 0 ? 'every host of the workspace' : `the hosts of ${parts.join(', ')}`;
}

const CHANGE_LABELS = CHANGE_KIND_LABELS;

function bytesText(n: number): string {
  return n < 1024 ? `${n} B` : n < 1024 ** 2 ? `${(n / 1024).toFixed(1)} KiB` : n < 1024 ** 3 ? `${(n / 1024 ** 2).toFixed(1)} MiB` : `${(n / 1024 ** 3).toFixed(2)} GiB`;
}

function sourcesSection(report: SiteReport): string {
  const { visits } = report.inputs;
  if (visits.length === 0) return '<h2 id="sources">Sources</h2><p class="note">No import of this workspace is recorded (its hosts came before imports were recorded, or from the central server).</p>';
  const rows = visits.map((visit) => {
    const files = visit.files.length === 0 ? '<span class="note">no file (a pull from the central server)</span>' : visit.files.map((f) => `${e(f.name)} <span class="note">(${bytesText(f.size)}${f.from > 0 ? `, from byte ${f.from}` : ''}, ${f.lines} lines)</span><br><code>SHA-256 ${e(f.sha256)}</code>`).join('<br>');
    return `<tr><td>${e(visit.at)}</td><td>${e(visit.kind)}</td><td>${e(visit.user)}</td><td>${files}</td><td class="n">${visit.hostsNew}</td><td class="n">${visit.hostsUpdated}</td></tr>`;
  });
  const total = report.inputs.visitsTotal ?? visits.length;
  const more = total > visits.length ? `<p class="note">The latest ${visits.length} of ${total} imports and pulls; all of them: <code>outpost hosts imports</code>.</p>` : '';
  return `<h2 id="sources">Sources</h2><table><thead><tr><th>When</th><th>Kind</th><th>By</th><th>Files</th><th class="n">New</th><th class="n">Updated</th></tr></thead><tbody>${rows.join('')}</tbody></table>${more}`;
}

function changesSection(report: SiteReport): string {
  const { changes } = report.inputs;
  if (!changes) return '';
  const totals = CHANGE_KINDS.map((kind) => `<tr><td>${CHANGE_LABELS[kind]}</td><td class="n">${changes.totals[kind]}</td></tr>`).join('');
  const shown = changes.changes.slice(0, report.limits.rows);
  const all = CHANGE_KINDS.reduce((sum, kind) => sum + changes.totals[kind], 0);
  const rows = shown
    .map((c) => `<tr><td>${CHANGE_LABELS[c.kind]}</td><td class="mono">${e(c.ip)}</td><td>${c.value === null ? '' : e(c.value)}${c.previous === null ? '' : `<br><span class="note">was ${e(c.previous)}</span>`}</td></tr>`)
    .join('');
  const more = all > shown.length ? `<p class="note">${shown.length} of ${countText(all, 'change')} are listed; <code>outpost hosts diff --since … --json</code> gives them all.</p>` : '';
  return (
    `<h2 id="changes">What changed since ${e(changes.since.label)}</h2><p>From ${e(changes.since.label)} to ${e(changes.until.label)}.</p>` +
    `<table><thead><tr><th>Change</th><th class="n">Count</th></tr></thead><tbody>${totals}</tbody></table>` +
    (rows === '' ? '' : `<table><thead><tr><th>Change</th><th>Address</th><th>Value</th></tr></thead><tbody>${rows}</tbody></table>`) +
    more
  );
}

function usersSection(report: SiteReport): string {
  if (!report.users) return '';
  const { rows, total } = report.users;
  const body = rows.map((r) => `<tr><td class="mono">${escapeHtml(r.ip)}</td><td>${r.users.map(e).join('<br>')}</td></tr>`).join('');
  const more = total > rows.length ? `<p class="note">${rows.length} of ${countText(total, 'host')} with users are listed; the CSV export with the users column lists them all.</p>` : '';
  return `<h2 id="users">Users per host</h2><p class="note">Usernames are personal data: this section is in the report because it was asked for.</p>${rows.length === 0 ? '<p class="note">None.</p>' : `<table><thead><tr><th>Address</th><th>Users</th></tr></thead><tbody>${body}</tbody></table>`}${more}`;
}

/** The whole report. */
export function renderSiteReport(report: SiteReport): string {
  const { inputs } = report;
  const title = `Site report: ${inputs.workspace}`;
  const period = report.period.from === null ? 'no evidence time known' : `${e(report.period.from)} to ${e(report.period.to ?? report.period.from)}`;
  const facts: [string, string][] = [
    ['Workspace', e(inputs.workspace)],
    ['Hosts reported', `${report.hosts.toLocaleString('en-US')} (${e(filterText(inputs.filter))})`],
    ['Period covered', period],
    ['In the home networks', report.inHomeNet.toLocaleString('en-US')],
    ['With users', report.withUsers.toLocaleString('en-US')],
    ['Running a TLS server', report.tlsServers.toLocaleString('en-US')],
    ['Evidence from', `local imports only ${report.bySource.local}, the central server or a host file only ${report.bySource.central}, both ${report.bySource.both}`],
    ['Home networks', inputs.homeNets.length === 0 ? '<span class="note">none set (every address counts as internet)</span>' : inputs.homeNets.map(e).join(', ')],
    ['Times', 'UTC (ISO 8601); the evidence times are the logs’ own'],
    ['Made', `${e(inputs.madeAt)} by Outpost ${e(inputs.version)}`],
  ];
  const netQ = (key: string) => `host_id.net_info.agg:${quoted(key)}`;
  const roleQ = (key: string) => `host_id.roles.name:${quoted(key)}`;
  const serviceQ = (key: string) => {
    const [port, proto] = key.split('/');
    return `host_id.services.port:${quoted(port ?? key)}${proto === undefined ? '' : ` AND host_id.services.proto:${quoted(proto)}`}`;
  };
  const certQ = (key: string) => `host_id.services.values.tls.fingerprint:${quoted(certificateOf(key).fingerprint)}`;
  const bars = (section: GroupSection) => section.groups.slice(0, 20).map((g) => ({ label: g.key, count: g.count }));
  const body = [
    `<header><h1>${e(title)}</h1><p class="note">A survey of the hosts Outpost knows in this workspace, from the evidence of the sources below.</p></header>`,
    `<section><h2 id="summary">Summary</h2><dl class="facts">${facts.map(([k, v]) => `<dt>${k}</dt><dd>${v}</dd>`).join('')}</dl></section>`,
    `<section>${sourcesSection(report)}</section>`,
    changesSection(report) === '' ? '' : `<section>${changesSection(report)}</section>`,
    `<section><h2 id="networks">Hosts per network</h2>${barChart('Hosts per network', bars(report.networks))}${sectionNote(report.networks, 'network')}${groupTable(report.networks, '<th>Network</th>', netQ)}</section>`,
    `<section><h2 id="roles">Roles</h2>${sectionNote(report.roles, 'role')}${groupTable(report.roles, '<th>Role</th>', roleQ)}</section>`,
    `<section><h2 id="services">Services by port and protocol</h2>${barChart('Hosts per service', bars(report.services))}${sectionNote(report.services, 'service')}${groupTable(report.services, '<th>Port/protocol</th><th>Application protocols</th>', serviceQ, undefined, true)}</section>`,
    `<section><h2 id="certificates">TLS certificates</h2>${sectionNote(report.certificates, 'certificate')}${groupTable(
      report.certificates,
      '<th>Subject</th><th>Issuer, port</th>',
      certQ,
      (g) => {
        const { subject, fingerprint } = certificateOf(g.key);
        return `<td>${e(subject)}${fingerprint === '' ? '' : `<br><code>${e(fingerprint)}</code>`}</td>`;
      },
      true,
    )}</section>`,
    `<section><h2 id="first-seen">Hosts first seen over time</h2>${report.firstSeen.length === 0 ? '<p class="note">No first-seen time known.</p>' : timeChart('Hosts first seen over time', binnedDays(report.firstSeen))}</section>`,
    usersSection(report) === '' ? '' : `<section>${usersSection(report)}</section>`,
    `<footer><p class="note">Made by Outpost ${e(inputs.version)} on ${e(inputs.madeAt)} (UTC). A section beyond ${report.limits.groups} groups or ${report.limits.hostsPerGroup} addresses a group says so; the CSV export (Hosts → Export, or <code>outpost hosts export</code>) lists every host.</p></footer>`,
  ].join('\n');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${REPORT_CSP}">
<meta name="referrer" content="no-referrer">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${e(title)}</title>
<style>${REPORT_STYLE}</style>
</head>
<body>
${body}
</body>
</html>
`;
}
