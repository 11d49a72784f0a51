/** Connecting a standalone workspace, as the Sync screen shows the plan (renderer/src/screens/connectModel.ts). */
import { describe, expect, test } from 'vitest';
import { DEFAULT_COLLISION_DECISION, type ConnectItem, type ConnectPlan } from '../../shared/sync/connect';
import { connectRequest, countLines, decisionErrors, groupsOf, initialDecisions } from '../../renderer/src/screens/connectModel';

const item = (resource: ConnectItem['resource'], pk: number, name: string, match: ConnectItem['match']): ConnectItem => ({
  resource,
  pk,
  name,
  match,
  centralPk: match === 'create' ? null : pk + 100,
  differences: match === 'collision' ? [{ field: 'capture_threads', mine: 4, central: 2 }] : [],
  referencedBy: [],
});

const plan: ConnectPlan = {
  format: 'outpost-connect-plan',
  version: 1,
  workspace: 'site',
  remote: { name: 'hq', url: 'https://hq.example' },
  made: '2026-03-10T12:00:00Z',
  central: 'abc',
  items: [
    item('vendor_probe_template', 1, 'Branch', 'collision'),
    item('vendor_probe_template', 2, 'Lab', 'create'),
    item('vendor_probe', 3, 'edge-1', 'same'),
    item('vendor_probe', 4, 'edge-2', 'collision'),
  ],
  centralCounts: { source: 0, ruleset: 2, vendor_probe_template: 5, vendor_probe: 1200, engine_probe: 0 },
  hosts: 310,
  localHistory: 42,
  localUsers: 1,
  problems: [],
};

describe('a connect plan on the Sync screen', () => {
  test('items are grouped: created there, the same there, collisions to decide', () => {
    const groups = groupsOf(plan);
    expect(groups.create.map((i) => i.name)).toEqual(['Lab']);
    expect(groups.same.map((i) => i.name)).toEqual(['edge-1']);
    expect(groups.collision.map((i) => i.name)).toEqual(['Branch', 'edge-2']);
  });

  test('each collision starts at the default decision, and the request carries the plan’s central hash', () => {
    const decisions = initialDecisions(plan);
    expect(decisions).toEqual({ 'vendor_probe_template:1': DEFAULT_COLLISION_DECISION, 'vendor_probe:4': DEFAULT_COLLISION_DECISION });
    expect(connectRequest(plan, { ...decisions, 'vendor_probe:4': { use: 'rename', name: ' edge-2b ' } }, 'review')).toEqual({
      remote: 'hq',
      central: 'abc',
      decisions: { 'vendor_probe_template:1': DEFAULT_COLLISION_DECISION, 'vendor_probe:4': { use: 'rename', name: 'edge-2b' } },
      pushMode: 'review',
    });
  });

  test('a collision without a decision takes the default in the request', () => {
    expect(connectRequest(plan, {}, 'automatic').decisions).toEqual({ 'vendor_probe_template:1': DEFAULT_COLLISION_DECISION, 'vendor_probe:4': DEFAULT_COLLISION_DECISION });
  });

  test('an object to create may be left out: the request says so for it alone', () => {
    expect(connectRequest(plan, { 'vendor_probe_template:2': { use: 'leave_out' } }, 'review').decisions).toEqual({
      'vendor_probe_template:1': DEFAULT_COLLISION_DECISION,
      'vendor_probe_template:2': { use: 'leave_out' },
      'vendor_probe:4': DEFAULT_COLLISION_DECISION,
    });
  });

  test('a rename needs a free name of its kind, and not one another rename takes', () => {
    expect(decisionErrors(plan, { 'vendor_probe:4': { use: 'rename', name: '  ' } })).toEqual({ 'vendor_probe:4': 'Give the new name.' });
    expect(Object.keys(decisionErrors(plan, { 'vendor_probe:4': { use: 'rename', name: 'edge-1' } }))).toEqual(['vendor_probe:4']);
    // A template may take a probe's name: the kinds are apart.
    expect(decisionErrors(plan, { 'vendor_probe_template:1': { use: 'rename', name: 'edge-1' } })).toEqual({});
    const twice = { 'vendor_probe_template:1': { use: 'rename', name: 'New' }, 'vendor_probe_template:2': { use: 'rename', name: 'New' } } as const;
    expect(Object.keys(decisionErrors(plan, twice))).toEqual(['vendor_probe_template:2']);
  });

  test('the counts: objects pulled by kind, hosts kept as evidence, history and users staying local', () => {
    const [pulled, hosts, local] = countLines(plan);
    expect(pulled).toBe('1,207 objects of the central server will be pulled (2 rulesets, 5 templates, 1,200 vendor probes).');
    expect(hosts).toBe('310 host identities kept here as local evidence: no pull erases them.');
    expect(local).toBe('42 history entries and 1 user stay local.');
  });
});
