/**
 * The pure decisions of a review plan (shared/sync/reviewPlan.ts) and the checks of what applying
 * takes (shared/sync/applyRequest.ts), on hand-made entries and trees.
 */
import { describe, expect, test } from 'vitest';
import { checkChoices, MAX_APPLY_ENTRIES, planFileChoices } from '../../shared/sync/applyRequest';
import { withDependencies } from '../../shared/sync/review';
import { centralFingerprint, deleteFields, needsOf, reachOf, updateFields, type CentralTree, type WaitingEntry } from '../../shared/sync/reviewPlan';

function entry(seq: number, op: WaitingEntry['op'], resource: string, pk: number, fields: WaitingEntry['fields'] = {}, base: WaitingEntry['base'] = {}): WaitingEntry {
  return { seq, op, resource, pk, fields, base, comment: null, state: 'pending' };
}

describe('what a template change reaches on the central server (api.md §4)', () => {
  // Root 1 ─┬─ template 2 "Branches" (overrides timezone) ─┬─ probe 20 "b-1"
  //         │                                              └─ template 3 "Lyon" (overrides nothing; no probe) ── probe 30 "lyon-1"
  //         ├─ template 4 "Shops" (has a probe: protocols stop there) ── probe 40 "shop-1" (overrides capture_threads)
  //         ├─ probe 10 "root-own" (overrides capture_threads, protocols)
  //         └─ probe 11 "root-follows"
  const tree: CentralTree = {
    templates: [
      { pk: 2, name: 'Branches', parent: 1, overrides: ['timezone'] },
      { pk: 3, name: 'Lyon', parent: 2, overrides: [] },
      { pk: 4, name: 'Shops', parent: 1, overrides: [] },
    ],
    probes: [
      { pk: 20, name: 'b-1', parent: 2, overrides: [] },
      { pk: 30, name: 'lyon-1', parent: 3, overrides: [] },
      { pk: 40, name: 'shop-1', parent: 4, overrides: ['capture_threads'] },
      { pk: 10, name: 'root-own', parent: 1, overrides: ['capture_threads', 'protocols'] },
      { pk: 11, name: 'root-follows', parent: 1, overrides: [] },
    ],
  };

  test('a field reaches every probe and template below that does not override it, through the templates that take it', () => {
    const [threads] = reachOf(1, ['capture_threads'], tree);
    // Probes: b-1, lyon-1, root-follows (root-own and shop-1 override it). Templates: Branches, Lyon, Shops.
    expect(threads).toEqual({
      field: 'capture_threads',
      probes: 3,
      templates: 3,
      objects: [
        { resource: 'vendor_probe_template', pk: 2, name: 'Branches' },
        { resource: 'vendor_probe_template', pk: 3, name: 'Lyon' },
        { resource: 'vendor_probe_template', pk: 4, name: 'Shops' },
        { resource: 'vendor_probe', pk: 20, name: 'b-1' },
        { resource: 'vendor_probe', pk: 30, name: 'lyon-1' },
        { resource: 'vendor_probe', pk: 11, name: 'root-follows' },
      ],
    });
  });

  test('an overriding template stops the field for everything below it', () => {
    const [timezone] = reachOf(1, ['timezone'], tree);
    // Branches overrides timezone: neither it, nor b-1, Lyon, lyon-1 take it. Shops, shop-1, root-own, root-follows do.
    expect(timezone!.probes).toBe(3);
    expect(timezone!.templates).toBe(1);
    expect(timezone!.objects.map((o) => o.name)).toEqual(['Shops', 'root-follows', 'root-own', 'shop-1']);
  });

  test('protocols do not reach a child template that is the parent of a probe (rule 5)', () => {
    const [protocols] = reachOf(1, ['protocols'], tree);
    // Branches has probe b-1 and Shops has shop-1: both stopped with their subtrees; Lyon is below Branches.
    // Only root-follows takes them (root-own overrides protocols).
    expect(protocols).toEqual({ field: 'protocols', probes: 1, templates: 0, objects: [{ resource: 'vendor_probe', pk: 11, name: 'root-follows' }] });
  });

  test('fields that are not inheritable reach nothing, and a looping tree ends', () => {
    expect(reachOf(1, ['name', 'descr'], tree)).toEqual([]);
    const loop: CentralTree = { templates: [{ pk: 2, name: 'a', parent: 1, overrides: [] }, { pk: 1, name: 'root again', parent: 2, overrides: [] }], probes: [] };
    expect(reachOf(1, ['timezone'], loop)[0]!.templates).toBe(1);
  });

  test('at most 50 objects are listed, all are counted', () => {
    const many: CentralTree = { templates: [], probes: Array.from({ length: 120 }, (_, i) => ({ pk: 100 + i, name: `p-${String(i).padStart(3, '0')}`, parent: 1, overrides: [] })) };
    const [reach] = reachOf(1, ['ntp_server'], many);
    expect(reach!.probes).toBe(120);
    expect(reach!.objects).toHaveLength(50);
    expect(reach!.objects[0]!.name).toBe('p-000');
  });
});

