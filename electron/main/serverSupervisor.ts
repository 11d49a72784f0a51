/**
 * Keeps the server process running for the window (app.md §1): starts it, waits for it to say
 * where it listens, restarts it when it dies (waiting longer after each failure in a row, up to a
 * limit), and publishes the ServerStatus the status bar shows, with the reason of a restart or
 * failure.
 */
import type { ServerState, ServerStatus } from '../../shared/app/bridge';
import { parseServerMessage, STOP, type ServerEndpoint } from './serverMessages';

/** The parts of Electron's UtilityProcess the supervisor uses. */
export interface ServerChild {
  on(event: 'message', listener: (message: unknown) => void): unknown;
  on(event: 'exit', listener: (code: number) => void): unknown;
  postMessage(message: unknown): void;
  kill(): boolean;
}

/** Electron's `utilityProcess.fork` (or a fake). */
export type ForkServer = (modulePath: string, args: string[], options: { serviceName: string }) => ServerChild;

export interface Clock {
  setTimeout(action: () => void, ms: number): unknown;
  clearTimeout(timer: unknown): void;
  now(): number;
}

const realClock: Clock = {
  setTimeout: (action, ms) => setTimeout(action, ms),
  clearTimeout: (timer) => clearTimeout(timer as NodeJS.Timeout),
  now: () => Date.now(),
};

export interface SupervisorOptions {
  readonly fork: ForkServer;
  readonly modulePath: string;
  readonly args: readonly string[];
  /** How long a starting server may take to report ready before it counts as failed. */
  readonly readyTimeoutMs?: number;
  /** Waits before each restart in a row; the last one repeats. */
  readonly backoffMs?: readonly number[];
  /** Failures in a row after which the supervisor gives up (state `failed`). */
  readonly maxFailures?: number;
  /** Running this long makes the next failure the first of a new row. */
  readonly stableAfterMs?: number;
  /** How long `stop()` waits for a clean exit before killing. */
  readonly stopTimeoutMs?: number;
  readonly clock?: Clock;
  /** The remote tokens handed to each new server process (the app's safeStorage vault). */
  readonly secrets?: () => Readonly<Record<string, string>>;
  /** A token the server process set (null: removed), to keep encrypted. */
  readonly onSecret?: (name: string, secret: string | null) => void;
}

export const DEFAULTS = {
  readyTimeoutMs: 20_000,
  backoffMs: [500, 1_000, 2_000, 4_000, 8_000],
  maxFailures: 5,
  stableAfterMs: 60_000,
  stopTimeoutMs: 5_000,
} as const;

/** The wait before restart number `failures` (1 = the first failure in a row). */
export function backoffDelay(backoff: readonly number[], failures: number): number {
  if (backoff.length === 0) return 0;
  return backoff[Math.min(Math.max(failures, 1), backoff.length) - 1]!;
}

function seconds(ms: number): string {
  const s = ms / 1000;
  return `${Number.isInteger(s) ? s : s.toFixed(1)} s`;
}

export class ServerSupervisor {
  private child: ServerChild | undefined;
  private current: ServerStatus = { state: 'starting', restarts: 0 };
  private ready: ServerEndpoint | undefined;
  private failures = 0;
  private startedAt = 0;
  private timer: unknown;
  private stopping: Promise<void> | undefined;
  private readonly listeners = new Set<(status: ServerStatus) => void>();
  private readonly options: Required<Omit<SupervisorOptions, 'clock' | 'secrets' | 'onSecret'>> & Pick<SupervisorOptions, 'secrets' | 'onSecret'> & { clock: Clock };

  constructor(options: SupervisorOptions) {
    this.options = { ...DEFAULTS, clock: realClock, ...options };
  }

  status(): ServerStatus {
    return this.current;
  }

  /** Where to forward requests, while the server is running. */
  endpoint(): ServerEndpoint | undefined {
    return this.current.state === 'running' ? this.ready : undefined;
  }

