/**
 * The invariants of the model-based sync test (test/remote/model/*) on hand-made states: each one
 * holds where the sync did its job, and fails where it lost, duplicated or overwrote a change.
 * (The model test is only as good as these checks: they must be able to fail.)
 */
import { describe, expect, test } from 'vitest';
import { WorkspaceModel } from './model/intents';
import { equalityViolations, mirrorViolations } from './model/mirror';
import { type Endpoint, type Obj, snapshotOf, type Snapshot } from './model/objects';
import { type Entry, heldEntries, outboxViolations } from './model/outbox';
import { mulberry32 } from './model/prng';

function template(pk: number, name: string, fields: Obj = {}): Obj {
  return { pk, name, descr: '', parent_tmpl: null, overriden_fields: [], ntp_server: '', interfaces: [], protocols: [], created: 'c', updated: 'u', ...fields };
}

function state(objects: Partial<Record<Endpoint, Obj[]>>): Snapshot {
  return snapshotOf({ source: [], ruleset: [], vendor_probe_template: [], vendor_probe: [], engine_probe: [], ...objects });
}

function entry(seq: number, fields: Partial<Entry>): Entry {
  return { seq, op: 'update', resource: 'vendor_probe_template', pk: 1, state: 'pending', fields: {}, conflicts: [], message: null, ...fields };
}

/** A workspace model that has pulled `initial`. */
function pulled(initial: Snapshot): WorkspaceModel {
  const model = new WorkspaceModel('A');
  expect(model.afterSync(initial, initial, [])).toEqual([]);
  return model;
}

const T = 'vendor_probe_template' as const;

describe('the seeded random numbers', () => {
  test('the same seed gives the same sequence, another seed another one', () => {
    const draw = (seed: number) => {
      const rng = mulberry32(seed);
      return Array.from({ length: 5 }, () => rng.int(0, 1000));
    };
    expect(draw(7)).toEqual(draw(7));
    expect(draw(7)).not.toEqual(draw(8));
  });
});

describe('the outbox after a completed sync', () => {
  test('a pending change behind a conflict of the same object is held; one of another object is not', () => {
    const entries = [entry(1, { state: 'conflict', fields: { descr: 'a' } }), entry(2, { fields: { ntp_server: 'x' } }), entry(3, { pk: 2, fields: { descr: 'b' } })];
    expect([...heldEntries(entries)]).toEqual([2]);
    expect(outboxViolations(entries)).toEqual([expect.stringContaining('outbox entry 3 (update vendor_probe_template 2) is pending after a completed sync')]);
  });

  test('an entry still sending, or waiting for a creation that is gone, is a stuck queue', () => {
    expect(outboxViolations([entry(1, { op: 'create', pk: -1, state: 'sending', fields: { name: 'x' } })])).toEqual([expect.stringContaining('still "sending"')]);
    expect(outboxViolations([entry(4, { resource: 'vendor_probe', pk: 9, fields: { parent_tmpl: -3 } })])).toEqual([
      expect.stringContaining('waits for the creation of vendor_probe_template -3, which is not in the outbox'),
    ]);
  });
});

