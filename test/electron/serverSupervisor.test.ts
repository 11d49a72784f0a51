/** The server process's supervisor: start, ready, restarts with backoff and a limit, failure, stop. */
import { describe, expect, test } from 'vitest';
import type { ServerStatus } from '../../shared/app/bridge';
import { backoffDelay, ServerSupervisor, type SupervisorOptions } from '../../electron/main/serverSupervisor';
import { forkRecorder, ManualClock } from './fakes';

function supervised(options: Partial<SupervisorOptions> = {}, onStop: 'exit' | 'hang' = 'exit') {
  const clock = new ManualClock();
  const forks = forkRecorder(onStop);
  const supervisor = new ServerSupervisor({
    fork: forks.fork,
    modulePath: '/app/dist/electron/server.cjs',
    args: ['--data', '/data'],
    readyTimeoutMs: 10_000,
    backoffMs: [500, 1_000, 2_000],
    maxFailures: 4,
    stableAfterMs: 60_000,
    stopTimeoutMs: 3_000,
    clock,
    ...options,
  });
  const published: ServerStatus[] = [];
  supervisor.onStatus((status) => published.push(status));
  return { supervisor, clock, forks, published };
}

describe('starting', () => {
  test('the server process is forked with the module and arguments, and is starting until it reports ready', () => {
    const { supervisor, forks } = supervised();
    supervisor.start();
    expect(forks.children).toHaveLength(1);
    expect(forks.last().modulePath).toBe('/app/dist/electron/server.cjs');
    expect(forks.last().args).toEqual(['--data', '/data']);
    expect(supervisor.status()).toEqual({ state: 'starting', restarts: 0 });
    expect(supervisor.endpoint()).toBeUndefined();
  });

  test('ready makes it running, with the port and token it reported', () => {
    const { supervisor, forks, published } = supervised();
    supervisor.start();
    forks.last().ready(40123, 'c'.repeat(40));
    expect(supervisor.status()).toEqual({ state: 'running', restarts: 0 });
    expect(supervisor.endpoint()).toEqual({ port: 40123, token: 'c'.repeat(40) });
    expect(published).toEqual([{ state: 'running', restarts: 0 }]);
  });

  test('a new token replaces the old one for the requests that follow', () => {
    const { supervisor, forks } = supervised();
    supervisor.start();
    forks.last().ready(40123, 'c'.repeat(40));
    forks.last().say({ type: 'token', token: 'd'.repeat(40) });
    expect(supervisor.endpoint()).toEqual({ port: 40123, token: 'd'.repeat(40) });
  });

  test('malformed messages are ignored', () => {
    const { supervisor, forks } = supervised();
    supervisor.start();
    for (const message of [null, 'ready', { type: 'ready', port: 0, token: 'x' }, { type: 'ready', port: 80.5, token: 'x' }, { type: 'ready', port: 8000, token: 'has space' }, { type: 'other' }]) {
      forks.last().say(message);
    }
    expect(supervisor.status().state).toBe('starting');
  });

  test('a server that does not report ready in time is killed and started again', () => {
    const { supervisor, forks, clock } = supervised();
    supervisor.start();
    clock.advance(9_999);
    expect(forks.last().killed).toBe(false);
    clock.advance(1);
    expect(forks.children[0]!.killed).toBe(true);
    expect(supervisor.status()).toEqual({ state: 'restarting', restarts: 1, message: 'the server did not start within 10 s; restarting in 0.5 s' });
    clock.advance(500);
    expect(forks.children).toHaveLength(2);
  });

  test('whenRunning waits for ready, and gives up on failure or after its timeout', async () => {
    const { supervisor, forks, clock } = supervised();
    supervisor.start();
    const waiting = supervisor.whenRunning(5_000);
    forks.last().ready(40123, 'c'.repeat(40));
    expect(await waiting).toEqual({ port: 40123, token: 'c'.repeat(40) });
    expect(await supervisor.whenRunning(5_000)).toEqual({ port: 40123, token: 'c'.repeat(40) });

    const other = supervised();
    other.supervisor.start();
    const slow = other.supervisor.whenRunning(2_000);
    other.clock.advance(2_000);
    expect(await slow).toBeUndefined();
    const failing = other.supervisor.whenRunning(60_000);
    other.forks.last().say({ type: 'failed', message: 'the data folder is not writable', permanent: true });
    other.forks.last().exit(1);
    expect(await failing).toBeUndefined();
    expect(clock.pending()).toBe(0);
  });
});

