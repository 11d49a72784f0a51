/**
 * The sync state in Chromium as it is (issue 25 §3): "Connecting…" before the central server
 * first answers, never a green "Online"; offline with the next attempt counting down and what to
 * try; a refused token; "Sync now" showing its outcome. The central server is the reference
 * server behind a switch the test sets: no answer at all, connections dropped, every request
 * refused (401), or passed through. The words' rules are tested in test/shared/syncState.test.ts
 * and test/renderer/syncFormat.test.ts; the server side in test/remote/syncState.test.ts.
 */
import http from 'node:http';
import type net from 'node:net';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startReference, type ReferenceServer } from '../helpers/reference';
import { startBound, type BoundWorkspace } from '../helpers/sync';
import { openAppAt, RENDERER_DIR, type PageSession } from './browser';

type Mode = 'hang' | 'down' | 'refuse' | 'up';

interface Switch {
  readonly url: string;
  mode: Mode;
  /** Drop every open connection (the requests left hanging fail at once). */
  cut(): void;
  close(): Promise<void>;
}

async function openSwitch(target: string): Promise<Switch> {
  const sockets = new Set<net.Socket>();
  const server = http.createServer((request, response) => {
    switch (sw.mode) {
      case 'hang':
        return;
      case 'down':
        return void request.socket.destroy();
      case 'refuse':
        response.writeHead(401, { 'Content-Type': 'application/json' });
        return void response.end(JSON.stringify({ detail: 'Invalid token.' }));
      case 'up': {
        const upstream = http.request(new URL(request.url ?? '/', target), { method: request.method, headers: request.headers }, (answer) => {
          response.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(response);
        });
        upstream.on('error', () => request.socket.destroy());
        request.pipe(upstream);
      }
    }
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const sw: Switch = {
    url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    mode: 'hang',
    cut() {
      for (const socket of sockets) socket.destroy();
    },
    close: () =>
      new Promise<void>((resolve) => {
        sw.cut();
        server.close(() => resolve());
      }),
  };
  return sw;
}

const T = '/rest/appliances/vendor_probe_template/';
/** The automatic schedule's next attempt, fixed so that the countdown is known. */
const NEXT_MS = 90_000;

let remote: ReferenceServer;
let sw: Switch;
let site: BoundWorkspace;
let browser: PageSession;
let page: Page;

beforeAll(async () => {
  remote = await startReference();
  sw = await openSwitch(remote.url);
  site = await startBound({ url: sw.url, token: remote.token }, { rendererDir: RENDERER_DIR, sync: { auto: true, delay: (outcome) => (outcome === 'auth' ? null : NEXT_MS) } });
  browser = await openAppAt(site.url, { expectedStatuses: [502] });
  page = browser.page;
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await site?.close();
  await sw?.close();
  await remote?.stop();
});

const indicator = () => page.getByTestId('sync-indicator');

describe('the sync state shown', () => {
  test('before the central server first answers: "Connecting…", not "Online"', async () => {
    await page.goto(`${site.url}/#/sync`);
    await indicator().getByText('Connecting…').waitFor();
    await page.getByTestId('sync-connection').getByText('Connecting…').waitFor();
    expect(await indicator().innerText()).not.toMatch(/Online|Syncing/);
  });

  test('unreachable: offline, no push, the next attempt counting down, what to try', async () => {
    sw.mode = 'down';
    sw.cut();
    await indicator().getByText('Offline').waitFor();
    // NEXT_MS from the end of the attempt: 90 s, shown as "1 min 30 s" then less.
    await expect.poll(() => indicator().getByTestId('sync-next').innerText()).toMatch(/^next attempt in 1 min (2\d|30) s$/);
    const banner = page.getByTestId('sync-offline');
    await expect.poll(() => banner.innerText()).toMatch(/did not answer\. Next attempt in 1 min \d+ s\./);
    expect(await banner.innerText()).toMatch(/network and VPN.*URL in Settings → Remotes/s);
    const facts = page.locator('dl.facts');
    expect(await facts.innerText()).toMatch(/Last push\s+never/);
    expect(await page.getByTestId('sync-result').innerText()).toMatch(/Stopped: /);
  });

  test('a refused token: Sync now says so and what to do; no automatic attempt until it is replaced', async () => {
    sw.mode = 'refuse';
    await page.getByRole('button', { name: 'Sync now' }).click();
    await page.getByTestId('sync-connection').getByText('Token refused').waitFor();
    const result = page.getByTestId('sync-result');
    await expect.poll(() => result.innerText()).toMatch(/Stopped: The central server refused the token \(401: Invalid token\.\)/);
    expect(await result.innerText()).toMatch(/Replace the remote’s token in Settings → Remotes/);
    expect(await page.getByTestId('sync-next-attempt').innerText()).toBe('none until the token is replaced');
    expect(await indicator().getByTestId('sync-next').count()).toBe(0);
  });

  test('Sync now once the server answers: what it pushed and pulled; online', async () => {
    sw.mode = 'up';
    const made = await site.api.post(T, { name: 'site-tmpl', comment: 'made while the token was refused' });
    expect(made.status).toBe(201);
    const outbox = page.getByRole('table', { name: 'Changes waiting' });
    await expect.poll(() => outbox.getByRole('row', { name: /site-tmpl/ }).innerText()).toMatch(/Waiting/);
    await page.getByRole('button', { name: 'Sync now' }).click();
    await page.getByTestId('sync-connection').getByText('Online').waitFor();
    const result = page.getByTestId('sync-result');
    // One template pushed; the pull brings back nothing else (the reference server starts empty).
    await expect.poll(() => result.innerText()).toMatch(/Pushed 1 change, pulled \d+ changes?\./);
    expect(await page.locator('dl.facts').innerText()).toMatch(/Last push\s+\S.*just now/);
    await indicator().getByText('Online').waitFor();
    expect(await indicator().getByTestId('sync-next').count()).toBe(0);
  });
});
