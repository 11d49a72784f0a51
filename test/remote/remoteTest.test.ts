/**
 * Issue 25 §4: testing a remote's connection. Four steps in the order a sync meets them —
 * reachable (DNS, TCP), TLS (verified, pinned or not checked), token accepted, the central
 * server's API answering list pages — each with its message and time; the first failure stops the
 * test and the rest are not tried; no step waits longer than its timeout.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { selfSignedTls } from '../../electron/server/http/tls';
import { MAX_STEP_MESSAGE, testRemote } from '../../electron/remote/remoteTest';
import { PULLED } from '../../electron/remote/synced';
import type { RemoteTestResult } from '../../shared/app/remoteTest';
import { startReference, type ReferenceServer } from '../helpers/reference';
import { ADMIN_TOKEN, startAppServer, startServer, type TestAppServer, type TestServer } from '../helpers/server';

/** A server answering every request with `status`, `type` and `body`. */
async function fixedServer(status: number, type: string, body: string): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((_req, res) => res.writeHead(status, { 'Content-Type': type }).end(body));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** A server that accepts connections and never answers. */
async function silentServer(): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer(() => undefined);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const outcomes = (result: RemoteTestResult) => result.steps.map((s) => `${s.step}:${s.outcome}`);

let reference: ReferenceServer;
let tlsDir: string;
let tlsCentral: TestServer;
let fingerprint: string;

beforeAll(async () => {
  tlsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'outpost-remote-test-'));
  const material = await selfSignedTls(tlsDir, '127.0.0.1');
  // The fingerprint as an independent reader computes it from the certificate file.
  fingerprint = new crypto.X509Certificate(material.cert).fingerprint256;
  [reference, tlsCentral] = await Promise.all([startReference(), startServer({ tls: material })]);
}, 60_000);
afterAll(async () => {
  await Promise.all([reference?.stop(), tlsCentral?.close()]);
  fs.rmSync(tlsDir, { recursive: true, force: true });
});

