/**
 * A plain HTTP relay in front of a test central server: it records every request (method, path
 * and query) and how many were in flight at once, and can make the network fail at a chosen
 * request — the request lost before it reaches the server, or its answer lost after the server
 * did the work — while the test kills or restarts the server behind it.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RelayedRequest {
  readonly method: string;
  /** Path and query, as sent. */
  readonly url: string;
}

/**
 * forward: as usual; drop-request: the server never sees it; drop-answer: the server answers, the
 * client never hears it; holdMs: the answer reaches the client that much later.
 */
export type RelayDecision = 'forward' | 'drop-request' | 'drop-answer' | { readonly holdMs: number };

export class Relay {
  readonly requests: RelayedRequest[] = [];
  maxInFlight = 0;
  /** Decides the fate of each request (index: its position in `requests`). */
  decide: (request: RelayedRequest, index: number) => RelayDecision = () => 'forward';
  private inFlight = 0;

  private constructor(
    private readonly server: http.Server,
    private readonly target: URL,
  ) {}

  static async start(target: string): Promise<Relay> {
    const server = http.createServer();
    const relay = new Relay(server, new URL(target));
    server.on('request', (req, res) => relay.handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return relay;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const request = { method: req.method ?? 'GET', url: req.url ?? '/' };
    const index = this.requests.push(request) - 1;
    const decision = this.decide(request, index);
    if (decision === 'drop-request') {
      req.socket.destroy();
      return;
    }
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    const done = () => this.inFlight--;
    const upstream = http.request(
      { host: this.target.hostname, port: this.target.port, path: request.url, method: request.method, headers: req.headers, agent: false },
      (answer) => {
        if (decision === 'drop-answer') {
          // Read it all (the server has committed), then cut the client off.
          answer.resume();
          answer.on('end', () => {
            done();
            req.socket.destroy();
          });
          return;
        }
        const pass = () => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
          answer.on('end', done);
        };
        if (typeof decision === 'object') setTimeout(pass, decision.holdMs);
        else pass();
      },
    );
    upstream.on('error', () => {
      done();
      req.socket.destroy();
    });
    req.pipe(upstream);
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
