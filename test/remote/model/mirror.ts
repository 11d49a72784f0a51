/**
 * The workspace's mirror against the central server (no I/O). After a sync, every object of
 * the central server is shown by the workspace exactly as the central server has it (the same
 * API JSON, timestamps and interface pks included) unless a local change still waits for it:
 * its own outbox entry, or one of a template it inherits from, of an interface it loses, of a
 * source or ruleset it refers to. Objects made here (negative pks) each have their creation
 * waiting. After the final clean sync nothing waits, and the two sides are equal, all of them.
 */
import { describe, differences, ENDPOINTS, type Endpoint, itemPks, type Obj, same, type Snapshot } from './objects';
import type { Entry } from './outbox';

/** Objects whose local copy may differ from the central server's because of waiting local changes. */
export function dirtyObjects(local: Snapshot, remote: Snapshot, entries: readonly Entry[]): Set<string> {
  const dirty = new Set(entries.filter((e) => e.resource !== 'network_interface').map((e) => `${e.resource}:${e.pk}`));
  const deleting = new Set(entries.filter((e) => e.op === 'delete').map((e) => `${e.resource}:${e.pk}`));
  const interfaces = new Set(entries.filter((e) => e.resource === 'network_interface').map((e) => e.pk));
  const owners = ['vendor_probe_template', 'vendor_probe'] as const;
  for (const side of [local, remote]) {
    for (const endpoint of owners) {
      for (const object of side[endpoint].values()) {
        if ([...itemPks(object.interfaces).values()].some((pk) => interfaces.has(pk))) dirty.add(`${endpoint}:${object.pk}`);
      }
    }
    for (const ruleset of side.ruleset.values()) {
      if (Array.isArray(ruleset.sources) && ruleset.sources.some((pk) => deleting.has(`source:${pk}`))) dirty.add(`ruleset:${ruleset.pk}`);
    }
    for (const probe of side.engine_probe.values()) if (deleting.has(`ruleset:${probe.ruleset}`)) dirty.add(`engine_probe:${probe.pk}`);
  }
  // Children show what their (local) template shows.
  for (let grew = true; grew; ) {
    grew = false;
    for (const side of [local, remote]) {
      for (const endpoint of owners) {
        for (const object of side[endpoint].values()) {
          const key = `${endpoint}:${object.pk}`;
          if (!dirty.has(key) && dirty.has(`vendor_probe_template:${object.parent_tmpl}`)) {
            dirty.add(key);
            grew = true;
          }
        }
      }
    }
  }
  return dirty;
}

export function mirrorViolations(ws: string, local: Snapshot, remote: Snapshot, entries: readonly Entry[]): string[] {
  const out: string[] = [];
  const dirty = dirtyObjects(local, remote, entries);
  for (const endpoint of ENDPOINTS) {
    for (const [pk, object] of local[endpoint]) {
      const what = describe(endpoint, object, pk);
      if (pk < 0) {
        if (!entries.some((e) => e.op === 'create' && e.resource === endpoint && e.pk === pk)) out.push(`${ws} shows ${what}, made here, with no creation waiting in its outbox`);
        continue;
      }
      const theirs = remote[endpoint].get(pk);
      if (!theirs) out.push(`${ws} still shows ${what}, which the central server does not have`);
      else if (!dirty.has(`${endpoint}:${pk}`) && !same(object, theirs)) {
        out.push(`${ws}'s copy of ${what} differs from the central server's, and no local change waits for it: ${differences(object, theirs).join('; ')}`);
      }
    }
    for (const [pk, object] of remote[endpoint]) {
      if (!local[endpoint].has(pk) && !entries.some((e) => e.op === 'delete' && e.resource === endpoint && e.pk === pk)) {
        out.push(`${ws} lacks ${describe(endpoint, object, pk)} of the central server, and deletes nothing of that pk`);
      }
    }
  }
  return out;
}

/** Exact equality of every object of every pushed endpoint. */
export function equalityViolations(ws: string, local: Snapshot, remote: Snapshot): string[] {
  const out: string[] = [];
  for (const endpoint of ENDPOINTS) {
    for (const pk of new Set([...local[endpoint].keys(), ...remote[endpoint].keys()])) {
      const mine: Obj | undefined = local[endpoint].get(pk);
      const theirs: Obj | undefined = remote[endpoint].get(pk);
      if (!mine) out.push(`${ws} lacks ${describe(endpoint, theirs, pk)}`);
      else if (!theirs) out.push(`${ws} has ${describe(endpoint, mine, pk)}, which the central server does not`);
      else if (!same(mine, theirs)) out.push(`${ws}'s ${describe(endpoint as Endpoint, mine, pk)} differs: ${differences(mine, theirs).join('; ')}`);
    }
  }
  return out;
}

/** (a) Names are unique per endpoint on one side. */
export function duplicateNames(side: string, snapshot: Snapshot): string[] {
  const out: string[] = [];
  for (const endpoint of ENDPOINTS) {
    const seen = new Map<string, number>();
    for (const [pk, object] of snapshot[endpoint]) {
      const name = String(object.name);
      const other = seen.get(name);
      if (other !== undefined) out.push(`${side} has two ${endpoint} objects named ${JSON.stringify(name)} (pks ${other} and ${pk})`);
      seen.set(name, pk);
    }
  }
  return out;
}