describe('no lost change', () => {
  const before = state({ vendor_probe_template: [template(1, 't1', { descr: 'old' })] });

  test('a local change that reached the central server is settled', () => {
    const model = pulled(before);
    model.updated(T, template(1, 't1', { descr: 'old' }), template(1, 't1', { descr: 'new' }), ['descr'], 1);
    const after = state({ vendor_probe_template: [template(1, 't1', { descr: 'new' })] });
    expect(model.afterSync(before, after, [])).toEqual([]);
    expect(model.pending()).toEqual([]);
  });

  test('a local change neither on the central server nor in the outbox is lost', () => {
    const model = pulled(before);
    model.updated(T, template(1, 't1', { descr: 'old' }), template(1, 't1', { descr: 'new' }), ['descr'], 1);
    expect(model.afterSync(before, before, [])).toEqual([expect.stringContaining('lost change: A\'s change of vendor_probe_template 1 descr to "new"')]);
  });

  test('a local change kept as a conflict is not lost, and still waits', () => {
    const model = pulled(before);
    model.updated(T, template(1, 't1', { descr: 'old' }), template(1, 't1', { descr: 'new' }), ['descr'], 1);
    const theirs = state({ vendor_probe_template: [template(1, 't1', { descr: 'theirs' })] });
    const conflict = entry(1, { state: 'conflict', fields: { descr: 'new' } });
    expect(model.afterSync(theirs, theirs, [conflict])).toEqual([]);
    expect(model.pending()).toHaveLength(1);
  });

  test('a deletion that reached the central server settles; one that did not, silently, is lost', () => {
    const model = pulled(before);
    model.deleted(T, 1, 1);
    expect(model.afterSync(before, state({}), [])).toEqual([]);
    const other = pulled(before);
    other.deleted(T, 1, 1);
    expect(other.afterSync(before, before, [])).toEqual([expect.stringContaining('lost deletion')]);
  });
});

describe('the order of changes kept in the outbox', () => {
  test('a value already on the central server, whose change waits behind an older conflict, still comes after "mine"', () => {
    const initial = state({ vendor_probe_template: [template(1, 't1', { descr: 'old' })] });
    const model = pulled(initial);
    model.updated(T, template(1, 't1', { descr: 'old' }), template(1, 't1', { descr: 'mine' }), ['descr'], 1);
    model.carriedBy(1, 1);
    const theirs = state({ vendor_probe_template: [template(1, 't1', { descr: 'theirs' })] });
    const conflict = entry(1, { state: 'conflict', fields: { descr: 'mine' }, conflicts: [{ field: 'descr', base: 'old', mine: 'mine', theirs: 'theirs' }] });
    expect(model.afterSync(theirs, theirs, [conflict])).toEqual([]);
    // Later, the user writes what the central server has; then keeps "mine" in the old conflict.
    model.updated(T, template(1, 't1', { descr: 'mine' }), template(1, 't1', { descr: 'theirs' }), ['descr'], 2);
    model.carriedBy(2, 2);
    const later = entry(2, { state: 'pending', fields: { descr: 'theirs' } });
    expect(model.afterSync(theirs, theirs, [conflict, later])).toEqual([]);
    model.resolved(conflict, 'descr', 'mine', 3);
    // Entry 1 then entry 2 are pushed: the central server ends with the later write.
    expect(model.afterSync(theirs, theirs, [])).toEqual([]);
    expect(model.pending()).toEqual([]);
  });
});

