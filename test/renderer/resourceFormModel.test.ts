/** The form as data (renderer/src/components/resourceFormModel.ts): what a form starts from, what a save sends, where errors go. */
import { describe, expect, test } from 'vitest';
import { changedFieldNames, comparable, displayValue, errorLineOf, formPayload, generalMessages, initialValues, splitItemErrors } from '../../renderer/src/components/resourceFormModel';
import { engineProbe, vendorProbe, vendorProbeTemplate, type JsonObject } from '../../shared/resources';

describe('the form as data (resourceFormModel.ts)', () => {
  const probe: JsonObject = {
    pk: 7,
    name: 'p',
    descr: '',
    address: '10.0.0.1',
    location: '',
    serial: '',
    version: '',
    enabled: true,
    parent_tmpl: 3,
    overriden_fields: ['timezone'],
    home_net: 'h',
    external_net: 'e',
    capture_method: 'pcap',
    capture_threads: 2,
    pcap_capture: false,
    log_retention_days: 30,
    ntp_server: '',
    dns_server: '',
    timezone: 'UTC',
    interfaces: [
      { pk: 11, name: 'eth1', active: false },
      { pk: 10, name: 'eth0', active: true },
    ],
    protocols: [],
  };
  const inheritedUnlessOverridden = (overrides: string[]) => (name: string) => ['capture_threads', 'interfaces', 'timezone'].includes(name) && !overrides.includes(name);

  test('a new object starts from the given values, then the declaration\'s defaults', () => {
    const values = initialValues(vendorProbeTemplate, undefined, { parent_tmpl: 4 });
    expect(values.parent_tmpl).toBe(4);
    expect(values.capture_method).toBe('af_packet');
    expect(values.interfaces).toEqual([]);
    expect(values).not.toHaveProperty('pk');
    expect(initialValues(vendorProbe, probe, { parent_tmpl: 4 }).parent_tmpl).toBe(3);
  });

  test('an edit sends only the changed fields, never an inherited one; items without their pks', () => {
    const values: JsonObject = { ...initialValues(vendorProbe, probe), location: 'Lyon', capture_threads: 6, interfaces: [{ pk: 10, name: 'eth0', active: true }, { name: 'eth2', active: true }] };
    expect(formPayload({ resource: vendorProbe, values, object: probe, hidden: [], inherited: inheritedUnlessOverridden(['interfaces']) })).toEqual({
      location: 'Lyon',
      interfaces: [{ name: 'eth0', active: true }, { name: 'eth2', active: true }],
    });
  });

  test('items in another order or with other pks are no change', () => {
    const values: JsonObject = { ...initialValues(vendorProbe, probe), interfaces: [{ name: 'eth0', active: true }, { pk: 99, name: 'eth1', active: false }] };
    expect(formPayload({ resource: vendorProbe, values, object: probe, hidden: [], inherited: () => false })).toEqual({});
    expect(comparable(values.interfaces)).toBe(comparable(probe.interfaces));
  });

  test('overriden_fields is sent when its set changes, in declaration order', () => {
    const values = { ...initialValues(vendorProbe, probe), overriden_fields: ['timezone', 'capture_threads'], capture_threads: 8 };
    expect(formPayload({ resource: vendorProbe, values, object: probe, hidden: [], inherited: inheritedUnlessOverridden(['timezone', 'capture_threads']) })).toEqual({
      capture_threads: 8,
      overriden_fields: ['capture_threads', 'timezone'],
    });
    const back = { ...initialValues(vendorProbe, probe), overriden_fields: [] };
    expect(formPayload({ resource: vendorProbe, values: back, object: probe, hidden: [], inherited: inheritedUnlessOverridden([]) })).toEqual({ overriden_fields: [] });
  });

  test('a create sends every shown field that is not inherited; a resource without templates has no overriden_fields', () => {
    const values = initialValues(vendorProbe, undefined, { parent_tmpl: 3 });
    const payload = formPayload({ resource: vendorProbe, values: { ...values, name: 'n', address: 'a' }, object: undefined, hidden: ['serial'], inherited: inheritedUnlessOverridden([]) });
    expect(payload).toMatchObject({ name: 'n', address: 'a', parent_tmpl: 3, capture_method: 'af_packet', overriden_fields: [] });
    expect(Object.keys(payload)).not.toContain('capture_threads');
    expect(Object.keys(payload)).not.toContain('serial');
    expect(formPayload({ resource: engineProbe, values: initialValues(engineProbe, undefined), object: undefined, hidden: [], inherited: () => false })).not.toHaveProperty('overriden_fields');
  });

  test('errors no field shows go to the form; errors of shown fields are pointed at', () => {
    const label = (name: string) => (name === 'dns_server' ? 'DNS server' : name);
    expect(generalMessages({ dns_server: ['x'] }, ['dns_server'], label, 'failed')).toEqual(['Not saved: DNS server needs attention.']);
    expect(generalMessages({ detail: 'Template "T" is used by: probe "p"' }, [], label, 'failed')).toEqual(['Template "T" is used by: probe "p"']);
    expect(generalMessages({ overriden_fields: { '0': ['"x" is not a valid choice.'] } }, ['name'], label, 'failed')).toEqual(['overriden_fields: item 1: "x" is not a valid choice.']);
    expect(generalMessages({}, [], label, 'The server answered 500.')).toEqual(['The server answered 500.']);
  });

  test("a filter's error is one line of every message, or nothing", () => {
    expect(errorLineOf(['Enter a valid date/time.'])).toBe('Enter a valid date/time.');
    expect(errorLineOf(['Too short.', 'Not an address.'])).toBe('Too short. Not an address.');
    expect(errorLineOf({ '0': ['Bad item.'] })).toBe('item 1: Bad item.');
    expect(errorLineOf(undefined)).toBeUndefined();
    expect(errorLineOf([])).toBeUndefined();
  });

  test('item errors go to their row; messages about the whole list stay with the list', () => {
    const perItem = splitItemErrors([{}, { name: ['This name is already used in this list.'] }]);
    expect([...perItem.perRow]).toEqual([[1, ['This name is already used in this list.']]]);
    expect(perItem.list).toEqual([]);
    const whole = splitItemErrors(['This field is inherited from template "T"; add it to overriden_fields to change it.']);
    expect(whole.perRow.size).toBe(0);
    expect(whole.list).toHaveLength(1);
    expect([...splitItemErrors({ '2': { name: ['This field may not be blank.'] } }).perRow]).toEqual([[2, ['This field may not be blank.']]]);
  });
});

