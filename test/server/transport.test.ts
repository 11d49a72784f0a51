/** api.md §9: loopback by default, the Host-header guard, HTTPS. */
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { selfSignedTls } from '../../electron/server/http/tls';
import { request } from '../helpers/http';
import { ADMIN_TOKEN, startServer, type TestServer } from '../helpers/server';

/** One raw HTTP/1.1 exchange, so that the Host header is exactly what the test says. */
function rawGet(port: number, host: string | undefined): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => {
      const hostLine = host === undefined ? '' : `Host: ${host}\r\n`;
      socket.write(`GET /rest/ HTTP/1.1\r\n${hostLine}Authorization: Token ${ADMIN_TOKEN}\r\nConnection: close\r\n\r\n`);
    });
    let data = '';
    socket.on('data', (chunk) => (data += chunk.toString()));
    socket.on('end', () => {
      const status = Number(/^HTTP\/1\.[01] (\d+)/.exec(data)?.[1] ?? 0);
      resolve({ status, body: data.slice(data.indexOf('\r\n\r\n') + 4) });
    });
    socket.on('error', reject);
  });
}

describe('Host-header guard (DNS rebinding)', () => {
  let server: TestServer;
  let port: number;
  beforeAll(async () => {
    server = await startServer();
    port = Number(new URL(server.url).port);
  });
  afterAll(() => server.close());

  test('the listening address with its port is accepted, and localhost with that port on loopback', async () => {
    expect((await rawGet(port, `127.0.0.1:${port}`)).status).toBe(200);
    expect((await rawGet(port, `localhost:${port}`)).status).toBe(200);
    expect((await rawGet(port, `LOCALHOST:${port}`)).status).toBe(200);
  });

  test('any other Host is 400 Invalid Host header.', async () => {
    for (const host of ['evil.example.com', `evil.example.com:${port}`, `127.0.0.1:${port + 1}`, '127.0.0.1', `localhost.evil.com:${port}`, undefined]) {
      const reply = await rawGet(port, host);
      expect(reply.status, String(host)).toBe(400);
      expect(JSON.parse(reply.body)).toEqual({ detail: 'Invalid Host header.' });
    }
  });
});

describe('HTTPS', () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'outpost-tls-'));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  test('a self-signed certificate is made once, kept in the data folder (0600) and served', async () => {
    const material = await selfSignedTls(dir, '127.0.0.1');
    const keyFile = path.join(dir, 'tls', 'self-signed.key');
    expect(fs.statSync(keyFile).mode & 0o777).toBe(0o600);
    expect((await selfSignedTls(dir, '127.0.0.1')).cert).toBe(material.cert);
    const server = await startServer({ tls: material });
    try {
      expect(server.url.startsWith('https://127.0.0.1:')).toBe(true);
      const reply = await request(server.url, 'GET', '/rest/', { token: ADMIN_TOKEN });
      expect(reply.status).toBe(200);
      expect(reply.json()['rules/history']).toBe(`${server.url}/rest/rules/history/`);
      const peer = await new Promise<tls.PeerCertificate>((resolve, reject) => {
        const socket = tls.connect({ host: '127.0.0.1', port: Number(new URL(server.url).port), rejectUnauthorized: false }, () => {
          resolve(socket.getPeerCertificate());
          socket.end();
        });
        socket.on('error', reject);
      });
      expect(peer.subjectaltname).toContain('IP Address:127.0.0.1');
    } finally {
      await server.close();
    }
  });
});
