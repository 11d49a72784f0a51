/** The Host lookup screen's pure helpers (renderer/src/screens/hostsFormat.ts). */
import { describe, expect, test } from 'vitest';
import type { JsonValue } from '../../shared/resources';
import { checkAddress, flattenErrors, formatBytes, formatSeen, hostOrderingLabel, invalidEntries, windowDay, windowParam } from '../../renderer/src/screens/hostsFormat';

describe('host lookup helpers', () => {
  test('sizes are written in decimal units, as the command writes them', () => {
    expect([formatBytes(999), formatBytes(48_326_720), formatBytes(2_400_000), formatBytes(1_500_000_000)]).toEqual(['999 B', '48 MB', '2.4 MB', '1.5 GB']);
  });

  test('an address is taken in its canonical form, and anything else says why not', () => {
    expect(checkAddress(' 10.0.0.5 ')).toEqual({ ip: '10.0.0.5' });
    expect(checkAddress('2001:DB8:0:0::1')).toEqual({ ip: '2001:db8::1' });
    expect(checkAddress('10.0.0')).toEqual({ error: expect.stringContaining('“10.0.0” is not an IPv4 or IPv6 address') });
    expect(checkAddress('10.0.0.0/8')).toEqual({ error: expect.stringContaining('is a network') });
    expect(checkAddress('')).toEqual({ error: expect.stringContaining('Type an IPv4 or IPv6 address') });
  });

  test('a long text that is not an address is quoted cut at 256 characters (it may come from a link)', () => {
    const text = `10.${'9'.repeat(100_000)}`;
    const checked = checkAddress(text);
    expect(checked).toEqual({ error: `“${text.slice(0, 256)}…” is not an IPv4 or IPv6 address (e.g. 10.0.0.5 or 2001:db8::1).` });
  });

  test('timestamps of every form the API uses read as UTC to the second', () => {
    expect(formatSeen('2023-07-11T16:07:33.559720+02:00')).toBe('2023-07-11 14:07:33 UTC');
    expect(formatSeen('2023-07-11T16:07:50.108895+0200')).toBe('2023-07-11 14:07:50 UTC');
    expect(formatSeen('2026-11-21T09:14:03.120455Z')).toBe('2026-11-21 09:14:03 UTC');
    expect(formatSeen('2026-01-01T00:30:00-01:00')).toBe('2026-01-01 01:30:00 UTC');
    expect(formatSeen('yesterday')).toBe('yesterday');
    expect(formatSeen(null)).toBe('—');
  });

  test('a day of the seen-in window covers its first to its last microsecond, and reads back as that day', () => {
    expect(windowParam('2026-03-02', 'start')).toBe('1772409600');
    expect(windowParam('2026-03-02', 'end')).toBe('1772495999.999999');
    expect(windowDay('1772409600')).toBe('2026-03-02');
    expect(windowDay('1772495999.999999')).toBe('2026-03-02');
    expect(windowParam('', 'start')).toBeUndefined();
    expect(windowDay('soon')).toBe('');
  });

  test('an import refused for its entries lists the first entries in error with where and why', () => {
    const body: JsonValue = [{}, { ip: ['Enter a valid IPv4 or IPv6 address.'] }, {}, { host_id: { hostname: { '1': ['Expected a dictionary of items but got type "str".'] }, first_seen: ['This field is required.'] } }, { non_field_errors: ['Invalid data.'] }];
    expect(invalidEntries(body, 2)).toEqual({
      total: 5,
      inError: 3,
      first: [
        { position: 2, problems: [{ path: 'ip', message: 'Enter a valid IPv4 or IPv6 address.' }] },
        {
          position: 4,
          problems: [
            { path: 'host_id.hostname[1]', message: 'Expected a dictionary of items but got type "str".' },
            { path: 'host_id.first_seen', message: 'This field is required.' },
          ],
        },
      ],
    });
    expect(invalidEntries({ non_field_errors: ['Expected a list of items but got type "dict".'] }, 2)).toBeUndefined();
    expect(flattenErrors({ non_field_errors: ['Expected a list of items but got type "dict".'] })).toEqual([{ path: '', message: 'Expected a list of items but got type "dict".' }]);
  });

  test('the known hosts’ ordering fields read as words, not as the API’s field names', () => {
    expect(hostOrderingLabel('host_id.tls.ja3_count')).toEqual({ label: 'Number of TLS JA3 fingerprints', kind: 'number' });
    expect(hostOrderingLabel('host_id.services_count')).toEqual({ label: 'Number of services', kind: 'number' });
    expect(hostOrderingLabel('host_id.http.user_agent_count')).toEqual({ label: 'Number of HTTP user agents', kind: 'number' });
    expect(hostOrderingLabel('host_id.last_seen')).toEqual({ label: 'Last seen', kind: 'date' });
    expect(hostOrderingLabel('ip')).toEqual({ label: 'Address', kind: 'text' });
  });
});