describe('no lost update of others', () => {
  test('a child\'s inherited value that came from this workspace\'s own template change is what it based its change on', () => {
    const initial = state({ vendor_probe_template: [template(1, 't1', { ntp_server: 'a' }), template(2, 't2', { parent_tmpl: 1, ntp_server: 'a' })] });
    const model = pulled(initial);
    model.updated(T, template(1, 't1', { ntp_server: 'a' }), template(1, 't1', { ntp_server: 'b' }), ['ntp_server'], 1);
    // Here t2 inherited "b"; the user overrides it with "c". Meanwhile the central server got "b" (the same change, by someone else).
    model.updated(T, template(2, 't2', { parent_tmpl: 1, ntp_server: 'b' }), template(2, 't2', { parent_tmpl: 1, ntp_server: 'c', overriden_fields: ['ntp_server'] }), ['ntp_server', 'overriden_fields'], 2);
    const meanwhile = state({ vendor_probe_template: [template(1, 't1', { ntp_server: 'b' }), template(2, 't2', { parent_tmpl: 1, ntp_server: 'b' })] });
    const after = state({ vendor_probe_template: [template(1, 't1', { ntp_server: 'b' }), template(2, 't2', { parent_tmpl: 1, ntp_server: 'c', overriden_fields: ['ntp_server'] })] });
    expect(model.afterSync(meanwhile, after, [])).toEqual([]);
    // Had the central server changed t2's value to something this workspace never showed, it is caught.
    const other = pulled(initial);
    other.updated(T, template(1, 't1', { ntp_server: 'a' }), template(1, 't1', { ntp_server: 'b' }), ['ntp_server'], 1);
    other.updated(T, template(2, 't2', { parent_tmpl: 1, ntp_server: 'b' }), template(2, 't2', { parent_tmpl: 1, ntp_server: 'c', overriden_fields: ['ntp_server'] }), ['ntp_server', 'overriden_fields'], 2);
    const elsewhere = state({ vendor_probe_template: [template(1, 't1', { ntp_server: 'b' }), template(2, 't2', { parent_tmpl: 1, ntp_server: 'z', overriden_fields: ['ntp_server'] })] });
    expect(other.afterSync(elsewhere, after, [])).toEqual([expect.stringContaining('A overwrote vendor_probe_template "t2" (pk 2) ntp_server without a conflict')]);
  });

  test('writing over a value changed on the central server since the last pull, without a conflict, is caught', () => {
    const pulledState = state({ vendor_probe_template: [template(1, 't1', { descr: 'old' })] });
    const model = pulled(pulledState);
    model.updated(T, template(1, 't1', { descr: 'old' }), template(1, 't1', { descr: 'mine' }), ['descr'], 1);
    const changedByOthers = state({ vendor_probe_template: [template(1, 't1', { descr: 'theirs' })] });
    const after = state({ vendor_probe_template: [template(1, 't1', { descr: 'mine' })] });
    expect(model.afterSync(changedByOthers, after, [])).toEqual([expect.stringContaining('A overwrote vendor_probe_template "t1" (pk 1) descr without a conflict')]);
  });

  test('a change on the central server during the sync that no local change asks for is caught', () => {
    const initial = state({ vendor_probe_template: [template(1, 't1', { ntp_server: 'a' })] });
    const model = pulled(initial);
    const after = state({ vendor_probe_template: [template(1, 't1', { ntp_server: 'b' })] });
    expect(model.afterSync(initial, after, [])).toEqual([expect.stringContaining('ntp_server changed on the central server from "a" to "b" during A\'s sync')]);
  });

  test('a child following its template is no change of its own', () => {
    const initial = state({ vendor_probe_template: [template(1, 't1', { ntp_server: 'a' }), template(2, 't2', { parent_tmpl: 1, ntp_server: 'a' })] });
    const model = pulled(initial);
    model.updated(T, template(1, 't1', { ntp_server: 'a' }), template(1, 't1', { ntp_server: 'b' }), ['ntp_server'], 1);
    const after = state({ vendor_probe_template: [template(1, 't1', { ntp_server: 'b' }), template(2, 't2', { parent_tmpl: 1, ntp_server: 'b' })] });
    expect(model.afterSync(initial, after, [])).toEqual([]);
    const wrong = state({ vendor_probe_template: [template(1, 't1', { ntp_server: 'b' }), template(2, 't2', { parent_tmpl: 1, ntp_server: 'c' })] });
    expect(pulledAfterWrite().afterSync(initial, wrong, [])).toEqual([expect.stringContaining('t2" (pk 2) ntp_server changed')]);

    function pulledAfterWrite(): WorkspaceModel {
      const again = pulled(initial);
      again.updated(T, template(1, 't1', { ntp_server: 'a' }), template(1, 't1', { ntp_server: 'b' }), ['ntp_server'], 1);
      return again;
    }
  });

  test('deleting an object changed on the central server since the last pull, without a conflict, is caught', () => {
    const initial = state({ vendor_probe_template: [template(1, 't1', { descr: 'old' })] });
    const model = pulled(initial);
    model.deleted(T, 1, 1);
    const changed = state({ vendor_probe_template: [template(1, 't1', { descr: 'theirs' })] });
    expect(model.afterSync(changed, state({}), [])).toEqual([expect.stringContaining('which the central server had changed since A last pulled it (descr: "old" → "theirs")')]);
  });
});

