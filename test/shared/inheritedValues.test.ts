/** api.md §4 read from the API's objects (shared/api/inheritedValues.ts): where an inherited value comes from, what a new parent changes. */
import { describe, expect, test } from 'vitest';
import { changesWithNewParent, sourceOfInherited, templateLinkOf, valueKey, type TemplateLink } from '../../shared/api/inheritedValues';

const link = (pk: number, name: string, parent: number | null, overrides: string[] = []): TemplateLink => ({ pk, name, parent, overrides });

describe('the template an inherited value comes from (rule 1 followed upwards)', () => {
  // Corporate (top) ← Branch offices (overrides timezone) ← Lyon branch (overrides nothing) ← the probe
  const chain = [link(3, 'Lyon branch', 2), link(2, 'Branch offices', 1, ['timezone']), link(1, 'Corporate', null)];

  test('a field no ancestor overrides comes from the top of the chain', () => {
    expect(sourceOfInherited('ntp_server', chain)?.name).toBe('Corporate');
  });

  test('a field an ancestor overrides comes from the nearest one that does', () => {
    expect(sourceOfInherited('timezone', chain)?.name).toBe('Branch offices');
  });

  test('a field the direct parent overrides comes from the direct parent', () => {
    expect(sourceOfInherited('dns_server', [link(3, 'Lyon branch', 2, ['dns_server']), ...chain.slice(1)])?.name).toBe('Lyon branch');
  });

  test('a parent without a parent is the source of everything it hands down', () => {
    expect(sourceOfInherited('interfaces', [link(1, 'Corporate', null)])?.name).toBe('Corporate');
  });

  test('a chain that stops before the source, or that loops, names no source', () => {
    expect(sourceOfInherited('ntp_server', chain.slice(0, 2))).toBeUndefined();
    expect(sourceOfInherited('ntp_server', [link(3, 'A', 2), link(2, 'B', 3), link(3, 'A', 2)])).toBeUndefined();
    expect(sourceOfInherited('ntp_server', [link(3, 'A', 2), link(9, 'not the parent', null)])).toBeUndefined();
    expect(sourceOfInherited('ntp_server', [])).toBeUndefined();
  });

  test('a template object of the API becomes a link of the chain', () => {
    expect(templateLinkOf({ pk: 4, name: 'Lab', parent_tmpl: 1, overriden_fields: ['timezone'], timezone: 'UTC' })).toEqual(link(4, 'Lab', 1, ['timezone']));
    expect(templateLinkOf({ pk: 5, name: 'Top', parent_tmpl: null })).toEqual(link(5, 'Top', null));
  });
});

describe('the values a child takes from a new parent (rule 2)', () => {
  const probe = {
    capture_threads: 2,
    timezone: 'UTC',
    ntp_server: 'ntp.example',
    interfaces: [
      { pk: 10, name: 'eth0', active: true },
      { pk: 11, name: 'eth1', active: false },
    ],
    protocols: [{ pk: 20, name: 'http', detection: true }],
  };
  const parent = {
    capture_threads: 8,
    timezone: 'Europe/Paris',
    ntp_server: 'ntp.example',
    interfaces: [
      { pk: 31, name: 'eth1', active: false },
      { pk: 30, name: 'eth0', active: true },
    ],
    protocols: [{ pk: 40, name: 'http', detection: false }],
  };

  test('every value that differs and is not overridden, in field order', () => {
    expect(changesWithNewParent(probe, [], parent).map((c) => c.field)).toEqual(['capture_threads', 'timezone', 'protocols']);
    expect(changesWithNewParent(probe, [], parent)[0]).toEqual({ field: 'capture_threads', from: 2, to: 8 });
  });

  test('overridden fields keep their value', () => {
    expect(changesWithNewParent(probe, ['timezone', 'protocols'], parent).map((c) => c.field)).toEqual(['capture_threads']);
  });

  test('interfaces and protocols compare by name and flag, whatever their pks and order', () => {
    expect(valueKey(probe.interfaces)).toBe(valueKey(parent.interfaces));
    expect(valueKey(probe.protocols)).not.toBe(valueKey(parent.protocols));
    expect(valueKey(null)).toBe(valueKey(undefined));
  });

  test('a parent with the same values changes nothing', () => {
    expect(changesWithNewParent(probe, [], probe)).toEqual([]);
  });
});
