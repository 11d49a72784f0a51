/** The History screen's pure helpers (renderer/src/screens/historyFormat.ts). */
import { describe, expect, test } from 'vitest';
import { descriptionParts, linkedObjects, objectRoute } from '../../renderer/src/screens/historyFormat';

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
});
