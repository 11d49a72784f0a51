/**
 * Connect a standalone workspace (issue 25 §1): what the Sync screen shows of a connect plan
 * (shared/sync/connect.ts), the decisions on its collisions and the request they make. Pure:
 * tested directly with hand-made plans (test/renderer/connectModel.test.ts).
 */
import { CONNECTED_RESOURCES, DEFAULT_COLLISION_DECISION, itemKey, type ConnectDecision, type ConnectItem, type ConnectPlan, type ConnectRequest } from '../../../shared/sync/connect';
import type { PushMode } from '../../../shared/sync/review';
import { countText } from '../components/countText';
import { plural } from './syncFormat';

export type Decisions = Readonly<Record<string, ConnectDecision>>;

/** Every collision starts at the default: the central object, my differing values queued for review (nothing lost). */
export function initialDecisions(plan: Pick<ConnectPlan, 'items'>): Decisions {
  return Object.fromEntries(plan.items.filter((i) => i.match === 'collision').map((i) => [itemKey(i), DEFAULT_COLLISION_DECISION]));
}

export interface PlanGroups {
  readonly create: readonly ConnectItem[];
  readonly same: readonly ConnectItem[];
  readonly collision: readonly ConnectItem[];
}

export function groupsOf(plan: Pick<ConnectPlan, 'items'>): PlanGroups {
  return {
    create: plan.items.filter((i) => i.match === 'create'),
    same: plan.items.filter((i) => i.match === 'same'),
    collision: plan.items.filter((i) => i.match === 'collision'),
  };
}

/**
 * Why the decisions cannot be sent, by item key: a rename needs a name that is neither empty,
 * nor the name of another object of its kind in the plan (here or there), nor another rename's.
 */
export function decisionErrors(plan: Pick<ConnectPlan, 'items'>, decisions: Decisions): Record<string, string> {
  const errors: Record<string, string> = {};
  const taken = new Map<string, Set<string>>();
  for (const item of plan.items) (taken.get(item.resource) ?? taken.set(item.resource, new Set()).get(item.resource)!).add(item.name);
  const renamed = new Map<string, string>();
  for (const item of plan.items) {
    const key = itemKey(item);
    const decision = decisions[key];
    if (decision?.use !== 'rename') continue;
    const name = decision.name.trim();
    const twin = `${item.resource}\n${name}`;
    if (name === '') errors[key] = 'Give the new name.';
    else if (taken.get(item.resource)!.has(name)) errors[key] = `“${name}” is already a name of this kind, here or on the central server.`;
    else if (renamed.has(twin)) errors[key] = `Another object is renamed “${name}” too.`;
    renamed.set(twin, key);
  }
  return errors;
}

/** The connect request: the plan's central hash, a decision for each collision, the push mode. */
export function connectRequest(plan: Pick<ConnectPlan, 'items' | 'central' | 'remote'>, decisions: Decisions, pushMode: PushMode): ConnectRequest {
  const chosen: Record<string, ConnectDecision> = {};
  for (const item of plan.items) {
    const key = itemKey(item);
    const decision = decisions[key] ?? (item.match === 'collision' ? DEFAULT_COLLISION_DECISION : undefined);
    if (decision === undefined) continue;
    chosen[key] = decision.use === 'rename' ? { use: 'rename', name: decision.name.trim() } : decision;
  }
  return { remote: plan.remote.name, central: plan.central, decisions: chosen, pushMode };
}

const KIND_TEXT: Readonly<Record<(typeof CONNECTED_RESOURCES)[number], readonly [string, string]>> = {
  source: ['source', 'sources'],
  ruleset: ['ruleset', 'rulesets'],
  vendor_probe_template: ['template', 'templates'],
  vendor_probe: ['vendor probe', 'vendor probes'],
  engine_probe: ['engine probe', 'engine probes'],
};

/** What else connecting does, one sentence each. */
export function countLines(plan: Pick<ConnectPlan, 'centralCounts' | 'hosts' | 'localHistory' | 'localUsers'>): string[] {
  const total = CONNECTED_RESOURCES.reduce((sum, r) => sum + (plan.centralCounts[r] ?? 0), 0);
  const parts = CONNECTED_RESOURCES.filter((r) => (plan.centralCounts[r] ?? 0) > 0).map((r) => `${countText(plan.centralCounts[r])} ${KIND_TEXT[r][plan.centralCounts[r] === 1 ? 0 : 1]}`);
  return [
    total === 0 ? 'The central server holds no objects yet: nothing is pulled.' : `${countText(total)} ${total === 1 ? 'object' : 'objects'} of the central server will be pulled (${parts.join(', ')}).`,
    `${plural(plan.hosts, 'host identity', 'host identities')} kept here as local evidence: no pull erases them.`,
    `${plural(plan.localHistory, 'history entry', 'history entries')} and ${plural(plan.localUsers, 'user', 'users')} stay local.`,
  ];
}

/** What a decision does, in words (the radio's description). */
export function decisionText(decision: ConnectDecision): string {
  switch (decision.use) {
    case 'central':
      return decision.mine === 'queue' ? 'Use the central object; my differing values are queued as changes to review.' : 'Use the central object; my differing values are dropped.';
    case 'rename':
      return 'Keep mine under another name: it is created on the central server.';
    default:
      return 'Leave mine out: it is not sent and leaves this workspace (the copy kept before connecting still has it).';
  }
}