describe('restarts', () => {
  test('a server that dies is restarted after a wait that grows with each failure in a row', () => {
    const { supervisor, forks, clock, published } = supervised();
    supervisor.start();
    forks.last().ready();
    forks.last().exit(3);
    expect(supervisor.status()).toEqual({
      state: 'restarting',
      restarts: 1,
      message: 'the server process stopped unexpectedly (exit code 3); restarting in 0.5 s',
    });
    expect(supervisor.endpoint()).toBeUndefined();
    clock.advance(499);
    expect(forks.children).toHaveLength(1);
    clock.advance(1);
    expect(forks.children).toHaveLength(2);
    forks.last().exit(1);
    expect(supervisor.status().message).toMatch(/restarting in 1 s$/);
    clock.advance(1_000);
    forks.last().exit(1);
    expect(supervisor.status().message).toMatch(/restarting in 2 s$/);
    clock.advance(2_000);
    forks.last().ready(5555);
    expect(supervisor.status()).toEqual({ state: 'running', restarts: 3 });
    expect(supervisor.endpoint()?.port).toBe(5555);
    expect(published.map((s) => s.state)).toEqual(['running', 'restarting', 'restarting', 'restarting', 'running']);
  });

  test('after the limit of failures in a row it gives up, saying why', () => {
    const { supervisor, forks, clock } = supervised();
    supervisor.start();
    for (let i = 0; i < 3; i++) {
      forks.last().exit(1);
      clock.advance(10_000);
    }
    expect(forks.children).toHaveLength(4);
    forks.last().say({ type: 'failed', message: 'disk I/O error', permanent: false });
    forks.last().exit(1);
    expect(supervisor.status()).toEqual({
      state: 'failed',
      restarts: 3,
      message: 'disk I/O error (4 failures in a row; restart Outpost to try again)',
    });
    clock.advance(60_000);
    expect(forks.children).toHaveLength(4);
  });

  test('a failure starting again cannot cure is final at once', () => {
    const { supervisor, forks, clock } = supervised();
    supervisor.start();
    forks.last().say({ type: 'failed', message: 'workspace.sqlite3 was written by a newer Outpost', permanent: true });
    forks.last().exit(1);
    expect(supervisor.status()).toEqual({ state: 'failed', restarts: 0, message: 'workspace.sqlite3 was written by a newer Outpost' });
    clock.advance(60_000);
    expect(forks.children).toHaveLength(1);
  });

  test('a server that ran a good while starts a new row of failures', () => {
    const { supervisor, forks, clock } = supervised();
    supervisor.start();
    forks.last().exit(1);
    clock.advance(500);
    forks.last().exit(1);
    clock.advance(1_000);
    forks.last().ready();
    clock.advance(60_000);
    forks.last().exit(1);
    expect(supervisor.status().message).toMatch(/restarting in 0.5 s$/);
  });

  test('a fork that throws counts as a failure', () => {
    const clock = new ManualClock();
    let calls = 0;
    const supervisor = new ServerSupervisor({
      fork: () => {
        calls++;
        throw new Error('spawn EACCES');
      },
      modulePath: 'server.cjs',
      args: [],
      maxFailures: 2,
      backoffMs: [100],
      clock,
    });
    supervisor.start();
    expect(supervisor.status()).toEqual({ state: 'restarting', restarts: 1, message: 'the server process could not be started: spawn EACCES; restarting in 0.1 s' });
    clock.advance(100);
    expect(calls).toBe(2);
    expect(supervisor.status().state).toBe('failed');
  });

  test('the backoff repeats its last wait', () => {
    expect([1, 2, 3, 4, 9].map((n) => backoffDelay([500, 1_000, 2_000], n))).toEqual([500, 1_000, 2_000, 2_000, 2_000]);
    expect(backoffDelay([], 3)).toBe(0);
  });
});

describe('stopping', () => {
  test('stop asks the server to stop, and nothing restarts it', async () => {
    const { supervisor, forks, clock } = supervised();
    supervisor.start();
    forks.last().ready();
    await supervisor.stop();
    expect(forks.last().sent).toEqual([{ type: 'stop' }]);
    expect(forks.last().killed).toBe(false);
    clock.advance(60_000);
    expect(forks.children).toHaveLength(1);
    supervisor.start();
    expect(forks.children).toHaveLength(1);
  });

  test('a server that does not stop in time is killed', async () => {
    const { supervisor, forks, clock } = supervised({}, 'hang');
    supervisor.start();
    forks.last().ready();
    const stopped = supervisor.stop();
    clock.advance(2_999);
    expect(forks.last().killed).toBe(false);
    clock.advance(1);
    await stopped;
    expect(forks.last().killed).toBe(true);
  });

  test('stopping during a backoff wait cancels the restart', async () => {
    const { supervisor, forks, clock } = supervised();
    supervisor.start();
    forks.last().exit(1);
    await supervisor.stop();
    clock.advance(10_000);
    expect(forks.children).toHaveLength(1);
  });
});