describe('a working central server', () => {
  test('the reference server over loopback http: reachable, TLS skipped, token accepted, every pulled endpoint a list page', async () => {
    const result = await testRemote({ name: 'central', url: reference.url }, reference.token);
    expect(result.ok).toBe(true);
    expect(outcomes(result)).toEqual(['reachable:passed', 'tls:skipped', 'token:passed', 'api:passed']);
    const port = new URL(reference.url).port;
    expect(result.steps[0]!.message).toBe(`127.0.0.1:${port} accepts connections`);
    expect(result.steps[3]!.message).toContain(`the ${PULLED.length} endpoints a sync reads answer list pages`);
    for (const step of result.steps) expect(step.ms).toBeGreaterThanOrEqual(0);
  });

  test('an Outpost server over https with a self-signed certificate passes once its SHA-256 is pinned', async () => {
    const result = await testRemote({ name: 'lab', url: tlsCentral.url, pin: fingerprint }, ADMIN_TOKEN);
    expect(outcomes(result)).toEqual(['reachable:passed', 'tls:passed', 'token:passed', 'api:passed']);
    expect(result.steps[1]!.message).toContain(`the certificate is the pinned one (SHA-256 ${fingerprint})`);
  });

  test('with verification turned off, TLS passes and says the certificate was not verified', async () => {
    const result = await testRemote({ name: 'lab', url: tlsCentral.url, insecure: true }, ADMIN_TOKEN);
    expect(result.ok).toBe(true);
    expect(result.steps[1]!.message).toMatch(/^not verified \(this remote's setting\)/);
  });
});

describe('the first failed step says why, and the rest are not tried', () => {
  test('nothing listening (http://127.0.0.1:9): not reachable, naming the address and port', async () => {
    const result = await testRemote({ name: 'gone', url: 'http://127.0.0.1:9' }, 'x'.repeat(40));
    expect(result.ok).toBe(false);
    expect(outcomes(result)).toEqual(['reachable:failed', 'tls:not-tried', 'token:not-tried', 'api:not-tried']);
    expect(result.steps[0]!.message).toMatch(/^127\.0\.0\.1:9: .*refused/);
    expect(result.steps.slice(1).map((s) => s.ms)).toEqual([null, null, null]);
  });

  test('an unknown host name fails at DNS', async () => {
    const result = await testRemote({ name: 'nowhere', url: 'https://no-such-host.invalid' }, 'x'.repeat(40));
    expect(outcomes(result)[0]).toBe('reachable:failed');
    expect(result.steps[0]!.message).toMatch(/^no-such-host\.invalid: .*DNS/);
  });

  test('the self-signed certificate without a pin: TLS fails, says it is self-signed and gives its SHA-256 to check', async () => {
    const result = await testRemote({ name: 'lab', url: tlsCentral.url }, ADMIN_TOKEN);
    expect(outcomes(result)).toEqual(['reachable:passed', 'tls:failed', 'token:not-tried', 'api:not-tried']);
    expect(result.steps[1]!.message).toContain('self-signed');
    expect(result.steps[1]!.message).toContain(fingerprint);
  });

  test('another pin than the certificate: TLS fails, naming the certificate it found', async () => {
    const other = 'ab'.repeat(32);
    const result = await testRemote({ name: 'lab', url: tlsCentral.url, pin: other }, ADMIN_TOKEN);
    expect(outcomes(result)).toEqual(['reachable:passed', 'tls:failed', 'token:not-tried', 'api:not-tried']);
    expect(result.steps[1]!.message).toContain('is not the pinned one');
    expect(result.steps[1]!.message).toContain(fingerprint);
  });

  test('a server answering 403: token refused', async () => {
    const server = await fixedServer(403, 'application/json', '{"detail":"Invalid token."}');
    try {
      const result = await testRemote({ name: 'r', url: server.url }, 'x'.repeat(40));
      expect(outcomes(result)).toEqual(['reachable:passed', 'tls:skipped', 'token:failed', 'api:not-tried']);
      expect(result.steps[2]!.message).toMatch(/^token refused: .*403: Invalid token\./);
    } finally {
      await server.close();
    }
  });

  test("a refusal whose detail is a megabyte long: the step's message is bounded", async () => {
    const server = await fixedServer(401, 'application/json', JSON.stringify({ detail: `<script>${'x'.repeat(1_000_000)}` }));
    try {
      const result = await testRemote({ name: 'r', url: server.url }, 'x'.repeat(40));
      expect(result.steps[2]!.message).toMatch(/^token refused: .*<script>x+…$/);
      expect(result.steps[2]!.message.length).toBe(MAX_STEP_MESSAGE + 1);
    } finally {
      await server.close();
    }
  });

  test('the reference server with a wrong token: token refused', async () => {
    const result = await testRemote({ name: 'central', url: reference.url }, 'f'.repeat(40));
    expect(outcomes(result)).toEqual(['reachable:passed', 'tls:skipped', 'token:failed', 'api:not-tried']);
    expect(result.steps[2]!.message).toMatch(/^token refused/);
  });

  test('no token kept: the token step fails and says how to give one', async () => {
    const result = await testRemote({ name: 'central', url: reference.url }, undefined);
    expect(result.steps[2]).toMatchObject({ outcome: 'failed', message: expect.stringContaining('no token is kept') });
  });

  test('a web server answering HTML: not an Outpost/central server API at this URL', async () => {
    const server = await fixedServer(200, 'text/html', '<!doctype html><title>Welcome</title><script>alert(1)</script>');
    try {
      const result = await testRemote({ name: 'r', url: server.url }, 'x'.repeat(40));
      expect(outcomes(result)).toEqual(['reachable:passed', 'tls:skipped', 'token:failed', 'api:not-tried']);
      expect(result.steps[2]!.message).toMatch(/^not an Outpost\/central server API at this URL: .*text\/html/);
    } finally {
      await server.close();
    }
  });

  test('a JSON server whose answers are not list pages: the API step fails', async () => {
    const server = await fixedServer(200, 'application/json', '{"status":"ok"}');
    try {
      const result = await testRemote({ name: 'r', url: server.url }, 'x'.repeat(40));
      expect(outcomes(result)).toEqual(['reachable:passed', 'tls:skipped', 'token:passed', 'api:failed']);
      expect(result.steps[3]!.message).toMatch(/^not an Outpost\/central server API at this URL: .*not a list page/);
    } finally {
      await server.close();
    }
  });

  test('a 404 (the URL ends in /rest/, or names another site): not the API, with a hint', async () => {
    const server = await fixedServer(404, 'application/json', '{"detail":"Not found."}');
    try {
      const result = await testRemote({ name: 'r', url: server.url }, 'x'.repeat(40));
      expect(result.steps[2]!.message).toMatch(/^not an Outpost\/central server API at this URL: GET \/rest\/.* answered 404 .*without \/rest\//);
    } finally {
      await server.close();
    }
  });

  test('a server that never answers: the step fails at its timeout, the test does not hang', async () => {
    const server = await silentServer();
    try {
      const started = Date.now();
      const result = await testRemote({ name: 'r', url: server.url }, 'x'.repeat(40), { stepTimeoutMs: 400 });
      expect(outcomes(result)).toEqual(['reachable:passed', 'tls:skipped', 'token:failed', 'api:not-tried']);
      expect(result.steps[2]!.ms).toBeLessThan(2_000);
      expect(Date.now() - started).toBeLessThan(3_000);
    } finally {
      await server.close();
    }
  });
});

describe('POST /app/remotes/:name/test', () => {
  let app: TestAppServer;
  beforeAll(async () => {
    app = await startAppServer();
    expect((await app.api.post('/app/remotes', { name: 'central', url: reference.url, token: reference.token })).status).toBe(201);
  });
  afterAll(() => app.close());

  test('answers the steps of the saved remote, with its token', async () => {
    const answer = await app.api.post('/app/remotes/central/test', {});
    expect(answer.status).toBe(200);
    const result = answer.json() as unknown as RemoteTestResult;
    expect(result).toMatchObject({ remote: 'central', url: reference.url, ok: true });
    expect(outcomes(result)).toEqual(['reachable:passed', 'tls:skipped', 'token:passed', 'api:passed']);
  });

  test('a failed test is an answer (200, ok false), not an error', async () => {
    expect((await app.api.patch('/app/remotes/central', { url: 'http://127.0.0.1:9' })).status).toBe(200);
    const answer = await app.api.post('/app/remotes/central/test', {});
    expect(answer.status).toBe(200);
    expect(answer.json()).toMatchObject({ ok: false, steps: [{ step: 'reachable', outcome: 'failed' }, {}, {}, {}] });
  });

  test('an unknown remote is a 404', async () => {
    expect((await app.api.post('/app/remotes/no-such/test', {})).status).toBe(404);
  });
});
