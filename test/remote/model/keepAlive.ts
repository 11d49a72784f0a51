/**
 * A keep-alive HTTP client for the model test's own calls to the central server (its direct
 * edits and listings): the shared test client opens a connection per request, which costs the
 * reference server a thread each; hundreds of calls per seed make that count.
 */
import http from 'node:http';
import type { Reply } from '../../helpers/http';

export class KeepAliveClient {
  private readonly agent = new http.Agent({ keepAlive: true, maxSockets: 4 });

  constructor(
    readonly base: string,
    private readonly token: string,
  ) {}

  send(method: string, path: string, options: { json?: unknown } = {}): Promise<Reply> {
    const body = options.json === undefined ? undefined : Buffer.from(JSON.stringify(options.json));
    const headers: Record<string, string> = { Authorization: `Token ${this.token}`, Accept: 'application/json' };
    if (body) Object.assign(headers, { 'Content-Type': 'application/json', 'Content-Length': String(body.length) });
    return new Promise((resolve, reject) => {
      const req = http.request(new URL(path, this.base), { method, headers, agent: this.agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: () => JSON.parse(text) });
        });
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(body);
    });
  }

  get(path: string): Promise<Reply> {
    return this.send('GET', path);
  }

  post(path: string, json: unknown): Promise<Reply> {
    return this.send('POST', path, { json });
  }

  delete(path: string): Promise<Reply> {
    return this.send('DELETE', path);
  }

  close(): void {
    this.agent.destroy();
  }
}