describe('changed fields and values in words (resourceFormModel.ts)', () => {
  const start: JsonObject = { name: 'p', capture_threads: 2, timezone: 'UTC', overriden_fields: ['timezone'], interfaces: [{ pk: 1, name: 'eth0', active: true }] };
  const names = ['name', 'capture_threads', 'timezone', 'interfaces'];

  test('nothing is changed when every shown value is the one the form started from', () => {
    expect(changedFieldNames({ names, shown: (n) => start[n] ?? null, start, overrides: ['timezone'] })).toEqual([]);
  });

  test('a value typed, or items edited, is changed; items compare by name and flag, not pk', () => {
    const now: JsonObject = { ...start, name: 'q', interfaces: [{ name: 'eth0', active: true }] };
    expect(changedFieldNames({ names, shown: (n) => now[n] ?? null, start, overrides: ['timezone'] })).toEqual(['name']);
    const off: JsonObject = { ...start, interfaces: [{ pk: 1, name: 'eth0', active: false }] };
    expect(changedFieldNames({ names, shown: (n) => off[n] ?? null, start, overrides: ['timezone'] })).toEqual(['interfaces']);
  });

  test('overriding a field, or giving it back, changes it even with the same value', () => {
    expect(changedFieldNames({ names, shown: (n) => start[n] ?? null, start, overrides: ['timezone', 'capture_threads'] })).toEqual(['capture_threads']);
    expect(changedFieldNames({ names, shown: (n) => start[n] ?? null, start, overrides: [] })).toEqual(['timezone']);
  });

  test('values in a sentence', () => {
    expect(displayValue(8)).toBe('8');
    expect(displayValue('')).toBe('(empty)');
    expect(displayValue(null)).toBe('(none)');
    expect(displayValue(true)).toBe('yes');
    expect(displayValue([])).toBe('(none)');
    expect(displayValue([{ pk: 3, name: 'eth0', active: true }, { name: 'eth1', active: false }])).toBe('eth0, eth1 (off)');
  });
});

describe('field messages match the field', () => {
  test('an address field that takes host names says so in the API’s refusal', async () => {
    const { fieldMessages } = await import('../../renderer/src/components/resourceFormModel');
    expect(fieldMessages({ kind: 'string', format: 'address' }, ['Enter a valid IPv4 or IPv6 address.'])).toEqual([
      'Enter a valid IPv4 or IPv6 address, or a host name (probe-1.example.com).',
    ]);
    expect(fieldMessages({ kind: 'string' }, ['Enter a valid IPv4 or IPv6 address.'])).toEqual(['Enter a valid IPv4 or IPv6 address.']);
    expect(fieldMessages({ kind: 'string', format: 'address' }, ['This field may not be blank.'])).toEqual(['This field may not be blank.']);
  });
});
