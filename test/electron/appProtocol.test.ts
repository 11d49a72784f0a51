/**
 * The app:// protocol (app.md §1): the renderer's files with the CSP and no way out of their
 * folder, and the API paths forwarded to a real server with the local token.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { Protocol } from 'electron';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  APP_SCHEME_PRIVILEGES,
  createAppProtocolHandler,
  forwardedHeaders,
  handleAppProtocol,
  isForwardedPath,
  registerAppScheme,
} from '../../electron/main/appProtocol';
import type { ServerEndpoint } from '../../electron/main/serverMessages';
import { APP_CSP } from '../../electron/app/staticFiles';
import { ADMIN_TOKEN, startAppServer, type TestAppServer } from '../helpers/server';

let dir: string;
let rendererDir: string;
let server: TestAppServer;
let endpoint: ServerEndpoint;
let handle: (request: Request) => Promise<Response>;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'outpost-protocol-'));
  rendererDir = path.join(dir, 'renderer');
  fs.mkdirSync(path.join(rendererDir, 'assets'), { recursive: true });
  fs.writeFileSync(path.join(rendererDir, 'index.html'), '<!doctype html><title>Outpost</title><script type="module" src="./assets/app.js"></script>');
  fs.writeFileSync(path.join(rendererDir, 'assets', 'app.js'), 'console.log("app");');
  fs.writeFileSync(path.join(dir, 'secret.txt'), 'SECRET');
  fs.mkdirSync(path.join(dir, 'renderer-evil'));
  fs.writeFileSync(path.join(dir, 'renderer-evil', 'x.js'), 'SECRET');
  server = await startAppServer({ rendererDir, dir: path.join(dir, 'data') });
  endpoint = { port: Number(new URL(server.url).port), token: ADMIN_TOKEN };
  handle = createAppProtocolHandler({ rendererDir, endpoint: () => endpoint });
});

afterAll(async () => {
  await server.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const get = (url: string, init: RequestInit = {}) => handle(new Request(url, init));
// Tests read bodies loosely.
const json = async (response: Response): Promise<any> => response.json();

describe('the scheme', () => {
  test('is registered as standard and secure, with fetch and streams, and neither CORS-enabled nor above the CSP', () => {
    const registered: unknown[] = [];
    registerAppScheme({ registerSchemesAsPrivileged: (schemes) => registered.push(...schemes) } as Pick<Protocol, 'registerSchemesAsPrivileged'>);
    expect(registered).toEqual([APP_SCHEME_PRIVILEGES]);
    const { scheme, privileges } = APP_SCHEME_PRIVILEGES;
    expect(scheme).toBe('app');
    expect(privileges).toMatchObject({ standard: true, secure: true, supportFetchAPI: true, stream: true });
    expect(privileges?.corsEnabled).toBeFalsy();
    expect(privileges?.bypassCSP).toBeFalsy();
    expect(privileges?.allowServiceWorkers).toBeFalsy();
  });

  test("protocol.handle('app') gets the handler", async () => {
    let handler: ((request: Request) => Promise<Response> | Response) | undefined;
    handleAppProtocol({ handle: (scheme: string, h: typeof handler) => scheme === 'app' && (handler = h) } as unknown as Pick<Protocol, 'handle'>, {
      rendererDir,
      endpoint: () => endpoint,
    });
    expect((await handler!(new Request('app://outpost/index.html'))).status).toBe(200);
  });
});

describe("the renderer's files", () => {
  test('app://outpost/ is the index page, with the CSP', async () => {
    const page = await get('app://outpost/');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('content-security-policy')).toBe(APP_CSP);
    expect(await page.text()).toContain('<title>Outpost</title>');
  });

  test('assets are served with their type and the CSP', async () => {
    const script = await get('app://outpost/assets/app.js');
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(script.headers.get('content-security-policy')).toBe(APP_CSP);
    expect(await script.text()).toBe('console.log("app");');
  });

  test.each([
    'app://outpost/..%2fsecret.txt',
    'app://outpost/assets/..%2f..%2fsecret.txt',
    'app://outpost/%2e%2e/secret.txt',
    'app://outpost/..%5csecret.txt',
    'app://outpost/..%2frenderer-evil/x.js',
    'app://outpost/%2e%2e%2f%2e%2e%2f%2e%2e%2fetc/passwd',
    'app://outpost/index.html%00.js',
  ])('no file outside the build: %s is 404 with the CSP', async (url) => {
    const answer = await get(url);
    expect(answer.status).toBe(404);
    expect(answer.headers.get('content-security-policy')).toBe(APP_CSP);
    expect(await answer.text()).not.toContain('SECRET');
  });

  test('a malformed escape is 400, a write to a file 405, a missing file 404', async () => {
    expect((await get('app://outpost/%E0%A4%A')).status).toBe(400);
    expect((await get('app://outpost/index.html', { method: 'POST', body: 'x' })).status).toBe(405);
    expect((await get('app://outpost/missing.js')).status).toBe(404);
  });

  test('another host under app:// is another origin: 404, never forwarded', async () => {
    let forwarded = false;
    const strict = createAppProtocolHandler({ rendererDir, endpoint: () => endpoint, fetch: async () => ((forwarded = true), new Response('')) });
    for (const url of ['app://evil/index.html', 'app://evil/rest/', 'app://outpost:99/rest/']) {
      const answer = await strict(new Request(url));
      expect(answer.status, url).toBe(404);
    }
    expect(forwarded).toBe(false);
  });
});

describe('forwarding to the server', () => {
  test.each(['/rest/', '/app/status', '/remote/rest/x', '/api-auth/login/', '/rules/hunt', '/rest'])('%s is forwarded', (p) => {
    expect(isForwardedPath(p)).toBe(true);
  });

  test.each(['/', '/index.html', '/assets/app.js', '/restaurant', '/application.js', '/rulesets.js'])('%s is a file', (p) => {
    expect(isForwardedPath(p)).toBe(false);
  });

  test('the API answers with the token added (the page sends none)', async () => {
    const answer = await get('app://outpost/rest/', { headers: { Accept: 'application/json' } });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('application/json');
    expect(answer.headers.get('content-security-policy')).toBe(APP_CSP);
    expect(Object.keys(await json(answer))).toContain('appliances/vendor_probe_template');
  });

  test("a token of the page's own is replaced by the local one", async () => {
    const answer = await get('app://outpost/app/status', { headers: { Authorization: `Token ${'f'.repeat(40)}` } });
    expect(answer.status).toBe(200);
    expect((await json(answer)).user.username).toBe('admin');
  });

  test('method, body, query and status go through both ways', async () => {
    const created = await get('app://outpost/app/workspaces', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'forwarded' }),
    });
    expect(created.status).toBe(201);
    expect(await json(created)).toMatchObject({ name: 'forwarded' });
    const listed = await json(await get('app://outpost/app/workspaces'));
    expect(listed.workspaces.map((w: { name: string }) => w.name)).toContain('forwarded');
    const deleted = await get('app://outpost/app/workspaces/forwarded', { method: 'DELETE' });
    expect(deleted.status).toBe(204);
    expect(await deleted.text()).toBe('');
    const invalid = await get('app://outpost/rest/appliances/vendor_probe_template/?page=99');
    expect(invalid.status).toBe(404);
    expect(await invalid.json()).toEqual({ detail: 'Invalid page.' });
  });

  test('a HEAD answer has no body', async () => {
    const answer = await get('app://outpost/rest/', { method: 'HEAD' });
    expect(answer.status).toBe(200);
    expect(await answer.text()).toBe('');
  });

  test('a redirect comes back as a redirect, to the app', async () => {
    const answer = await get('app://outpost/rules/hunt?session=temporary&page=HOSTS_LIST&ip=10.0.0.1');
    expect(answer.status).toBe(302);
    expect(answer.headers.get('location')).toBe('/#/hosts/10.0.0.1');
  });

  test('a request from another origin is refused before it reaches the server', async () => {
    let forwarded = false;
    const strict = createAppProtocolHandler({ rendererDir, endpoint: () => endpoint, fetch: async () => ((forwarded = true), new Response('')) });
    const foreign = await strict(new Request('app://outpost/rest/', { headers: { Origin: 'https://evil.example' } }));
    expect(foreign.status).toBe(403);
    const crossSite = await strict(new Request('app://outpost/rest/', { headers: { 'Sec-Fetch-Site': 'cross-site' } }));
    expect(crossSite.status).toBe(403);
    expect(forwarded).toBe(false);
    const own = await get('app://outpost/rest/', { headers: { Origin: 'app://outpost', 'Sec-Fetch-Site': 'same-origin' } });
    expect(own.status).toBe(200);
  });

  test('while the server is down the answer is 503, in the API shape', async () => {
    const down = createAppProtocolHandler({ rendererDir, endpoint: () => undefined });
    const answer = await down(new Request('app://outpost/rest/'));
    expect(answer.status).toBe(503);
    expect(answer.headers.get('content-security-policy')).toBe(APP_CSP);
    expect((await json(answer)).detail).toMatch(/not running/);
    const gone = createAppProtocolHandler({ rendererDir, endpoint: () => ({ port: 1, token: ADMIN_TOKEN }) });
    expect((await gone(new Request('app://outpost/rest/'))).status).toBe(503);
  });

  test('credentials of the page and hop-by-hop headers are not passed on', () => {
    const headers = forwardedHeaders(
      new Headers({
        Cookie: 'sessionid=abc',
        Authorization: 'Basic eDp5',
        Origin: 'app://outpost',
        Host: 'outpost',
        Connection: 'keep-alive',
        Accept: 'application/json',
        'X-CSRFToken': 'tok',
      }),
      ADMIN_TOKEN,
    );
    expect(Object.fromEntries(headers.entries())).toEqual({ accept: 'application/json', authorization: `Token ${ADMIN_TOKEN}`, 'x-csrftoken': 'tok' });
  });
});

describe('forwarding streams bodies', () => {
  let echo: http.Server;
  let port: number;
  const seen: { method: string; url: string; authorization: string | undefined; bytes: number }[] = [];

  beforeAll(async () => {
    echo = http.createServer((req, res) => {
      let bytes = 0;
      req.on('data', (chunk: Buffer) => (bytes += chunk.length));
      req.on('end', () => {
        seen.push({ method: req.method!, url: req.url!, authorization: req.headers.authorization, bytes });
        if (req.url === '/rest/moved') {
          res.writeHead(301, { Location: `http://127.0.0.1:${port}/rest/new/`, 'Set-Cookie': 'sessionid=x' });
          res.end();
          return;
        }
        res.writeHead(207, { 'Content-Type': 'application/octet-stream', 'Set-Cookie': 'sessionid=x', 'X-Echo': 'yes' });
        res.end(Buffer.alloc(bytes * 2, 7));
      });
    });
    await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
    port = (echo.address() as AddressInfo).port;
  });

  afterAll(() => new Promise<void>((resolve) => echo.close(() => resolve())));

  test('a large upload and its larger answer pass whole, with status and headers, without cookies', async () => {
    const handler = createAppProtocolHandler({ rendererDir, endpoint: () => ({ port, token: ADMIN_TOKEN }) });
    const upload = Buffer.alloc(3 * 1024 * 1024, 1);
    const answer = await handler(new Request('app://outpost/app/workspaces/import?name=big', { method: 'PUT', body: upload }));
    expect(answer.status).toBe(207);
    expect(answer.headers.get('x-echo')).toBe('yes');
    expect(answer.headers.get('set-cookie')).toBeNull();
    expect((await answer.arrayBuffer()).byteLength).toBe(upload.length * 2);
    expect(seen.at(-1)).toEqual({ method: 'PUT', url: '/app/workspaces/import?name=big', authorization: `Token ${ADMIN_TOKEN}`, bytes: upload.length });
  });

  test("a redirect to the server's own address is rewritten to the app's origin", async () => {
    const handler = createAppProtocolHandler({ rendererDir, endpoint: () => ({ port, token: ADMIN_TOKEN }) });
    const answer = await handler(new Request('app://outpost/rest/moved'));
    expect(answer.status).toBe(301);
    expect(answer.headers.get('location')).toBe('app://outpost/rest/new/');
  });
});