describe('the fields of an entry against the central server, with the push merge', () => {
  test('now → after per field: sent, already so, or in conflict when a colleague changed it', () => {
    const update = entry(1, 'update', 'vendor_probe', 5, { location: 'rack 4', descr: 'new', timezone: 'UTC' }, { location: 'hall B', descr: 'old', timezone: 'Europe/Paris' });
    const theirs = { pk: 5, location: 'rack 9', descr: 'old', timezone: 'UTC' };
    expect(updateFields(update, theirs)).toEqual([
      { field: 'location', now: 'rack 9', after: 'rack 4', base: 'hall B', outcome: 'conflict' },
      { field: 'descr', now: 'old', after: 'new', base: 'old', outcome: 'send' },
      { field: 'timezone', now: 'UTC', after: 'UTC', base: 'Europe/Paris', outcome: 'same' },
    ]);
  });

  test('a delete conflicts on a field changed there since the base, not on the server’s own times', () => {
    const remove = entry(2, 'delete', 'source', 7, {}, { pk: 7, name: 'et', uri: 'https://a', updated_date: '2024-01-01T00:00:00Z' });
    const fields = deleteFields(remove, { pk: 7, name: 'et', uri: 'https://b', updated_date: '2025-01-01T00:00:00Z' });
    expect(fields).toEqual([
      { field: 'name', now: 'et', after: null, base: 'et', outcome: 'send' },
      { field: 'uri', now: 'https://b', after: null, base: 'https://a', outcome: 'conflict' },
    ]);
  });

  test("an update's central fingerprint covers its own fields only; a create's, whether the name is free", () => {
    const update = entry(1, 'update', 'vendor_probe', 5, { location: 'x' }, { location: 'y' });
    expect(centralFingerprint(update, { location: 'a', descr: 'b' })).toBe(centralFingerprint(update, { location: 'a', descr: 'changed' }));
    expect(centralFingerprint(update, { location: 'a' })).not.toBe(centralFingerprint(update, { location: 'b' }));
    const create = entry(2, 'create', 'source', -1, { name: 'n' });
    expect(centralFingerprint(create, undefined)).not.toBe(centralFingerprint(create, { pk: 3, name: 'n' }));
  });
});

describe('which entries must go before which', () => {
  test('earlier entries of the same object, and the creates of the local objects an entry names', () => {
    const entries = [
      entry(1, 'create', 'vendor_probe_template', -1, { name: 'T' }),
      entry(2, 'update', 'vendor_probe', 8, { location: 'a' }, { location: 'b' }),
      entry(3, 'create', 'vendor_probe', -2, { name: 'p', parent_tmpl: -1 }),
      entry(4, 'update', 'vendor_probe', 8, { descr: 'c' }, { descr: 'd' }),
      // Both probe families share one table and pk sequence.
      entry(5, 'delete', 'engine_probe', 8, {}, {}),
    ];
    const needs = needsOf(entries);
    expect(Object.fromEntries(needs)).toEqual({ 1: [], 2: [], 3: [1], 4: [2], 5: [2, 4] });
    expect(withDependencies(entries.map((e) => ({ seq: e.seq, needs: needs.get(e.seq)! })), [3, 5])).toEqual([1, 2, 3, 4, 5]);
  });
});

describe('what applying takes, checked as hostile input', () => {
  const hash = 'a'.repeat(64);
  test('seqs positive and once, hashes 64 lowercase hex digits, at most 100,000 entries', () => {
    expect(checkChoices([{ seq: 3, hash, central: hash, extra: 'ignored' }])).toEqual({ ok: true, value: [{ seq: 3, hash, central: hash }] });
    expect(checkChoices({})).toEqual({ ok: false, error: 'entries must be a list' });
    expect(checkChoices([{ seq: -1, hash, central: hash }])).toMatchObject({ ok: false, error: 'entry 1: seq must be a positive whole number' });
    expect(checkChoices([{ seq: 1.5, hash, central: hash }])).toMatchObject({ ok: false });
    expect(checkChoices([{ seq: 1, hash: 'A'.repeat(64), central: hash }])).toMatchObject({ ok: false, error: 'entry 1: hash must be 64 lowercase hex digits' });
    expect(checkChoices([{ seq: 1, hash, central: 'abc' }])).toMatchObject({ ok: false, error: 'entry 1: central must be 64 lowercase hex digits' });
    expect(checkChoices([{ seq: 1, hash, central: hash }, { seq: 1, hash, central: hash }])).toMatchObject({ ok: false, error: 'entry 1 is named twice' });
    expect(checkChoices(new Array(MAX_APPLY_ENTRIES + 1).fill(null))).toMatchObject({ ok: false, error: `at most ${MAX_APPLY_ENTRIES} entries at once, not ${MAX_APPLY_ENTRIES + 1}` });
  });

  test('a plan file: JSON, its format and version, the workspace and remote it names', () => {
    const plan = { format: 'outpost-sync-plan', version: 1, workspace: 'site', remote: { name: 'central', url: 'x' }, entries: [{ seq: 2, hash, central: hash }] };
    expect(planFileChoices(JSON.stringify(plan))).toEqual({ ok: true, value: { workspace: 'site', remote: 'central', entries: [{ seq: 2, hash, central: hash }] } });
    expect(planFileChoices('{"format": ')).toEqual({ ok: false, error: 'it is not JSON' });
    expect(planFileChoices(JSON.stringify({ ...plan, format: 'other' }))).toMatchObject({ ok: false, error: 'it is not a sync plan (format "outpost-sync-plan" expected)' });
    expect(planFileChoices(JSON.stringify({ ...plan, version: 2 }))).toMatchObject({ ok: false });
    expect(planFileChoices(JSON.stringify({ ...plan, remote: 'central' }))).toMatchObject({ ok: false, error: 'it names no workspace or remote' });
  });
});
