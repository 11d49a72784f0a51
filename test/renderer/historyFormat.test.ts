/** The History screen's pure helpers (renderer/src/screens/historyFormat.ts). */
import { describe, expect, test } from 'vitest';
import { actionTitle, changedResource, dayOf, descriptionParts, linkedObjects, objectFilterText, objectRoute } from '../../renderer/src/screens/historyFormat';

describe('history helpers', () => {
  test('linked objects open their screen while they exist, and plain values never link', () => {
    const objects = linkedObjects({ appliance: { type: 'vendor_probe', pk: 7, value: 'lyon-edge' }, gone: { type: 'engine_probe', value: 'old' }, count: { value: 12 } });
    expect(objects.map(objectRoute)).toEqual(['/probes/vendor/7', undefined, undefined]);
    expect(objectRoute({ type: 'vendor_probe_template', pk: 3 })).toBe('/templates/3');
    expect(objectRoute({ type: 'ruleset', pk: 3 })).toBeUndefined();
  });

  test('a description is its template with the user and the objects put in, objects as parts of their own', () => {
    const objects = linkedObjects({ appliance: { type: 'vendor_probe', pk: 7, value: 'lyon-edge' }, count: { value: 12 } });
    expect(descriptionParts('{user} has edited probe {appliance}', 'marie', objects)).toEqual([
      { text: 'marie' },
      { text: ' has edited probe ' },
      { object: { key: 'appliance', type: 'vendor_probe', pk: 7, value: 'lyon-edge' } },
    ]);
    expect(descriptionParts('{user} has imported {count} host identities', 'marie', objects)).toEqual([{ text: 'marie' }, { text: ' has imported ' }, { text: '12' }, { text: ' host identities' }]);
    expect(descriptionParts('{user} has deleted template {template}', 'marie', objects)).toBeUndefined();
  });

  test('action titles are in the app’s words: a probe, not an appliance, also for actions the app does not know', () => {
    expect(actionTitle('edit_appliance', 'Edit Appliance')).toBe('Probe edited');
    expect(actionTitle('edit_user_token', 'Edit User Token')).toBe('Token regenerated');
    expect(actionTitle('sync_pull', 'Sync Pull')).toBe('Changes pulled');
    expect(actionTitle('restart_appliance', 'Restart Appliance')).toBe('Restart Probe');
    expect(actionTitle('reload_rules')).toBe('reload rules');
  });

  test('an entry’s day is its UTC date, for the range filter; the object filter reads in words', () => {
    expect(dayOf('2026-11-21T23:59:59.999999Z')).toBe('2026-11-21');
    expect(dayOf('yesterday')).toBeUndefined();
    expect(dayOf(null)).toBeUndefined();
    expect(objectFilterText('vendor_probe:7')).toBe('vendor probe 7');
    expect(objectFilterText('vendor_probe_template:-2')).toBe('template -2');
  });

  test('an entry’s changes name the fields of its first linked object’s type', () => {
    expect(changedResource({ count: { value: 3 }, appliance: { type: 'vendor_probe', pk: 7, value: 'p' } })).toBe('vendor_probe');
  });
});
