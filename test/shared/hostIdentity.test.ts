import { describe, expect, test } from 'vitest';
import { parseIp } from '../../shared/api/address';
import { checkHostEntry, completeHostId, DATETIME_MESSAGES, hostnamesText, normaliseHostIp, parseEpochSeconds } from '../../shared/api/hostIdentity';
import { HOST_LISTS } from '../../shared/resources';
import type { JsonObject } from '../../shared/resources';

const SEEN = { first_seen: '2023-07-11T16:07:33.559720+00:00', last_seen: '2023-07-25T12:04:16.060288+00:00' };

function errorsOf(entry: JsonObject): JsonObject {
  const checked = checkHostEntry(entry);
  if (checked.ok) throw new Error('entry was valid');
  return checked.errors;
}

describe('an import entry is checked field by field in DRF words', () => {
  test('ip, hits and host_id are each reported, in that order', () => {
    expect(errorsOf({ ip: 'x', hits: -1, host_id: 's' })).toEqual({
      ip: ['Enter a valid IPv4 or IPv6 address.'],
      hits: ['Ensure this value is greater than or equal to 0.'],
      host_id: { non_field_errors: ['Invalid data. Expected a dictionary, but got str.'] },
    });
  });

  test('missing ip and host_id are required; hits is optional', () => {
    expect(errorsOf({})).toEqual({ ip: ['This field is required.'], host_id: ['This field is required.'] });
  });

  test('null and blank values', () => {
    expect(errorsOf({ ip: '', hits: null, host_id: null })).toEqual({
      ip: ['This field may not be blank.'],
      hits: ['This field may not be null.'],
      host_id: ['This field may not be null.'],
    });
    expect(errorsOf({ ip: null, host_id: SEEN })).toEqual({ ip: ['This field may not be null.'] });
  });

  test('a non-string ip, a boolean hits and a list host_id', () => {
    expect(errorsOf({ ip: 5, hits: true, host_id: [] })).toEqual({
      ip: ['Enter a valid IPv4 or IPv6 address.'],
      hits: ['A valid integer is required.'],
      host_id: { non_field_errors: ['Invalid data. Expected a dictionary, but got list.'] },
    });
  });

  test('host_id: datetimes required and ISO 8601, in_home_net boolean, each list a list of objects', () => {
    expect(
      errorsOf({
        ip: '10.0.0.1',
        host_id: { first_seen: '2023', last_seen: null, in_home_net: 'maybe', hostname: { a: 1 }, services: 'x', roles: [1, null, {}], 'tls.ja3': 5, net_info: null },
      }),
    ).toEqual({
      host_id: {
        first_seen: [DATETIME_MESSAGES.invalid],
        last_seen: ['This field may not be null.'],
        in_home_net: ['Must be a valid boolean.'],
        net_info: ['This field may not be null.'],
        hostname: ['Expected a list of items but got type "dict".'],
        roles: { '0': ['Expected a dictionary of items but got type "int".'], '1': ['This field may not be null.'] },
        'tls.ja3': ['Expected a list of items but got type "int".'],
        services: ['Expected a list of items but got type "str".'],
      },
    });
  });

  test('the datetime message is DRF\'s, and a date alone is not a datetime', () => {
    expect(DATETIME_MESSAGES.invalid).toBe('Datetime has wrong format. Use one of these formats instead: YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z].');
    expect(errorsOf({ ip: '10.0.0.1', host_id: { first_seen: '2023-07-11', last_seen: '', in_home_net: null } })).toEqual({
      host_id: { first_seen: [DATETIME_MESSAGES.invalid], last_seen: [DATETIME_MESSAGES.invalid], in_home_net: ['This field may not be null.'] },
    });
    expect(errorsOf({ ip: '10.0.0.1', host_id: { first_seen: 1689091653, last_seen: SEEN.last_seen } })).toEqual({
      host_id: { first_seen: [DATETIME_MESSAGES.invalid] },
    });
  });

  test('a datetime whose offset takes it before year 1 is out of range', () => {
    expect(errorsOf({ ip: '10.0.0.1', host_id: { first_seen: '0001-01-01T00:00:00+01:00', last_seen: SEEN.last_seen } })).toEqual({
      host_id: { first_seen: ['Datetime value out of range.'] },
    });
  });

  test('both timestamp forms of the samples are accepted, and kept as the same instants in UTC; hits may be numeric text', () => {
    const checked = checkHostEntry({ ip: '10.0.0.1', hits: '7', host_id: { first_seen: '2023-07-11T16:07:33.559720+0200', last_seen: '2023-07-11T16:07:33Z', in_home_net: 'yes' } });
    expect(checked.ok).toBe(true);
    if (!checked.ok) return;
    expect(checked.entry.hits).toBe(7);
    expect(checked.entry.firstSeen).toBe(Date.UTC(2023, 6, 11, 14, 7, 33) * 1000 + 559720);
    expect(checked.entry.lastSeen).toBe(Date.UTC(2023, 6, 11, 16, 7, 33) * 1000);
    expect(checked.entry.hostId.in_home_net).toBe(true);
    // Stored in api.md's form, in UTC (issue 22): 16:07:33.559720 at +02:00 is 14:07:33.559720 UTC.
    expect(checked.entry.hostId.first_seen).toBe('2023-07-11T14:07:33.559720+00:00');
    expect(checked.entry.hostId.last_seen).toBe('2023-07-11T16:07:33.000000+00:00');
  });

  test('an absent hits stays absent (the stored value is kept)', () => {
    const checked = checkHostEntry({ ip: '10.0.0.1', host_id: SEEN });
    expect(checked.ok && 'hits' in checked.entry).toBe(false);
  });
});

