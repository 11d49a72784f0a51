/**
 * Identities made on another thread (issue 10, throughput): the rows a refresh writes are the
 * rows made on its own thread, in the order the chunks were given; a thread that fails or does
 * not answer is given up and the rows are made here, so that a refresh never waits forever.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { InlineIdentities, type IdentitySource } from '../../shared/eve/identity';
import { IdentityThread } from '../../electron/workspaces/identityThread';

const HOME = ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16'];

const threads: IdentityThread[] = [];
afterEach(async () => {
  for (const thread of threads.splice(0)) await thread.close();
});

function started(timeoutMs?: number): IdentityThread {
  const thread = IdentityThread.start(timeoutMs);
  expect(thread, 'worker threads run here').toBeDefined();
  threads.push(thread!);
  return thread!;
}

/** A chunk of hosts: some seen only here, some with a central part, one with a value of every kind. */
function chunk(n: number): IdentitySource[] {
  const at = 1_700_000_000_000_000 + n * 1_000_000;
  return Array.from({ length: 8 }, (_, i) => ({
    ip: `10.${n}.0.${i + 1}`,
    central:
      i % 3 === 0
        ? JSON.stringify({ first_seen: '2023-01-01T00:00:00.000000+00:00', last_seen: '2023-01-02T00:00:00.000000+00:00', hostname: [{ host: `central-${n}-${i}`, first_seen: '2023-01-01T00:00:00.000000+00:00', last_seen: '2023-01-02T00:00:00.000000+00:00' }] })
        : null,
    centralHits: i % 3 === 0 ? 7 : null,
    hits: i,
    first: at,
    last: at + 500,
    values: [
      ['hostname', `host-${n}-${i}.corp`, JSON.stringify({ host: `host-${n}-${i}.corp` }), at, at + 100],
      ['services', 'TCP/443/tls', JSON.stringify({ proto: 'TCP', port: 443, app_proto: 'tls', tls: { subject: 'CN=x', issuerdn: 'CN=y', fingerprint: 'aa' } }), at, at + 200],
      ['username', `user${i}`, JSON.stringify({ user: `user${i}` }), at + 1, at + 2],
    ] as const,
  }));
}

describe('identities made on another thread', () => {
  test('are the rows made here, chunk by chunk in the order given', () => {
    const thread = started();
    const here = new InlineIdentities();
    for (let n = 0; n < 5; n++) {
      thread.submit(chunk(n), HOME);
      here.submit(chunk(n), HOME);
    }
    expect(thread.pending).toBe(5);
    for (let n = 0; n < 5; n++) expect(thread.take()).toEqual(here.take());
    expect(thread.pending).toBe(0);
    expect(thread.givenUp).toBe(false);
    expect(() => thread.take()).toThrow(/no chunk/);
  });

  test('a thread that has ended is given up after its time and the rows are made here', async () => {
    const thread = started(300);
    // The worker goes before it answers anything.
    await thread.close();
    thread.submit(chunk(1), HOME);
    thread.submit(chunk(2), HOME);
    const here = new InlineIdentities();
    here.submit(chunk(1), HOME);
    here.submit(chunk(2), HOME);
    const begun = Date.now();
    expect(thread.take()).toEqual(here.take());
    expect(Date.now() - begun).toBeGreaterThanOrEqual(250);
    expect(thread.givenUp).toBe(true);
    // Given up: the next chunk is made here at once.
    const again = Date.now();
    expect(thread.take()).toEqual(here.take());
    expect(Date.now() - again).toBeLessThan(250);
  });

  test('a chunk the thread cannot make is made here', () => {
    const thread = started();
    const bad: IdentitySource[] = [{ ...chunk(3)[0]!, central: '{not json' }];
    thread.submit(bad, HOME);
    // Here too the bad chunk fails, as it would without a thread: the failure is the refresh's.
    expect(() => thread.take()).toThrow(SyntaxError);
    expect(thread.givenUp).toBe(true);
  });
});
