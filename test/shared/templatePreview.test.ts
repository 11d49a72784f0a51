/** A template's save previewed (api.md §4 over a hand-made tree; the route is test/app/templatePreview.test.ts). */
import { describe, expect, test } from 'vitest';
import { previewTemplateSave, otherChanges, type OwnerValues, type PreviewNode, type PreviewTree } from '../../shared/api/inheritancePreview';
import type { JsonValue } from '../../shared/resources';

const BASE: OwnerValues = {
  home_net: '[10.0.0.0/8]',
  external_net: '!$HOME_NET',
  capture_method: 'af_packet',
  capture_threads: 2,
  pcap_capture: false,
  log_retention_days: 30,
  ntp_server: '',
  dns_server: '',
  timezone: 'UTC',
  interfaces: [{ pk: 1, name: 'eth0', active: true }],
  protocols: [{ pk: 2, name: 'http', detection: true }],
};

const node = (pk: number, name: string, values: Partial<OwnerValues> = {}, overrides: string[] = []): PreviewNode => ({
  pk,
  name,
  overrides,
  values: { ...BASE, ...values },
});

/**
 * root (1)
 * ├─ probes: a (10), b (11, overrides capture_threads), c (12, capture_threads 8: stale but not overriding)
 * └─ child template "mid" (2, with probe d (13)), and "leaf" (3, overrides home_net, no probes)
 *    └─ mid's probe d (13)
 */
function tree(): PreviewTree {
  return {
    template: { ...node(1, 'root'), parent: null },
    parentAfter: null,
    children: new Map([
      [1, { templates: [node(2, 'mid'), node(3, 'leaf', { home_net: '[192.168.0.0/16]' }, ['home_net'])], probes: [node(10, 'a'), node(11, 'b', { capture_threads: 6 }, ['capture_threads']), node(12, 'c', { capture_threads: 8 })] }],
      [2, { templates: [], probes: [node(13, 'd')] }],
      [3, { templates: [], probes: [] }],
    ]),
  };
}

const save = (given: Partial<Record<keyof OwnerValues, JsonValue>>) => ({ parent: null, overrides: [], given });

describe('a template save previewed', () => {
  test('a changed field reaches every probe and template that does not override it, through child templates', () => {
    const { own, objects } = previewTemplateSave(tree(), save({ capture_threads: 4 }));
    expect(own).toEqual([{ field: 'capture_threads', before: 2, after: 4 }]);
    // b overrides it; a, c, mid, leaf and (through mid) d take 4.
    expect(objects.map((o) => [o.name, o.resource, o.changes])).toEqual([
      ['a', 'vendor_probe', [{ field: 'capture_threads', before: 2, after: 4 }]],
      ['c', 'vendor_probe', [{ field: 'capture_threads', before: 8, after: 4 }]],
      ['d', 'vendor_probe', [{ field: 'capture_threads', before: 2, after: 4 }]],
      ['leaf', 'vendor_probe_template', [{ field: 'capture_threads', before: 2, after: 4 }]],
      ['mid', 'vendor_probe_template', [{ field: 'capture_threads', before: 2, after: 4 }]],
    ]);
  });

  test('an object whose value already equals the new one is not listed', () => {
    const { objects } = previewTemplateSave(tree(), save({ capture_threads: 8 }));
    expect(objects.map((o) => o.name)).toEqual(['a', 'd', 'leaf', 'mid']);
  });

  test('an overridden field stops at the child that overrides it', () => {
    const { objects } = previewTemplateSave(tree(), save({ home_net: '[172.16.0.0/12]' }));
    expect(objects.map((o) => o.name)).toEqual(['a', 'b', 'c', 'd', 'mid']);
  });

  test('the protocol exception: protocols do not reach a child template that has probes, nor its probes', () => {
    const protocols = [{ name: 'dns', detection: true }];
    const { own, objects } = previewTemplateSave(tree(), save({ protocols }));
    expect(own).toEqual([{ field: 'protocols', before: [{ name: 'http', detection: true }], after: protocols }]);
    // mid has a probe: neither mid nor d; leaf has none: it takes them.
    expect(objects.map((o) => o.name)).toEqual(['a', 'b', 'c', 'leaf']);
  });

  test('items compare by name and flag in any order, and are shown without pks', () => {
    const same = [{ name: 'eth0', active: true }];
    expect(previewTemplateSave(tree(), save({ interfaces: same }))).toEqual({ own: [], objects: [] });
    const { objects } = previewTemplateSave(tree(), save({ interfaces: [{ name: 'eth0', active: false }] }));
    expect(objects[0]!.changes).toEqual([{ field: 'interfaces', before: [{ name: 'eth0', active: true }], after: [{ name: 'eth0', active: false }] }]);
  });

  test('a new parent hands down every field the template does not override (rule 3)', () => {
    const t = tree();
    const withParent: PreviewTree = { ...t, parentAfter: node(5, 'fleet', { timezone: 'Europe/Paris', capture_threads: 4 }) };
    const { own, objects } = previewTemplateSave(withParent, { parent: 5, overrides: ['capture_threads'], given: {} });
    expect(own).toEqual([{ field: 'timezone', before: 'UTC', after: 'Europe/Paris' }]);
    expect(objects.map((o) => o.name)).toEqual(['a', 'b', 'c', 'd', 'leaf', 'mid']);
    expect(objects.every((o) => o.changes.length === 1 && o.changes[0]!.field === 'timezone')).toBe(true);
  });

  test('a damaged tree with a cycle ends', () => {
    const t = tree();
    const cyclic: PreviewTree = { ...t, children: new Map([...t.children, [3, { templates: [node(1, 'root')], probes: [] }]]) };
    expect(previewTemplateSave(cyclic, save({ capture_threads: 4 })).objects.length).toBeGreaterThan(0);
  });

  test('the template’s other changed fields are listed, unchanged ones are not', () => {
    expect(otherChanges({ name: 'root', descr: '' }, { name: 'root', descr: 'site', capture_threads: 4 })).toEqual([{ field: 'descr', before: '', after: 'site' }]);
  });
});
