/** What a template save's preview says (renderer/src/screens/templatePreviewModel.ts). */
import { describe, expect, test } from 'vitest';
import type { PreviewedObject, TemplatePreview } from '../../shared/app/templatePreview';
import { PREVIEW_LISTED, previewFields, previewTitle, valueText } from '../../renderer/src/screens/templatePreviewModel';

const probe = (pk: number, name: string, changes: PreviewedObject['changes']): PreviewedObject => ({ resource: 'vendor_probe', pk, name, changes });
const label = (field: string) => (field === 'capture_threads' ? 'Capture threads' : field);

describe('a template save previewed, in words', () => {
  test('each field says how many objects it reaches and lists them before → after', () => {
    const preview: TemplatePreview = {
      own: [{ field: 'capture_threads', before: 2, after: 4 }],
      objects: [
        probe(1, 'a', [{ field: 'capture_threads', before: 2, after: 4 }]),
        probe(2, 'b', [{ field: 'capture_threads', before: 8, after: 4 }, { field: 'timezone', before: 'UTC', after: 'Europe/Paris' }]),
        { resource: 'vendor_probe_template', pk: 3, name: 'child', changes: [{ field: 'capture_threads', before: 2, after: 4 }] },
      ],
      errors: null,
    };
    expect(previewTitle(preview)).toBe('Saving this template changes 2 probes and 1 template');
    expect(previewFields(preview, label)).toEqual([
      {
        field: 'capture_threads',
        sentence: 'Saving changes Capture threads on 2 probes and 1 template',
        lines: [
          { name: 'a', before: '2', after: '4' },
          { name: 'b', before: '8', after: '4' },
          { name: 'child', before: '2', after: '4' },
        ],
        more: null,
      },
      { field: 'timezone', sentence: 'Saving changes timezone on 1 probe', lines: [{ name: 'b', before: 'UTC', after: 'Europe/Paris' }], more: null },
    ]);
  });

  test('a long list is bounded with "and N more"', () => {
    const objects = Array.from({ length: 1234 }, (_, i) => probe(i, `p${i}`, [{ field: 'capture_threads', before: 2, after: 4 }]));
    const [field] = previewFields({ own: [{ field: 'capture_threads', before: 2, after: 4 }], objects, errors: null }, label);
    expect(field!.sentence).toBe('Saving changes Capture threads on 1,234 probes');
    expect(field!.lines).toHaveLength(PREVIEW_LISTED);
    expect(field!.more).toBe(`and ${(1234 - PREVIEW_LISTED).toLocaleString('en')} more`);
  });

  test('values read as text: item lists by name, empty said so', () => {
    expect(valueText([{ name: 'eth0', active: true }, { name: 'eth1', active: false }])).toBe('eth0, eth1 (off)');
    expect(valueText([])).toBe('(none)');
    expect(valueText('')).toBe('(empty)');
    expect(valueText(null)).toBe('(empty)');
    expect(valueText(true)).toBe('true');
  });
});
