/** IP addresses and host names as Python's ipaddress and the central server read them. */
import { describe, expect, test } from 'vitest';
import { isAddressOrHostName, networkContains, parseIp, parseNetwork } from '../../shared/api/address';
import { formatDateTime, parseDateTimeInput, parseIsoDateTime } from '../../shared/api/datetime';

describe('IP addresses', () => {
  test('IPv4 without leading zeros', () => {
    expect(parseIp('10.0.0.1')?.text).toBe('10.0.0.1');
    for (const bad of ['10.0.0.256', '010.0.0.1', '10.0.0', '1.2.3.4.5', '']) expect(parseIp(bad)).toBeUndefined();
  });

  test('IPv6 compressed as Python prints it', () => {
    expect(parseIp('2001:0db8:0000:0000:0000:0000:0000:0010')?.text).toBe('2001:db8::10');
    expect(parseIp('2001:DB8::1')?.text).toBe('2001:db8::1');
    expect(parseIp('::')?.text).toBe('::');
    expect(parseIp('1:0:1:0:1:0:1:0')?.text).toBe('1:0:1:0:1:0:1:0');
    expect(parseIp('::ffff:10.0.0.1')?.bytes.slice(-4)).toEqual([10, 0, 0, 1]);
    for (const bad of ['1:2:3', '1::2::3', '12345::', 'g::1']) expect(parseIp(bad)).toBeUndefined();
  });

  test('a probe address is an IP address or an RFC 1123 host name, not digits and dots', () => {
    for (const good of ['10.0.0.1', '::1', 'probe-1.example.com', 'localhost']) expect(isAddressOrHostName(good)).toBe(true);
    for (const bad of ['1.2.3', '10.0.0.300', '-x.example.com', 'a b', 'x'.repeat(64)]) expect(isAddressOrHostName(bad)).toBe(false);
  });

  test('networks contain addresses of their version', () => {
    const home = parseNetwork('172.16.0.0/12')!;
    expect(networkContains(home, parseIp('172.31.255.1')!)).toBe(true);
    expect(networkContains(home, parseIp('172.32.0.1')!)).toBe(false);
    expect(networkContains(home, parseIp('::1')!)).toBe(false);
  });
});

describe('datetimes (DRF form)', () => {
  test('UTC with Z, microseconds only when not zero', () => {
    expect(formatDateTime(Date.UTC(2026, 10, 21, 9, 14, 3) * 1000 + 120455)).toBe('2026-11-21T09:14:03.120455Z');
    expect(formatDateTime(Date.UTC(2026, 10, 21, 9, 14, 3) * 1000)).toBe('2026-11-21T09:14:03Z');
  });

  test('ISO input with offsets, as Django parses it', () => {
    const utc = Date.UTC(2023, 6, 11, 14, 7, 33) * 1000 + 559720;
    expect(parseIsoDateTime('2023-07-11T16:07:33.559720+02:00')).toBe(utc);
    expect(parseIsoDateTime('2023-07-11T16:07:33.559720+0200')).toBe(utc);
    expect(parseIsoDateTime('2023-02-30T00:00:00Z')).toBeUndefined();
    expect(parseDateTimeInput('2026-01-02')).toBe(Date.UTC(2026, 0, 2) * 1000);
  });
});