  /**
   * The endpoint once the server runs: at once when it does, after it starts when it is starting
   * or restarting (at most `timeoutMs`), undefined when it failed or stays down.
   */
  whenRunning(timeoutMs: number): Promise<ServerEndpoint | undefined> {
    const now = this.endpoint();
    if (now || this.current.state === 'failed' || this.stopping) return Promise.resolve(now);
    return new Promise((resolve) => {
      const done = (endpoint: ServerEndpoint | undefined) => {
        this.options.clock.clearTimeout(timer);
        unsubscribe();
        resolve(endpoint);
      };
      const timer = this.options.clock.setTimeout(() => done(undefined), timeoutMs);
      const unsubscribe = this.onStatus((status) => {
        if (status.state === 'running') done(this.endpoint());
        else if (status.state === 'failed') done(undefined);
      });
    });
  }

  onStatus(listener: (status: ServerStatus) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  start(): void {
    if (this.child || this.stopping) return;
    this.spawn();
  }

  private publish(state: ServerState, message?: string): void {
    this.current = { state, restarts: this.current.restarts, ...(message ? { message } : {}) };
    for (const listener of this.listeners) listener(this.current);
  }

  private spawn(): void {
    const { fork, modulePath, args, clock, readyTimeoutMs } = this.options;
    let child: ServerChild;
    try {
      child = fork(modulePath, [...args], { serviceName: 'Outpost server' });
    } catch (error) {
      this.failed(`the server process could not be started: ${(error as Error).message}`, false);
      return;
    }
    this.child = child;
    this.ready = undefined;
    if (this.options.secrets) child.postMessage({ type: 'secrets', secrets: this.options.secrets() });
    let settled = false;
    let reported: { message: string; permanent: boolean } | undefined;
    this.timer = clock.setTimeout(() => {
      if (this.child !== child || this.ready) return;
      reported = { message: `the server did not start within ${seconds(readyTimeoutMs)}`, permanent: false };
      child.kill();
    }, readyTimeoutMs);
    child.on('message', (raw) => {
      if (this.child !== child) return;
      const message = parseServerMessage(raw);
      if (!message) return;
      if (message.type === 'ready') {
        clock.clearTimeout(this.timer);
        this.ready = { port: message.port, token: message.token };
        this.startedAt = clock.now();
        this.publish('running');
      } else if (message.type === 'token' && this.ready) {
        this.ready = { ...this.ready, token: message.token };
      } else if (message.type === 'failed') {
        reported = { message: message.message, permanent: message.permanent };
      } else if (message.type === 'secret') {
        this.options.onSecret?.(message.name, message.secret);
      }
    });
    child.on('exit', (code) => {
      if (settled || this.child !== child) return;
      settled = true;
      clock.clearTimeout(this.timer);
      this.child = undefined;
      const wasRunning = this.ready !== undefined;
      this.ready = undefined;
      if (this.stopping) return;
      if (wasRunning && clock.now() - this.startedAt >= this.options.stableAfterMs) this.failures = 0;
      const reason = reported?.message ?? `the server process stopped unexpectedly (exit code ${code})`;
      this.failed(reason, reported?.permanent ?? false);
    });
  }

  private failed(reason: string, permanent: boolean): void {
    this.failures += 1;
    const { maxFailures, backoffMs, clock } = this.options;
    if (permanent || this.failures >= maxFailures) {
      const why = permanent ? reason : `${reason} (${this.failures} failures in a row; restart Outpost to try again)`;
      this.publish('failed', why);
      return;
    }
    const delay = backoffDelay(backoffMs, this.failures);
    this.current = { ...this.current, restarts: this.current.restarts + 1 };
    this.publish('restarting', `${reason}; restarting in ${seconds(delay)}`);
    this.timer = clock.setTimeout(() => {
      if (!this.stopping) this.spawn();
    }, delay);
  }

  /** Ask the server to stop (it closes its databases), kill it if it does not; no restart after. */
  stop(): Promise<void> {
    this.stopping ??= new Promise<void>((resolve) => {
      const { clock, stopTimeoutMs } = this.options;
      clock.clearTimeout(this.timer);
      const child = this.child;
      if (!child) {
        resolve();
        return;
      }
      const killer = clock.setTimeout(() => {
        child.kill();
        resolve();
      }, stopTimeoutMs);
      child.on('exit', () => {
        clock.clearTimeout(killer);
        resolve();
      });
      try {
        child.postMessage(STOP);
      } catch {
        child.kill();
      }
    });
    return this.stopping;
  }
}
