/**
 * A pull from a real central server (the reference DRF server) that changes hosts is a visit
 * (issue 24 §2): what it brought and changed is recorded with its pages; a pull that changes no
 * host is none; hosts it read unchanged count as seen, and a host only this site knows does not,
 * so "not seen since" means what it says;
 * `pull` is a point of the comparison.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from 'vitest';
import { fileSources, importEve } from '../../electron/workspaces/eveImport';
import { boundSiteForFile } from '../helpers/sync';

const H = '/rest/appliances/host_id/';
const bound = boundSiteForFile();
const seen = { first_seen: '2026-01-01T00:00:00.000000+00:00', last_seen: '2026-01-02T00:00:00.000000+00:00' };

test('pulls that change hosts are visits, compared with the last pull', async () => {
  const central = (entries: unknown[]) => bound.remote.api.post(`${H}import/`, entries);
  expect((await central([
    { ip: '10.5.0.1', host_id: { ...seen, roles: [{ name: 'domain controller' }] } },
    { ip: '10.5.0.2', host_id: { ...seen } },
    { ip: '10.5.0.3', host_id: { ...seen } },
  ])).status).toBe(201);
  expect((await bound.site.sync()).outcome).toBe('done');
  const visits = () => bound.site.api.get('/app/hosts/visits').then((reply) => reply.json());
  const first = (await visits()).results[0];
  expect(first).toMatchObject({ kind: 'pull', user: 'sync', hostsNew: 3, hostsUpdated: 0, files: [], historyPk: null });

  // Nothing changed on the central server: no visit.
  expect((await bound.site.sync()).outcome).toBe('done');
  expect((await visits()).count).toBe(1);

  // A log imported here: its hosts 10.5.9.1 (client) and 10.5.9.9 (server) are this site's evidence, never the central server's.
  const log = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'outpost-pull-visits-')), 'eve.json');
  const event = { timestamp: '2026-01-03T10:00:00.000000+0000', event_type: 'http', src_ip: '10.5.9.1', src_port: 50000, dest_ip: '10.5.9.9', dest_port: 80, proto: 'TCP', http: { hostname: 'local.example', url: '/', http_method: 'GET' } };
  fs.writeFileSync(log, `${JSON.stringify(event)}\n`);
  await importEve(bound.site.host.current().services, fileSources([log]));
  fs.rmSync(path.dirname(log), { recursive: true });
  const local = (await visits()).results[0];
  expect(local).toMatchObject({ kind: 'eve', hostsNew: 2 });

  // 10.5.0.1 gains a role, 10.5.0.4 appears, 10.5.0.2 and 10.5.0.3 stay as they were.
  expect((await central([
    { ip: '10.5.0.1', host_id: { ...seen, roles: [{ name: 'domain controller' }, { name: 'dhcp' }] } },
    { ip: '10.5.0.4', host_id: { ...seen } },
  ])).status).toBe(201);
  expect((await bound.site.sync()).outcome).toBe('done');
  const second = (await visits()).results[0];
  expect(second).toMatchObject({ kind: 'pull', hostsNew: 1, hostsUpdated: 1 });

  const answer = await bound.site.api.get(`/app/hosts/changes?since=${local.pk}&until=pull`);
  expect(answer.status).toBe(200);
  const comparison = answer.json();
  expect(comparison.until).toMatchObject({ visit: second.pk });
  // 10.5.0.2 and 10.5.0.3, read unchanged by the pull, were seen; the log's hosts, known here only, were not.
  expect(comparison.changes).toEqual([
    { kind: 'host_new', ip: '10.5.0.4', value: null, previous: null },
    { kind: 'host_not_seen', ip: '10.5.9.1', value: null, previous: null },
    { kind: 'host_not_seen', ip: '10.5.9.9', value: null, previous: null },
    { kind: 'role_new', ip: '10.5.0.1', value: 'dhcp', previous: null },
  ]);
});