describe('no duplicate', () => {
  test('a creation matches the one object that appeared; the pk it got carries its later changes', () => {
    const model = pulled(state({}));
    model.created(T, template(-1, 't9', { descr: 'x' }), ['name', 'descr'], 1);
    const after = state({ vendor_probe_template: [template(40, 't9', { descr: 'x' })] });
    expect(model.afterSync(state({}), after, [])).toEqual([]);
    model.updated(T, template(40, 't9', { descr: 'x' }), template(40, 't9', { descr: 'y' }), ['descr'], 2);
    expect(model.afterSync(after, state({ vendor_probe_template: [template(40, 't9', { descr: 'y' })] }), [])).toEqual([]);
  });

  test('an object that appears with no creation to explain it is a duplicate', () => {
    const model = pulled(state({}));
    model.created(T, template(-1, 't9'), ['name'], 1);
    const twice = state({ vendor_probe_template: [template(40, 't9'), template(41, 't9 copy')] });
    expect(model.afterSync(state({}), twice, [])).toEqual([expect.stringContaining('"t9 copy" (pk 41) appeared on the central server during A\'s sync, and no creation of A explains it')]);
  });

  test('a creation that left the outbox with nothing created is lost', () => {
    const model = pulled(state({}));
    model.created(T, template(-1, 't9'), ['name'], 1);
    expect(model.afterSync(state({}), state({}), [])).toEqual([expect.stringContaining('creation of vendor_probe_template "t9" (step 1) left its outbox')]);
  });
});

describe('the mirror', () => {
  const remote = state({ vendor_probe_template: [template(1, 't1', { ntp_server: 'a' }), template(2, 't2', { parent_tmpl: 1, ntp_server: 'a' })] });

  test('an object with nothing waiting must equal the central server\'s', () => {
    const local = state({ vendor_probe_template: [template(1, 't1', { ntp_server: 'a' }), template(2, 't2', { parent_tmpl: 1, ntp_server: 'a', updated: 'later' })] });
    expect(mirrorViolations('A', local, remote, [])).toEqual([expect.stringContaining('A\'s copy of vendor_probe_template "t2" (pk 2) differs from the central server\'s, and no local change waits for it: updated')]);
  });

  test('a template with a change waiting, and its children, may differ', () => {
    const local = state({ vendor_probe_template: [template(1, 't1', { ntp_server: 'x' }), template(2, 't2', { parent_tmpl: 1, ntp_server: 'x' })] });
    expect(mirrorViolations('A', local, remote, [entry(1, { fields: { ntp_server: 'x' } })])).toEqual([]);
  });

  test('an object the central server no longer has, or one made here with no creation waiting, is a violation', () => {
    const local = state({ vendor_probe_template: [...remote.vendor_probe_template.values(), template(3, 'gone'), template(-5, 'local')] });
    expect(mirrorViolations('A', local, remote, [])).toEqual([
      expect.stringContaining('A still shows vendor_probe_template "gone" (pk 3)'),
      expect.stringContaining('A shows vendor_probe_template "local" (pk -5), made here, with no creation waiting'),
    ]);
  });

  test('after the final sync every object is equal, timestamps included', () => {
    expect(equalityViolations('A', remote, remote)).toEqual([]);
    const other = state({ vendor_probe_template: [template(1, 't1', { ntp_server: 'a', created: 'other' }), template(2, 't2', { parent_tmpl: 1, ntp_server: 'a' })] });
    expect(equalityViolations('A', other, remote)).toEqual([expect.stringContaining('created: "other" vs "c"')]);
  });
});
