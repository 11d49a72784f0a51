/** Issue 11: the field changes of a write and the app's history range, as pure functions (shared/api/fieldChanges.ts, shared/app/history.ts). */
import { describe, expect, test } from 'vitest';
import { fieldChanges, isSecretField, parseFieldChanges } from '../../shared/api/fieldChanges';
import { INVALID_DAY, parseHistoryRange } from '../../shared/app/history';
import { user, vendorProbe } from '../../shared/resources';

describe('field changes', () => {
  test('an update records the fields whose value differs; interfaces compare without their pks; times and read-only fields never', () => {
    const before = { pk: 7, name: 'p', location: 'a', updated: '2026-01-01T00:00:00Z', vendordevice_id: 3, interfaces: [{ pk: 1, name: 'eth0', active: true }] };
    const after = { pk: 7, name: 'p', location: 'b', updated: '2026-01-02T00:00:00Z', vendordevice_id: 4, interfaces: [{ pk: 9, name: 'eth0', active: true }] };
    expect(fieldChanges(vendorProbe, before, after, ['location'])).toEqual([{ field: 'location', from: 'a', to: 'b' }]);
  });

  test('a create records what it was given, a delete everything it had', () => {
    expect(fieldChanges(vendorProbe, undefined, { name: 'p', location: '', enabled: true }, ['name', 'comment'])).toEqual([{ field: 'name', to: 'p' }]);
    const gone = fieldChanges(vendorProbe, { name: 'p', location: 'x' }, undefined, []);
    expect(gone.slice(0, 2)).toEqual([{ field: 'name', from: 'p' }, { field: 'descr', from: null }]);
  });

  test('a secret is changed, never valued: write-only fields and anything named like a password or token', () => {
    expect(isSecretField(user, 'password')).toBe(true);
    expect(isSecretField(user, 'comment')).toBe(false);
    expect(isSecretField(user, 'username')).toBe(false);
    expect(fieldChanges(user, { username: 'u' }, { username: 'u' }, ['password'])).toEqual([{ field: 'password', secret: true }]);
    // Stored values of a secret are dropped when read back, whatever wrote them.
    expect(parseFieldChanges([{ field: 'password', secret: true, from: 'x', to: 'y' }, { nonsense: 1 }])).toEqual([{ field: 'password', secret: true }]);
  });
});

describe('the history range', () => {
  const range = (query: Record<string, string>) => parseHistoryRange((name) => query[name]);

  test('whole UTC days, both included: from the first microsecond of date_after to the last of date_before', () => {
    expect(range({ date_after: '2026-03-02', date_before: '2026-03-03' })).toEqual({
      range: { from: Date.UTC(2026, 2, 2) * 1000, until: Date.UTC(2026, 2, 4) * 1000 },
    });
    expect(range({})).toEqual({ range: {} });
  });

  test('one object by type and pk; bad values are errors by parameter', () => {
    expect(range({ object: 'vendor_probe:-3' })).toEqual({ range: { object: { type: 'vendor_probe', pk: -3 } } });
    expect(range({ date_before: '2026-02-30', object: 'vendor_probe' })).toEqual({ errors: { date_before: [INVALID_DAY], object: [expect.any(String)] } });
  });
});
