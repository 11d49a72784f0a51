/** The Sync screen's pure helpers (renderer/src/screens/syncFormat.ts). */
import { describe, expect, test } from 'vitest';
import type { EntryView } from '../../shared/app/sync';
import { ageText, comparedLines, conflictsOf, connectionText, countdownText, entryRoute, fieldLabel, progressText, resultText, STATE_TEXT, tlsText, valueLines } from '../../renderer/src/screens/syncFormat';

describe('sync screen helpers', () => {
  test('interfaces and protocols read as name and flag, sorted by name; empty strings and nothing are said so', () => {
    expect(valueLines('interfaces', [{ name: 'eth1', active: false, pk: 9 }, { name: 'eth0', active: true }])).toEqual(['eth0 (active)', 'eth1 (inactive)']);
    expect(valueLines('protocols', [{ name: 'http', detection: true }, { name: 'dns', detection: false }])).toEqual(['dns (detection off)', 'http (detection on)']);
    expect(valueLines('interfaces', [])).toEqual(['(none)']);
    expect(valueLines('descr', '')).toEqual(['(empty)']);
    expect(valueLines('parent_tmpl', null)).toEqual(['(none)']);
    expect(valueLines('enabled', false)).toEqual(['no']);
    expect(valueLines('capture_threads', 4)).toEqual(['4']);
  });

  test('against the base, interfaces changed, added and removed on one side stand out', () => {
    const base = [{ name: 'eth0', active: true }, { name: 'eth1', active: true }];
    expect(comparedLines('interfaces', [{ name: 'eth0', active: true }, { name: 'eth1', active: false }, { name: 'eth2', active: true }], base)).toEqual([
      { text: 'eth0 (active)', change: 'same' },
      { text: 'eth1 (inactive)', change: 'changed' },
      { text: 'eth2 (active)', change: 'added' },
    ]);
    expect(comparedLines('interfaces', [{ name: 'eth0', active: true, pk: 4 }], base)).toEqual([
      { text: 'eth0 (active)', change: 'same' },
      { text: 'eth1 (removed)', change: 'removed' },
    ]);
    expect(comparedLines('location', 'rack 7', 'rack 2')).toEqual([{ text: 'rack 7', change: 'same' }]);
  });

  test('the phase of a sync and the field names read as words', () => {
    expect(progressText({ phase: 'push', done: 1, total: 3, endpoint: undefined })).toBe('Pushing changes');
    expect(progressText({ phase: 'pull', done: 0, total: 40, endpoint: 'vendor_probe' })).toBe('Pulling vendor probes');
    expect(progressText({ phase: 'pull', done: 0, total: 1, endpoint: 'host_id' })).toBe('Pulling host identities');
    expect(fieldLabel('vendor_probe', 'ntp_server')).toBe('NTP server');
    expect(fieldLabel('vendor_probe', 'location')).toBe('Location');
    expect(fieldLabel('vendor_probe_template', 'parent_tmpl')).toBe('Parent template');
  });

  test('an entry links to its object while it exists and a screen opens it', () => {
    expect(entryRoute({ op: 'update', resource: 'vendor_probe', pk: 12 })).toBe('/probes/vendor/12');
    expect(entryRoute({ op: 'create', resource: 'engine_probe', pk: -3 })).toBe('/probes/engine/-3');
    expect(entryRoute({ op: 'delete', resource: 'vendor_probe', pk: 12 })).toBeUndefined();
    expect(entryRoute({ op: 'update', resource: 'ruleset', pk: 2 })).toBeUndefined();
  });

  test('ages and TLS', () => {
    const now = Date.parse('2026-03-10T12:00:00Z');
    expect(ageText('2026-03-10T11:59:50.120000Z', now)).toBe('just now');
    expect(ageText('2026-03-10T11:47:00Z', now)).toBe('13 min ago');
    expect(ageText('2026-03-07T12:00:00Z', now)).toBe('3 days ago');
    expect(ageText('soon', now)).toBe('');
    expect(tlsText({ url: 'https://c.example', insecure: false, pin: null })).toBe('verified');
    expect(tlsText({ url: 'https://c.example', insecure: true, pin: null })).toBe('not verified');
    expect(tlsText({ url: 'https://c.example', insecure: false, pin: 'ab'.repeat(32) })).toBe('pinned');
  });
});