describe('addresses are normalised as the real server stores them', () => {
  test.each([
    ['2001:0db8::0010', '2001:db8::10'],
    [' 10.0.0.1 ', '10.0.0.1'],
    ['::ffff:10.0.0.1', '10.0.0.1'],
    ['fe80::1%eth0', 'fe80::1'],
    ['FE80::A', 'fe80::a'],
  ])('%s → %s', (given, stored) => {
    expect(normaliseHostIp(given)?.text).toBe(stored);
  });

  test.each(['10.0.0.256', '010.0.0.1', ' ::1', 'mail.example.com', '1.2.3'])('%s is not an address', (given) => {
    expect(normaliseHostIp(given)).toBeUndefined();
  });
});

describe('host_id is completed to the full §7 shape', () => {
  test('every list is present with its count; first_seen, last_seen, in_home_net lead', () => {
    const shape = completeHostId(parseIp('10.1.2.3')!, { ...SEEN, hostname: [{ host: 'a' }, { host: 'b' }] });
    expect(Object.keys(shape)).toEqual(['first_seen', 'last_seen', 'in_home_net', ...HOST_LISTS.flatMap((l) => [l, `${l}_count`])]);
    expect(shape.hostname_count).toBe(2);
    expect(shape.services).toEqual([]);
    expect(shape.services_count).toBe(0);
  });

  test('in_home_net defaults to membership of a default home net; a given value is kept', () => {
    expect(completeHostId(parseIp('172.20.0.1')!, SEEN).in_home_net).toBe(true);
    expect(completeHostId(parseIp('8.8.8.8')!, SEEN).in_home_net).toBe(false);
    expect(completeHostId(parseIp('8.8.8.8')!, { ...SEEN, in_home_net: true }).in_home_net).toBe(true);
  });

  test('net_info is never empty: the home net holding the ip, else "internet", with the host times', () => {
    expect(completeHostId(parseIp('192.168.4.4')!, SEEN).net_info).toEqual([{ agg: '192.168.0.0/16', ...SEEN }]);
    expect(completeHostId(parseIp('2001:db8::1')!, { ...SEEN, net_info: [] }).net_info).toEqual([{ agg: 'internet', ...SEEN }]);
    const given = [{ agg: '10.0.0.0/24', ...SEEN }];
    const shape = completeHostId(parseIp('10.0.0.1')!, { ...SEEN, net_info: given });
    expect(shape.net_info).toEqual(given);
    expect(shape.net_info_count).toBe(1);
  });

  test('given counts are replaced by the lengths; other keys are kept after the shape', () => {
    const shape = completeHostId(parseIp('10.0.0.1')!, { tenant: 1, ...SEEN, services: [], services_count: 3, ip: '10.0.0.1' });
    expect(shape.services_count).toBe(0);
    expect(Object.keys(shape).slice(-2)).toEqual(['tenant', 'ip']);
  });

  test('the hostnames of a host make one search text', () => {
    expect(hostnamesText({ hostname: [{ host: 'mx.example.com' }, { host: 'Mail' }, { other: 1 }] })).toBe('mx.example.com Mail ');
  });
});

describe('start_date / end_date are epoch seconds', () => {
  test('integers and decimals; empty is no filter', () => {
    expect(parseEpochSeconds('1689091653')).toEqual({ value: 1689091653_000000 });
    expect(parseEpochSeconds(' 1689091653.5 ')).toEqual({ value: 1689091653_500000 });
    expect(parseEpochSeconds('1e3')).toEqual({ value: 1000_000000 });
    expect(parseEpochSeconds('')).toEqual({});
  });

  test.each(['yesterday', 'NaN', 'Infinity', '2023-07-11', '1,5'])('%s: Enter a number.', (raw) => {
    expect(parseEpochSeconds(raw)).toEqual({ error: 'Enter a number.' });
  });

  test('above 1e50 is refused as django-filter does', () => {
    expect(parseEpochSeconds('1e51')).toEqual({ error: 'Ensure this value is less than or equal to 1e+50.' });
  });

  test('values are clamped to the years 1970-9999', () => {
    expect(parseEpochSeconds('-5')).toEqual({ value: 0 });
    expect(parseEpochSeconds('1e30')).toEqual({ value: 253402300799_000000 });
  });
});
