/**
 * The sync state's rules (issue 25 §3, shared/app/sync.ts): "online" only after an answer, "last
 * push" only for an accepted change, "being sent" only while in flight, and what to try after
 * each kind of stop.
 */
import { describe, expect, test } from 'vitest';
import { acceptedPush, connectionAfter, entryState, SYNC_ERROR_KINDS, syncAdvice, type Connection } from '../../shared/app/sync';

describe('the connection after a sync', () => {
  const before: Connection[] = ['unknown', 'online', 'offline', 'auth_failed'];

  test('online only when the central server answered and nothing of it stopped the sync', () => {
    for (const previous of before) {
      expect(connectionAfter(previous, true, null)).toBe('online');
      // An empty outbox asks nothing: no answer, no news.
      expect(connectionAfter(previous, false, null)).toBe(previous);
    }
  });

  test('no answer, a bad certificate, a timeout or a wrong answer is offline, whatever was known', () => {
    for (const previous of before) {
      for (const kind of ['network', 'tls', 'timeout', 'invalid'] as const) {
        expect(connectionAfter(previous, false, kind)).toBe('offline');
        expect(connectionAfter(previous, true, kind)).toBe('offline');
      }
    }
  });

  test('a refused token is said so, even after other answers', () => {
    expect(connectionAfter('online', true, 'auth')).toBe('auth_failed');
    expect(connectionAfter('unknown', false, 'auth')).toBe('auth_failed');
  });

  test('a sync stopped here (busy, closing, the mass delete guard, a bug) says only what was answered', () => {
    for (const kind of ['busy', 'stopped', 'mass_delete', 'internal'] as const) {
      expect(connectionAfter('unknown', false, kind)).toBe('unknown');
      expect(connectionAfter('offline', true, kind)).toBe('online');
    }
  });
});

describe('the last push', () => {
  test('moves only when the central server accepted at least one change', () => {
    expect(acceptedPush(0)).toBe(false);
    expect(acceptedPush(1)).toBe(true);
  });
});

describe('an outbox entry’s state as shown', () => {
  test('"sending" only while its request is in flight', () => {
    expect(entryState('pending', true)).toBe('sending');
    expect(entryState('sending', true)).toBe('sending');
    expect(entryState('pending', false)).toBe('pending');
  });

  test('a create whose request got no answer is unconfirmed, not being sent', () => {
    expect(entryState('sending', false)).toBe('unconfirmed');
  });

  test('refused and conflicting entries keep their state', () => {
    expect(entryState('parked', false)).toBe('parked');
    expect(entryState('conflict', false)).toBe('conflict');
  });
});

describe('what to try', () => {
  test('an unreachable server: the network and VPN, and the remote’s URL', () => {
    for (const kind of ['network', 'timeout'] as const) {
      const advice = syncAdvice(kind)!;
      expect(advice).toMatch(/network and VPN/);
      expect(advice).toMatch(/URL in Settings → Remotes/);
      expect(advice).toMatch(/outpost remote test NAME/);
    }
  });

  test('a refused token: replace it; a certificate: the pin; a wrong answer: the URL', () => {
    expect(syncAdvice('auth')).toMatch(/Replace the remote’s token/);
    expect(syncAdvice('tls')).toMatch(/certificate pin/);
    expect(syncAdvice('invalid')).toMatch(/URL/);
  });

  test('every kind but a sync stopped on purpose has advice; nothing to try without an error', () => {
    for (const kind of SYNC_ERROR_KINDS) expect(syncAdvice(kind) === null).toBe(kind === 'stopped');
    expect(syncAdvice(null)).toBeNull();
  });
});