describe('an object’s conflicts', () => {
  const entry = (seq: number, resource: string, pk: number, state: EntryView['state']): EntryView => ({
    seq, op: 'update', resource, pk, label: 'x', state, message: null, comment: null, fields: {}, created: '2026-01-01T00:00:00Z', conflicts: [],
  });

  test('only the changes of that object that wait in conflict, oldest first', () => {
    const entries = [entry(5, 'vendor_probe', 7, 'conflict'), entry(2, 'vendor_probe', 7, 'conflict'), entry(3, 'vendor_probe', 7, 'pending'), entry(4, 'vendor_probe_template', 7, 'conflict'), entry(6, 'vendor_probe', 8, 'conflict')];
    expect(conflictsOf(entries, 'vendor_probe', 7).map((e) => e.seq)).toEqual([2, 5]);
    expect(conflictsOf(entries, 'vendor_probe', 9)).toEqual([]);
  });
});

describe('the sync state in words', () => {
  test('before any answer: "Connecting…" while the first sync runs, else "Not yet reached"; never "Online"', () => {
    expect(connectionText({ connection: 'unknown', syncing: true })).toBe('Connecting…');
    expect(connectionText({ connection: 'unknown', syncing: false })).toBe('Not yet reached');
    expect(connectionText({ connection: 'online', syncing: true })).toBe('Online');
    expect(connectionText({ connection: 'offline', syncing: true })).toBe('Offline');
  });

  test('the next attempt counts down in seconds, then minutes and seconds', () => {
    const now = Date.parse('2026-01-01T10:00:00Z');
    expect(countdownText('2026-01-01T10:00:42Z', now)).toBe('in 42 s');
    expect(countdownText('2026-01-01T10:03:05Z', now)).toBe('in 3 min 5 s');
    expect(countdownText('2026-01-01T10:05:00Z', now)).toBe('in 5 min');
    // 0.4 s left rounds up: "now" only once the time has come.
    expect(countdownText('2026-01-01T10:00:00.400Z', now)).toBe('in 1 s');
    expect(countdownText('2026-01-01T09:59:59Z', now)).toBe('now');
    expect(countdownText('not a time', now)).toBe('');
  });

  test('a sync’s outcome: what moved, what waits, or the error with what to try', () => {
    const base = { pushed: 2, pulled: 1, conflicts: 0, parked: 0, waiting: 0, finished: '2026-01-01T10:00:00Z' };
    expect(resultText({ ...base, outcome: 'done' })).toEqual({ ok: true, text: 'Pushed 2 changes, pulled 1 change.', advice: null });
    expect(resultText({ ...base, outcome: 'conflicts', conflicts: 1, parked: 1 }).text).toBe('Pushed 2 changes, pulled 1 change. 2 changes wait for you (conflicts or refused).');
    const failed = resultText({ ...base, pushed: 0, pulled: 0, outcome: 'error', error: { kind: 'network', message: 'the central server 127.0.0.1:9 cannot be reached' } });
    expect(failed.ok).toBe(false);
    expect(failed.text).toBe('Stopped: The central server 127.0.0.1:9 cannot be reached.');
    expect(failed.advice).toMatch(/network and VPN/);
    expect(resultText({ ...base, pushed: 1, outcome: 'error', error: { kind: 'network', message: 'lost' } }).text).toBe('Stopped: Lost. (pushed 1 change, pulled 1 change before it stopped)');
  });

  test('an entry is "Being sent" only in flight; one whose send got no answer says so', () => {
    expect(STATE_TEXT.sending).toBe('Being sent');
    expect(STATE_TEXT.unconfirmed).not.toMatch(/sent$/);
  });
});

describe('the status bar counts changes awaiting review apart', () => {
  test('after review: "N changes awaiting review"; automatically: "N changes waiting"', async () => {
    const { waitingText } = await import('../../renderer/src/screens/syncFormat');
    expect(waitingText({ pushMode: 'review', awaitingReview: 3, outbox: { pending: 3 } })).toEqual({ text: '3 changes awaiting review', kind: 'review' });
    expect(waitingText({ pushMode: 'review', awaitingReview: 1, outbox: { pending: 1 } }).text).toBe('1 change awaiting review');
    expect(waitingText({ pushMode: 'automatic', awaitingReview: 0, outbox: { pending: 3 } })).toEqual({ text: '3 changes waiting', kind: 'waiting' });
    expect(waitingText({ pushMode: 'review', awaitingReview: 0, outbox: { pending: 0 } })).toEqual({ text: 'No changes waiting', kind: 'clear' });
  });
});
