/**
 * The app's EVE import (issue 10): a log uploaded to `/app/hosts/import-eve` is imported as it
 * arrives; an upload cut short leaves nothing; only managers may import; the home networks are a
 * checked setting whose change recomputes the hosts the import saw.
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ADMIN_TOKEN, startAppServer, type TestAppServer } from '../helpers/server';
import { SAMPLES_DIR } from '../helpers/workplace';

const SAMPLE = path.join(SAMPLES_DIR, 'eve', 'Tr0llope-suricata_report_generator-eve.json');

let app: TestAppServer;
beforeAll(async () => {
  app = await startAppServer();
});
afterAll(() => app.close());

/** POST the bytes as node:http sends a file: with its Content-Length, in chunks; `cutAfter` stops the upload there. */
function upload(bytes: Buffer, options: { token?: string; cutAfter?: number } = {}): Promise<{ status: number; body: unknown }> {
  const url = new URL('/app/hosts/import-eve?name=eve.json', app.url);
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'POST', headers: { Authorization: `Token ${options.token ?? ADMIN_TOKEN}`, 'Content-Type': 'application/octet-stream', 'Content-Length': bytes.length } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : null }));
    });
    req.on('error', (error) => (options.cutAfter === undefined ? reject(error) : resolve({ status: 0, body: null })));
    const end = options.cutAfter ?? bytes.length;
    for (let at = 0; at < end; at += 64 * 1024) req.write(bytes.subarray(at, Math.min(end, at + 64 * 1024)));
    if (options.cutAfter === undefined) req.end();
    else setTimeout(() => req.destroy(), 200);
  });
}

describe('uploading an EVE log', () => {
  test('an upload cut short imports nothing', async () => {
    const bytes = fs.readFileSync(SAMPLE);
    await upload(bytes, { cutAfter: Math.floor(bytes.length / 2) });
    // The server notices the cut connection and drops what it had gathered.
    await new Promise((r) => setTimeout(r, 300));
    expect((await app.api.get('/rest/appliances/host_id/')).json().count).toBe(0);
    expect((await app.api.get('/app/hosts/import-eve')).json()).toEqual({ running: false });
  });

  test('the whole log is imported and summarised; the hosts are served at once', async () => {
    const reply = await upload(fs.readFileSync(SAMPLE));
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ linesRead: 1814, files: [{ path: 'eve.json', fromLine: 1, lines: 1814 }], hostsUpdated: 0 });
    const host = (await app.api.get('/rest/appliances/host_id/172.16.0.153')).json();
    expect(host.host_id.username.map((u: { user: string }) => u.user)).toEqual(['giorgio.armani']);
  });

  test('uploading it again reads nothing new', async () => {
    const reply = await upload(fs.readFileSync(SAMPLE));
    expect(reply.body).toMatchObject({ linesRead: 0, files: [{ fromLine: 1815, lines: 0 }] });
  });

  test('a read-only user may not import; a file that is no log is refused with its reason', async () => {
    const { services } = app.host.current();
    const pk = services.store.write(() =>
      Number(services.store.db.prepare("INSERT INTO user (username, password, role, date_joined) VALUES ('viewer', '', 'Read-only', ?)").run(services.store.now()).lastInsertRowid),
    );
    services.users.setToken(pk, 'b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2');
    const refused = await upload(fs.readFileSync(SAMPLE), { token: 'b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2' });
    expect(refused.status).toBe(403);
    const garbage = await upload(Buffer.from('hello\nworld\n'));
    expect(garbage).toEqual({ status: 400, body: { detail: 'eve.json has no EVE event in it (2 lines, none a Suricata EVE JSON event); nothing was imported' } });
    // An empty file: the command's message, which the page shows as it is.
    expect(await upload(Buffer.alloc(0))).toEqual({ status: 400, body: { detail: 'eve.json is empty: no EVE event in it; nothing was imported' } });
  });
});

describe('home networks', () => {
  test('Suricata\'s HOME_NET by default; a CIDR list is taken and recomputes the hosts; anything else is refused', async () => {
    expect((await app.api.get('/app/settings/home-nets')).json()).toEqual({ homeNets: ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16'] });
    const bad = await app.api.send('PUT', '/app/settings/home-nets', { json: { homeNets: ['10.0.0.0/8', 'corp'] } });
    expect([bad.status, bad.json()]).toEqual([400, { homeNets: ['"corp" is not a network in CIDR form (10.0.0.0/8, fd00::/8).'] }]);
    const hostBits = await app.api.send('PUT', '/app/settings/home-nets', { json: { homeNets: ['10.1.2.3/8'] } });
    expect([hostBits.status, hostBits.json()]).toEqual([400, { homeNets: ['"10.1.2.3/8" has bits set past its prefix: did you mean 10.0.0.0/8?'] }]);
    const set = await app.api.send('PUT', '/app/settings/home-nets', { json: { homeNets: ['172.16.0.0/16'] } });
    expect(set.json()).toEqual({ homeNets: ['172.16.0.0/16'] });
    const host = (await app.api.get('/rest/appliances/host_id/172.16.0.153')).json().host_id;
    expect(host.net_info.map((n: { agg: string }) => n.agg)).toEqual(['172.16.0.0/16']);
    const outside = (await app.api.get('/rest/appliances/host_id/67.205.184.237')).json().host_id;
    expect([outside.in_home_net, outside.net_info[0].agg]).toEqual([false, 'internet']);
  });
});
