/** The Review's view of a push plan (renderer/src/screens/reviewModel.ts), over hand-made plans. */
import { describe, expect, test } from 'vitest';
import type { PlanEntry, ReviewPlan } from '../../shared/sync/review';
import { allChoosable, applyChoices, applyOutcome, choosable, entryTitle, planSummary, reachText, REACH_NAMED, toggle } from '../../renderer/src/screens/reviewModel';

function entry(seq: number, label: string, over: Partial<PlanEntry> = {}): PlanEntry {
  return {
    seq,
    hash: `h${seq}`,
    central: `c${seq}`,
    op: 'update',
    resource: 'vendor_probe',
    pk: seq * 10,
    label,
    state: 'pending',
    comment: null,
    outcome: 'send',
    message: null,
    fields: [],
    reaches: [],
    needs: [],
    ...over,
  };
}

/** tmpl (1) ← probe-a (2, needs 1) ← probe-a again (3, needs 2); other (4); held (5, conflict); name (6, name_taken). */
const plan: Pick<ReviewPlan, 'entries'> = {
  entries: [
    entry(1, 'tmpl', { op: 'create', resource: 'vendor_probe_template' }),
    entry(2, 'probe-a', { op: 'create', needs: [1] }),
    entry(3, 'probe-a', { needs: [2] }),
    entry(4, 'other'),
    entry(5, 'clash', { outcome: 'conflict' }),
    entry(6, 'dup', { op: 'create', outcome: 'name_taken', message: 'A probe with this name already exists.' }),
  ],
};

describe('choosing entries of a review', () => {
  test('choosing an entry chooses what it needs, and says so', () => {
    const choice = toggle(plan, new Set(), 3, true);
    expect([...choice.chosen].sort()).toEqual([1, 2, 3]);
    expect(choice.note).toBe('Also chosen, as probe-a needs them: tmpl, probe-a.');
    expect(toggle(plan, new Set(), 4, true)).toEqual({ chosen: new Set([4]), note: null });
  });

  test('unchoosing an entry unchooses what needs it', () => {
    const choice = toggle(plan, new Set([1, 2, 3, 4]), 1, false);
    expect([...choice.chosen]).toEqual([4]);
    expect(choice.note).toBe('Also unchosen, as they need tmpl: probe-a, probe-a.');
  });

  test('the apply request names each chosen entry and its dependencies by seq, hash and central hash, in outbox order', () => {
    expect(applyChoices(plan, [3, 4])).toEqual([
      { seq: 1, hash: 'h1', central: 'c1' },
      { seq: 2, hash: 'h2', central: 'c2' },
      { seq: 3, hash: 'h3', central: 'c3' },
      { seq: 4, hash: 'h4', central: 'c4' },
    ]);
  });

  test('Send all sends what can be sent; conflicts and refusals are not choosable', () => {
    expect(allChoosable(plan)).toEqual([1, 2, 3, 4]);
    expect(choosable({ outcome: 'nothing' })).toBe(true);
    expect(['conflict', 'gone', 'name_taken', 'held'].map((outcome) => choosable({ outcome } as PlanEntry))).toEqual([false, false, false, false]);
  });
});

describe('a plan in words', () => {
  test('the summary counts entries by outcome', () => {
    expect(planSummary(plan)).toBe('6 changes to review: 4 to send, 1 in conflict, 1 with a name taken there.');
    expect(planSummary({ entries: [] })).toBe('Nothing waits for review: every change made here has been sent.');
  });

  test("a template change's reach: how many probes and templates, the first named, the rest counted", () => {
    const objects = Array.from({ length: 40 }, (_, i) => ({ resource: 'vendor_probe' as const, pk: i, name: `p${i}` }));
    const text = reachText('vendor_probe_template', { field: 'capture_threads', probes: 37, templates: 3, objects });
    expect(text).toBe(`changes Capture threads on 37 probes and 3 templates: ${objects.slice(0, REACH_NAMED).map((o) => o.name).join(', ')} and ${40 - REACH_NAMED} more`);
    expect(reachText('vendor_probe_template', { field: 'timezone', probes: 1, templates: 0, objects: [{ resource: 'vendor_probe', pk: 1, name: 'a' }] })).toBe('changes Timezone on 1 probe: a');
  });

  test('an entry is titled by its operation, kind and name', () => {
    expect(entryTitle({ op: 'create', resource: 'vendor_probe_template', label: 'Branch' })).toMatch(/^Create .*template.* Branch$/i);
    expect(entryTitle({ op: 'delete', resource: 'vendor_probe', label: 'x' })).toMatch(/^Delete .* x$/);
  });

  test('the outcome of applying: sent, and each stopped entry with its message', () => {
    const outcome = applyOutcome(plan, { applied: [1, 2], stopped: [{ seq: 4, reason: 'changed_there', message: 'Changed on the central server since the review: review again.' }] });
    expect(outcome).toEqual({
      sent: 'Sent 2 changes. 1 change stopped: review again.',
      stopped: [{ label: 'other', message: 'Changed on the central server since the review: review again.' }],
    });
    expect(applyOutcome(plan, { applied: [], stopped: [] }).sent).toBe('Nothing was sent.');
  });
});

describe('a plan that could not be made says what to try', () => {
  test('by the kind of failure the answer names, else by its status', async () => {
    const { planFailureAdvice } = await import('../../renderer/src/screens/reviewModel');
    const { syncAdvice } = await import('../../shared/app/sync');
    expect(planFailureAdvice(502, { detail: 'x', kind: 'auth' })).toBe(syncAdvice('auth'));
    expect(planFailureAdvice(502, { detail: 'unreachable' })).toBe(syncAdvice('network'));
    expect(planFailureAdvice(409, { detail: 'busy' })).toMatch(/Another sync/);
  });
});
